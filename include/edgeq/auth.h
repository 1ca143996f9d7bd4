/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Authenticated headers (docs/wire.md 2.7, docs/security.md): a peer
 * configured with a key signs every edgeq header it sends to us, and we
 * ours to it, with SipHash-2-4 (siphash.h) under a 128-bit pre-shared key.
 * The tag covers the outer source and destination addresses and the whole
 * edgeq header, options included, up to the tag itself: what a packet can
 * make a receiver do.  Not the payload: an attacker on the path can still
 * replace a DATA packet's inner packet under a genuine header (the inner
 * transport's own checksums and security are the defence there).
 *
 * The AUTH option is always the header's last 12 bytes, so that a BPF
 * program finds it without walking the options:
 *
 *   kind 6 | len 12 | key id | 0 | tag, 8 bytes (SipHash's u64, little-endian)
 *
 * The message:  src (16) | dst (16) | header bytes [0, hdr_len * 4 - 8)
 * with IPv4 addresses as ::ffff:a.b.c.d, and the type of a TRIMMED header
 * taken as DATA (a trimming switch changes it, and nothing else the tag
 * covers).  At most EQ_AUTH_MSG_MAX bytes.
 *
 * Keys live in eq_keys (array, one entry per peer slot, mmapable): two
 * slots, so that a key can be replaced without a restart (the new one is
 * accepted before it signs; docs/config.md, "Keys").
 *
 * Included by BPF programs and by userspace: fixed-width types, no libc.
 */
#ifndef EDGEQ_AUTH_H
#define EDGEQ_AUTH_H

#include <linux/types.h>
#include "edgeq/siphash.h"

#define EQ_MAP_KEYS		"eq_keys"
#define EQ_OPT_AUTH_LEN		12
#define EQ_AUTH_TAG_LEN		8
#define EQ_AUTH_ADDRS		32	/* src and dst, 16 bytes each */
/* The longest header a tag covers: the fixed part, the segment option,
 * a scheme's room and the AUTH option (wire.h). */
#define EQ_AUTH_HDR_MAX		96
#define EQ_AUTH_MSG_MAX		(EQ_AUTH_ADDRS + EQ_AUTH_HDR_MAX - EQ_AUTH_TAG_LEN)

struct eq_opt_auth {
	__u8	kind;		/* EQ_OPT_AUTH */
	__u8	len;		/* EQ_OPT_AUTH_LEN */
	__u8	key_id;		/* which of the peer's keys signed it */
	__u8	zero;
	__u8	tag[EQ_AUTH_TAG_LEN];
} __attribute__((packed));

/* eq_keys: a peer slot's keys.  `valid` bit i says key[i] is set; `tx` is
 * the slot that signs (its bit must be valid); a receiver takes a tag made
 * with either valid key, found by the option's key id.  No key: every
 * packet goes unsigned, and an AUTH option that comes is ignored. */
struct eq_peer_keys {
	__u8	key[2][EQ_SIPHASH_KEY_LEN];
	__u8	id[2];
	__u8	valid;
	__u8	tx;
	__u32	pad;
};

static inline __attribute__((always_inline)) int eq_keys_on(const struct eq_peer_keys *k)
{
	return k->valid & (1u << (k->tx & 1));
}

/* The key slot whose id is `id`, or -1. */
static inline __attribute__((always_inline)) int eq_key_slot(const struct eq_peer_keys *k, __u8 id)
{
	if ((k->valid & 1) && k->id[0] == id)
		return 0;
	if ((k->valid & 2) && k->id[1] == id)
		return 1;
	return -1;
}

/* The tag of msg (msg_len bytes, laid out as above) as the option's bytes
 * carry it. */
static inline __attribute__((always_inline)) void eq_auth_tag(const __u8 key[EQ_SIPHASH_KEY_LEN],
							      const __u8 *msg, __u32 msg_len,
							      __u8 tag[EQ_AUTH_TAG_LEN])
{
	__u64 t = eq_siphash24(key, msg, msg_len);

	for (int i = 0; i < EQ_AUTH_TAG_LEN; i++)
		tag[i] = (__u8)(t >> (8 * i));
}

#endif /* EDGEQ_AUTH_H */
