// SPDX-License-Identifier: GPL-2.0-only
/*
 * Encoding and checking of the eqload request header (see msg.h).  Bytes
 * are assembled by hand, so the layout does not depend on the host's byte
 * order or on struct padding.
 */
#include "load/msg.h"

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void eql_msg_encode(uint8_t out[EQL_MSG_HDR_LEN], const struct eql_msg *m)
{
	put32(out, EQL_MSG_MAGIC);
	put32(out + 4, m->resp_len);
	put32(out + 8, (uint32_t)(m->req_len >> 32));
	put32(out + 12, (uint32_t)m->req_len);
}

enum eql_msg_err eql_msg_check(const struct eql_msg *m)
{
	if (m->resp_len < 1 || m->resp_len > EQL_MSG_RESP_MAX)
		return EQL_MSG_BAD_RESP;
	if (m->req_len > EQL_MSG_REQ_MAX && m->req_len != EQL_MSG_REQ_STREAM)
		return EQL_MSG_BAD_REQ;
	return EQL_MSG_OK;
}

enum eql_msg_err eql_msg_decode(const uint8_t in[EQL_MSG_HDR_LEN], struct eql_msg *m)
{
	if (get32(in) != EQL_MSG_MAGIC)
		return EQL_MSG_BAD_MAGIC;
	m->resp_len = get32(in + 4);
	m->req_len = (uint64_t)get32(in + 8) << 32 | get32(in + 12);
	return eql_msg_check(m);
}

const char *eql_msg_strerror(enum eql_msg_err e)
{
	switch (e) {
	case EQL_MSG_OK:	return "no error";
	case EQL_MSG_BAD_MAGIC:	return "bad magic (not an eqload client?)";
	case EQL_MSG_BAD_RESP:	return "response length outside 1..64 MiB";
	case EQL_MSG_BAD_REQ:	return "request length above 2^48";
	}
	return "unknown error";
}
