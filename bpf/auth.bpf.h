/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Authenticated headers in the BPF programs (edgeq/auth.h): TC signs what
 * it sends to a keyed peer, XDP checks the DATA of a keyed peer before it
 * delivers any (the agent checks the rest).  The message is built in a
 * per-CPU scratch buffer: the two outer addresses, then the header up to
 * the tag, read with the load helper (its length varies with the
 * options).  Each is a function of its own (a BPF subprogram), with the
 * buffer out of the stack: inlined, its registers changed how clang
 * compiled the rest of tc_egress, and Linux 6.1's verifier refused code
 * it had taken before ("32-bit pointer arithmetic prohibited"); on the
 * stack, the two frames would pass the 512 bytes a call chain may use.
 */
#ifndef EDGEQ_AUTH_BPF_H
#define EDGEQ_AUTH_BPF_H

#include "maps.bpf.h"

/* The message buffer: the addresses and room for any length the
 * verifier can see in a masked byte count (auth_covered()'s 0x7f), more
 * than a header ever gives (EQ_AUTH_MSG_MAX). */
#define AUTH_BUF	(EQ_AUTH_ADDRS + 0x80)

/* TC and XDP never run on one CPU at once (TC egress runs with bottom
 * halves off, XDP in one), so the two programs may share it (attach makes
 * XDP's maps the pinned ones). */
struct auth_scratch {
	__u8	msg[AUTH_BUF];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct auth_scratch);
} eq_auth_scratch SEC(".maps");

/* The bytes of an edgeq header of eq_len bytes a tag covers, or 0 when
 * the header cannot carry an AUTH option (or is longer than a tag
 * covers): what the verifier needs bounded. */
static __always_inline __u32 auth_covered(__u32 eq_len)
{
	if (eq_len < EQ_HDR_LEN + EQ_OPT_AUTH_LEN || eq_len > EQ_AUTH_HDR_MAX)
		return 0;
	return (eq_len - EQ_AUTH_TAG_LEN) & 0x7f;
}

/* n (1 to 127) as a length the verifier can see is 1 to 128: Linux 6.1's
 * forgets the check against 0 by the helper call ("invalid zero-sized
 * read"), and the compiler would fold a plain mask away. */
static __always_inline __u32 auth_len_for_verifier(__u32 n)
{
	__u32 len = n - 1;

	asm volatile("%[l] &= 0x7f" : [l] "+r"(len));
	return len + 1;
}

/* TC: the AUTH option into the last 12 bytes of the header at eq_off
 * (eq_len bytes; `where` is eq_off << 16 | eq_len), signed with the key that signs, for a packet from src
 * to dst.  0, or -1 (the caller drops the packet). */
static __noinline __attribute__((unused)) int auth_sign(struct __sk_buff *skb,
							 const struct eq_peer_keys *k, __u32 where,
							 const struct eq_addr *src,
							 const struct eq_addr *dst)
{
	/* Five arguments at most: the header's offset and length in one. */
	__u32 eq_off = where >> 16, eq_len = where & 0xffff;
	__u32 zero = 0, n = auth_covered(eq_len), tx;
	struct auth_scratch *sc = bpf_map_lookup_elem(&eq_auth_scratch, &zero);
	__u8 *msg;

	if (!sc || !k)
		return -1;
	msg = sc->msg;
	tx = k->tx & 1;
	__u8 head[4] = { EQ_OPT_AUTH, EQ_OPT_AUTH_LEN, k->id[tx], 0 };
	__u8 tag[EQ_AUTH_TAG_LEN];

	if (!n)
		return -1;
	if (bpf_skb_store_bytes(skb, eq_off + eq_len - EQ_OPT_AUTH_LEN, head, sizeof(head), 0))
		return -1;
	__builtin_memcpy(msg, src, 16);
	__builtin_memcpy(msg + 16, dst, 16);
	if (bpf_skb_load_bytes(skb, eq_off, msg + EQ_AUTH_ADDRS, auth_len_for_verifier(n)))
		return -1;
	eq_auth_tag(k->key[tx], msg, EQ_AUTH_ADDRS + n, tag);
	return bpf_skb_store_bytes(skb, eq_off + n, tag, sizeof(tag), 0) ? -1 : 0;
}

/* XDP: whether the header at eq_off (eq_len bytes; `where` as above) carries an AUTH
 * option, last, made with one of k's keys, for a packet from src to dst. */
static __noinline __attribute__((unused)) bool auth_ok(struct xdp_md *ctx,
							const struct eq_peer_keys *k, __u32 where,
							const struct eq_addr *src,
							const struct eq_addr *dst)
{
	__u32 eq_off = where >> 16, eq_len = where & 0xffff;
	__u32 zero = 0, n = auth_covered(eq_len);
	struct auth_scratch *sc = bpf_map_lookup_elem(&eq_auth_scratch, &zero);
	struct eq_opt_auth o;
	__u8 tag[EQ_AUTH_TAG_LEN], diff = 0, *msg;
	int slot;

	if (!sc || !k || !n)
		return false;
	msg = sc->msg;
	if (bpf_xdp_load_bytes(ctx, eq_off + eq_len - EQ_OPT_AUTH_LEN, &o, sizeof(o)))
		return false;
	if (o.kind != EQ_OPT_AUTH || o.len != EQ_OPT_AUTH_LEN)
		return false;
	slot = eq_key_slot(k, o.key_id);
	if (slot < 0)
		return false;
	__builtin_memcpy(msg, src, 16);
	__builtin_memcpy(msg + 16, dst, 16);
	if (bpf_xdp_load_bytes(ctx, eq_off, msg + EQ_AUTH_ADDRS, auth_len_for_verifier(n)))
		return false;
	eq_auth_tag(k->key[slot & 1], msg, EQ_AUTH_ADDRS + n, tag);
	for (int i = 0; i < EQ_AUTH_TAG_LEN; i++)
		diff |= tag[i] ^ o.tag[i];
	return !diff;
}

#endif /* EDGEQ_AUTH_BPF_H */
