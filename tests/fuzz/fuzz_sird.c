// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for SIRD as a scheme (user/sird/ on the core's tunnel
 * halves, user/core/tx.c, rx.c, reorder.c): one receiver R and one or two
 * senders, each a sird instance with its own pool, on one mocked clock.
 * Sender k is R's peer k-1, and R is each sender's peer 0; each pair is
 * joined by a wire each way that the fuzzer drives, as fuzz_smartt.c does
 * SMaRTT's.  The input picks the settings (an MTU of 576 to 9000, a link
 * of 1, 10, 25 or 100 Gbit/s, UnschT 0 to 200% of a BDP, B 100 to 300%,
 * SThr, rho 50 to 100%, round robin or least backlog first, the loss
 * window on or off, a configured base RTT or `bdp` or neither), then a
 * program of events: packets from a sender's host, one by one (any length
 * up to the frame) or in bursts of up to 1021 (4096 in all), time passing,
 * wire packets delivered in any order, dropped, duplicated, trimmed (DATA
 * turned into a header with no packet) or CE-marked, headers forged to
 * any instance from its genuine peer's slot, a slot nobody uses or one
 * beyond npeers (any type, any flags: EQ_F_UNSCHED, EQ_F_CSN, SYN ...;
 * seq, pull, aux near the genuine ones or anywhere; a CREDIT option near
 * what the sender asked or anywhere), and flushes.  Whatever the program:
 *  - no memory error or undefined behaviour (ASan, UBSan);
 *  - R's bucket: b is the sum of the 64 shares s[i].sb; b never grows
 *    while above B (a grant keeps b within B; B can fall under b when
 *    the senders' base RTTs do, and b must then come down first); a free
 *    slot has nothing granted and nothing asked; an occupied one is its
 *    tunnel's, whose share is no more than the epoch's grants to it,
 *    whose `rem` is exactly what it asked and was not granted, and
 *    that within what a sender's edge queue can hold; a sender that
 *    asked for more than it was granted has a slot (npeers < 64 here);
 *    no sender's limit is under a grain (it would never be granted
 *    again); and, with no base RTT configured, the BDP B and the limits
 *    run on is that of the largest of the senders' latest base RTTs, a
 *    frame at least (this found B kept at an earlier BDP when the RTT
 *    reported gave one under a frame: regress/bdp-under-a-frame-kept-the-last);
 *  - a sender never holds credit beyond what it asked for this epoch
 *    (a CREDIT count above it is ignored, bad_credit), never spends more
 *    than it was granted, and its host's held count (csn) is the sum of
 *    its tunnels';
 *  - what a sender holds unspent (credit_held) is no more than the most
 *    R ever granted it (the largest CREDIT count R sent it), unless the
 *    sender took a forged header with a CREDIT option from R's slot: a
 *    forged count up to what it asked is taken by design, as nothing
 *    without keys tells it from R's (docs/security.md).  Not checked:
 *    credit_held <= R's share for it (test_sird_scheme's check, on a
 *    fabric that delivers in time): here the wire keeps R's PULLs and
 *    the sender's DATA as long as the program likes, R takes back a
 *    silent sender's credit after 4 RTOs (receiver.c), and a late PULL
 *    then gives the sender credit R no longer counts (by design: once,
 *    and within its limit);
 *  - every DATA a sender sends is its host's, to R, with ECT; R's ACK of
 *    a DATA packet and its NACK of a trimmed header echo its CE mark;
 *    every PULL, ACK and NACK of R carries its CREDIT count, its RSTs
 *    none;
 *  - a DATA packet goes up only if sird_wire() admitted it, and each
 *    arrival at most once; nothing goes up at a sender but forgeries;
 *    each sender's packets reach R in order and at most once, except
 *    after a restart of R's state for it (as in fuzz_smartt.c: a flush
 *    of either end, R freeing its idle tunnel, or an RST the sender took
 *    after a forgery from that sender's slot was taken or answered);
 *    the wire keeps a packet at most MSL_NS (20 ms), less than the idle
 *    time of 50 ms;
 *  - what each sender shows TC of its edge queue counts every packet it
 *    took from the host and at most those;
 *  - with no forgery in the program (losses, duplicates, trims, flushes,
 *    time, anything else), once the wires deliver in order every sender
 *    sends all it holds within 5 s (the longest RTO is 1 s): no stall;
 *    and once idle, R's bucket is back to 0.  (It fails with the reclaim
 *    rule of before aaf1a38, credit taken back from a silent sender only
 *    once it asks for nothing: regress/stall-silent-sender-asking.)  Not
 *    checked with forgeries: a forged RTS (from a slot nobody uses, say)
 *    is granted credit nobody spends, up to what an edge queue can hold,
 *    a limit at a time, each taken back only after 4 RTOs of silence: it
 *    holds part of B from the genuine senders for as long as that takes,
 *    which nothing without keys can prevent (docs/security.md);
 *  - every packet goes back to its pool: after flushing (R's bucket is
 *    then empty) and freeing every instance, none is in use.
 * Built and run by tests/fuzz/test_fuzz.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "edgeq/lease.h"
#include "sird.h"
#include "sird_int.h"	/* the tunnels' counts, for the checks */

#define NS_MAX		2		/* senders */
#define R_PEERS_MAX	(NS_MAX + 1)	/* R's: the senders and a slot nobody uses */
#define S_PEERS		2		/* a sender's: R and a slot nobody uses */
#define WIRE_MAX	4096		/* packets on a wire */
#define POOL		4096
#define FRAME_MAX	9216		/* the pools' frames: an MTU of 9000 and more */
#define MARK_HOST	0xaa
#define MARK_FORGED	0xff
#define MSL_NS		20000000ULL	/* a packet's longest life on the wire */
#define IDLE_NS		50000000ULL
#define RTO_NS		2000000ULL
#define SERIALS		(1u << 18)	/* arrivals tracked per input */
#define BURST_MAX	4096		/* packets in bursts per input */
#define SETTLE_NS	5000000000ULL	/* the longest a sender may stay busy at the end */

#define need(c) do { if (!(c)) { fprintf(stderr, "fuzz_sird: %s:%d: %s\n", __FILE__, \
					 __LINE__, #c); abort(); } } while (0)

struct wpkt {
	struct eqt_hdr	h;
	uint64_t	sent;		/* when it left (MSL_NS) */
	uint32_t	id;
	uint16_t	len;
	bool		data;
};

struct wire {
	struct wpkt	p[WIRE_MAX];
	uint32_t	n;
	struct eqt_hdr	last;		/* the last header put on it: forgeries start near it */
};

/* An instance: N[0] is R, N[1..ns] the senders. */
struct node {
	struct sird	*e;
	struct eqt_pool	pool;
	uint32_t	npeers;
	struct eq_credit bucket[R_PEERS_MAX];	/* TC's view of its edge queues */
	uint32_t	taken;		/* packets handed to sird_local() (to peer 0) */
	uint32_t	next_id[EQT_NCLS];	/* of the next packet from this host */
	bool		rx_state[R_PEERS_MAX];	/* its tunnel from the peer took DATA */
};

/* Sender k and R: the wires, and what R delivered from it. */
struct link {
	struct wire	up, down;	/* sender to R, R to sender */
	int64_t		last_got[EQT_NCLS];	/* the last of the sender's ids delivered
						 * at R, per class (the classes share the
						 * wire by DRR, not in the host's order) */
	bool		dups_ok;	/* R's state for it restarted: see the top */
	bool		tainted;	/* a forgery from its slot was taken or answered */
	bool		credit_forged;	/* it took a forged header with a CREDIT option */
	uint64_t	max_credit;	/* the largest CREDIT count R sent it */
};

/* What became of each arrival of a DATA packet (its serial is in its
 * payload). */
enum { ARR_REFUSED, ARR_ADMITTED, ARR_DELIVERED };

static struct node N[1 + NS_MAX];
static struct link L[NS_MAX];
static uint32_t ns;		/* senders in this input */
static struct sird_cfg cfg;
static uint64_t now;
static uint64_t b_prev;		/* R's b at the last check */
static uint8_t arr_state[SERIALS];
static uint32_t nserial;
static uint32_t burst_left;
static struct {			/* the DATA or trimmed header being handed in */
	bool		on;
	struct node	*to;
	uint32_t	from, seq, serial;
	uint8_t		type, ce;
} cur;
static bool forging;	/* a forged header is being handed in */
static bool forged_any;	/* ... or was, in this input */
static struct link *forged_link;	/* ... from this sender's slot (or NULL) */
static bool trace;	/* FUZZ_TRACE set: every event on stderr (replaying one input) */

#define say(...) do { if (trace) fprintf(stderr, __VA_ARGS__); } while (0)

static const char *name(const struct node *n)
{
	static const char *names[] = { "R", "S1", "S2" };

	return names[n - N];
}

static void say_hdr(const char *what, const struct node *n, uint32_t peer, const struct eqt_hdr *h)
{
	say("%9.3f ms %s %s peer %u type %u flags %#x seq/ack %u pull %u aux %u ce %u%s%u\n",
	    now / 1e6, what, name(n), peer, h->type, h->flags, h->seq_ack, h->pull, h->aux, h->ce,
	    h->opts & EQT_OPT(EQ_OPT_CREDIT) ? " credit " : " -", h->credit);
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

static uint16_t half(void)
{
	return (uint16_t)(byte() | byte() << 8);
}

static uint32_t word(void)
{
	return (uint32_t)half() | (uint32_t)half() << 16;
}

static void put_wire(struct wire *w, const struct wpkt *p)
{
	w->last = p->h;
	if (w->n < WIRE_MAX)
		w->p[w->n++] = *p;	/* else lost on the way */
}

/* ---- the checks ---- */

/* The checks run after every call into an instance: no coverage feedback
 * from them (their loops over the 64 slots would take most of the time). */
#define CHECK	__attribute__((no_sanitize("coverage")))

/* R's bucket and its tunnels (see the top).  After every call into R. */
CHECK static void check_r(void)
{
	const struct sird *s = N[0].e;
	const struct sird_rx *c = sird_credit_of(s);
	uint64_t sum = 0;
	uint32_t n = s->cfg.npeers, cap = 2 * s->cfg.edge_limit * (s->cfg.mtu + 14);

	for (uint32_t i = 0; i < SIRD_MAX_SENDERS; i++) {
		uint32_t p = s->slot_peer[i];
		const struct sird_rxt *r;

		sum += c->s[i].sb;
		if (p == n) {		/* free */
			need(!c->s[i].sb && !c->s[i].rem);
			continue;
		}
		need(p < n);
		r = s->rx[p];
		need(r && r->slot == (int)i);
		need(c->s[i].sb <= r->granted);
		need(c->s[i].rem == (uint32_t)(r->asked - r->granted));
		need((uint32_t)(r->asked - r->granted) <= cap);
		need(r->credit_sent >= r->granted);
		/* Under a grain, a sender with nothing outstanding is granted
		 * nothing again, and no DATA comes to raise it. */
		need(sird_limit_bytes(&c->s[i].lim) >= c->grain);
	}
	need(c->b == sum);
	/* B and the limits run on the largest of the senders' latest base
	 * RTTs (receiver.c), a frame at least (as sird_new() starts them). */
	if (!s->cfg.base_rtt_ns && s->rtt_max) {
		uint64_t bdp = sird_bdp_of(s, s->rtt_max);

		bdp = bdp > s->cfg.mtu + 14 ? bdp : s->cfg.mtu + 14;
		if (s->bdp != bdp || c->p.bdp != bdp) {
			fprintf(stderr, "fuzz_sird: R's BDP %llu (bucket's %llu), its senders' %llu "
				"(%llu ns)\n", (unsigned long long)s->bdp,
				(unsigned long long)c->p.bdp, (unsigned long long)bdp,
				(unsigned long long)s->rtt_max);
			need(!"R's BDP follows its senders' RTTs");
		}
	}
	if (c->b > sird_rx_bucket(c) && c->b > b_prev) {
		fprintf(stderr, "fuzz_sird: b %llu grew from %llu above the bucket %llu (B %llu)\n",
			(unsigned long long)c->b, (unsigned long long)b_prev,
			(unsigned long long)sird_rx_bucket(c), (unsigned long long)c->B);
		need(!"b grows only within the bucket in force");
	}
	if (sird_rx_bucket(c) > c->B || sird_rx_bucket(c) < (c->B < 2ULL * c->grain ? c->B : 2ULL * c->grain))
		need(!"the bucket in force is within [2 grains, B]");
	b_prev = c->b;
	for (uint32_t p = 0; p < n; p++) {
		const struct sird_rxt *r = s->rx[p];

		if (!r)
			continue;
		if (r->slot != SIRD_NO_SLOT)
			need(r->slot >= 0 && r->slot < SIRD_MAX_SENDERS && s->slot_peer[r->slot] == p);
		else	/* a slot for every asking sender: npeers < 64 */
			need(r->asked == r->granted);
	}
}

/* A sender's counts (see the top).  Its node index k >= 1. */
CHECK static void check_sender(int k)
{
	const struct sird *s = N[k].e;
	const struct link *l = &L[k - 1];
	struct sird_published own;
	uint64_t held = 0;

	for (uint32_t p = 0; p < s->cfg.npeers; p++) {
		const struct sird_txt *t = s->tx[p];

		if (!t)
			continue;
		need(p == 0);	/* only its host's, to R */
		/* Never beyond what it asked: a CREDIT count above is ignored. */
		need((int32_t)(t->granted - t->asked) <= 0);
		/* Never spent beyond what it was granted. */
		need((int32_t)(t->granted - t->spent) >= 0);
		held += t->granted - t->spent;
	}
	need(s->held == held);
	sird_peer_state(s, 0, NULL, &own);
	if (!l->credit_forged && own.credit_held > l->max_credit) {
		fprintf(stderr, "fuzz_sird: %s holds %llu, R granted it %llu at most\n",
			name(&N[k]), (unsigned long long)own.credit_held,
			(unsigned long long)l->max_credit);
		need(!"credit held within R's grants");
	}
}

/* What node i shows TC of its edge queues, after a sync: every packet it
 * took, and at most those it holds. */
static void shown(int i)
{
	sird_sync(N[i].e, now);
	need(N[i].bucket[0].taken == N[i].taken);
	need(N[i].bucket[0].queued <= N[i].taken);
	for (uint32_t j = 1; j < N[i].npeers; j++)
		need(!N[i].bucket[j].taken && !N[i].bucket[j].queued);
}

CHECK static void check_all(void)
{
	check_r();
	for (uint32_t k = 1; k <= ns; k++)
		check_sender((int)k);
}

/* Has R forgotten what it took from a sender (an idle free)?  Then a
 * restart: see the top. */
static void watch_rx(void)
{
	for (uint32_t p = 0; p < ns; p++) {
		struct eq_agent_peer v;
		bool st;

		sird_peer_state(N[0].e, p, &v, NULL);
		st = v.rx_data || v.rx_trimmed;
		if (N[0].rx_state[p] && !st) {
			say("%9.3f ms R forgot its tunnel from S%u\n", now / 1e6, p + 1);
			L[p].dups_ok = true;
		}
		N[0].rx_state[p] = st;
	}
}

/* ---- the instances' io ---- */

static void send_data(void *ctx, uint32_t peer, struct eqt_pkt *p, const struct eqt_hdr *h)
{
	struct node *n = ctx;
	int k = (int)(n - N);
	struct wpkt w = { .h = *h, .sent = now, .len = p->len, .data = true };

	memcpy(&w.id, p->data, 4);
	say_hdr("send data", n, peer, h);
	/* Only a sender's host's packets (R's sends none), to R, with ECT:
	 * R's limits react to the fabric's marks. */
	need(k >= 1 && (uint32_t)k <= ns);
	need(peer == 0 && h->type == EQ_T_DATA && h->ect);
	need(p->len >= 64 && p->len <= cfg.mtu + 14 && p->data[4] == MARK_HOST);
	need(w.id >> 31 < EQT_NCLS && (w.id & 0x7fffffff) < n->next_id[w.id >> 31]);
	put_wire(&L[k - 1].up, &w);
}

static void send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct node *n = ctx;
	int k = (int)(n - N);
	struct wpkt w = { .h = *h, .sent = now };

	say_hdr("send ctl ", n, peer, h);
	need(peer < n->npeers);
	/* The answer to the packet being handed in echoes its CE mark. */
	if (cur.on && cur.to == n && cur.from == peer && h->seq_ack == cur.seq &&
	    ((cur.type == EQ_T_DATA && h->type == EQ_T_ACK) ||
	     (cur.type == EQ_T_TRIMMED && h->type == EQ_T_NACK && !(h->flags & EQ_F_LOST))))
		need(!(h->flags & EQ_F_ECE) == !cur.ce);
	if (h->type == EQ_T_RTS) {
		/* A sender's request, for its tunnel to R. */
		need(k >= 1 && peer == 0);
	} else {
		need(h->type == EQ_T_ACK || h->type == EQ_T_NACK || h->type == EQ_T_PULL ||
		     h->type == EQ_T_RST);
		/* PULL, ACK, NACK: each with the credit count; RST none. */
		if (h->type == EQ_T_RST)
			need(h->opts == 0);
		else
			need(h->opts == EQT_OPT(EQ_OPT_CREDIT));
	}
	if (k == 0) {
		if (peer >= ns)
			return;		/* to the slot nobody uses */
		if (forging && forged_link == &L[peer])
			L[peer].tainted = true;	/* an answer to a forgery */
		if ((h->opts & EQT_OPT(EQ_OPT_CREDIT)) && h->credit > L[peer].max_credit)
			L[peer].max_credit = h->credit;
		put_wire(&L[peer].down, &w);
	} else if (peer == 0) {
		/* Its RTS, or its receiving half's answer to a forgery (R has
		 * no sending tunnel to take it). */
		put_wire(&L[k - 1].up, &w);
	}
}

static void deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct node *n = ctx;
	uint32_t id, serial;
	struct link *l;

	need(peer < n->npeers && p->len >= 64);
	memcpy(&serial, p->data + 8, 4);
	say("%9.3f ms deliver at %s from peer %u: serial %u\n", now / 1e6, name(n), peer, serial);
	need(serial < nserial);
	if (serial < SERIALS) {
		/* Admitted (or being admitted now), and up once. */
		need(arr_state[serial] == ARR_ADMITTED ||
		     (cur.on && serial == cur.serial && arr_state[serial] == ARR_REFUSED));
		arr_state[serial] = ARR_DELIVERED;
	}
	if (n != &N[0]) {
		need(p->data[4] == MARK_FORGED);	/* no genuine DATA goes to a sender */
		return;
	}
	if (peer >= ns || p->data[4] != MARK_HOST)
		return;	/* a forgery that fit a window: allowed without keys */
	l = &L[peer];
	memcpy(&id, p->data, 4);
	say("%9.3f ms   class %u id %u\n", now / 1e6, id >> 31, id & 0x7fffffff);
	need(id >> 31 < EQT_NCLS);
	need((id & 0x7fffffff) < N[peer + 1].next_id[id >> 31]);	/* one its host sent */
	need(l->dups_ok || (int64_t)(id & 0x7fffffff) > l->last_got[id >> 31]);
	l->last_got[id >> 31] = id & 0x7fffffff;
}

/* ---- the program ---- */

static void setup(void)
{
	static const uint64_t rates[] = { 1000000000ULL, 10000000000ULL, 25000000000ULL,
					  100000000000ULL };
	uint8_t how = byte(), m = byte(), r = byte(), u = byte(), bb = byte(), st = byte();
	uint32_t mtu = 576 + (uint32_t)m * (9000 - 576) / 255;

	ns = 1 + (how & 1);
	cfg = (struct sird_cfg){
		.link_bps = rates[r & 3], .framing = EQ_ETH_FRAMING, .mtu = mtu,
		.edge_limit = 256, .reorder_limit = 64, .reorder_ns = 2000000,
		.loss_ns = how & 4 ? 500000 : 0, .rto_ns = RTO_NS, .drr_quantum = 2 * (mtu + 14),
		.idle_ns = IDLE_NS,
		/* how & 8: a configured base RTT (20 us); how & 16: the
		 * tunnel's `bdp` (of 30 us); else as measured */
		.base_rtt_ns = how & 8 ? 20000 : 0,
		.bdp_bytes = how & 16 ? (uint32_t)(rates[r & 3] / 8 * 30000 / 1000000000ULL) : 0,
		.unsch_bdps = (uint32_t)u * 2 * SIRD_ONE / 255,			/* 0 - 200% */
		.b_bdps = SIRD_ONE + (uint32_t)bb * 2 * SIRD_ONE / 255,		/* 100 - 300% */
		.sthr_bdps = 1 + (uint32_t)st * SIRD_ONE / 255,			/* 0 - 100% */
		.rho_pct = 50 + (r >> 2) * 50 / 63,				/* 50 - 100% */
		.policy = how & 2 ? SIRD_SHORTEST_FIRST : SIRD_ROUND_ROBIN,
	};
	now = 1000000;
	b_prev = 0;
	memset(arr_state, 0, nserial < SERIALS ? nserial : SERIALS);
	nserial = 0;
	memset(&cur, 0, sizeof(cur));
	forging = forged_any = false;
	forged_link = NULL;
	burst_left = BURST_MAX;
	for (int i = 0; i < NS_MAX; i++) {
		/* Not the wires' packets: 3 MB to clear for every input. */
		memset(&L[i].up.last, 0, sizeof(L[i].up.last));
		memset(&L[i].down.last, 0, sizeof(L[i].down.last));
		L[i].up.n = L[i].down.n = 0;
		L[i].last_got[0] = L[i].last_got[1] = -1;
		L[i].dups_ok = L[i].tainted = L[i].credit_forged = false;
		L[i].max_credit = 0;
	}
	say("setup: %u sender(s), mtu %u, %llu bit/s, unsch %u B %u sthr %u (Q16) rho %u%%, "
	    "%s, loss %s, base rtt %llu, bdp %u\n", ns, mtu, (unsigned long long)cfg.link_bps,
	    cfg.unsch_bdps, cfg.b_bdps, cfg.sthr_bdps, cfg.rho_pct,
	    cfg.policy ? "least backlog first" : "round robin", cfg.loss_ns ? "on" : "off",
	    (unsigned long long)cfg.base_rtt_ns, cfg.bdp_bytes);
	for (uint32_t i = 0; i <= ns; i++) {
		struct eqt_io io = { &N[i], send_data, send_ctl, deliver, NULL };
		struct eqt_pool pool = N[i].pool;
		struct sird_cfg c = cfg;

		/* The pools live across inputs (each input gives every packet
		 * back: checked at its end). */
		if (!pool.mem)
			need(eqt_pool_init_sized(&pool, POOL, FRAME_MAX) == 0);
		memset(&N[i], 0, sizeof(N[i]));
		N[i].pool = pool;
		N[i].npeers = c.npeers = i ? S_PEERS : ns + 1;
		N[i].e = sird_new(&c, &io, &N[i].pool, now, 7 + (uint64_t)i);
		need(N[i].e);
		sird_set_bucket(N[i].e, N[i].bucket);
	}
}

static void host_send(struct node *n, uint8_t cls, uint16_t len)
{
	struct eqt_pkt *p = eqt_pkt_get(&n->pool);
	uint32_t id;

	if (!p)
		return;
	id = (uint32_t)cls << 31 | n->next_id[cls]++;
	memset(p->data, 0, 64);
	memcpy(p->data, &id, 4);
	p->data[4] = MARK_HOST;
	p->len = len;
	p->l3_off = 14;
	p->cls = cls;
	p->flags = 0;
	say("%9.3f ms host %s: class %u id %u len %u\n", now / 1e6, name(n), cls, id & 0x7fffffff,
	    p->len);
	n->taken++;
	n->bucket[0].handed++;		/* as TC counts it, handing it over */
	sird_local(n->e, 0, p, now);	/* a drop at the edge queue is allowed */
}

/* One packet of any length from 64 bytes up to the whole frame. */
static void host_packet(struct node *n)
{
	uint8_t b = byte();
	uint32_t frame = cfg.mtu + 14;

	host_send(n, b & 1 ? EQT_CLS_TCP : EQT_CLS_OTHER,
		  (uint16_t)(64 + half() % (frame - 64 + 1)));
}

/* Many packets at once, of one length, up to BURST_MAX in an input. */
static void host_burst(struct node *n)
{
	uint32_t c = 1 + byte() * 4u, frame = cfg.mtu + 14;
	uint8_t b = byte();
	uint16_t len = b & 2 ? (uint16_t)frame : 64;

	c = c < burst_left ? c : burst_left;
	burst_left -= c;
	say("%9.3f ms burst of %u from %s\n", now / 1e6, c, name(n));
	for (uint32_t i = 0; i < c; i++)
		host_send(n, b & 1, len);
}

/* Hand wire packet w to node `to`, as coming from its peer `from`: what
 * sird_wire() said. */
static bool arrive(struct node *to, uint32_t from, const struct wpkt *w, uint8_t mark)
{
	struct eqt_pkt *p = NULL;
	struct eq_agent_peer v;
	struct link *l = to != &N[0] ? &L[to - N - 1] : from < ns ? &L[from] : NULL;
	uint64_t rsts = 0;
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
	say_hdr(mark == MARK_FORGED ? "FORGED -> " : "arrive at", to, from, &w->h);
	if (to != &N[0]) {
		sird_peer_state(to->e, 0, &v, NULL);
		rsts = v.rsts;
	}
	forging = mark == MARK_FORGED;
	forged_link = l && (to == &N[0] || from == 0) ? l : NULL;
	took = sird_wire(to->e, from, &w->h, p, now);
	forging = false;
	if (took && mark == MARK_FORGED && forged_link) {
		forged_link->tainted = true;
		if (to != &N[0] && (w->h.opts & EQT_OPT(EQ_OPT_CREDIT))) {
			say("%9.3f ms   %s took a forged CREDIT option\n", now / 1e6, name(to));
			forged_link->credit_forged = true;
		}
	}
	forged_link = NULL;
	watch_rx();
	if (p && cur.serial < SERIALS) {
		if (!took)
			need(arr_state[cur.serial] == ARR_REFUSED);	/* not gone up */
		else if (arr_state[cur.serial] == ARR_REFUSED)
			arr_state[cur.serial] = ARR_ADMITTED;
	}
	memset(&cur, 0, sizeof(cur));
	if (to != &N[0]) {
		sird_peer_state(to->e, 0, &v, NULL);
		if (v.rsts != rsts) {
			/* The sender took an RST: it starts a new epoch with
			 * what it had in flight, which R may have delivered if
			 * a forgery had a hand in it (see the top). */
			need(took && from == 0 && w->h.type == EQ_T_RST && v.rsts == rsts + 1);
			say("%9.3f ms   %s took an RST%s\n", now / 1e6, name(to),
			    l->tainted ? " (after a forgery)" : "");
			if (l->tainted)
				l->dups_ok = true;
		}
	}
	check_all();
	return took;
}

/* Which of the n packets on a wire (n > 0): two bytes, for long wires. */
static uint32_t pick(uint32_t n)
{
	return half() % n;
}

static struct wpkt take(struct wire *w, uint32_t i)
{
	struct wpkt p = w->p[i];

	memmove(&w->p[i], &w->p[i + 1], (w->n - i - 1) * sizeof(p));
	w->n--;
	return p;
}

/* The wire b picks (b & 1: towards R), with its two ends. */
static struct wire *wire_of(uint8_t b, struct node **to, uint32_t *from)
{
	uint32_t k = (b >> 1) % ns;

	if (b & 1) {
		*to = &N[0];
		*from = k;
		return &L[k].up;
	}
	*to = &N[k + 1];
	*from = 0;
	return &L[k].down;
}

/* Everything on w arrives, in order (what arrives sends nothing back on
 * the same wire: R sends towards the senders, and a sender towards R). */
static void drain(struct wire *w, struct node *to, uint32_t from)
{
	uint32_t n = w->n;

	for (uint32_t i = 0; i < n; i++)
		arrive(to, from, &w->p[i], MARK_HOST);
	need(w->n == n);
	w->n = 0;
}

static void drain_all(void)
{
	for (uint32_t k = 0; k < ns; k++) {
		drain(&L[k].up, &N[0], k);
		drain(&L[k].down, &N[k + 1], 0);
	}
}

/* A header from no genuine sender, to R or a sender: from its genuine
 * peer's slot, a slot nobody uses, or one beyond npeers; near the last
 * header on the wire towards it (to fall inside the windows), or
 * anything. */
static void forge(void)
{
	uint8_t b = byte(), f = byte();
	struct node *to;
	uint32_t from, k;
	struct wire *w = wire_of(b, &to, &from);
	struct wpkt x = { .data = false };

	forged_any = true;
	k = (uint32_t)(to == &N[0] ? from : (uint32_t)(to - N - 1));
	if (f % 4 == 1)
		from = to->npeers - 1;	/* the slot nobody uses */
	else if (f % 4 == 2)
		from = to->npeers;	/* beyond */
	if (f & 4) {
		x.h = w->last;
		x.h.seq_ack += (uint32_t)(int8_t)byte();
		x.h.pull += (uint32_t)(int8_t)byte();
		x.h.aux += (uint32_t)(int8_t)byte();
	} else {
		x.h.seq_ack = word();
		x.h.pull = word();
		x.h.aux = word();
	}
	x.h.type = byte() % (EQ_T_MAX + 2);	/* one beyond the known */
	x.h.flags = byte();
	x.h.ce = byte() & 1;
	x.h.ect = 0;
	x.h.wire_len = 64 + byte() * 36u;
	x.h.opts = 0;
	if (f & 8) {
		/* A CREDIT count near what the sender asked (any DATA on the
		 * way to R says it), near R's last, or anything. */
		x.h.opts = EQT_OPT(EQ_OPT_CREDIT);
		switch ((f >> 4) & 3) {
		case 0:
			x.h.credit = L[k].up.last.pull - byte();
			break;
		case 1:
			x.h.credit = L[k].down.last.credit + (uint32_t)(int8_t)byte();
			break;
		default:
			x.h.credit = word();
			break;
		}
	}
	x.data = x.h.type == EQ_T_DATA;
	x.len = (uint16_t)(x.h.wire_len < FRAME_MAX ? x.h.wire_len : FRAME_MAX);
	x.id = word();
	arrive(to, from, &x, MARK_FORGED);
}

static void run_all(uint64_t until)
{
	do {
		uint64_t d = EQT_NO_DEADLINE;

		for (uint32_t i = 0; i <= ns; i++) {
			uint64_t x = sird_run(N[i].e, now);

			d = x < d ? x : d;
			check_all();
		}
		watch_rx();
		if (d <= now)
			d = now + 1000;	/* due now: a microsecond on */
		now = d < until ? d : until;
	} while (now < until);
	for (uint32_t i = 0; i <= ns; i++) {
		sird_run(N[i].e, now);
		check_all();
		shown((int)i);
	}
	watch_rx();
}

static void flush(uint8_t b)
{
	struct node *n = &N[(b >> 1) % (ns + 1)];
	uint32_t peer = b & 1 ? n->npeers : (b >> 4) % n->npeers;

	say("%9.3f ms flush %s peer %u\n", now / 1e6, name(n), peer);
	sird_flush(n->e, peer, now);
	if (n == &N[0]) {
		for (uint32_t k = 0; k < ns; k++)
			if (peer >= n->npeers || peer == k)
				L[k].dups_ok = true;
	} else if (peer >= n->npeers || peer == 0) {
		L[n - N - 1].dups_ok = true;
		need(n->bucket[0].queued == 0);	/* its queues went with the tunnel */
	}
	watch_rx();
	check_all();
	shown((int)(n - N));
}

static void step(void)
{
	uint8_t op = byte() % 13, b = byte();
	struct node *snd = &N[1 + b % ns], *to;
	uint32_t from;
	struct wire *w;

	switch (op) {
	case 0:
	case 1:
		host_packet(snd);
		break;
	case 2:		/* time: up to 2.56 ms, or 1 to 128 ms */
		run_all(now + (b & 0x80 ? ((b & 0x7f) + 1) * 1000000ULL : (b + 1) * 20000ULL));
		break;
	case 3:		/* deliver one, maybe out of order */
	case 4:
		w = wire_of(b, &to, &from);
		if (w->n) {
			struct wpkt x = take(w, pick(w->n));

			arrive(to, from, &x, MARK_HOST);
		}
		break;
	case 5:		/* lost */
		w = wire_of(b, &to, &from);
		if (w->n)
			take(w, pick(w->n));
		break;
	case 6:		/* duplicated */
		w = wire_of(b, &to, &from);
		if (w->n) {
			struct eqt_hdr last = w->last;

			put_wire(w, &w->p[pick(w->n)]);
			w->last = last;
		}
		break;
	case 7:		/* trimmed, or CE-marked */
		w = wire_of(b, &to, &from);
		if (w->n) {
			struct wpkt *x = &w->p[pick(w->n)];

			if (byte() & 1)
				x->h.ce = 1;
			else if (x->h.type == EQ_T_DATA)
				x->h.type = EQ_T_TRIMMED;
		}
		break;
	case 8:
	case 9:
		forge();
		break;
	case 10:
		flush(b);
		break;
	case 11:	/* everything on a wire arrives, in order */
		w = wire_of(b, &to, &from);
		drain(w, to, from);
		break;
	case 12:
		host_burst(snd);
		break;
	}
}

/* Anything on a wire, or a sender with packets to send or in flight. */
static bool busy(void)
{
	for (uint32_t k = 0; k < ns; k++) {
		const struct sird_txt *t = N[k + 1].e->tx[0];

		if (L[k].up.n || L[k].down.n || (t && (eqt_tx_backlog(&t->c) || t->c.infl.n)))
			return true;
	}
	return false;
}

/* With no forgery in the program, whatever else it did (losses, flushes,
 * time), a wire that delivers makes every sender's packets go, within
 * SETTLE_NS (the longest RTO is 1 s): no stall.  Then, idle, R takes back
 * and frees everything: its bucket is empty. */
static void settle(void)
{
	uint64_t start = now;

	for (;;) {
		drain_all();
		if (!busy())
			break;
		if (now - start > SETTLE_NS) {
			fprintf(stderr, "fuzz_sird: still busy %.3f ms after the program\n",
				(now - start) / 1e6);
			need(!"a sender stalled");
		}
		run_all(now + 1000000);
	}
	say("%9.3f ms settled\n", now / 1e6);
	for (int round = 0; round < 3; round++) {
		drain_all();
		run_all(now + IDLE_NS);
	}
	drain_all();
	need(!busy());
	need(sird_credit_of(N[0].e)->b == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in = data;
	left = size;
	trace = getenv("FUZZ_TRACE") != NULL;
	setup();
	while (left)
		step();
	/* Let it settle, with the wires delivering in order. */
	if (forged_any) {
		for (int round = 0; round < 20; round++) {
			drain_all();
			run_all(now + 1000000);
		}
	} else {
		settle();
	}
	for (uint32_t i = 0; i <= ns; i++)
		sird_flush(N[i].e, N[i].npeers, now);
	check_all();
	/* R forgot every sender: nothing is outstanding or asked. */
	{
		const struct sird_rx *c = sird_credit_of(N[0].e);

		need(c->b == 0);
		for (uint32_t i = 0; i < SIRD_MAX_SENDERS; i++)
			need(!c->s[i].sb && !c->s[i].rem);
	}
	for (uint32_t i = 0; i <= ns; i++) {
		sird_free(N[i].e);
		N[i].e = NULL;
		need(N[i].pool.in_use == 0);
	}
	return 0;
}
