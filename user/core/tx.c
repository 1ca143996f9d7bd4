// SPDX-License-Identifier: GPL-2.0-only
/* A sending tunnel's mechanics (tx.h). */
#include <errno.h>
#include <string.h>
#include "edgeq/wire.h"
#include "tx.h"

int eqt_tx_init(struct eqt_tx *t, uint32_t slots, uint32_t seq0)
{
	memset(t, 0, sizeof(*t));
	t->q[EQT_CLS_TCP].flows = t->tcp_flows;
	t->next_seq = seq0;
	return eqt_infl_init(&t->infl, slots, seq0);
}

static void to_pool(void *pool, struct eqt_pkt *p)
{
	eqt_pkt_put(pool, p);
}

void eqt_tx_fini(struct eqt_tx *t, struct eqt_pool *pool)
{
	eqt_infl_drop_all(&t->infl, t->next_seq, to_pool, pool);
	eqt_q_drain(&t->q[0], pool);
	eqt_q_drain(&t->q[1], pool);
	eqt_q_drain(&t->rtx, pool);
	eqt_infl_fini(&t->infl);
}

struct eqt_q *eqt_tx_head(struct eqt_tx *t, uint32_t cls)
{
	if (t->rtx.head)
		return &t->rtx;
	return cls < EQT_NCLS && t->q[cls].head ? &t->q[cls] : NULL;
}

static bool numbered_anew(const struct eqt_tx *t, const struct eqt_pkt *p)
{
	return !p->tx_count || !eqt_tx_in_epoch(t, p->seq);
}

bool eqt_tx_syn_room(const struct eqt_tx *t, const struct eqt_q *q)
{
	return !t->open || !t->syn || t->next_seq - t->isn < EQT_EPOCH_SYN_NEW ||
	       !numbered_anew(t, q->head);
}

/* A new epoch, with nothing in flight: at seq0 for the tunnel's first,
 * else past what was used or the receiver's floor (epoch.h). */
static void open_epoch(struct eqt_tx *t)
{
	uint32_t isn = t->used || t->floor ? eqt_epoch_next(t->next_seq, t->floor) : t->next_seq;

	t->isn = t->next_seq = t->cum_ack = isn;
	t->infl.lo = t->infl.hi = isn;
	t->open = t->syn = true;
	t->used = true;		/* the next one starts past this one */
	t->floor = 0;
	t->rto_at = 0;
	t->probing = false;
	t->probe_unsent = false;
}

void eqt_tx_open(struct eqt_tx *t, uint32_t floor)
{
	if (floor)
		t->floor = floor;
	open_epoch(t);
}

static uint64_t rto(const struct eqt_tx *t, uint64_t floor_ns)
{
	return eqt_rtt_rto(&t->rtt, floor_ns);
}

struct eqt_pkt *eqt_tx_take(struct eqt_tx *t, struct eqt_q *q, struct eqt_hdr *h,
			    struct eqt_pool *pool, uint64_t rto_floor_ns, uint64_t now)
{
	struct eqt_pkt *p = eqt_q_pop(q), *old;

	if (!p)
		return NULL;
	if (eqt_tx_probe_waits(t, q))
		t->probe_unsent = false;	/* at the head: this is it */
	if (!t->open)
		open_epoch(t);
	if (numbered_anew(t, p)) {
		p->tx_count = 0;
		p->seq = t->next_seq++;
		t->used = true;
	}
	*h = (struct eqt_hdr){ .type = EQ_T_DATA, .seq_ack = p->seq, .aux = p->len };
	h->flags = (t->syn ? EQ_F_SYN : 0) | (p->tx_count ? EQ_F_RTX : 0);
	if (t->syn)
		p->flags |= EQT_PF_SYN;
	if (p->tx_count)
		t->st.rtx++;
	else
		t->st.data++;
	if (p->tx_count < UINT8_MAX)
		p->tx_count++;
	p->t_ns = now;
	old = eqt_infl_put(&t->infl, p);
	if (old) {
		eqt_pkt_put(pool, old);
		t->st.given_up++;
	}
	/* Armed, or brought forward (a deadline pushed out while the
	 * receiver said it was busy, an RTO that came down since). */
	if (!t->rto_at || t->rto_at > now + rto(t, rto_floor_ns))
		t->rto_at = now + rto(t, rto_floor_ns);
	return p;
}

enum eqt_tx_admit eqt_tx_check(struct eqt_tx *t, bool rst, uint32_t ack, uint32_t cum)
{
	enum eqt_tx_admit v;

	if (!t->open)
		return EQT_TX_OLD_EPOCH;
	if (rst) {
		/* The echo of a seq the epoch sent; of the epoch an RST just
		 * ended, a late one. */
		v = eqt_tx_admit(t->isn, t->next_seq - 1, t->cum_ack, EQT_TX_ACK_SLACK, true, ack);
		if (v == EQT_TX_BAD_RST && t->prev_end != t->prev_isn &&
		    ack - t->prev_isn < t->prev_end - t->prev_isn)
			return EQT_TX_OLD_EPOCH;
	} else {
		/* A seq this epoch sent, and a cumulative ack no further than
		 * the next seq (nothing in order yet: the ISN itself). */
		v = eqt_tx_admit(t->isn, t->next_seq - 1, t->cum_ack, EQT_TX_ACK_SLACK, false, ack);
		if (v == EQT_TX_ADMIT &&
		    eqt_tx_admit(t->isn, t->next_seq, t->cum_ack, EQT_TX_ACK_SLACK, false, cum) !=
		    EQT_TX_ADMIT)
			v = EQT_TX_BAD_ACK;
	}
	if (v == EQT_TX_BAD_ACK)
		t->st.bad_ack++;
	else if (v == EQT_TX_BAD_RST)
		t->st.bad_rst++;
	return v;
}

struct taken {
	struct eqt_pool		*pool;
	struct eqt_tx_acked	*out;
};

static void count_free(void *ctx, struct eqt_pkt *p)
{
	struct taken *k = ctx;

	k->out->bytes += p->len;
	k->out->pkts++;
	eqt_pkt_put(k->pool, p);
}

void eqt_tx_rtt_sample(struct eqt_tx *t, uint64_t r, uint64_t rto_floor_ns, uint64_t now)
{
	eqt_rtt_sample(&t->rtt, r, rto_floor_ns, EQT_TX_RTO_MAX_NS);
	if (!t->min_rtt_ns || r < t->min_rtt_ns)
		t->min_rtt_ns = r;
	eqt_rtt_floor_add(&t->base_rtt, t->rtt.srtt_ns, now, EQT_BASE_RTT_WINDOW_NS);
}

static void sample(struct eqt_tx *t, uint64_t r, uint64_t floor_ns, uint64_t now,
		   struct eqt_tx_acked *out)
{
	eqt_tx_rtt_sample(t, r, floor_ns, now);
	out->rtt_ns = r;
}

/* The RTO's probe arrived: whatever was sent before it and is still in
 * flight did not (a path delivers in order; one sprayed over several may
 * not, and then a packet goes twice).  By send time, as RACK (RFC 8985)
 * does, not by seq: a NACKed packet resent after the RTO lies below the
 * probe's seq and may still be on its way. */
static void probe_acked(struct eqt_tx *t, struct eqt_tx_acked *out)
{
	struct eqt_pkt *p;
	uint32_t s;

	t->probing = false;
	for (p = eqt_infl_first(&t->infl, &s); p; p = eqt_infl_next(&t->infl, &s)) {
		if (p->t_ns >= t->probe_at)
			continue;
		eqt_infl_take(&t->infl, s);
		eqt_q_push(&t->rtx, p);
		t->st.rto_fired++;
		out->lost++;
		out->lost_bytes += p->len;
	}
}

static void ack(struct eqt_tx *t, uint32_t seq, bool timed, uint32_t cum, struct eqt_pool *pool,
		uint64_t rto_floor_ns, uint64_t now, struct eqt_tx_acked *out)
{
	struct taken k = { pool, out };
	struct eqt_pkt *p;

	memset(out, 0, sizeof(*out));
	t->syn = false;		/* the receiver answered this epoch */
	if (timed && (p = eqt_infl_take(&t->infl, seq))) {
		if (eqt_infl_timed(p, seq, now))
			sample(t, now - p->t_ns, rto_floor_ns, now, out);
		count_free(&k, p);
	}
	if (eqt_seq_after(cum, t->cum_ack)) {
		t->cum_ack = cum;
		p = eqt_infl_take_before(&t->infl, cum, count_free, &k);
		if (p)
			count_free(&k, p);
	}
	if (t->probing && ((timed && seq == t->probe_seq) || eqt_seq_after(cum, t->probe_seq)))
		probe_acked(t, out);
	/* Nothing left in flight stops the timer.  Progress does not
	 * restart it: the oldest packet still in flight times out an RTO
	 * after it went (eqt_tx_due()), however many later ones are ACKed
	 * meanwhile, which per-packet ACKs would otherwise put off for as
	 * long as they come. */
	if (!t->infl.n)
		t->rto_at = 0;
}

void eqt_tx_ack(struct eqt_tx *t, uint32_t seq, uint32_t cum, struct eqt_pool *pool,
		uint64_t rto_floor_ns, uint64_t now, struct eqt_tx_acked *out)
{
	ack(t, seq, true, cum, pool, rto_floor_ns, now, out);
}

void eqt_tx_cum(struct eqt_tx *t, uint32_t cum, struct eqt_pool *pool, uint64_t now,
		struct eqt_tx_acked *out)
{
	ack(t, 0, false, cum, pool, 0, now, out);
}

uint32_t eqt_tx_nack(struct eqt_tx *t, uint32_t seq)
{
	struct eqt_pkt *p = eqt_infl_take(&t->infl, seq);

	t->syn = false;
	if (!p)
		return 0;
	eqt_q_push(&t->rtx, p);
	t->st.nacks++;
	if (!t->infl.n)
		t->rto_at = 0;
	return p->len;
}

bool eqt_tx_due(struct eqt_tx *t, uint64_t rto_floor_ns, uint64_t now)
{
	uint64_t oldest = EQT_NO_DEADLINE, r = rto(t, rto_floor_ns);
	struct eqt_pkt *p;
	uint32_t s;

	if (!t->infl.n || !t->rto_at || now < t->rto_at)
		return false;
	for (p = eqt_infl_first(&t->infl, &s); p; p = eqt_infl_next(&t->infl, &s))
		if (p->t_ns < oldest)
			oldest = p->t_ns;
	if (oldest + r > now) {		/* ACKs came: the oldest is not due yet */
		t->rto_at = oldest + r;
		return false;
	}
	return true;
}

uint64_t eqt_tx_probe(struct eqt_tx *t, uint64_t rto_floor_ns, uint64_t now)
{
	struct eqt_pkt *p, *last = NULL;
	uint32_t s, at = 0;

	if (!eqt_tx_due(t, rto_floor_ns, now))
		return 0;
	for (p = eqt_infl_first(&t->infl, &s); p; p = eqt_infl_next(&t->infl, &s)) {
		last = p;	/* seq order: the last is the newest */
		at = s;
	}
	eqt_infl_take(&t->infl, at);
	t->st.rto_fired++;
	/* First: the resends NACKed before it may wait for the window,
	 * the probe may not (eqt_tx_probe_waits()). */
	eqt_q_push_head(&t->rtx, last);
	t->probe_unsent = true;
	t->probing = true;
	t->probe_seq = last->seq;
	t->probe_at = now;
	eqt_rtt_backoff(&t->rtt, rto_floor_ns, EQT_TX_RTO_MAX_NS);
	/* From now, not from the oldest's send: the probe needs a round trip
	 * to bring the NACKs of what it finds missing. */
	t->rto_at = t->infl.n ? now + rto(t, rto_floor_ns) : 0;
	return last->len;
}

static void to_queue(void *q, struct eqt_pkt *p)
{
	p->tx_count = 0;	/* numbered again in the new epoch */
	eqt_q_push(q, p);
}

bool eqt_tx_reset(struct eqt_tx *t, uint32_t floor)
{
	struct eqt_q resend = {}, older = {};
	struct eqt_pkt *p, *old;

	t->probing = false;

	t->st.rsts++;
	/* The resends of this epoch go back among what is in flight, so that
	 * all of it goes again in the order of its seqs (NACKed packets
	 * behind later ones would reach the host out of order); resends of
	 * an epoch before (numbered afresh already) go first. */
	while ((p = eqt_q_pop(&t->rtx))) {
		if (p->tx_count && eqt_tx_in_epoch(t, p->seq) && !eqt_infl_get(&t->infl, p->seq)) {
			old = eqt_infl_put(&t->infl, p);
			if (!old)
				continue;
			p = old;	/* given up to hold it (the ring at its cap) */
		}
		p->tx_count = 0;
		eqt_q_push(&older, p);
	}
	eqt_infl_drop_all(&t->infl, t->next_seq, to_queue, &resend);
	while ((p = eqt_q_pop(&resend)))
		eqt_q_push(&older, p);
	t->rtx = older;
	t->prev_isn = t->isn;
	t->prev_end = t->next_seq;
	t->open = false;
	t->floor = floor;
	t->rto_at = 0;
	t->probe_unsent = false;
	if (!eqt_tx_backlog(t))
		return false;
	open_epoch(t);
	return true;
}
