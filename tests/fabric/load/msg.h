/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The eqload request header, sent by every TCP client mode to `eqload
 * serve`: 16 bytes, network byte order,
 *
 *   0        4        8                16
 *   | magic  |resp_len|     req_len     | req_len bytes of payload...
 *
 * magic is 'EQLD'.  The server reads (and discards) req_len bytes, then
 * writes resp_len bytes back; a connection carries any number of such
 * messages, one after the other.  req_len = EQL_MSG_REQ_STREAM makes the
 * payload run until the client ends the connection (bulk --duration); no
 * response follows it.  Pure encode/decode, no I/O.
 */
#ifndef EDGEQ_LOAD_MSG_H
#define EDGEQ_LOAD_MSG_H

#include <stdint.h>

#define EQL_MSG_MAGIC		0x45514c44u	/* "EQLD" */
#define EQL_MSG_HDR_LEN		16
#define EQL_MSG_RESP_MAX	(64u << 20)	/* 64 MiB */
#define EQL_MSG_REQ_MAX		(1ULL << 48)	/* 256 TiB: more is a corrupt header */
#define EQL_MSG_REQ_STREAM	UINT64_MAX

struct eql_msg {
	uint32_t resp_len;	/* 1 .. EQL_MSG_RESP_MAX */
	uint64_t req_len;	/* 0 .. EQL_MSG_REQ_MAX, or EQL_MSG_REQ_STREAM */
};

enum eql_msg_err {
	EQL_MSG_OK = 0,
	EQL_MSG_BAD_MAGIC,
	EQL_MSG_BAD_RESP,	/* resp_len 0 or above EQL_MSG_RESP_MAX */
	EQL_MSG_BAD_REQ,	/* req_len above EQL_MSG_REQ_MAX (and not STREAM) */
};

/* Encodes m as it is: eql_msg_check() first if m comes from a user. */
void eql_msg_encode(uint8_t out[EQL_MSG_HDR_LEN], const struct eql_msg *m);
/* Decodes and checks a received header: EQL_MSG_OK, or why it is bad. */
enum eql_msg_err eql_msg_decode(const uint8_t in[EQL_MSG_HDR_LEN], struct eql_msg *m);
enum eql_msg_err eql_msg_check(const struct eql_msg *m);
const char *eql_msg_strerror(enum eql_msg_err e);

#endif
