// SPDX-License-Identifier: GPL-2.0-only
/* The in-flight ring (infl.h). */
#include <errno.h>
#include <stdlib.h>
#include "infl.h"

int eqt_infl_init(struct eqt_infl *f, uint32_t want, uint32_t at)
{
	uint32_t n = EQT_INFL_MIN_SLOTS;

	while (n < want && n < EQT_INFL_MAX_SLOTS)
		n *= 2;
	*f = (struct eqt_infl){ .nslots = n, .lo = at, .hi = at };
	f->slot = calloc(n, sizeof(*f->slot));
	return f->slot ? 0 : -ENOMEM;
}

void eqt_infl_fini(struct eqt_infl *f)
{
	free(f->slot);
	f->slot = NULL;
}

/* Doubles the ring: 0, or -1 at EQT_INFL_MAX_SLOTS or without memory.
 * Seqs apart by other than a multiple of the old size are apart by other
 * than a multiple of the new one: no two packets collide. */
static int grow(struct eqt_infl *f)
{
	uint32_t n = f->nslots * 2;
	struct eqt_pkt **r;

	if (n > EQT_INFL_MAX_SLOTS || !(r = calloc(n, sizeof(*r))))
		return -1;
	for (uint32_t i = 0; i < f->nslots; i++)
		if (f->slot[i])
			r[f->slot[i]->seq & (n - 1)] = f->slot[i];
	free(f->slot);
	f->slot = r;
	f->nslots = n;
	return 0;
}

struct eqt_pkt *eqt_infl_put(struct eqt_infl *f, struct eqt_pkt *p)
{
	struct eqt_pkt **slot = &f->slot[p->seq & (f->nslots - 1)], *old = NULL;

	/* A slot taken by another packet: the seqs held span more than the
	 * ring; it grows, and only at its cap is the packet there given up. */
	while (*slot && *slot != p) {
		if (grow(f)) {
			old = eqt_infl_take(f, (*slot)->seq);
			break;
		}
		slot = &f->slot[p->seq & (f->nslots - 1)];
	}
	if (*slot == p)
		return old;		/* held already */
	*slot = p;
	if (!f->n) {
		f->lo = p->seq;
		f->hi = p->seq + 1;
	} else {
		/* A resend keeps its seq, which may lie below everything
		 * still held (so may a fast send's copy that comes after
		 * later packets were ACKed). */
		if (eqt_seq_before(p->seq, f->lo))
			f->lo = p->seq;
		if (!eqt_seq_before(p->seq, f->hi))
			f->hi = p->seq + 1;
	}
	f->n++;
	f->bytes += p->len;
	return old;
}

struct eqt_pkt *eqt_infl_take(struct eqt_infl *f, uint32_t seq)
{
	struct eqt_pkt **slot = &f->slot[seq & (f->nslots - 1)], *p = *slot;

	if (!p || p->seq != seq)
		return NULL;
	*slot = NULL;
	f->n--;
	f->bytes -= p->len;
	if (!f->n)
		f->lo = f->hi;
	else if (seq == f->lo)
		while (!eqt_infl_get(f, f->lo))	/* n > 0: one is held below hi */
			f->lo++;
	return p;
}

void eqt_infl_drop_all(struct eqt_infl *f, uint32_t at,
		       void (*cb)(void *ctx, struct eqt_pkt *p), void *ctx)
{
	uint32_t s;
	struct eqt_pkt *p;

	/* In seq order: a resend keeps the order of the first send. */
	for (p = eqt_infl_first(f, &s); p; p = eqt_infl_next(f, &s))
		cb(ctx, eqt_infl_take(f, s));
	f->lo = f->hi = at;
}

struct eqt_pkt *eqt_infl_take_before(struct eqt_infl *f, uint32_t ack,
				     void (*cb)(void *ctx, struct eqt_pkt *p), void *ctx)
{
	struct eqt_pkt *newest = NULL;

	/* lo is always a held packet's seq while any is held (take()). */
	while (f->n && eqt_seq_before(f->lo, ack)) {
		struct eqt_pkt *p = eqt_infl_take(f, f->lo);

		if (newest)
			cb(ctx, newest);
		newest = p;
	}
	return newest;
}

struct eqt_pkt *eqt_infl_first(const struct eqt_infl *f, uint32_t *cursor)
{
	*cursor = f->lo;
	return f->n ? eqt_infl_get(f, f->lo) : NULL;
}

struct eqt_pkt *eqt_infl_next(const struct eqt_infl *f, uint32_t *cursor)
{
	struct eqt_pkt *p = NULL;

	while (f->n && !p && eqt_seq_before(++*cursor, f->hi))
		p = eqt_infl_get(f, *cursor);
	return p;
}
