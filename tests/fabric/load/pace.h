/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pacing arithmetic, pure: when packet k of a constant-rate stream is due,
 * how many are due after some time, rates, and the Poisson arrival rate
 * that offers a given load.
 *
 * Send times are computed from the start of the stream (t_k = k * bits /
 * rate), never by adding intervals, so rounding errors do not accumulate
 * and a sender that falls behind catches up to the same schedule.
 * Arithmetic is 128-bit: no overflow for any k, frame or rate.
 */
#ifndef EDGEQ_LOAD_PACE_H
#define EDGEQ_LOAD_PACE_H

#include <stdint.h>

/* Offset from the stream's start at which packet k (from 0) is due:
 * floor(k * frame_bytes * 8e9 / rate_bps) ns.  rate_bps > 0. */
uint64_t eql_pace_offset_ns(uint64_t k, uint64_t frame_bytes, uint64_t rate_bps);

/* How many packets are due within elapsed_ns of the start: the number of
 * k >= 0 with eql_pace_offset_ns(k) <= elapsed_ns (packet 0 is due at 0). */
uint64_t eql_pace_due(uint64_t elapsed_ns, uint64_t frame_bytes, uint64_t rate_bps);

/* bytes * 8 / (ns / 1e9); 0 when ns is 0. */
double eql_rate_bps(uint64_t bytes, uint64_t ns);

/* Mean gap between Poisson flow arrivals that offer `load` (a fraction of
 * link_bps) with flows of mean_bytes: mean_bytes * 8 / (load * link_bps),
 * in ns. */
double eql_interarrival_ns(double mean_bytes, double load, uint64_t link_bps);

#endif
