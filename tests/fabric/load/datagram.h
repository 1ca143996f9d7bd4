/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The payload of eqload's UDP datagrams, pure encode/decode:
 *
 *   plain:  | seq (8) | send time ns (8) | zeros...                  |
 *   edgeq:  | edgeq DATA header (20) | seq (8) | send time ns (8) | zeros... |
 *
 * seq counts datagrams from 0, the send time is CLOCK_MONOTONIC; both
 * big-endian.  The edgeq layout makes the datagram look like edgeq DATA to
 * the fabric's switch (when sent to its edgeq port), so the switch trims
 * it: what arrives is then the 20-byte header alone, type TRIMMED, whose
 * seq field still says which datagram it was.
 *
 * Frame bytes count what the datagram occupies on an Ethernet link without
 * FCS, preamble and gap: payload + 8 (UDP) + 20 (IPv4) or 40 (IPv6) + 14
 * (Ethernet), so a 1472-byte payload over IPv4 is a 1514-byte frame.  The
 * fabric's link rates count the same bytes.
 */
#ifndef EDGEQ_LOAD_DATAGRAM_H
#define EDGEQ_LOAD_DATAGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "edgeq/wire.h"

#define EQL_DG_SEQ_LEN		16	/* seq + send time */
#define EQL_DG_PLAIN_MIN	EQL_DG_SEQ_LEN
#define EQL_DG_EDGEQ_MIN	(EQ_HDR_LEN + EQL_DG_SEQ_LEN)
/*
 * The edgeq header's proto field names the inner protocol of DATA, but
 * eqload's payload is no IP packet: 253 (RFC 3692, "use for experimentation
 * and testing") so that a real edgeq receiver drops it rather than inject
 * it as an inner packet.
 */
#define EQL_DG_EDGEQ_PROTO	253
#define EQL_DG_SENDER_ID	1

/* The largest UDP payload over IPv4 (AF_INET) or IPv6 (AF_INET6). */
size_t eql_dg_max_payload(int family);
/* Frame bytes of a datagram with this payload (see above). */
uint64_t eql_dg_frame_bytes(uint64_t payload, int family);

/*
 * Writes the headers of datagram seq into buf (len >= the layout's
 * minimum); bytes past them are left as they are, so a buffer zeroed once
 * can be reused for every datagram.
 */
void eql_dg_encode(uint8_t *buf, size_t len, bool edgeq, uint64_t seq, uint64_t send_ns);

struct eql_dg_info {
	uint64_t seq;
	uint64_t send_ns;	/* valid when has_time */
	bool has_time;
	bool trimmed;		/* edgeq: an edgeq header whose payload was cut */
};

/*
 * Reads a received payload.  Returns 0, or -1 if it is not one of ours:
 * shorter than 8 bytes (plain); not an edgeq DATA or TRIMMED header of
 * this version (edgeq).  With edgeq, a datagram of type TRIMMED, with the
 * TRIMMED flag, or too short to hold eqload's seq after the header is
 * trimmed: its seq comes from the edgeq header (32 bits).
 */
int eql_dg_decode(const uint8_t *buf, size_t len, bool edgeq, struct eql_dg_info *out);

#endif
