/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * edgeq wire format: the one definition of every on-wire field.
 *
 * An edgeq packet is   Ethernet | outer IPv4 or IPv6 | UDP | edgeq header | payload
 * where the payload of a DATA packet is the original (inner) IP packet.
 * All multi-byte fields are big-endian (network order).  docs/wire.md
 * describes each field; keep the two in step.
 *
 * Layout (offsets in bytes from the start of the edgeq header):
 *
 *   0        1        2        3
 *   +--------+--------+--------+--------+
 *   |ver|type|  flags | hdr_len| proto  |  common header, 8 bytes
 *   +--------+--------+--------+--------+
 *   |    sender_id    |     path_id     |
 *   +--------+--------+--------+--------+
 *   |       seq (DATA) / ack (control)  |  type body, 12 bytes
 *   +--------+--------+--------+--------+
 *   | pull_target (DATA) / pull_no (ctl)|
 *   +--------+--------+--------+--------+
 *   | frame_len (DATA) / limit (RTS) /  |
 *   | busy_ns (ctl)                     |
 *   +--------+--------+--------+--------+
 *   |  options (TLV), hdr_len*4 - 20 B  |  optional, 4-byte aligned
 *   +-----------------------------------+
 *
 * hdr_len counts the whole edgeq header (fixed part and options) in 4-byte
 * words, so a receiver can always find the payload even when it does not
 * understand an option.  Later schemes (SIRD credit, SMaRTT timestamps,
 * Bolt telemetry, BFC queue ids) add options or use the reserved bits, and
 * never move a field defined here.  A change that would is a new version.
 *
 * Sequence numbers over an IPv4 underlay: the receiver takes seq + outer
 * IPv4 ID, because GSO copies the edgeq header to every segment and counts
 * the ID up from 0.  Every IPv4 sender therefore sends ID 0 on a packet it
 * does not hand to GSO (the agent's AF_XDP path included), and a middlebox
 * that rewrites IDs breaks the numbering.  IPv6 has no ID: a TCP GSO
 * packet over an IPv6 underlay carries the segment option (EQ_OPT_SEG),
 * and the receiver adds the segment's index, which it reads off the inner
 * TCP sequence number, to the seq (docs/wire.md).
 *
 * This header is included by BPF programs and by userspace: it uses only
 * fixed-width types and no libc.
 */
#ifndef EDGEQ_WIRE_H
#define EDGEQ_WIRE_H

#include <linux/types.h>

#define EQ_WIRE_VERSION		1
#define EQ_DEFAULT_PORT		7446	/* UDP destination port of the tunnel */

/* Packet types (low nibble of byte 0). */
enum eq_type {
	EQ_T_DATA	= 0,	/* payload is an inner IP packet */
	EQ_T_TRIMMED	= 1,	/* DATA whose payload a switch cut off */
	EQ_T_PULL	= 2,	/* receiver grants credit (EQDS PULL, SIRD CREDIT) */
	EQ_T_ACK	= 3,
	EQ_T_NACK	= 4,
	EQ_T_RTS	= 5,	/* request to send: demand without data */
	EQ_T_RST	= 6,	/* tunnel reset / teardown */
	/* 7..15: room for SRC (Bolt), PAUSE/RESUME (BFC), SACK, ... */
	EQ_T_MAX	= 6,	/* highest type this version defines */
};

/* Flags (byte 1). */
#define EQ_F_SYN	0x01	/* zero-RTT tunnel setup: set until the peer answers */
#define EQ_F_TRIMMED	0x02	/* set by a trimming switch together with EQ_T_TRIMMED;
				 * the type is authoritative when they disagree */
#define EQ_F_CSN	0x04	/* SIRD: sender is congested (credit stuck at sender) */
#define EQ_F_ECE	0x08	/* control packet echoes a CE mark */
#define EQ_F_RTX	0x10	/* DATA is a retransmission */
#define EQ_F_HELD	0x10	/* ACK, PULL: its cumulative ack was held by the
				 * receiver's ACK delay, so its timing is no RTT
				 * sample (the bit is RTX's: DATA only uses that) */
#define EQ_F_FAST	0x20	/* DATA sent by the sender's TC on leased credit (lease.h) */
#define EQ_F_UNSCHED	0x40	/* DATA (SIRD): sent without credit, as a new
				 * burst's unscheduled bytes (the bit is
				 * CUM's: ACKs only use that) */
#define EQ_F_CUM	0x40	/* ACK: cumulative, every seq before `ack` arrived (the
				 * receiver's XDP delivered them itself: rx.h) */
#define EQ_F_LOST	0x80	/* NACK: not trimmed but missing, later packets came
				 * (lost on the way): the sender's credit for it
				 * is its own again */
#define EQ_F_PROVEN	0x80	/* DATA (REPS): its entropy's round trip works (a
				 * clean ACK came back by it), so the receiver's TC
				 * may send by it */
/* Bytes a frame costs on Ethernet beyond its own: preamble and start
 * delimiter (8), FCS (4), the inter-frame gap (12).  Pacers at a link
 * rate count them. */
#define EQ_ETH_FRAMING		24

/* Inner protocol (byte 3): IANA protocol numbers, as in IP-in-IP. */
#define EQ_PROTO_IPV4	4
#define EQ_PROTO_IPV6	41

struct eq_hdr {
	__u8	ver_type;	/* version << 4 | type */
	__u8	flags;
	__u8	hdr_len;	/* whole edgeq header in 4-byte words, >= 5 */
	__u8	proto;		/* DATA and TRIMMED: inner protocol; others: 0 */
	__be16	sender_id;	/* the sending host's node id */
	__be16	path_id;	/* entropy: also selects the UDP source port */
	union {
		struct {	/* EQ_T_DATA, EQ_T_TRIMMED, EQ_T_RTS */
			__be32	seq;		/* per-tunnel packet number */
			__be32	pull_target;	/* pull number the sender wants reached */
			__be32	frame_len;	/* frame length as sent, so that a trimmed
						 * header still says how much credit its
						 * retransmission needs; 0: not stated.
						 * RTS: the limit, the pull number up to
						 * which the sender's credit may be out of
						 * its hands (docs/wire.md 2.4); 0: none */
		} data;
		struct {	/* EQ_T_PULL, EQ_T_ACK, EQ_T_NACK, EQ_T_RST */
			__be32	ack;		/* cumulative ack / NACKed seq */
			__be32	pull_no;	/* cumulative pull number */
			__be32	busy_ns;	/* receiver link busy for at least this long */
		} ctl;
	};
} __attribute__((packed));

#define EQ_HDR_LEN		20	/* sizeof(struct eq_hdr) */
#define EQ_HDR_WORDS		(EQ_HDR_LEN / 4)
#define EQ_HDR_MAX_LEN		(255 * 4)

/* Option TLVs after the fixed header: kind, len (in bytes, >= 2), value.
 * A receiver skips an option it does not know, and the extra bytes of a
 * known option longer than defined, by len. */
enum eq_opt_kind {
	EQ_OPT_PAD	= 0,	/* one byte of padding, no length byte */
	EQ_OPT_TSTAMP	= 1,	/* SMaRTT/Bolt: u32 tx timestamp, u32 echo (ns of the
				 * sender's CLOCK_MONOTONIC, mod 2^32) */
	EQ_OPT_CREDIT	= 2,	/* SIRD: u32 credit in bytes */
	EQ_OPT_SRC	= 3,	/* Bolt: u32 queue bytes, u32 link rate Mb/s */
	EQ_OPT_QID	= 4,	/* BFC: u16 upstream queue id */
	EQ_OPT_SEG	= 5,	/* u16 segment size, u32 inner TCP seq of the first
				 * segment: struct eq_opt_seg */
	EQ_OPT_AUTH	= 6,	/* a keyed MAC of the header and the outer
				 * addresses, the header's last option:
				 * struct eq_opt_auth (auth.h) */
	EQ_OPT_PATH	= 7,	/* REPS: u16 the path_id (entropy) of the DATA
				 * packet an ACK or NACK answers */
};

/* The segment option: what numbers the segments of a TCP GSO packet over
 * an IPv6 underlay.  GSO copies the edgeq header, options included, to
 * every segment, and cuts the inner TCP payload into `mss` bytes each: the
 * segment whose inner TCP seq is tcp_seq0 + i * mss is seq + i.  The
 * sender puts it first among the options; a frame that carries its own
 * seq (the agent's, a retransmission) has it overwritten with padding. */
struct eq_opt_seg {
	__u8	kind;		/* EQ_OPT_SEG */
	__u8	len;		/* EQ_OPT_SEG_LEN */
	__be16	mss;		/* inner TCP payload bytes per segment */
	__be32	tcp_seq0;	/* inner TCP seq of segment 0 */
} __attribute__((packed));

#define EQ_OPT_SEG_LEN		8
#define EQ_SEG_MAX		1024	/* segments one option may number */
/* The other options' lengths (docs/wire.md 2.6); values big-endian. */
#define EQ_OPT_TSTAMP_LEN	10	/* kind, len, u32 ts, u32 echo */
#define EQ_OPT_CREDIT_LEN	6	/* kind, len, u32 bytes */
#define EQ_OPT_SRC_LEN		10	/* kind, len, u32 queue bytes, u32 Mb/s */
#define EQ_OPT_QID_LEN		4	/* kind, len, u16 queue id */
#define EQ_OPT_PATH_LEN		4	/* kind, len, u16 path_id echoed */

/* Shared with BPF programs, which cannot call out of these. */
#define EQ_WIRE_INLINE		static inline __attribute__((always_inline))

/* The bytes the options in `opts` (1 << EQ_OPT_x each; not SEG, which TC
 * adds by itself) take, padded to the header's 4-byte words. */
EQ_WIRE_INLINE __u32 eq_opts_room(__u32 opts)
{
	__u32 n = 0;

	if (opts & (1u << EQ_OPT_TSTAMP))
		n += EQ_OPT_TSTAMP_LEN;
	if (opts & (1u << EQ_OPT_CREDIT))
		n += EQ_OPT_CREDIT_LEN;
	if (opts & (1u << EQ_OPT_SRC))
		n += EQ_OPT_SRC_LEN;
	if (opts & (1u << EQ_OPT_QID))
		n += EQ_OPT_QID_LEN;
	if (opts & (1u << EQ_OPT_PATH))
		n += EQ_OPT_PATH_LEN;
	return (n + 3) & ~3u;
}
/* The most option room a peer's scheme may ask of TC on every DATA packet
 * (eq_peer.opt_words * 4): all four options DATA may carry (PATH is a
 * control packet's, which the agent builds). */
#define EQ_PEER_OPT_MAX		32
#define EQ_OPT_SCAN		16	/* option entries (a pad byte is one) a walk looks at */

/* The first option of `kind` among those from opt up to lim, or NULL;
 * `end` is where the buffer ends (for a BPF program, the packet's).  A
 * length below 2 ends the walk: the rest cannot be read. */
EQ_WIRE_INLINE const __u8 *eq_opt_find(const __u8 *opt, const __u8 *lim, const void *end,
				       __u8 kind)
{
	for (int i = 0; i < EQ_OPT_SCAN; i++) {
		if (opt + 2 > lim || (const void *)(opt + 2) > end)
			return (const __u8 *)0;
		if (opt[0] == EQ_OPT_PAD) {
			opt++;
			continue;
		}
		if (opt[1] < 2)
			return (const __u8 *)0;
		if (opt[0] == kind)
			return opt;
		opt += opt[1];
	}
	return (const __u8 *)0;
}

/* The index of the segment whose inner TCP seq is tcp_seq, or -1 when it
 * cannot be one of the option's segments (a peer that lies, or a middlebox
 * that resegmented). */
EQ_WIRE_INLINE int eq_seg_index(__u16 mss, __u32 tcp_seq0, __u32 tcp_seq)
{
	__u32 off = tcp_seq - tcp_seq0;

	if (!mss || off % mss || off / mss >= EQ_SEG_MAX)
		return -1;
	return (int)(off / mss);
}

/* The segment index the SEG option at o gives the inner packet that
 * starts at `inner` (the buffer ends at `end`): -1 when the inner packet
 * is no TCP segment of it, or is not there (a trimmed frame cannot be
 * numbered). */
EQ_WIRE_INLINE int eq_seg_index_at(const __u8 *o, const __u8 *inner, const void *end)
{
	__u32 hl, tcp_seq;

	if ((const void *)(o + EQ_OPT_SEG_LEN) > end || o[1] < EQ_OPT_SEG_LEN ||
	    (const void *)(inner + 1) > end)
		return -1;
	if ((inner[0] >> 4) == 4) {
		hl = (inner[0] & 0x0f) * 4;
		if ((const void *)(inner + 20) > end || inner[9] != 6 || hl < 20)
			return -1;
	} else {
		hl = 40;
		if ((const void *)(inner + 40) > end || inner[6] != 6)
			return -1;
	}
	const __u8 *th = inner + hl;	/* one pointer, checked and read (BPF) */

	if ((const void *)(th + 8) > end)
		return -1;
	tcp_seq = (__u32)th[4] << 24 | (__u32)th[5] << 16 | (__u32)th[6] << 8 | th[7];
	return eq_seg_index((__u16)(o[2] << 8 | o[3]),
			    (__u32)o[4] << 24 | (__u32)o[5] << 16 | (__u32)o[6] << 8 | o[7],
			    tcp_seq);
}

/* What to add to a DATA frame's seq for the segment option: 0 when the
 * header (hdr_len words from eq, within end) has none, else as
 * eq_seg_index_at().  Walks the options: for userspace.  A BPF program
 * looks only first among them, where every sender puts it
 * (eq_seg_first()): the walk's loop was too much for the verifier of
 * Linux 6.1 (E2BIG). */
EQ_WIRE_INLINE int eq_seg_of(const struct eq_hdr *eq, const void *end)
{
	const __u8 *inner = (const __u8 *)eq + ((eq->hdr_len * 4) & 0x3ff);
	const __u8 *o = eq_opt_find((const __u8 *)(eq + 1), inner, end, EQ_OPT_SEG);

	return o ? eq_seg_index_at(o, inner, end) : 0;
}

/* As eq_seg_of(), for a SEG option first among the options only. */
EQ_WIRE_INLINE int eq_seg_first(const struct eq_hdr *eq, const void *end)
{
	const __u8 *inner = (const __u8 *)eq + ((eq->hdr_len * 4) & 0x3ff);
	const __u8 *o = (const __u8 *)(eq + 1);

	if (eq->hdr_len * 4 < EQ_HDR_LEN + EQ_OPT_SEG_LEN || (const void *)(o + 2) > end ||
	    o[0] != EQ_OPT_SEG)
		return 0;
	return eq_seg_index_at(o, inner, end);
}

/* Outer headers the tunnel adds in front of the inner IP packet. */
#define EQ_UDP_LEN		8
#define EQ_OVERHEAD_V4		(20 + EQ_UDP_LEN + EQ_HDR_LEN)	/* 48 */
#define EQ_OVERHEAD_V6		(40 + EQ_UDP_LEN + EQ_HDR_LEN)	/* 68 */
/* What the route MTU of a peer prefix leaves room for (wire MTU minus
 * this): IPv6 keeps room for the segment option. */
#define EQ_ROOM_V4		EQ_OVERHEAD_V4				/* 48 */
#define EQ_ROOM_V6		(EQ_OVERHEAD_V6 + EQ_OPT_SEG_LEN)	/* 76 */

/* UDP source ports come from this range; the low bits carry the path id. */
#define EQ_SPORT_BASE		0xc000
#define EQ_SPORT_MASK		0x3fff

static inline __u8 eq_version(const struct eq_hdr *h)
{
	return h->ver_type >> 4;
}

static inline __u8 eq_type(const struct eq_hdr *h)
{
	return h->ver_type & 0x0f;
}

static inline __u8 eq_mk_ver_type(__u8 version, __u8 type)
{
	return (__u8)((version << 4) | (type & 0x0f));
}

/* Serial-number comparison (RFC 1982) for seq and pull numbers. */
static inline int eq_seq_before(__u32 a, __u32 b)
{
	return (__s32)(a - b) < 0;
}

#endif /* EDGEQ_WIRE_H */
