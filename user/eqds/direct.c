// SPDX-License-Identifier: GPL-2.0-only
/*
 * EQDS's direct delivery, the agent's side (edgeq/rx.h; docs/eqds.md,
 * "Receiving").  While a tunnel's reorder queue is empty, XDP delivers its
 * in-order DATA to the stack itself and adds what it delivered to eq_rx;
 * the receiver here takes that into account as if the packets had come
 * through the agent: their bytes join the tunnel's ASL entry (the pull
 * pacer pulls for them), their pull targets raise the tunnel's, and one
 * cumulative ACK per look frees them at the sender (a PULL of the same
 * look carries it: receiver.c, eqds_rx_say()).  Any DATA that does
 * come through the agent first closes the word, so that the reorder
 * queue and XDP never deliver around each other.
 */
#include "edgeq/wire.h"
#include "eqds_int.h"

static union eq_rx_word order_load(const struct eq_rx *m)
{
	union eq_rx_word w;

	w.word = __atomic_load_n(&m->order.word, __ATOMIC_ACQUIRE);
	return w;
}

/* What XDP delivered since the last look, as eqds_rx_packet() would have
 * accounted each packet; one cumulative ACK for all of them.  XDP counts
 * a packet just after taking its seq, so a count can come after the word
 * was closed: it is taken whenever it comes. */
void eqds_rx_direct_sync(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now)
{
	struct eq_rx *m;
	union eq_rx_word w;
	uint64_t pkts, bytes, ce;
	uint32_t target;

	if (!e->rxmap)
		return;
	m = &e->rxmap[peer];
	/* Cleared before reading: a delivery after the read rings again. */
	__atomic_exchange_n(&m->dirty, 0, __ATOMIC_ACQ_REL);
	pkts = __atomic_load_n(&m->pkts, __ATOMIC_ACQUIRE);
	if (pkts == r->seen_pkts)
		return;
	bytes = __atomic_load_n(&m->bytes, __ATOMIC_ACQUIRE);
	ce = __atomic_load_n(&m->ce, __ATOMIC_ACQUIRE);
	target = __atomic_load_n(&m->pull_target, __ATOMIC_ACQUIRE);
	w = order_load(m);
	if (r->direct_open && (w.parts.flags & EQ_RX_OPEN))
		r->core.q.expected = w.parts.next;
	r->st.rx_data += pkts - r->seen_pkts;
	r->st.rx_direct += pkts - r->seen_pkts;
	eqds_rx_set_owed(e, r, r->owed + (int64_t)(bytes - r->seen_bytes));
	if (after(target, r->pull_target))
		r->pull_target = target;
	eqds_rx_asl_update(e, peer);
	/* Less than wake_bytes since the last look, and nothing rang for
	 * them at once: the newest may have waited up to the ACK delay, and
	 * the sender must not take the ACK's timing for a round trip. */
	bool late = e->cfg.ack_delay_ns && bytes - r->seen_bytes < e->rx_wake_bytes;

	eqds_rx_say(e, peer, r, RX_HELD_ACK | (ce != r->seen_ce ? RX_HELD_ECE : 0) |
				(late ? RX_HELD_LATE : 0));
	/* A bulk flow's worth since the last look: poll for the next, so
	 * that XDP need not ring for it.  Less (a slow flow, or the end of
	 * one), and the next delivery rings again. */
	r->poll_at = e->cfg.rx_poll_ns && bytes - r->seen_bytes >= e->rx_wake_bytes
		     ? now + e->cfg.rx_poll_ns : 0;
	/* XDP rings at once from wake_bytes unread past this (rx.h). */
	__atomic_store_n(&m->read_bytes, bytes, __ATOMIC_RELEASE);
	r->seen_pkts = pkts;
	r->seen_bytes = bytes;
	r->seen_ce = ce;
	r->last_use_ns = now;
}

void eqds_rx_direct_close(struct eqds *e, uint32_t peer, struct rx_tunnel *r, uint64_t now)
{
	union eq_rx_word w;

	if (!e->rxmap || !r->direct_open)
		return;
	w.word = __atomic_exchange_n(&e->rxmap[peer].order.word, 0, __ATOMIC_ACQ_REL);
	r->direct_open = false;
	/* Its place in order, then what XDP delivered up to the close. */
	r->core.q.expected = w.parts.next;
	eqds_rx_direct_sync(e, peer, r, now);
}

void eqds_rx_direct_open(struct eqds *e, uint32_t peer, struct rx_tunnel *r)
{
	union eq_rx_word w = { 0 };

	if (!e->rxmap || r->direct_open || !r->core.est || r->core.q.n)
		return;
	/* Not while packets we delivered are still on their way up (the
	 * host socket, the internal veth, tc_deliver, the backlog): XDP's
	 * next delivery would reach the inner TCP before them.  On a veth
	 * pair at 2.7 Gbit/s that reordering was 2,100 out-of-order
	 * arrivals and 2,900 spurious fast retransmits of the inner TCP in
	 * 4 s; with direct delivery off, 230 and 46.  eqds_rx_direct_retry()
	 * tries again once the agent has sent them. */
	if (e->io.delivered && !e->io.delivered(e->io.ctx)) {
		e->rx_open_waits = true;
		return;
	}
	w.parts.next = r->core.q.expected;
	w.parts.flags = EQ_RX_OPEN;
	/* XDP keeps the highest pull target of what it delivered, and that
	 * is only ours from now: one left from an earlier tunnel (an agent
	 * before a restart, another epoch) is in another pull numbering, and
	 * taken as ahead of ours it had us pull for every packet that came,
	 * hundreds past what the sender asked, which it refused as forged
	 * (bad_pull) and took no credit from until its own targets caught
	 * up (bench/agent_outage.sh).  While the word is closed XDP delivers
	 * nothing, so nothing races this store. */
	__atomic_store_n(&e->rxmap[peer].pull_target, r->pull_target, __ATOMIC_RELAXED);
	e->rxmap[peer].wake_bytes = e->rx_wake_bytes;
	e->rxmap[peer].poll_ns = (uint32_t)e->cfg.rx_poll_ns;
	__atomic_store_n(&e->rxmap[peer].look_ns, 1, __ATOMIC_SEQ_CST);	/* awake */
	__atomic_store_n(&e->rxmap[peer].read_bytes, r->seen_bytes, __ATOMIC_RELEASE);
	__atomic_store_n(&e->rxmap[peer].order.word, w.word, __ATOMIC_RELEASE);
	r->direct_open = true;
}

void eqds_rx_direct_retry(struct eqds *e)
{
	if (!e->rx_open_waits)
		return;
	e->rx_open_waits = false;	/* set again by an open that still waits */
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->rx_live[w]; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);

			eqds_rx_direct_open(e, peer, e->rx[peer]);
		}
}

/* look_ns of every open word (rx.h), so that XDP arms no ACK timer while
 * the agent will look soon anyway. */
static void look_at(struct eqds *e, uint64_t at)
{
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->rx_live[w]; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);

			if (e->rx[peer]->direct_open)
				__atomic_store_n(&e->rxmap[peer].look_ns, at, __ATOMIC_SEQ_CST);
		}
}

bool eqds_rx_direct_sleep(struct eqds *e, uint64_t until)
{
	if (!e->rxmap)
		return false;
	look_at(e, until);
	/* Our store, then XDP's `dirty`; XDP sets `dirty`, then reads our
	 * store: one of the two sees the other. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->rx_live[w]; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);

			if (__atomic_load_n(&e->rxmap[peer].dirty, __ATOMIC_SEQ_CST)) {
				look_at(e, 1);
				return true;
			}
		}
	return false;
}

void eqds_rx_direct_awake(struct eqds *e)
{
	if (e->rxmap)
		look_at(e, 1);
}

void eqds_set_rxmap(struct eqds *e, struct eq_rx *map)
{
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->rx_live[w]; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);

			eqds_rx_direct_close(e, peer, e->rx[peer], e->now);
		}
	e->rxmap = map;
	if (!map)
		return;
	/* The counters go on from where they stand: each tunnel counts from
	 * what it has seen. */
	for (uint32_t w = 0; w < e->live_words; w++)
		for (uint64_t bits = e->rx_live[w]; bits; bits &= bits - 1) {
			uint32_t peer = w * 64 + (uint32_t)__builtin_ctzll(bits);
			struct rx_tunnel *r = e->rx[peer];

			r->seen_pkts = map[peer].pkts;
			r->seen_bytes = map[peer].bytes;
			r->seen_ce = map[peer].ce;
		}
}
