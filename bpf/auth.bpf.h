/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Authenticated headers in the BPF programs (edgeq/auth.h): TC signs what
 * it sends to a keyed peer, XDP checks the DATA of a keyed peer before it
 * delivers any (the agent checks the rest).  The message is built on the
 * stack: the two outer addresses, then the header up to the tag, read
 * with the load helper (its length varies with the options).
 */
#ifndef EDGEQ_AUTH_BPF_H
#define EDGEQ_AUTH_BPF_H

#include "maps.bpf.h"

/* The message buffer: the addresses and room for any length the
 * verifier can see in a masked byte count (auth_covered()'s 0x7f), more
 * than a header ever gives (EQ_AUTH_MSG_MAX). */
#define AUTH_BUF	(EQ_AUTH_ADDRS + 0x80)

/* The bytes of an edgeq header of eq_len bytes a tag covers, or 0 when
 * the header cannot carry an AUTH option (or is longer than a tag
 * covers): what the verifier needs bounded. */
static __always_inline __u32 auth_covered(__u32 eq_len)
{
	if (eq_len < EQ_HDR_LEN + EQ_OPT_AUTH_LEN || eq_len > EQ_AUTH_HDR_MAX)
		return 0;
	return (eq_len - EQ_AUTH_TAG_LEN) & 0x7f;
}

/* TC: the AUTH option into the last 12 bytes of the header at eq_off
 * (eq_len bytes), signed with the key that signs, for a packet from src
 * to dst.  0, or -1 (the caller drops the packet). */
static __always_inline int auth_sign(struct __sk_buff *skb, const struct eq_peer_keys *k,
				     __u32 eq_off, __u32 eq_len, const struct eq_addr *src,
				     const struct eq_addr *dst)
{
	__u8 msg[AUTH_BUF] = {};
	__u32 n = auth_covered(eq_len), tx = k->tx & 1;
	__u8 head[4] = { EQ_OPT_AUTH, EQ_OPT_AUTH_LEN, k->id[tx], 0 };
	__u8 tag[EQ_AUTH_TAG_LEN];

	if (!n)
		return -1;
	if (bpf_skb_store_bytes(skb, eq_off + eq_len - EQ_OPT_AUTH_LEN, head, sizeof(head), 0))
		return -1;
	__builtin_memcpy(msg, src, 16);
	__builtin_memcpy(msg + 16, dst, 16);
	if (bpf_skb_load_bytes(skb, eq_off, msg + EQ_AUTH_ADDRS, n))
		return -1;
	eq_auth_tag(k->key[tx], msg, EQ_AUTH_ADDRS + n, tag);
	return bpf_skb_store_bytes(skb, eq_off + n, tag, sizeof(tag), 0) ? -1 : 0;
}

/* XDP: whether the header at eq_off (eq_len bytes) carries an AUTH
 * option, last, made with one of k's keys, for a packet from src to dst. */
static __always_inline bool auth_ok(struct xdp_md *ctx, const struct eq_peer_keys *k,
				    __u32 eq_off, __u32 eq_len, const struct eq_addr *src,
				    const struct eq_addr *dst)
{
	__u8 msg[AUTH_BUF] = {};
	__u32 n = auth_covered(eq_len);
	struct eq_opt_auth o;
	__u8 tag[EQ_AUTH_TAG_LEN], diff = 0;
	int slot;

	if (!n)
		return false;
	if (bpf_xdp_load_bytes(ctx, eq_off + eq_len - EQ_OPT_AUTH_LEN, &o, sizeof(o)))
		return false;
	if (o.kind != EQ_OPT_AUTH || o.len != EQ_OPT_AUTH_LEN)
		return false;
	slot = eq_key_slot(k, o.key_id);
	if (slot < 0)
		return false;
	__builtin_memcpy(msg, src, 16);
	__builtin_memcpy(msg + 16, dst, 16);
	if (bpf_xdp_load_bytes(ctx, eq_off, msg + EQ_AUTH_ADDRS, n))
		return false;
	eq_auth_tag(k->key[slot & 1], msg, EQ_AUTH_ADDRS + n, tag);
	for (int i = 0; i < EQ_AUTH_TAG_LEN; i++)
		diff |= tag[i] ^ o.tag[i];
	return !diff;
}

#endif /* EDGEQ_AUTH_BPF_H */
