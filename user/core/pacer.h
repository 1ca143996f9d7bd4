/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A token-bucket pacer in bytes at a rate in bit/s.  The agent's timers
 * fire late by tens of microseconds, so the bucket holds a small burst:
 * a late call spends what fell due since the last one, in one batch, and
 * never more than the burst.
 */
#ifndef EDGEQ_PACER_H
#define EDGEQ_PACER_H

#include <stdint.h>

struct eqt_pacer {
	uint64_t	rate_bps;
	uint64_t	burst;		/* bytes the bucket holds at most */
	uint64_t	last_ns;
	int64_t		tokens_x8e9;	/* bytes * 8e9, so no fraction is lost;
					 * negative after spend(): owed */
};

void eqt_pacer_init(struct eqt_pacer *p, uint64_t rate_bps, uint64_t burst, uint64_t now);
/* Changes what the bucket holds at most; what it holds above is lost. */
void eqt_pacer_set_burst(struct eqt_pacer *p, uint64_t burst);
/* Fills the bucket up to now. */
void eqt_pacer_update(struct eqt_pacer *p, uint64_t now);
/* Takes len bytes if the bucket holds them: 1, else 0. */
int eqt_pacer_take(struct eqt_pacer *p, uint32_t len);
/* Takes as many units of `unit` bytes as the bucket holds, up to max:
 * how many it took (a PULL that grants several MTUs at once). */
uint32_t eqt_pacer_take_units(struct eqt_pacer *p, uint32_t unit, uint32_t max);
/* Takes len bytes whether the bucket holds them or not (bytes that used
 * the link without asking): it may go into debt, of one burst at most,
 * which later takes pay back. */
void eqt_pacer_spend(struct eqt_pacer *p, uint32_t len);
/* When the bucket will hold len bytes (now if it does), or, for more
 * than it can hold (its burst), when it is full: a caller that waits for
 * a batch larger than the burst then takes what there is, rather than
 * wait for ever (with eqt_pacer_take_units()). */
uint64_t eqt_pacer_when(const struct eqt_pacer *p, uint32_t len);

#endif
