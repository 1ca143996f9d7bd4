/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * SipHash-2-4 (Aumasson and Bernstein, 2012), the keyed MAC of edgeq's
 * authenticated headers (auth.h).  One implementation for the BPF
 * programs, which can call no library, and the agent, so that both
 * compute the same tag: tests/unit/test_siphash.c checks it against the
 * reference's test vectors and against OpenSSL's SipHash.
 *
 * Written for the verifier: the message is a buffer of at most
 * EQ_SIPHASH_MAX bytes, read a byte at a time in a loop with a constant
 * bound, and the word count the caller gives is checked against it.
 */
#ifndef EDGEQ_SIPHASH_H
#define EDGEQ_SIPHASH_H

#include <linux/types.h>

#define EQ_SIPHASH_MAX		128	/* message bytes at most */
#define EQ_SIPHASH_KEY_LEN	16

#define EQ_SIP_ROTL(x, b)	(((x) << (b)) | ((x) >> (64 - (b))))

static inline __attribute__((always_inline)) void eq_sip_round(__u64 *v0, __u64 *v1, __u64 *v2,
							      __u64 *v3)
{
	*v0 += *v1; *v1 = EQ_SIP_ROTL(*v1, 13); *v1 ^= *v0; *v0 = EQ_SIP_ROTL(*v0, 32);
	*v2 += *v3; *v3 = EQ_SIP_ROTL(*v3, 16); *v3 ^= *v2;
	*v0 += *v3; *v3 = EQ_SIP_ROTL(*v3, 21); *v3 ^= *v0;
	*v2 += *v1; *v1 = EQ_SIP_ROTL(*v1, 17); *v1 ^= *v2; *v2 = EQ_SIP_ROTL(*v2, 32);
}

/* 8 bytes of p, little-endian, the first `n` of them (n < 8: a tail).
 * A whole word is one load where the machine is little-endian (x86, and
 * BPF's bpfel). */
static inline __attribute__((always_inline)) __u64 eq_sip_le(const __u8 *p, __u32 n)
{
	__u64 w = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8) {
		__builtin_memcpy(&w, p, 8);
		return w;
	}
#endif
	for (int i = 0; i < 8; i++)
		if ((__u32)i < n)
			w |= (__u64)p[i] << (8 * i);
	return w;
}

/* clang (the BPF programs) unrolls the word loop: every offset into the
 * message is then a constant.  Linux 6.1's verifier, given the loop, took
 * a branch its own bounds ruled out and walked off the stack ("invalid
 * read from stack"). */
#if defined(__clang__)
#define EQ_SIP_UNROLL	_Pragma("unroll")
#else
#define EQ_SIP_UNROLL
#endif

/* The 64-bit tag of m[0..len) under the 16-byte key k.  A len beyond
 * EQ_SIPHASH_MAX is taken as EQ_SIPHASH_MAX (callers never give one).
 * m must have 7 readable bytes past len rounded down to a word (a BPF
 * caller's buffer; what is read there is masked off). */
static inline __attribute__((always_inline)) __u64 eq_siphash24(const __u8 k[EQ_SIPHASH_KEY_LEN],
							       const __u8 *m, __u32 len)
{
	__u64 k0 = eq_sip_le(k, 8), k1 = eq_sip_le(k + 8, 8);
	__u64 v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
	__u64 v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
	__u32 words, tail;
	__u64 w, b = 0;

	if (len > EQ_SIPHASH_MAX)
		len = EQ_SIPHASH_MAX;
	words = len / 8;
	tail = len & 7;
	EQ_SIP_UNROLL
	for (int i = 0; i <= EQ_SIPHASH_MAX / 8; i++) {
		if ((__u32)i == words) {
			b = eq_sip_le(m + 8 * i, tail);
			break;
		}
		w = eq_sip_le(m + 8 * i, 8);
		v3 ^= w;
		eq_sip_round(&v0, &v1, &v2, &v3);
		eq_sip_round(&v0, &v1, &v2, &v3);
		v0 ^= w;
	}
	w = ((__u64)len << 56) | b;
	v3 ^= w;
	eq_sip_round(&v0, &v1, &v2, &v3);
	eq_sip_round(&v0, &v1, &v2, &v3);
	v0 ^= w;
	v2 ^= 0xff;
	for (int i = 0; i < 4; i++)
		eq_sip_round(&v0, &v1, &v2, &v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

#endif /* EDGEQ_SIPHASH_H */
