// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for EQDS's packet handling (user/eqds/): two instances,
 * A and B, each the other's peer 0, joined by a wire the fuzzer drives.
 * The input is a program of events: packets from either host, time
 * passing, wire packets delivered in any order, dropped, duplicated,
 * trimmed or CE-marked, headers forged from either side's peer 0 or from
 * an unknown peer 1 (any type, fields near the genuine ones or anywhere),
 * and flushes.  Whatever the program:
 *  - no memory error or undefined behaviour (ASan, UBSan);
 *  - each host's own packets reach the other in order and at most once
 *    (a forged DATA packet may take a seq's place, never reorder them);
 *    except after a restart of either end's state, which may deliver a
 *    packet twice: a flush (the sender resends in a new epoch what the
 *    receiver held of the old one, and that goes up too), or a receiver
 *    with no state for a tunnel (flushed, or idle), which hands up the
 *    DATA that comes and answers with an RST, after which the sender sends
 *    it again (receiver.c: dropping it cost the inner TCP an RTO).  From
 *    such an event on, that receiver may deliver a packet twice
 *    (docs/eqds.md, "Flush").  The wire keeps a
 *    packet at most MSL_NS (20 ms, less than the tunnels' idle time of 50
 *    ms here, 10 s in the agent): a SYN packet that comes after its
 *    receiver forgot the tunnel starts it again, zero-RTT, and is
 *    delivered again (a replay, which only a key can refuse:
 *    docs/security.md).  This holds
 *    against forgeries with random fields, what an off-path attacker can
 *    send; a forgery built from a header the other side just sent is an
 *    on-path attacker's (docs/security.md says what one can do without
 *    keys), and after one only the other checks apply;
 *  - every packet goes back to its pool: after flushing and freeing both
 *    instances, none is in use.
 * Built and run by tests/fuzz/run.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "edgeq/wire.h"
#include "eqds.h"

#define MTU		1500
#define WIRE_MAX	2048	/* packets on the wire each way */
#define POOL		512
#define MARK_HOST	0xaa
#define MARK_FORGED	0xff
#define MSL_NS		20000000ULL	/* a packet's longest life on the wire */

#define need(c) do { if (!(c)) { fprintf(stderr, "fuzz_eqds: %s:%d: %s\n", __FILE__, \
					 __LINE__, #c); abort(); } } while (0)

struct wpkt {
	struct eqt_hdr	h;
	uint64_t	sent;		/* when it left (MSL_NS) */
	uint32_t	id;
	uint16_t	len;
	bool		data;
};

struct side {
	struct eqds	*e;
	struct eqt_pool	pool;
	struct wpkt	out[WIRE_MAX];	/* sent towards the other side */
	uint32_t	nout;
	uint32_t	next_id[EQT_NCLS];	/* of the next packet from this host */
	int64_t		last_got[EQT_NCLS];	/* the last of the other host's ids
						 * delivered here, per class (the
						 * classes share the wire by DRR,
						 * not in the host's order) */
	struct eqt_hdr	last_h;		/* the last header sent: forgeries start near it */
	bool		dups_ok;	/* a restart (flush, an RST for want of
					 * state): what it delivered may come again
					 * (see the top) */
};

static struct side S[2];
static uint64_t now;
static bool onpath;	/* an on-path forgery was sent: order is not promised */
static bool trace;	/* FUZZ_TRACE set: every event on stderr (replaying one input) */

#define say(...) do { if (trace) fprintf(stderr, __VA_ARGS__); } while (0)

static void say_hdr(const char *what, int side, uint32_t peer, const struct eqt_hdr *h)
{
	say("%8.3f ms %s %c peer %u type %u flags %#x seq/ack %u pull %u aux %u ce %u\n",
	    now / 1e6, what, 'A' + side, peer, h->type, h->flags, h->seq_ack, h->pull, h->aux, h->ce);
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
	s->last_h = *h;
	say_hdr("send data", (int)(s - S), peer, h);
	if (peer == 0)
		put_wire(s, &w);
}

static void send_ctl(void *ctx, uint32_t peer, const struct eqt_hdr *h)
{
	struct side *s = ctx;
	struct wpkt w = { .h = *h, .sent = now };

	s->last_h = *h;
	say_hdr("send ctl ", (int)(s - S), peer, h);
	if (h->type == EQ_T_RST && h->seq_ack == 0 && peer == 0)
		s->dups_ok = true;
	if (peer == 0)
		put_wire(s, &w);
}

static void deliver(void *ctx, uint32_t peer, struct eqt_pkt *p)
{
	struct side *s = ctx;
	uint32_t id;

	need(p->len >= 5);
	if (peer != 0 || p->data[4] != MARK_HOST)
		return;	/* a forgery that fit a window: allowed without keys */
	memcpy(&id, p->data, 4);
	say("%8.3f ms deliver at %c: class %u id %u\n", now / 1e6, 'A' + (int)(s - S), id >> 31,
	    id & 0x7fffffff);
	need(id >> 31 < EQT_NCLS);
	need(onpath || s->dups_ok || (int64_t)(id & 0x7fffffff) > s->last_got[id >> 31]);
	s->last_got[id >> 31] = id & 0x7fffffff;
}

static const struct eqds_cfg cfg = {
	.link_bps = 1000000000ULL, .mtu = MTU, .framing = EQ_ETH_FRAMING, .bdp_bytes = 8 * MTU,
	.edge_limit = 64, .edge_ecn = 16, .reorder_limit = 32, .reorder_ns = 2000000,
	.loss_ns = 500000, .rto_ns = 2000000, .drr_quantum = 3000, .ack_delay_ns = 300000,
	.policy = EQDS_ASL_FIFO, .idle_ns = 50000000, .npeers = 16,
};

static void setup(bool rts)
{
	struct eqds_cfg c = cfg;

	c.rts = rts;
	now = 1000000;
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
		S[i].e = eqds_new(&c, &io, &S[i].pool, now, 7 + (uint64_t)i);
		need(S[i].e);
	}
}

static void host_packet(struct side *s)
{
	struct eqt_pkt *p = eqt_pkt_get(&s->pool);
	uint8_t b = byte(), cls = b & 1 ? EQT_CLS_TCP : EQT_CLS_OTHER;
	uint32_t id = (uint32_t)cls << 31 | s->next_id[cls]++;

	if (!p)
		return;
	memset(p->data, 0, 64);
	memcpy(p->data, &id, 4);
	p->data[4] = MARK_HOST;
	p->len = (uint16_t)(64 + b * 5 < MTU + 14 ? 64 + b * 5 : MTU + 14);
	p->l3_off = 14;
	p->cls = cls;
	say("%8.3f ms host %c: class %u id %u len %u\n", now / 1e6, 'A' + (int)(s - S), cls,
	    id & 0x7fffffff, p->len);
	eqds_local(s->e, 0, p, now);	/* a drop at the edge queue is allowed */
}

/* Hand wire packet w to side `to`, as coming from its peer `from`. */
static void arrive(struct side *to, uint32_t from, const struct wpkt *w, uint8_t mark)
{
	struct eqt_pkt *p = NULL;

	if (mark == MARK_HOST && now - w->sent > MSL_NS)
		return;	/* older than a packet lives */
	if (w->data && w->h.type == EQ_T_DATA) {
		p = eqt_pkt_get(&to->pool);
		if (!p)
			return;	/* the agent counts pool_empty and drops it */
		memset(p->data, 0, 64);
		memcpy(p->data, &w->id, 4);
		p->data[4] = mark;
		p->len = w->len >= 64 ? w->len : 64;
		p->l3_off = 14;
	}
	say_hdr(mark == MARK_FORGED ? "FORGED -> " : "arrive at", (int)(to - S), from, &w->h);
	eqds_wire(to->e, from, &w->h, p, now);
}

static struct wpkt take(struct side *s, uint32_t i)
{
	struct wpkt w = s->out[i];

	memmove(&s->out[i], &s->out[i + 1], (s->nout - i - 1) * sizeof(w));
	s->nout--;
	return w;
}

/* A header from no genuine sender: near the last one this side sent (to
 * fall inside the windows) or anything. */
static void forge(struct side *to, struct side *other)
{
	struct wpkt w = { .data = false };
	uint32_t from = byte() & 1;

	if (byte() & 1) {
		onpath = true;
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
	w.h.wire_len = 64 + byte() * 6u;
	w.data = w.h.type == EQ_T_DATA;
	w.len = (uint16_t)w.h.wire_len;
	w.id = word();
	arrive(to, from, &w, MARK_FORGED);
}

static void run_both(uint64_t until)
{
	do {
		uint64_t d0 = eqds_run(S[0].e, now), d1 = eqds_run(S[1].e, now);
		uint64_t d = d0 < d1 ? d0 : d1;

		if (d <= now)
			d = now + 1000;	/* due now: a microsecond on */
		now = d < until ? d : until;
	} while (now < until);
	eqds_run(S[0].e, now);
	eqds_run(S[1].e, now);
}

static void step(void)
{
	uint8_t op = byte() % 12, b = byte();
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
			struct wpkt w = take(s, byte() % s->nout);

			arrive(o, 0, &w, MARK_HOST);
		}
		break;
	case 5:		/* lost */
		if (s->nout)
			take(s, byte() % s->nout);
		break;
	case 6:		/* duplicated */
		if (s->nout)
			put_wire(s, &s->out[byte() % s->nout]);
		break;
	case 7:		/* trimmed, or CE-marked */
		if (s->nout) {
			struct wpkt *w = &s->out[byte() % s->nout];

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
		eqds_flush(s->e, byte() & 1 ? EQDS_ALL_PEERS : 0, now);
		s->dups_ok = o->dups_ok = true;
		break;
	case 11:	/* everything on the wire arrives, in order */
		while (s->nout) {
			struct wpkt w = take(s, 0);

			arrive(o, 0, &w, MARK_HOST);
		}
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	in = data;
	left = size;
	trace = getenv("FUZZ_TRACE") != NULL;
	onpath = false;
	setup(byte() & 1);
	while (left)
		step();
	/* Let it settle, with the wire delivering in order. */
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 2; i++)
			while (S[i].nout) {
				struct wpkt w = take(&S[i], 0);

				arrive(&S[!i], 0, &w, MARK_HOST);
			}
		run_both(now + 1000000);
	}
	for (int i = 0; i < 2; i++) {
		eqds_flush(S[i].e, EQDS_ALL_PEERS, now);
		eqds_free(S[i].e);
		need(S[i].pool.in_use == 0);
	}
	return 0;
}
