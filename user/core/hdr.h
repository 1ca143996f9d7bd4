/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parsed edgeq header: what the frame layer (user/agent/frame.c) makes
 * of a packet's header and what a control loop stamps into one.  A part of
 * the transport core, not of any scheme (issue 13, docs/architecture.md):
 * the frame layer no longer depends on EQDS.  The fixed body's fields keep
 * EQDS's names for now; other schemes will send 0 there and carry their
 * own in options.
 */
#ifndef EDGEQ_EQT_HDR_H
#define EDGEQ_EQT_HDR_H

#include <stdbool.h>
#include <stdint.h>

/* A parsed edgeq header, host byte order (wire.h has the layout).  For
 * DATA/TRIMMED/RTS: seq, pull_target; for PULL/ACK/NACK/RST: ack, pull_no,
 * busy_ns.  wire_len is the original frame length of a DATA packet (the
 * sender stamps it in the header's length field, so that a trimmed header
 * still says how much credit its retransmission needs). */
struct eqt_hdr {
	uint8_t		type;		/* EQ_T_* */
	uint8_t		flags;		/* EQ_F_* */
	uint16_t	path_id;
	uint32_t	seq_ack;	/* seq (DATA, TRIMMED, RTS) or ack (control) */
	uint32_t	pull;		/* pull_target (DATA, TRIMMED, RTS) or pull_no */
	uint32_t	aux;		/* DATA: original frame length; control: busy_ns */
	uint8_t		ce;		/* the outer header arrived CE-marked */
	uint8_t		ect;		/* DATA to send: the outer header ECT(0)
					 * where it is Not-ECT, so that the fabric
					 * marks it rather than drops it: the
					 * scheme reacts to CE itself */
	uint32_t	wire_len;	/* the frame as received, Ethernet header
					 * included (0: not known) */
	/* Options (wire.h, docs/wire.md 2.6): parsed from a frame, or to
	 * write into one.  opts has bit EQ_OPT_x set for each present. */
	uint32_t	opts;
	uint32_t	ts, ts_echo;	/* TSTAMP: ns, mod 2^32, of the sender's
					 * clock; the echo of the peer's */
	uint32_t	credit;		/* CREDIT: bytes */
	uint32_t	src_qbytes;	/* SRC: a switch's queue, bytes */
	uint32_t	src_mbps;	/* ... its link rate, Mb/s */
	uint16_t	qid;		/* QID: upstream queue id */
	uint16_t	path_echo;	/* PATH: the path_id of the DATA answered */
	bool		path_set;	/* to send: path_id is the scheme's (REPS),
					 * not TC's entropy or the agent's policy:
					 * the outer UDP source port and IPv6 flow
					 * label follow */
};

#define EQT_OPT(kind)	(1u << (kind))

#endif
