/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the switch needs to know about a frame, and the few rewrites a
 * switch does: CE marking, trimming an edgeq DATA packet to its header,
 * TTL/hop limit, MAC addresses.  Pure functions on a byte buffer: no I/O,
 * unit-tested in tests/unit/test_fabric_frame.c.
 */
#ifndef EDGEQ_FABRIC_FRAME_H
#define EDGEQ_FABRIC_FRAME_H

#include <stdbool.h>
#include <stdint.h>

#define ETH_HLEN_	14
#define FRAME_MAX	2048	/* a pool slot; MTU 1500 frames are 1514 */

/* Traffic class as the switch sees it. */
enum frame_class {
	FC_OTHER,	/* any IP packet that is not edgeq: data queue, drop-tail */
	FC_EQ_DATA,	/* edgeq DATA: data queue, trimmed when over the threshold */
	FC_EQ_CTRL,	/* edgeq control or already trimmed: priority queue */
};

struct frame_info {
	uint16_t l3_off, l4_off;	/* offsets into the frame */
	uint8_t  family;		/* 4 or 6 */
	uint8_t  proto;			/* IPPROTO_* of the L4 header */
	uint8_t  ecn;			/* the two ECN bits */
	uint8_t  cls;			/* enum frame_class */
	uint8_t  dst[16];		/* IPv4 as ::ffff:a.b.c.d */
	uint32_t flow_hash;		/* of the 5-tuple (ECMP) */
};

enum frame_err {
	FE_OK = 0,
	FE_NOT_IP,	/* ARP, LLDP, ...: a fabric of static neighbours has no use for them */
	FE_MALFORMED,	/* truncated or inconsistent IP header */
};

/* Parses an Ethernet frame.  eq_port: the UDP port edgeq runs on (host order). */
int frame_parse(const uint8_t *f, uint32_t len, uint16_t eq_port, uint32_t hash_seed,
		struct frame_info *fi);

/* Sets CE on an ECT packet (fixing the IPv4 checksum); false if not ECT. */
bool frame_set_ce(uint8_t *f, const struct frame_info *fi);

/* Cuts an edgeq DATA packet to its edgeq header (options included), makes
 * it TRIMMED (type and flag) and fixes lengths and checksums.  Returns the
 * new frame length, or 0 if it is not an edgeq DATA packet. */
uint32_t frame_trim(uint8_t *f, uint32_t len, const struct frame_info *fi);

/* Decrements TTL / hop limit; false when it reached zero (drop). */
bool frame_dec_ttl(uint8_t *f, const struct frame_info *fi);

void frame_set_macs(uint8_t *f, const uint8_t dst[6], const uint8_t src[6]);

/* 32-bit mix of the 5-tuple with a per-switch seed (avoids polarisation
 * when every switch hashes the same way). */
uint32_t frame_hash(const uint8_t *src, const uint8_t *dst, uint8_t proto,
		    uint16_t sport, uint16_t dport, uint32_t seed);

#endif
