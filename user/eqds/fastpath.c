// SPDX-License-Identifier: GPL-2.0-only
/*
 * EQDS's fast path, the agent's side.  An established tunnel whose edge
 * queue is empty lends its credit to TC (edgeq/lease.h), which then sends
 * packets to the wire itself, with no trip through the agent, and hands
 * the agent a copy to keep until the ACK.  Any packet TC cannot send so
 * (the lease is short, a GSO packet) shuts the lease on its way to the
 * agent, which takes the lease back; so does anything that puts packets
 * in the edge or retransmission queue.  docs/eqds.md, "The fast path".
 *
 * The credit stays one quantity: the agent's plus what is on lease.  The
 * credit invariant and the start rule (one BDP unscheduled from idle) see
 * both.
 */
#include "edgeq/wire.h"
#include "eqds_int.h"

static union eq_lease_word lease_load(const struct eq_credit *b)
{
	union eq_lease_word w;

	w.word = __atomic_load_n(&b->lease.word, __ATOMIC_ACQUIRE);
	return w;
}

uint32_t eqds_tx_lease_bytes(const struct eqds *e, uint32_t peer, const struct tx_tunnel *t)
{
	if (!e->bucket || !t->lease_open)
		return 0;
	return lease_load(&e->bucket[peer]).parts.bytes & EQ_LEASE_BYTES;
}

/* The seq after the last one this tunnel has sent: TC stamps the lease's
 * on its fast sends, ahead of ours while the lease is open. */
uint32_t eqds_tx_sent_hi(const struct eqds *e, uint32_t peer, const struct tx_tunnel *t)
{
	uint32_t seq;

	if (!e->bucket || !t->lease_open)
		return t->core.next_seq;
	seq = lease_load(&e->bucket[peer]).parts.seq;
	return after(seq, t->core.next_seq) ? seq : t->core.next_seq;
}

void eqds_tx_lease_close(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint64_t now)
{
	union eq_lease_word w;

	if (!t->lease_open)
		return;
	w.word = __atomic_exchange_n(&e->bucket[peer].lease.word, 0, __ATOMIC_ACQ_REL);
	t->lease_open = false;
	t->credit += w.parts.bytes & EQ_LEASE_BYTES;
	/* Copies of its sends still on their way: until they come, what is
	 * in flight is more than the agent knows.  They are due from now: a
	 * lease may have been open through an idle spell (last_use_ns is the
	 * agent's last own use), and dated from before it they would count
	 * as lost at once, and the start rule lend another BDP beside them. */
	if (w.parts.seq - t->lease_seq0 > t->lease_copies) {
		t->copies_due += w.parts.seq - t->lease_seq0 - t->lease_copies;
		t->copies_since = now;
	}
	t->lease_copies = 0;
	/* TC stamped every seq below the lease's: the agent numbers on from
	 * there, and copies still on their way are below it. */
	if (after(w.parts.seq, t->core.next_seq))
		t->core.next_seq = w.parts.seq;
}

/* Adds up to `bytes` to an open lease that is not shut: what it added. */
static uint32_t lease_add(struct eq_credit *b, uint32_t bytes)
{
	for (int i = 0; i < EQ_LEASE_TRIES; i++) {
		union eq_lease_word old = lease_load(b), new;
		uint32_t have = old.parts.bytes & EQ_LEASE_BYTES;
		uint32_t add = bytes < EQ_LEASE_BYTES - have ? bytes : EQ_LEASE_BYTES - have;

		if ((old.parts.bytes & (EQ_LEASE_OPEN | EQ_LEASE_SHUT)) != EQ_LEASE_OPEN || !add)
			return 0;
		new = old;
		new.parts.bytes += add;
		if (__atomic_compare_exchange_n(&b->lease.word, &old.word, new.word, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return add;
	}
	return 0;
}

/* TCP packets TC held back for want of credit (tx_credit_wait) are a
 * backlog the module cannot see: while TC holds any (within the last two
 * RTTs), the tunnel asks for a BDP more, on the fast sends' pull target,
 * and with an RTS when the lease is too short for a fast send to carry
 * it.  Without this the fast sends asked for nothing, the receiver pulled
 * only what they asked, and a TCP flow held back waited until it had
 * nothing in flight: in RTS mode a 4 MB transfer took 33 s instead of
 * 0.2 on the fabric. */
static void tc_demand(struct eqds *e, struct tx_tunnel *t, struct eq_credit *b, uint64_t now)
{
	uint32_t held;

	__atomic_exchange_n(&b->held_rung, 0, __ATOMIC_ACQ_REL);	/* before reading */
	held = __atomic_load_n(&b->held, __ATOMIC_ACQUIRE);
	uint64_t window = t->core.rtt.srtt_ns ? 2 * t->core.rtt.srtt_ns : e->cfg.rto_ns;

	if (held != t->held_seen) {
		t->held_seen = held;
		t->held_at = now;
	}
	t->tc_demand = t->held_at && now - t->held_at < window;
}

void eqds_tx_lease_sync(struct eqds *e, uint32_t peer, uint64_t now)
{
	struct tx_tunnel *t = e->tx[peer];
	struct eq_credit *b;
	union eq_lease_word w = { 0 };

	if (!t || !e->bucket)
		return;
	b = &e->bucket[peer];
	/* What waits for us, for TC's backpressure (lease.h). */
	__atomic_store_n(&b->taken, e->host_taken[peer], __ATOMIC_RELAXED);
	__atomic_store_n(&b->queued, tx_backlog_pkts(t), __ATOMIC_RELAXED);
	if (e->cfg.no_lend)
		return;
	tc_demand(e, t, b, now);
	/* SYN_SENT: the SYN flag is the agent's to set.  A queue: it goes
	 * first, on the agent's credit. */
	if (tx_state(t) != EQDS_TX_ESTABLISHED || tx_backlog_pkts(t)) {
		eqds_tx_lease_close(e, peer, t, now);
		return;
	}
	if (t->lease_open) {
		w = lease_load(b);
		if (w.parts.bytes & EQ_LEASE_SHUT) {
			/* its packet is on its way here */
			eqds_tx_lease_close(e, peer, t, now);
			t->shut_wait = true;
			t->shut_at = now;
			return;
		}
	}
	/* No new lease may let a fast send overtake the packet that shut the
	 * last one (eqds_tx_local() ends the wait; an RTO, if it was lost). */
	if (!t->lease_open && t->shut_wait && now < t->shut_at + e->cfg.rto_ns)
		return;
	/* Nor any packet TC handed us while no lease was open, which it did
	 * not have to shut: every one must have been read first.  One lost
	 * on its way (a full socket, counted there) is waited for an RTO. */
	if (!t->lease_open) {
		uint32_t handed = __atomic_load_n(&b->handed, __ATOMIC_ACQUIRE);

		if (handed != e->host_taken[peer]) {
			if (!t->handed_since)
				t->handed_since = now;
			if (now < t->handed_since + e->cfg.rto_ns)
				return;
			e->host_taken[peer] = handed;
		}
		t->handed_since = 0;
	}
	/* The receiver is silent (sender.c, the RTO): its XDP delivers
	 * without its agent, and no credit will come; TC sends on a lease
	 * kept full at the rate the pulls came at (a BDP at most).  Its
	 * copies are freed at the next RTO. */
	if (t->peer_silent)
		eqds_tx_silent_credit(e, t, t->lease_open ? (w.parts.bytes & EQ_LEASE_BYTES) : 0, now);
	/* As restart() does for a tunnel coming back from idle: nothing in
	 * flight, trimming mode, the receiver not busy: one BDP may go
	 * unscheduled.  Nothing in flight means no copy still on its way
	 * either, of this lease or of earlier ones.  Not to a silent
	 * receiver: with nothing held in flight, each sync would be a BDP. */
	if (!t->peer_silent && !t->core.infl.n && !tx_copies_due(e, t, now) && !e->cfg.rts &&
	    now >= t->busy_until &&
	    (!t->lease_open || w.parts.seq - t->lease_seq0 == t->lease_copies)) {
		int64_t have = t->credit + (t->lease_open ? (w.parts.bytes & EQ_LEASE_BYTES) : 0);

		if (have < (int64_t)tx_bdp(e, t))
			t->credit += (int64_t)tx_bdp(e, t) - have;
	}
	/* A fast send asks for what TC holds back (a BDP while it holds
	 * any), and for nothing more otherwise: its target is the highest
	 * pull (credit after an idle spell comes from the start rule). */
	__atomic_store_n(&b->pull_target, eqds_tx_pull_target(e, t, now), __ATOMIC_RELAXED);
	/* ... and a BDP more once a fast send leaves less than half a BDP on
	 * lease: TC cannot see TCP's backlog, but a tunnel whose lease is
	 * being drained has one.  Asking only after TC held packets back came
	 * late: the receiver pulled for 44 % of the packets of a bulk flow,
	 * and TCP, held back again and again, shrank its window to 2. */
	__atomic_store_n(&b->pull_more, t->hp_known ? t->highest_pull + tx_bdp(e, t) / e->cfg.mtu
						     : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&b->low, t->hp_known ? tx_bdp(e, t) / 2 : 0, __ATOMIC_RELAXED);
	__atomic_store_n(&b->cap, tx_bdp(e, t) + e->cfg.mtu, __ATOMIC_RELAXED);
	/* Opened even with no credit in hand: TC then holds a TCP flow's
	 * packets back until pulls top the lease up (tc_egress.bpf.c),
	 * rather than hand them to us and keep the lease shut. */
	if (!t->lease_open) {
		uint32_t give = t->credit <= 0 ? 0 :
				t->credit > EQ_LEASE_BYTES ? EQ_LEASE_BYTES : (uint32_t)t->credit;

		w.parts.bytes = EQ_LEASE_OPEN | give;
		w.parts.seq = t->core.next_seq;
		t->lease_seq0 = t->core.next_seq;
		t->lease_copies = 0;
		__atomic_store_n(&b->lease.word, w.word, __ATOMIC_RELEASE);
		t->credit -= give;
		t->lease_open = true;
	} else if (t->credit > 0) {
		t->credit -= lease_add(b, t->credit > EQ_LEASE_BYTES ? EQ_LEASE_BYTES
								    : (uint32_t)t->credit);
	}
	/* TC holds packets back and the lease cannot carry the ask: an RTS. */
	if (t->tc_demand && t->hp_known && after(eqds_tx_pull_target(e, t, now), t->told_target) &&
	    (lease_load(b).parts.bytes & EQ_LEASE_BYTES) < e->cfg.mtu + 14)
		eqds_tx_ask(e, peer, t, now);
}

/* An RTT sample from a fast send: TC records the seq and the send time
 * (us, mod 2^32) of one fast send in the bucket's probe word while it is
 * free, and the ACK that covers that seq gives the sample (a copy's own
 * time is when the agent read it, later).  A probe unanswered for an RTO
 * (lost, trimmed) is dropped, so that a resend's ACK is never taken for
 * it (Karn); one the receiver answered late (`held`: EQ_F_HELD) gives
 * no sample. */
void eqds_tx_probe_acked(struct eqds *e, uint32_t peer, struct tx_tunnel *t, uint32_t ack, bool cum,
			 bool held, uint64_t now)
{
	uint64_t probe;
	uint32_t seq, age_us;

	if (!e->bucket || !(probe = __atomic_load_n(&e->bucket[peer].probe, __ATOMIC_ACQUIRE)))
		return;
	seq = (uint32_t)(probe >> 32);
	age_us = (uint32_t)(now / 1000) - (uint32_t)probe;
	if ((uint64_t)age_us * 1000 > eqt_rtt_rto(&t->core.rtt, e->cfg.rto_ns) ||
	    before(seq, t->core.isn)) {
		__atomic_store_n(&e->bucket[peer].probe, 0, __ATOMIC_RELEASE);
		return;
	}
	if (cum ? !before(seq, ack) : seq != ack)
		return;
	if (!held)	/* answered, but the receiver's ACK delay is in it */
		eqds_tx_rtt_sample(e, t, (uint64_t)age_us * 1000, now);
	__atomic_store_n(&e->bucket[peer].probe, 0, __ATOMIC_RELEASE);
}

/* An ACK or NACK of nothing in flight: when fast sends may still have
 * copies on their way, remember it for the copy. */
void eqds_tx_early_note(const struct eqds *e, struct tx_tunnel *t, uint8_t type, uint32_t seq,
		   uint64_t now)
{
	uint32_t i = t->early_next % EARLY_SLOTS;

	if (!t->lease_open && !tx_copies_due(e, t, now))
		return;
	/* Full, the notes give up their oldest ACK, not a NACK: a copy that
	 * misses its ACK stays in flight until a PULL's cumulative ack (or
	 * at worst an RTO) frees it, while one that misses its NACK is given
	 * up by the receiver after reorder_timeout, unresent. */
	for (uint32_t k = 0; k < EARLY_SLOTS; k++) {
		uint32_t j = (t->early_next + k) % EARLY_SLOTS;

		if (t->early_type[j] != EQ_T_NACK && t->early_type[j] != EARLY_LOST) {
			i = j;
			break;
		}
	}
	t->early_next = i + 1;
	t->early_seq[i] = seq;
	t->early_type[i] = type;
}

static uint8_t early_take(struct tx_tunnel *t, uint32_t seq)
{
	for (uint32_t i = 0; i < EARLY_SLOTS; i++) {
		uint8_t type = t->early_type[i];

		if (type && t->early_seq[i] == seq) {
			t->early_type[i] = 0;
			return type;
		}
	}
	return 0;
}

int eqds_tx_sent(struct eqds *e, uint32_t peer, struct eqt_pkt *p, uint32_t seq, uint64_t now)
{
	struct tx_tunnel *t = e->tx[peer];

	/* Sent in a tunnel that has ended since (reset, flushed, freed): the
	 * receiver will not take it into the new one, so it goes again as
	 * new data.  "Before the ISN" and not eqt_tx_in_epoch(): an epoch
	 * that starts from the receiver's floor can lie before the last, but
	 * that jump back follows only an epoch the receiver never answered,
	 * and no lease opens before an answer, so it has no copies. */
	if (!t || tx_state(t) == EQDS_TX_CLOSED || before(seq, t->core.isn)) {
		int rc = eqds_tx_local(e, peer, p, now);

		return rc ? rc : 1;
	}
	if (t->lease_open && !before(seq, t->lease_seq0))
		t->lease_copies++;
	else if (t->copies_due)
		t->copies_due--;
	p->seq = seq;
	p->tx_count = 1;
	p->t_ns = now;
	p->flags |= EQT_PF_FAST;
	if (!before(seq, t->core.next_seq))
		t->core.next_seq = seq + 1;
	/* It carried the bucket's pull target, or one before it. */
	if (e->bucket && t->hp_known &&
	    after(__atomic_load_n(&e->bucket[peer].pull_target, __ATOMIC_RELAXED), t->told_target))
		t->told_target = __atomic_load_n(&e->bucket[peer].pull_target, __ATOMIC_RELAXED);
	t->st.tx_data++;
	t->st.tx_fast++;
	uint8_t early = early_take(t, seq);

	switch (early) {
	case EQ_T_ACK:		/* delivered already: nothing to keep */
		eqt_pkt_put(e->pool, p);
		return 0;
	case EQ_T_NACK:		/* trimmed already: it goes again, first */
	case EARLY_LOST:	/* lost already: the same, on its own credit */
		eqds_tx_lease_close(e, peer, t, now);
		eqds_tx_nacked(t, p, early == EARLY_LOST, now);
		return 1;
	}
	/* A cumulative ack passed it already (the receiver's XDP delivered
	 * it before its copy got here). */
	if (before(seq, t->core.cum_ack)) {
		eqt_pkt_put(e->pool, p);
		return 0;
	}
	eqds_tx_infl_put(e, t, p, now);
	return 0;
}

void eqds_set_bucket(struct eqds *e, struct eq_credit *bucket)
{
	/* No clock here: copies still due are dated from the module's last
	 * event. */
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->tx_live[w]; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);

			eqds_tx_lease_close(e, peer, e->tx[peer], e->now);
		}
	e->bucket = bucket;
}

void eqds_lease_sync(struct eqds *e, uint64_t now)
{
	clock_seen(e, now);
	eqds_rx_direct_retry(e);
	if (!e->bucket)
		return;
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->tx_live[w]; bits; bits &= bits - 1)
			eqds_tx_lease_sync(e, w * 64 + (uint32_t)__builtin_ctzll(bits), now);
}
