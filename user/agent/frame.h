/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Frames as the agent sees them: whole Ethernet frames of the edgeq wire
 * format (include/edgeq/wire.h).  Parsing what arrives from either socket,
 * stamping the fields the agent owns into a DATA frame TC encapsulated,
 * building control frames, and turning a DATA frame back into the inner
 * packet for the local stack.  Pure functions over byte buffers: unit
 * tested in tests/unit/test_agent_frame.c.
 */
#ifndef EDGEQ_AGENT_FRAME_H
#define EDGEQ_AGENT_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include "edgeq/maps.h"
#include "edgeq/auth.h"
#include "hdr.h"

/* Where things are in an edgeq frame. */
struct eqf_info {
	struct eq_addr	src, dst;	/* outer addresses (IPv4 mapped) */
	bool		v6;		/* outer IPv6 */
	uint16_t	l3_off;		/* outer IP header: 14 */
	uint16_t	eq_off;		/* edgeq header */
	uint16_t	eq_len;		/* its bytes, options included */
	uint16_t	inner_off;	/* inner IP header (DATA) */
	uint16_t	inner_len;	/* inner IP packet length (DATA) */
	uint8_t		inner_proto;	/* EQ_PROTO_IPV4 / EQ_PROTO_IPV6 */
	uint8_t		inner_l4;	/* inner IP protocol (6 = TCP) */
	uint8_t		outer_ecn;
	struct eqt_hdr	hdr;
};

/* Parse a frame, the options this version knows into fi->hdr (opts says
 * which came; a malformed option ends the walk: docs/wire.md 2.6): 0, or
 * -EINVAL if it is not a well-formed edgeq frame to
 * `port` (the XDP programs validated it already; the agent checks again
 * what it relies on, and counts what fails), or -ENOMSG for a trimmed
 * segment whose seq the segment option cannot give (wire.h).  A DATA or
 * TRIMMED seq is the segment's own: the outer IPv4 ID or the segment
 * option added. */
int eqf_parse(const uint8_t *f, uint32_t len, uint16_t port, struct eqf_info *fi);

/* Write the agent's fields into a DATA frame TC encapsulated: type, flags,
 * seq, pull target, frame_len from h; outer IPv4 ID 0 and the header
 * checksum; and the whole option room rewritten: h's options (h->opts),
 * padding for the rest, so that neither the segment option (wire.h says
 * why) nor TC's TSTAMP of an earlier moment stays.  0, or -ENOSPC if h's
 * options did not fit the room TC left (a peer's scheme says how much:
 * eq_peer.opt_words): the frame goes without them.  fi from eqf_parse of
 * the same frame.  `keep`: bytes at the room's end left for the AUTH
 * option (EQ_OPT_AUTH_LEN when the frame is to be signed, else 0).  With
 * h->path_set, the scheme's path_id replaces TC's entropy: in the header,
 * the outer UDP source port and an IPv6 flow label. */
int eqf_stamp_data(uint8_t *f, const struct eqf_info *fi, const struct eqt_hdr *h, uint32_t keep);

/* The bytes h's options take on the wire, padded to whole words. */
uint32_t eqf_opts_len(const struct eqt_hdr *h);

/* A DATA frame whose inner packet is a bare TCP ACK: no payload, no SYN,
 * FIN or RST (fi from eqf_parse of the same frame). */
bool eqf_tcp_pure_ack(const uint8_t *f, const struct eqf_info *fi);

/* The inner flow's bucket of a DATA frame, 0 .. EQT_FLOWS - 1: a hash of
 * its inner addresses and, for TCP and UDP, ports (the edge queue serves
 * sparse flows first: core/eqt.h).  Not a secret hash: a local sender
 * that makes its flows collide only gives up their head start. */
uint8_t eqf_flow(const uint8_t *f, const struct eqf_info *fi);

/* Outer headers of a control frame to a peer. */
struct eqf_route {
	uint8_t		eth_dst[6], eth_src[6];
	struct eq_addr	src, dst;
	bool		v6;
	uint16_t	port;		/* UDP destination port */
	uint16_t	node_id;	/* our sender id */
};

/* Build a control frame (PULL, ACK, NACK, RTS, RST) into buf, h's options
 * (h->opts) after the fixed header and `tail` bytes of padding after them
 * (EQ_OPT_AUTH_LEN for eqf_auth_sign(), else 0): its length, or 0 if buf
 * is too small.  The edgeq header is the frame's last bytes. */
uint32_t eqf_build_ctl(uint8_t *buf, uint32_t size, const struct eqf_route *r,
		       const struct eqt_hdr *h, uint16_t path, uint32_t tail);
/* Where the edgeq header of a control frame to r starts: what lies after
 * it to the frame's end is the header with its options, which a signature
 * covers. */
uint32_t eqf_ctl_eq_off(const struct eqf_route *r);

/* Authenticated headers (edgeq/auth.h).  Sign: the AUTH option into the
 * last EQ_OPT_AUTH_LEN bytes of the edgeq header at eq (eq_len bytes, the
 * option's room already there), tagged with key `key` of id `id`, for a
 * frame from src to dst: 0, or -ENOSPC if the header has no room for it
 * or is longer than a tag covers. */
int eqf_auth_sign(uint8_t *eq, uint32_t eq_len, const struct eq_addr *src,
		  const struct eq_addr *dst, const uint8_t *key, uint8_t id);

/* Check a parsed frame's tag against the peer's keys: 0 when it carries
 * an AUTH option, last in its header, made with one of them; -ENOKEY when
 * it carries none, or names no key the peer has; -EBADMSG when the tag
 * is wrong. */
int eqf_auth_check(const uint8_t *f, const struct eqf_info *fi, const struct eq_peer_keys *k);

/* The route back to the sender of a received frame (MACs swapped). */
void eqf_route_reply(const uint8_t *f, const struct eqf_info *fi, uint16_t port,
		     uint16_t node_id, struct eqf_route *r);

/* Turn the DATA frame f into the inner packet for the local stack, in
 * place: Ethernet header (dst, src given) then the inner IP packet, with
 * the outer ECN folded in (RFC 6040).  Returns the new start (inside f)
 * and sets *out_len; NULL if RFC 6040 says drop (CE over Not-ECT). */
uint8_t *eqf_decap(uint8_t *f, const struct eqf_info *fi, const uint8_t dst[6],
		   const uint8_t src[6], uint32_t *out_len);

#endif /* EDGEQ_AGENT_FRAME_H */
