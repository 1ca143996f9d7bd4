/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ECN and DSCP across the tunnel, after RFC 6040 ("normal mode").
 * Pure functions shared by the BPF programs and userspace (and unit-tested
 * exhaustively there), so that encapsulator and decapsulator agree.
 */
#ifndef EDGEQ_ECN_H
#define EDGEQ_ECN_H

#include <linux/types.h>

#define EQ_ECN_NOT_ECT	0
#define EQ_ECN_ECT1	1
#define EQ_ECN_ECT0	2
#define EQ_ECN_CE	3
#define EQ_ECN_MASK	3

#define EQ_ECN_DROP	0xff	/* eq_ecn_decap(): the packet must be dropped */

/* Encapsulation: the outer TOS/traffic class copies the inner one, DSCP and
 * ECN alike (RFC 6040 §4.1 normal mode; RFC 2983 uniform DSCP). */
static inline __u8 eq_tos_encap(__u8 inner_tos)
{
	return inner_tos;
}

/* Decapsulation (RFC 6040 §4.2, Figure 4): the ECN field the inner header
 * leaves with, or EQ_ECN_DROP.  Only ECN is combined; the inner DSCP is
 * kept, since the outer one is the fabric's business. */
static inline __u8 eq_ecn_decap(__u8 inner_ecn, __u8 outer_ecn)
{
	inner_ecn &= EQ_ECN_MASK;
	outer_ecn &= EQ_ECN_MASK;
	if (inner_ecn == EQ_ECN_NOT_ECT)
		return outer_ecn == EQ_ECN_CE ? EQ_ECN_DROP : EQ_ECN_NOT_ECT;
	if (outer_ecn == EQ_ECN_CE)
		return EQ_ECN_CE;
	if (outer_ecn == EQ_ECN_ECT1 && inner_ecn == EQ_ECN_ECT0)
		return EQ_ECN_ECT1;
	return inner_ecn;
}

#endif /* EDGEQ_ECN_H */
