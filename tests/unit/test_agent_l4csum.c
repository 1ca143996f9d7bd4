// SPDX-License-Identifier: GPL-2.0-only
/* user/agent/l4csum.c: inner TCP/UDP checksums left to offload. */
#include "testlib.h"
#include <string.h>
#include "l4csum.h"

enum { V4, V6 };

/* RFC 1071 over a buffer, written independently of l4csum.c: the pseudo
 * header is laid out in bytes and summed with the segment. */
static uint16_t ref_csum(const uint8_t *ip, int fam, uint8_t proto, const uint8_t *seg,
			 uint32_t seglen, uint32_t check_at)
{
	uint8_t buf[9100];
	uint32_t n = 0, sum = 0;

	if (fam == V4) {
		memcpy(buf, ip + 12, 8);
		n = 8;
		buf[n++] = 0;
		buf[n++] = proto;
		buf[n++] = (uint8_t)(seglen >> 8);
		buf[n++] = (uint8_t)seglen;
	} else {
		memcpy(buf, ip + 8, 32);
		n = 32;
		buf[n++] = (uint8_t)(seglen >> 24);
		buf[n++] = (uint8_t)(seglen >> 16);
		buf[n++] = (uint8_t)(seglen >> 8);
		buf[n++] = (uint8_t)seglen;
		buf[n++] = 0; buf[n++] = 0; buf[n++] = 0;
		buf[n++] = proto;
	}
	memcpy(buf + n, seg, seglen);
	buf[n + check_at] = buf[n + check_at + 1] = 0;
	n += seglen;
	if (n & 1)
		buf[n++] = 0;
	for (uint32_t i = 0; i < n; i += 2)
		sum += (uint32_t)buf[i] << 8 | buf[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	if (proto == 17 && !sum)
		sum = 0xffff;
	return (uint16_t)sum;	/* host order */
}

struct pkt {
	uint8_t		b[9100];
	uint32_t	len, l4, check_at;
	int		fam;
	uint8_t		proto;
};

/* A random TCP or UDP packet with a correct checksum. */
static void mk(struct pkt *p, int fam, uint8_t proto, uint32_t payload)
{
	uint32_t hl = fam == V4 ? 20 : 40, l4h = proto == 6 ? 20 : 8;
	uint16_t c;

	memset(p, 0, sizeof(*p));
	p->fam = fam;
	p->proto = proto;
	p->l4 = hl;
	p->len = hl + l4h + payload;
	p->check_at = proto == 6 ? 16 : 6;
	for (uint32_t i = 0; i < p->len; i++)
		p->b[i] = (uint8_t)rnd32();
	if (fam == V4) {
		p->b[0] = 0x45;
		p->b[2] = (uint8_t)(p->len >> 8);
		p->b[3] = (uint8_t)p->len;
		p->b[6] = 0x40;	/* DF */
		p->b[7] = 0;
		p->b[9] = proto;
	} else {
		p->b[0] = 0x60;
		p->b[4] = (uint8_t)((p->len - 40) >> 8);
		p->b[5] = (uint8_t)(p->len - 40);
		p->b[6] = proto;
	}
	if (proto == 6) {
		p->b[hl + 12] = 5 << 4;
	} else {
		p->b[hl + 4] = (uint8_t)((p->len - hl) >> 8);
		p->b[hl + 5] = (uint8_t)(p->len - hl);
	}
	c = ref_csum(p->b, fam, proto, p->b + hl, p->len - hl, p->check_at);
	p->b[hl + p->check_at] = (uint8_t)(c >> 8);
	p->b[hl + p->check_at + 1] = (uint8_t)c;
}

static uint16_t field(const struct pkt *p)
{
	return (uint16_t)(p->b[p->l4 + p->check_at] << 8 | p->b[p->l4 + p->check_at + 1]);
}

/* As the kernel leaves it for offload: the pseudo-header sum, folded, not
 * complemented (tcp_v4_send_check, udp4_hwcsum, their IPv6 twins). */
static void make_partial(struct pkt *p)
{
	uint16_t w = eq_l4csum_partial(p->b, p->len);

	memcpy(p->b + p->l4 + p->check_at, &w, 2);
}

static const int fams[] = { V4, V6 };
static const uint8_t protos[] = { 6, 17 };

static void test_compute_matches_rfc1071(void **state)
{
	struct pkt p;

	rng_state = 1;
	for (int i = 0; i < 400; i++) {
		mk(&p, fams[i % 2], protos[(i / 2) % 2], rnd32() % 9000);
		assert_int_equal(eq_l4csum_compute(p.b, p.len),
				 ref_csum(p.b, p.fam, p.proto, p.b + p.l4, p.len - p.l4, p.check_at) >> 8 |
				 (ref_csum(p.b, p.fam, p.proto, p.b + p.l4, p.len - p.l4, p.check_at) & 0xff) << 8);
	}
}

static void test_partial_is_the_pseudo_header_sum(void **state)
{
	struct pkt p;
	uint8_t ph[40] = { 0 };
	uint32_t sum = 0;

	/* A TCP/IPv4 packet of known addresses and length: 10.0.0.1 ->
	 * 10.0.0.2, 40 bytes of TCP.  Pseudo header by hand. */
	rng_state = 2;
	mk(&p, V4, 6, 20);
	memcpy(p.b + 12, (uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
	memcpy(ph, p.b + 12, 8);
	ph[9] = 6;
	ph[11] = 40;
	for (int i = 0; i < 12; i += 2)
		sum += (uint32_t)ph[i] << 8 | ph[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	uint16_t w = eq_l4csum_partial(p.b, p.len);
	uint8_t *b = (uint8_t *)&w;

	assert_int_equal((uint32_t)b[0] << 8 | b[1], sum);
}

static void test_partial_completed(void **state)
{
	struct pkt p;

	rng_state = 3;
	for (int i = 0; i < 400; i++) {
		uint16_t good;

		mk(&p, fams[i % 2], protos[(i / 2) % 2], rnd32() % 9000);
		good = field(&p);
		make_partial(&p);
		if (field(&p) == good)
			continue;	/* the 1-in-65536 case: tested below */
		assert_true(eq_l4csum_complete(p.b, p.len));
		assert_int_equal(field(&p), good);
	}
}

static void test_complete_left_alone(void **state)
{
	struct pkt p, copy;

	rng_state = 4;
	for (int i = 0; i < 400; i++) {
		mk(&p, fams[i % 2], protos[(i / 2) % 2], rnd32() % 2000);
		copy = p;
		eq_l4csum_complete(p.b, p.len);
		assert_memory_equal(p.b, copy.b, p.len);
	}
}

/* A packet whose complete checksum equals the pseudo-header sum: it is
 * "completed" again, to the same value. */
static void test_coincidence_is_harmless(void **state)
{
	struct pkt p;
	int found = 0;

	rng_state = 5;
	for (int i = 0; i < 2000000 && found < 3; i++) {
		mk(&p, V4, 17, 4);
		uint16_t good = field(&p);

		make_partial(&p);
		if (field(&p) != good)
			continue;
		found++;
		assert_true(eq_l4csum_complete(p.b, p.len));
		assert_int_equal(field(&p), good);
	}
	assert_int_equal(found, 3);
}

static void test_a_wrong_checksum_stays_wrong(void **state)
{
	struct pkt p;

	rng_state = 6;
	for (int i = 0; i < 200; i++) {
		uint16_t bad;

		mk(&p, fams[i % 2], protos[(i / 2) % 2], 100 + rnd32() % 1000);
		p.b[p.len - 1] ^= 0x5a;		/* corrupted after the checksum */
		bad = field(&p);
		assert_false(eq_l4csum_complete(p.b, p.len));
		assert_int_equal(field(&p), bad);
	}
}

static void test_not_applicable(void **state)
{
	struct pkt p, copy;

	rng_state = 7;
	/* IPv4 fragments: first (MF) and later (offset) */
	mk(&p, V4, 6, 100);
	make_partial(&p);
	p.b[6] = 0x20;
	copy = p;
	assert_false(eq_l4csum_complete(p.b, p.len));
	assert_memory_equal(p.b, copy.b, p.len);
	p.b[6] = 0;
	p.b[7] = 8;
	assert_false(eq_l4csum_complete(p.b, p.len));
	/* IPv6 with a fragment header */
	mk(&p, V6, 6, 100);
	make_partial(&p);
	p.b[6] = 44;
	assert_false(eq_l4csum_complete(p.b, p.len));
	/* UDP over IPv4 without a checksum */
	mk(&p, V4, 17, 100);
	memset(p.b + 20 + 6, 0, 2);
	assert_false(eq_l4csum_complete(p.b, p.len));
	assert_int_equal(field(&p), 0);
	/* lengths that disagree, truncated headers, ICMP */
	mk(&p, V4, 6, 100);
	make_partial(&p);
	assert_false(eq_l4csum_complete(p.b, p.len - 1));
	assert_false(eq_l4csum_complete(p.b, 30));
	assert_false(eq_l4csum_complete(p.b, 10));
	p.b[9] = 1;
	assert_false(eq_l4csum_complete(p.b, p.len));
	mk(&p, V6, 17, 0);
	make_partial(&p);
	assert_true(eq_l4csum_complete(p.b, p.len));	/* an empty UDP datagram */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compute_matches_rfc1071),
		cmocka_unit_test(test_partial_is_the_pseudo_header_sum),
		cmocka_unit_test(test_partial_completed),
		cmocka_unit_test(test_complete_left_alone),
		cmocka_unit_test(test_coincidence_is_harmless),
		cmocka_unit_test(test_a_wrong_checksum_stays_wrong),
		cmocka_unit_test(test_not_applicable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
