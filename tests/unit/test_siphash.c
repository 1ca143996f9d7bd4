// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for include/edgeq/siphash.h, the MAC the BPF programs and the
 * agent share (auth.h): the reference implementation's first test vectors
 * (key 00..0f, message 00..len-1), then OpenSSL's SipHash-2-4 (EVP_MAC
 * "SIPHASH", 8-byte output) as the oracle over every length up to the
 * most a header can give, with random keys and messages (fixed seed).
 */
#include "testlib.h"
#include <string.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include "edgeq/siphash.h"

/* The reference's vectors_sip64 for lengths 0..8, as little-endian u64s. */
static const uint64_t ref[] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
};

static uint64_t openssl_siphash(const uint8_t key[16], const uint8_t *m, size_t len)
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "SIPHASH", NULL);
	EVP_MAC_CTX *ctx;
	size_t size = 8, outl = 0;
	OSSL_PARAM params[] = { OSSL_PARAM_construct_size_t("size", &size),
				OSSL_PARAM_construct_end() };
	uint8_t out[8];
	uint64_t v = 0;

	assert_non_null(mac);
	ctx = EVP_MAC_CTX_new(mac);
	assert_non_null(ctx);
	assert_int_equal(EVP_MAC_init(ctx, key, 16, params), 1);
	assert_int_equal(EVP_MAC_update(ctx, m, len), 1);
	assert_int_equal(EVP_MAC_final(ctx, out, &outl, sizeof(out)), 1);
	assert_int_equal(outl, 8);
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	for (int i = 7; i >= 0; i--)
		v = v << 8 | out[i];
	return v;
}

static void siphash__reference_vectors(void **state)
{
	uint8_t key[16], m[64];

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		m[i] = (uint8_t)i;
	for (uint32_t len = 0; len < sizeof(ref) / sizeof(ref[0]); len++)
		assert_true(eq_siphash24(key, m, len) == ref[len]);
}

static void siphash__equals_openssl_at_every_length(void **state)
{
	uint8_t key[16], m[EQ_SIPHASH_MAX];

	rng_state = 41;
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 16; i++)
			key[i] = (uint8_t)rnd32();
		for (int i = 0; i < EQ_SIPHASH_MAX; i++)
			m[i] = (uint8_t)rnd32();
		for (uint32_t len = 0; len <= EQ_SIPHASH_MAX; len++)
			assert_true(eq_siphash24(key, m, len) == openssl_siphash(key, m, len));
	}
}

/* A tag depends on every key and message bit: one flipped changes it. */
static void siphash__one_bit_changes_the_tag(void **state)
{
	uint8_t key[16] = { 1, 2, 3 }, m[72] = { 9, 8, 7 };
	uint64_t t = eq_siphash24(key, m, sizeof(m));

	for (uint32_t bit = 0; bit < sizeof(m) * 8; bit++) {
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_true(eq_siphash24(key, m, sizeof(m)) != t);
		m[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (uint32_t bit = 0; bit < 128; bit++) {
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_true(eq_siphash24(key, m, sizeof(m)) != t);
		key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(siphash__reference_vectors),
		cmocka_unit_test(siphash__equals_openssl_at_every_length),
		cmocka_unit_test(siphash__one_bit_changes_the_tag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
