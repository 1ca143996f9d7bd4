/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Internet checksum helpers (RFC 1071, incremental update per RFC 1624),
 * shared by the BPF programs and userspace.  Loops have constant bounds so
 * the verifier can unroll them.
 */
#ifndef EDGEQ_CSUM_H
#define EDGEQ_CSUM_H

#include <linux/types.h>

static inline __u16 eq_csum_fold(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* Checksum of an IPv4 header without options (its check field must be 0
 * or is included as is).  Works on the header in network order. */
static inline __u16 eq_ipv4_hdr_csum(const void *hdr)
{
	const __u16 *w = (const __u16 *)hdr;
	__u32 sum = 0;

#ifdef __clang__
#pragma unroll
#else
#pragma GCC unroll 10
#endif
	for (int i = 0; i < 10; i++)
		sum += w[i];
	return eq_csum_fold(sum);
}

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), for one changed 16-bit word.
 * All values as they sit in the packet (network order). */
static inline __u16 eq_csum_replace2(__u16 check, __u16 old, __u16 new_)
{
	__u32 sum = (__u16)~check;

	sum += (__u16)~old;
	sum += new_;
	return eq_csum_fold(sum);
}

#endif /* EDGEQ_CSUM_H */
