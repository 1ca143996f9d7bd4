// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for SMaRTT's packet handling as a scheme (user/smartt/
 * on the core's tunnel halves, user/core/tx.c, rx.c, reorder.c): two
 * instances, A and B, each the other's peer 0, joined by a wire the fuzzer
 * drives, as fuzz_eqds.c does EQDS.  The input picks a link (1 Gbit/s,
 * or 100 Gbit/s, whose first window holds thousands of small packets),
 * trimming or not, loss detection or not, a configured base RTT or not,
 * SMaRTT's rules or NSCC's,
 * then a program of events: packets from either host, one by one or in
 * bursts of up to 2041 (4096 in all), time passing, wire packets delivered in any
 * order, dropped, duplicated, trimmed or CE-marked, headers forged from
 * either side's peer 0 or from another peer slot (1..3, or 4, beyond
 * npeers; any type, fields near the genuine ones or anywhere), and
 * flushes.  Whatever the program:
 *  - no memory error or undefined behaviour (ASan, UBSan);
 *  - every DATA packet a host sends is one of its own, and carries ECT
 *    (the window scheme has the fabric mark it, not drop it); the
 *    receiver's ACK of a DATA packet, and its NACK of a trimmed header,
 *    echo its CE mark;
 *  - a DATA packet goes up only if smartt_wire() admitted it (returned
 *    true: a forgery that hit a tunnel's window, or set one up zero-RTT,
 *    may go up, as no key refuses it), and each arrival at most once;
 *  - each host's own packets reach the other in order and at most once
 *    (a forged DATA packet may take a seq's place, never reorder them),
 *    except after a restart of the receiver's state, which may send again
 *    what it delivered: a flush of either side (the sender resends in a
 *    new epoch what the receiver may have taken), or the receiver freeing
 *    its idle tunnel (the sender's RTO resends come after it as SYN
 *    packets, zero-RTT, if no answer ever came, or draw an RST).  From
 *    such an event on, that receiver may deliver a packet twice, and in
 *    any order.
 *    Unlike EQDS's receiver, SMaRTT's drops a non-SYN DATA packet it has
 *    no state for (and answers with an RST), so fuzz_eqds.c's allowance
 *    for every RST with no floor is not made here: without a restart, a
 *    receiver's RST can only refuse an epoch none of whose packets it
 *    took, and the sender's resends in a new epoch are new to it.  It is
 *    made for an RST the sender takes once a forgery from peer 0 was
 *    taken or answered (the window of a tunnel hit, by a forger on the
 *    path or one who guessed an epoch's seqs, as the fuzzer can: they
 *    come from a fixed seed): a forged RST, or the RST a forged DATA
 *    packet draws, or one a forged ACK provokes by ending the SYN phase
 *    early, restarts the sender's epoch with packets the receiver may
 *    have delivered.  Other forgeries, taken or not, near the genuine
 *    headers or not, leave every check standing.
 *    The wire keeps a packet at most MSL_NS (20 ms, less than the
 *    tunnels' idle time of 50 ms here, 10 s in the agent): a SYN packet
 *    replayed after its receiver forgot the tunnel would start it again
 *    and go up again, which only a key can refuse (docs/security.md);
 *  - what each side shows TC of its edge queue (smartt_sync()) counts
 *    every packet it took from the host and at most those, and nothing
 *    once the tunnel is flushed;
 *  - every packet goes back to its pool: after flushing and freeing both
 *    instances, none is in use.
 * Built and run by tests/fuzz/test_fuzz.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "edgeq/lease.h"
#include "smartt.h"

#define MTU		1500
#define NPEERS		4
#define WIRE_MAX	4096	/* packets on the wire each way */
#define POOL		4096
#define MARK_HOST	0xaa
#define MARK_FORGED	0xff
#define MSL_NS		20000000ULL	/* a packet's longest life on the wire */
#define IDLE_NS		50000000ULL
#define SERIALS		(1u << 18)	/* arrivals tracked per input */
#define BURST_MAX	4096		/* packets in bursts per input */

#define need(c) do { if (!(c)) { fprintf(stderr, "fuzz_smartt: %s:%d: %s\n", __FILE__, \
					 __LINE__, #c); abort(); } } while (0)

struct wpkt {
	struct eqt_hdr	h;
	uint64_t	sent;		/* when it left (MSL_NS) */
	uint32_t	id;
	uint16_t	len;
	bool		data;
};

struct side {
	struct smartt	*e;
	struct eqt_pool	pool;
	struct wpkt	out[WIRE_MAX];	/* sent towards the other side */
	uint32_t	nout;
	uint32_t	next_id[EQT_NCLS];	/* of the next packet from this host */
	int64_t		last_got[EQT_NCLS];	/* the last of the other host's ids
						 * delivered here, per class (the
						 * classes share the wire by DRR,
						 * not in the host's order) */
	struct eqt_hdr	last_h;		/* the last header sent: forgeries start near it */
	struct eq_credit bucket[NPEERS];	/* TC's view of its edge queues */
	uint32_t	taken;		/* packets handed to smartt_local() */
	bool		rx_state;	/* its tunnel from peer 0 admitted something */
	bool		dups_ok;	/* the receiver's state restarted: what it
					 * delivered may come again (see the top) */
};

/* What became of each arrival of a DATA packet (its serial is in its
 * payload). */
enum { ARR_REFUSED, ARR_ADMITTED, ARR_DELIVERED };

static struct side S[2];
static uint64_t now;
static uint8_t arr_state[SERIALS];
static uint32_t nserial;
static uint32_t burst_left;
static struct {			/* the DATA or trimmed header being handed in */
	bool		on;
	struct side	*to;
	uint32_t	from, seq, serial;
	uint8_t		type, ce;
} cur;
static bool forging;	/* a forged header is being handed in */
static bool tainted;	/* a forgery from peer 0 was taken, or answered */
static bool trace;	/* FUZZ_TRACE set: every event on stderr (replaying one input) */

#define say(...) do { if (trace) fprintf(stderr, __VA_ARGS__); } while (0)

static void say_hdr(const char *what, int side, uint32_t peer, const struct eqt_hdr *h)
{
	say("%8.3f ms %s %c peer %u type %u flags %#x seq/ack %u pull %u ce %u ect %u\n",
	    now / 1e6, what, 'A' + side, peer, h->type, h->flags, h->seq_ack, h->pull, h->ce,
	    h->ect);
}
static const uint8_t *in;
static size_t left;

static uint8_t byte(void)
{
	if (!left)
		return 0;
	left--;
	return *in++;
}

static uint32_t word(void)
{
	return (uint32_t)byte() | (uint32_t)byte() << 8 | (uint32_t)byte() << 16 |
	       (uint32_t)byte() << 24;
}

static void put_wire(struct side *s, const struct wpkt *w)
{
	if (s->nout < WIRE_MAX)
		s->out[s->nout++] = *w;	/* else lost on the way */
}

static void send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	struct side *s = ctx;
	struct wpkt w = { .h = *h, .sent = now, .len = p->len, .data = true };

	memcpy(&w.id, p->data, 4);
	say_hdr("send data", (int)(s - S), peer, h);
	/* Only the host's own packets, to the one peer it sends to, with
	 * ECT: the window reacts to marks. */
	need(peer == 0 && h->type == EQ_T_DATA && h->ect);
	need(p->len >= 64 && p->data[4] == MARK_HOST);
	need(w.id >> 31 < EQT_NCLS && (w.id & 0x7fffffff) < s->next_id[w.id >> 31]);
	s->last_h = *h;
	put_wire(s, &w);
}

static void send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct side *s = ctx;
	struct wpkt w = { .h = *h, .sent = now };

	say_hdr("send ctl ", (int)(s - S), peer, h);
	need(peer < NPEERS);
	need(h->type == EQ_T_ACK || h->type == EQ_T_NACK || h->type == EQ_T_RST);
	/* The answer to the packet being handed in echoes its CE mark. */
	if (cur.on && cur.to == s && cur.from == peer && h->seq_ack == cur.seq &&
	    ((cur.type == EQ_T_DATA && h->type == EQ_T_ACK) ||
	     (cur.type == EQ_T_TRIMMED && h->type == EQ_T_NACK && !(h->flags & EQ_F_LOST))))
		need(!(h->flags & EQ_F_ECE) == !cur.ce);
	if (peer != 0)
		return;
	if (forging)
		tainted = true;
	s->last_h = *h;
	put_wire(s, &w);
}

static void deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct side *s = ctx, *o = &S[s == S];
	uint32_t id, serial;

	need(peer < NPEERS && p->len >= 64);
	memcpy(&serial, p->data + 8, 4);
	say("%8.3f ms deliver at %c from peer %u: serial %u\n", now / 1e6, 'A' + (int)(s - S),
	    peer, serial);
	need(serial < nserial);
	if (serial < SERIALS) {
		/* Admitted (or being admitted now), and up once. */
		need(arr_state[serial] == ARR_ADMITTED ||
		     (cur.on && serial == cur.serial && arr_state[serial] == ARR_REFUSED));
		arr_state[serial] = ARR_DELIVERED;
	}
	if (peer != 0 || p->data[4] != MARK_HOST)
		return;	/* a forgery that fit a window: allowed without keys */
	memcpy(&id, p->data, 4);
	say("%8.3f ms   class %u id %u\n", now / 1e6, id >> 31, id & 0x7fffffff);
	need(id >> 31 < EQT_NCLS);
	need((id & 0x7fffffff) < o->next_id[id >> 31]);	/* one the other host sent */
	need(s->dups_ok || (int64_t)(id & 0x7fffffff) > s->last_got[id >> 31]);
	s->last_got[id >> 31] = id & 0x7fffffff;
}

/* What side i shows TC of its edge queues, after a sync: every packet
 * it took, and at most those it holds. */
static void shown(int i)
{
	smartt_sync(S[i].e, now);
	need(S[i].bucket[0].taken == S[i].taken);
	need(S[i].bucket[0].queued <= S[i].taken);
	for (int j = 1; j < NPEERS; j++)
		need(!S[i].bucket[j].taken && !S[i].bucket[j].queued);
}

/* Has side i's receiver forgotten what it took from peer 0 (an idle free)?
 * Then a restart: see the top. */
static void watch_rx(int i)
{
	struct eq_agent_peer v;
	bool st;

	smartt_peer_state(S[i].e, 0, &v, NULL);
	st = v.rx_data || v.rx_trimmed;
	if (S[i].rx_state && !st) {
		say("%8.3f ms %c forgot its tunnel from peer 0\n", now / 1e6, 'A' + i);
		S[i].dups_ok = true;
	}
	S[i].rx_state = st;
}

static void setup(uint8_t how)
{
	/* how & 8: a fast link, whose first round trip's window (a BDP at
	 * the 50 us guess: 625 kB) can carry more small packets than an
	 * epoch's first 1024 seqs. */
	struct smartt_cfg c = {
		.link_bps = how & 8 ? 100000000000ULL : 1000000000ULL, .mtu = MTU,
		.framing = EQ_ETH_FRAMING, .npeers = NPEERS, .edge_limit = how & 8 ? 2048 : 64,
		.reorder_limit = 32, .reorder_ns = 2000000, .loss_ns = how & 2 ? 0 : 500000,
		.rto_ns = 2000000, .drr_quantum = 3000, .base_rtt_ns = how & 4 ? 100000 : 0,
		.idle_ns = IDLE_NS,
	};

	smartt_settings_default(&c.rules);
	c.rules.trimming = how & 1;
	/* how & 16: NSCC's rules (smartt.variant nscc) */
	smartt_nscc_settings_default(&c.nscc_rules);
	c.nscc_rules.trimming = c.rules.trimming;
	c.nscc = how & 16;
	/* how & 32: REPS over 16 paths (smartt.reps, smartt.entropies) */
	c.entropies = how & 32 ? 16 : 0;
	/* how & 64: with a working set of 4 of them (smartt.paths_kept) */
	c.paths_kept = how & 64 ? 4 : 0;
	now = 1000000;
	memset(arr_state, 0, nserial < SERIALS ? nserial : SERIALS);
	nserial = 0;
	memset(&cur, 0, sizeof(cur));
	forging = tainted = false;
	burst_left = BURST_MAX;
	for (int i = 0; i < 2; i++) {
		struct eqt_io io = { &S[i], send_data, send_ctl, deliver, NULL };
		struct eqt_pool pool = S[i].pool;

		/* The pools live across inputs (each input gives every packet
		 * back: checked at its end). */
		if (!pool.mem)
			need(eqt_pool_init(&pool, POOL) == 0);
		memset(&S[i], 0, sizeof(S[i]));
		S[i].pool = pool;
		S[i].last_got[0] = S[i].last_got[1] = -1;
		S[i].e = smartt_new(&c, &io, &S[i].pool, now, 7 + (uint64_t)i);
		need(S[i].e);
		smartt_set_bucket(S[i].e, S[i].bucket);
	}
}

static void host_send(struct side *s, uint8_t cls, uint16_t len)
{
	struct eqt_pkt *p = eqt_pkt_get(&s->pool);
	uint32_t id = (uint32_t)cls << 31 | s->next_id[cls]++;

	if (!p)
		return;
	memset(p->data, 0, 64);
	memcpy(p->data, &id, 4);
	p->data[4] = MARK_HOST;
	p->len = len;
	p->l3_off = 14;
	p->cls = cls;
	p->flags = 0;
	say("%8.3f ms host %c: class %u id %u len %u\n", now / 1e6, 'A' + (int)(s - S), cls,
	    id & 0x7fffffff, p->len);
	s->taken++;
	s->bucket[0].handed++;		/* as TC counts it, handing it over */
	smartt_local(s->e, 0, p, now);	/* a drop at the edge queue is allowed */
}

static void host_packet(struct side *s)
{
	uint8_t b = byte();

	host_send(s, b & 1 ? EQT_CLS_TCP : EQT_CLS_OTHER,
		  (uint16_t)(64 + b * 5 < MTU + 14 ? 64 + b * 5 : MTU + 14));
}

/* Many small packets at once (the first round trip's burst), up to
 * BURST_MAX in an input (an input's time goes mostly into them). */
static void host_burst(struct side *s)
{
	uint32_t n = 1 + byte() * 8u;
	uint8_t cls = byte() & 1;

	n = n < burst_left ? n : burst_left;
	burst_left -= n;

	say("%8.3f ms burst of %u from %c\n", now / 1e6, n, 'A' + (int)(s - S));
	for (uint32_t i = 0; i < n; i++)
		host_send(s, cls, 64);
}

/* Hand wire packet w to side `to`, as coming from its peer `from`: what
 * smartt_wire() said. */
static bool arrive(struct side *to, uint32_t from, const struct wpkt *w, uint8_t mark)
{
	struct eqt_pkt *p = NULL;
	struct eq_agent_peer v;
	uint64_t rsts;
	bool took, rxp = w->h.type == EQ_T_DATA || w->h.type == EQ_T_TRIMMED;

	if (mark == MARK_HOST && now - w->sent > MSL_NS)
		return false;	/* older than a packet lives */
	if (w->data && w->h.type == EQ_T_DATA) {
		p = eqt_pkt_get(&to->pool);
		if (!p)
			return false;	/* the agent counts pool_empty and drops it */
		memset(p->data, 0, 64);
		memcpy(p->data, &w->id, 4);
		p->data[4] = mark;
		memcpy(p->data + 8, &nserial, 4);
		p->len = w->len >= 64 ? w->len : 64;
		p->l3_off = 14;
		p->flags = 0;
		cur.serial = nserial++;
	} else {
		cur.serial = UINT32_MAX;
	}
	if (rxp) {
		cur.on = true;
		cur.to = to;
		cur.from = from;
		cur.seq = w->h.seq_ack;
		cur.type = w->h.type;
		cur.ce = w->h.ce;
	}
	say_hdr(mark == MARK_FORGED ? "FORGED -> " : "arrive at", (int)(to - S), from, &w->h);
	smartt_peer_state(to->e, 0, &v, NULL);
	rsts = v.rsts;
	forging = mark == MARK_FORGED;
	took = smartt_wire(to->e, from, &w->h, p, now);
	forging = false;
	if (took && mark == MARK_FORGED && from == 0)
		tainted = true;
	watch_rx((int)(to - S));
	if (p && cur.serial < SERIALS) {
		if (!took)
			need(arr_state[cur.serial] == ARR_REFUSED);	/* not gone up */
		else if (arr_state[cur.serial] == ARR_REFUSED)
			arr_state[cur.serial] = ARR_ADMITTED;
	}
	memset(&cur, 0, sizeof(cur));
	smartt_peer_state(to->e, 0, &v, NULL);
	if (v.rsts != rsts) {
		/* The sender took an RST: it starts a new epoch with what it
		 * had in flight, which the other side may have delivered if a
		 * forgery had a hand in it (see the top). */
		need(took && from == 0 && w->h.type == EQ_T_RST && v.rsts == rsts + 1);
		say("%8.3f ms   %c took an RST%s\n", now / 1e6, 'A' + (int)(to - S),
		    tainted ? " (after a forgery)" : "");
		if (tainted)
			S[to == S].dups_ok = true;
	}
	return took;
}

/* Which of the n packets on a wire (n > 0): two bytes, for long wires. */
static uint32_t pick(uint32_t n)
{
	return ((uint32_t)byte() | (uint32_t)byte() << 8) % n;
}

static struct wpkt take(struct side *s, uint32_t i)
{
	struct wpkt w = s->out[i];

	memmove(&s->out[i], &s->out[i + 1], (s->nout - i - 1) * sizeof(w));
	s->nout--;
	return w;
}

/* Everything s sent arrives at the other side, in order (what arrives
 * there sends nothing towards it). */
static void drain(struct side *s)
{
	uint32_t n = s->nout;

	for (uint32_t i = 0; i < n; i++)
		arrive(&S[s == S], 0, &s->out[i], MARK_HOST);
	need(s->nout == n);
	s->nout = 0;
}

/* A header from no genuine sender: near the last one the other side sent
 * (to fall inside the windows) or anything, from peer 0 or another slot. */
static void forge(struct side *to, struct side *other)
{
	struct wpkt w = { .data = false };
	uint8_t b = byte();
	uint32_t from = b & 1 ? 0 : 1 + (b >> 1) % NPEERS;	/* NPEERS: out of range */

	if (byte() & 1) {
		w.h = other->last_h;
		w.h.seq_ack += (uint32_t)(int8_t)byte();
		w.h.pull += (uint32_t)(int8_t)byte();
	} else {
		w.h.seq_ack = word();
		w.h.pull = word();
		w.h.aux = word();
	}
	w.h.type = byte() % (EQ_T_MAX + 1);
	w.h.flags = byte();
	w.h.ce = byte() & 1;
	w.h.ect = 0;
	w.h.wire_len = 64 + byte() * 6u;
	w.data = w.h.type == EQ_T_DATA;
	w.len = (uint16_t)w.h.wire_len;
	w.id = word();
	arrive(to, from, &w, MARK_FORGED);
}

static void run_both(uint64_t until)
{
	do {
		uint64_t d0 = smartt_run(S[0].e, now), d1 = smartt_run(S[1].e, now);
		uint64_t d = d0 < d1 ? d0 : d1;

		watch_rx(0);
		watch_rx(1);
		if (d <= now)
			d = now + 1000;	/* due now: a microsecond on */
		now = d < until ? d : until;
	} while (now < until);
	smartt_run(S[0].e, now);
	smartt_run(S[1].e, now);
	watch_rx(0);
	watch_rx(1);
	shown(0);
	shown(1);
}

static void step(void)
{
	uint8_t op = byte() % 13, b = byte();
	struct side *s = &S[b & 1], *o = &S[!(b & 1)];

	switch (op) {
	case 0:
	case 1:
		host_packet(&S[op]);
		break;
	case 2:
		run_both(now + (b + 1) * 20000ULL);
		break;
	case 3:		/* deliver one, maybe out of order */
	case 4:
		if (s->nout) {
			struct wpkt w = take(s, pick(s->nout));

			arrive(o, 0, &w, MARK_HOST);
		}
		break;
	case 5:		/* lost */
		if (s->nout)
			take(s, pick(s->nout));
		break;
	case 6:		/* duplicated */
		if (s->nout)
			put_wire(s, &s->out[pick(s->nout)]);
		break;
	case 7:		/* trimmed, or CE-marked */
		if (s->nout) {
			struct wpkt *w = &s->out[pick(s->nout)];

			if (byte() & 1)
				w->h.ce = 1;
			else if (w->h.type == EQ_T_DATA)
				w->h.type = EQ_T_TRIMMED;
		}
		break;
	case 8:
	case 9:
		forge(s, o);
		break;
	case 10:	/* a flush */
		say("%8.3f ms flush %c\n", now / 1e6, 'A' + (int)(s - S));
		smartt_flush(s->e, byte() & 1 ? NPEERS : 0, now);
		s->dups_ok = o->dups_ok = true;
		watch_rx((int)(s - S));
		shown((int)(s - S));
		need(s->bucket[0].queued == 0);	/* its queues went with the tunnel */
		break;
	case 11:	/* everything on the wire arrives, in order */
		drain(s);
		break;
	case 12:
		host_burst(s);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in = data;
	left = size;
	trace = getenv("FUZZ_TRACE") != NULL;
	setup(byte());
	while (left)
		step();
	/* Let it settle, with the wire delivering in order. */
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 2; i++)
			drain(&S[i]);
		run_both(now + 1000000);
	}
	for (int i = 0; i < 2; i++) {
		smartt_flush(S[i].e, NPEERS, now);
		smartt_free(S[i].e);
		need(S[i].pool.in_use == 0);
	}
	return 0;
}
