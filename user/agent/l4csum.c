// SPDX-License-Identifier: GPL-2.0-only
/* Completing inner TCP/UDP checksums left to offload (l4csum.h says why). */
#include <string.h>
#include "edgeq/csum.h"
#include "l4csum.h"

#define PROTO_TCP	6
#define PROTO_UDP	17

/* Where the L4 header is and what the pseudo-header adds, or false for a
 * packet this does not apply to. */
struct l4 {
	uint32_t	off, len;	/* L4 header and segment length */
	uint32_t	check_off;	/* the checksum field, from ip */
	uint32_t	pseudo;		/* pseudo-header sum, unfolded */
	uint8_t		proto;
};

static uint32_t sum16(const uint8_t *p, uint32_t n, uint32_t sum)
{
	uint16_t w;

	for (; n >= 2; p += 2, n -= 2) {
		memcpy(&w, p, 2);
		sum += w;
		if (sum >= 0x80000000u)	/* fold early: no overflow on jumbo frames */
			sum = (sum & 0xffff) + (sum >> 16);
	}
	if (n) {
		uint8_t last[2] = { p[0], 0 };

		memcpy(&w, last, 2);
		sum += w;
	}
	return sum;
}

static uint32_t be16_word(uint32_t v)	/* a host value as the 16-bit word on the wire */
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
	uint16_t w;

	memcpy(&w, b, 2);
	return w;
}

static bool locate(const uint8_t *ip, uint32_t len, struct l4 *l)
{
	uint32_t hl;

	if (len < 20)
		return false;
	if ((ip[0] >> 4) == 4) {
		uint32_t tot = (uint32_t)ip[2] << 8 | ip[3];

		hl = (ip[0] & 0x0fu) * 4;
		/* Fragments: the kernel completes the sum before fragmenting. */
		if (hl < 20 || tot != len || tot < hl || (ip[6] & 0x3f) || ip[7])
			return false;
		l->proto = ip[9];
		l->pseudo = sum16(ip + 12, 8, 0);
	} else if ((ip[0] >> 4) == 6) {
		hl = 40;
		if (len < hl || ((uint32_t)ip[4] << 8 | ip[5]) + 40u != len)
			return false;
		l->proto = ip[6];	/* an extension header (a fragment too) is left alone */
		l->pseudo = sum16(ip + 8, 32, 0);
	} else {
		return false;
	}
	l->off = hl;
	l->len = len - hl;
	if (l->proto == PROTO_TCP) {
		if (l->len < 20)
			return false;
		l->check_off = hl + 16;
	} else if (l->proto == PROTO_UDP) {
		if (l->len < 8)
			return false;
		l->check_off = hl + 6;
	} else {
		return false;
	}
	l->pseudo += be16_word(l->proto) + be16_word(l->len);
	return true;
}

uint16_t eq_l4csum_partial(const uint8_t *ip, uint32_t len)
{
	struct l4 l;

	if (!locate(ip, len, &l))
		return 0;
	return (uint16_t)~eq_csum_fold(l.pseudo);
}

uint16_t eq_l4csum_compute(const uint8_t *ip, uint32_t len)
{
	struct l4 l;
	uint32_t before, sum;
	uint16_t c;

	if (!locate(ip, len, &l))
		return 0;
	/* The segment with its checksum field taken as zero: the words
	 * before it and after it (it sits at an even offset). */
	before = l.check_off - l.off;
	sum = sum16(ip + l.off, before, l.pseudo);
	sum = sum16(ip + l.check_off + 2, l.len - before - 2, sum);
	c = eq_csum_fold(sum);
	if (l.proto == PROTO_UDP && !c)
		c = 0xffff;	/* 0 means "no checksum" in UDP */
	return c;
}

bool eq_l4csum_complete(uint8_t *ip, uint32_t len)
{
	struct l4 l;
	uint16_t field, c;

	if (!locate(ip, len, &l))
		return false;
	memcpy(&field, ip + l.check_off, 2);
	c = (uint16_t)~eq_csum_fold(l.pseudo);
	if (field != c)
		return false;
	if (l.proto == PROTO_UDP && !field)
		return false;	/* no checksum at all (UDP over IPv4) */
	c = eq_l4csum_compute(ip, len);
	memcpy(ip + l.check_off, &c, 2);
	return true;
}
