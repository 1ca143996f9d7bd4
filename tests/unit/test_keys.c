// SPDX-License-Identifier: GPL-2.0-only
/*
 * user/common/keys.c: a key as the config and the command line give it,
 * and the steps of a rotation (accept, sign, drop) on a peer's keys.
 */
#include "testlib.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "keys.h"

#define HEX1 "000102030405060708090a0b0c0d0e0f"
#define HEX2 "F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"

static void key_parse__hex_and_id(void **state)
{
	uint8_t k[16], id;

	assert_int_equal(eq_key_parse(HEX1, k, &id), 0);
	assert_int_equal(id, EQ_KEY_ID_DEFAULT);
	for (int i = 0; i < 16; i++)
		assert_int_equal(k[i], i);
	assert_int_equal(eq_key_parse(HEX2 "/200", k, &id), 0);
	assert_int_equal(id, 200);
	assert_int_equal(k[0], 0xf0);
	assert_int_equal(k[15], 0xff);
	assert_int_equal(eq_key_parse(HEX1 "/0", k, &id), 0);
	assert_int_equal(id, 0);
}

static void key_parse__refuses_what_is_not_a_key(void **state)
{
	const char *bad[] = {
		"", "00", HEX1 "00", "000102030405060708090a0b0c0d0e0", "x00102030405060708090a0b0c0d0e0f",
		HEX1 "/", HEX1 "/256", HEX1 "/-1", HEX1 "/+1", HEX1 "/1x", HEX1 " ", "0x0102030405060708090a0b0c0d0e0f",
	};
	uint8_t k[16], id;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (eq_key_parse(bad[i], k, &id) != -EINVAL)
			fail_msg("'%s' taken for a key", bad[i]);
}

static void key_id_parse__0_to_255_only(void **state)
{
	const char *bad[] = { "", "256", "-1", "+1", " 1", "1 ", "1x", "0x1" };
	uint8_t id;

	assert_int_equal(eq_key_id_parse("0", &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(eq_key_id_parse("255", &id), 0);
	assert_int_equal(id, 255);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (eq_key_id_parse(bad[i], &id) != -EINVAL)
			fail_msg("'%s' taken for a key id", bad[i]);
}

static void key_arg__from_a_file(void **state)
{
	char path[] = "/tmp/eqkeyXXXXXX", arg[64], err[300];
	int fd = mkstemp(path);
	uint8_t k[16], id;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, HEX2 "/7\n", strlen(HEX2) + 3), (ssize_t)strlen(HEX2) + 3);
	close(fd);
	snprintf(arg, sizeof(arg), "@%s", path);
	assert_int_equal(eq_key_arg(arg, k, &id, err, sizeof(err)), 0);
	assert_int_equal(id, 7);
	assert_int_equal(k[1], 0xf1);
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "nonsense\n", 9), 9);
	close(fd);
	assert_int_equal(eq_key_arg(arg, k, &id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, path));
	unlink(path);
	assert_int_equal(eq_key_arg(arg, k, &id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "cannot read the key file"));
	assert_int_equal(eq_key_arg("abc", k, &id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "32 hex digits"));
}

/* accept, sign, drop: the steps of replacing a key with traffic running. */
static void keys__rotation(void **state)
{
	uint8_t k1[16] = { 1 }, k2[16] = { 2 }, k3[16] = { 3 };
	struct eq_peer_keys k, before;

	eq_keys_one(&k, k1, 1);
	assert_true(eq_keys_on(&k));
	assert_int_equal(eq_key_slot(&k, 1), 0);
	assert_int_equal(eq_keys_accept(&k, k2, 1), -EEXIST);	/* id 1 is another key */
	assert_int_equal(eq_keys_accept(&k, k1, 1), 0);		/* the same: nothing */
	assert_int_equal(eq_keys_accept(&k, k2, 2), 0);
	assert_int_equal(k.valid, 3);
	assert_int_equal(k.tx, 0);				/* still signs with 1 */
	assert_int_equal(eq_key_slot(&k, 2), 1);
	assert_int_equal(eq_keys_accept(&k, k3, 3), -EBUSY);	/* both slots hold keys */
	assert_int_equal(eq_keys_drop(&k, 1), -EBUSY);		/* it signs */
	assert_int_equal(eq_keys_sign(&k, 5), -ENOENT);
	assert_int_equal(eq_keys_sign(&k, 2), 0);
	assert_int_equal(k.tx, 1);
	before = k;
	assert_int_equal(eq_keys_drop(&k, 1), 0);
	assert_int_equal(k.valid, 2);
	assert_int_equal(eq_key_slot(&k, 1), -1);
	assert_true(eq_keys_on(&k));
	assert_false(eq_keys_same(&k, &before));
	assert_int_equal(eq_keys_drop(&k, 1), -ENOENT);
	assert_int_equal(eq_keys_accept(&k, k3, 3), 0);		/* into the free slot */
	assert_int_equal(eq_key_slot(&k, 3), 0);
	assert_int_equal(k.tx, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(key_parse__hex_and_id),
		cmocka_unit_test(key_parse__refuses_what_is_not_a_key),
		cmocka_unit_test(key_id_parse__0_to_255_only),
		cmocka_unit_test(key_arg__from_a_file),
		cmocka_unit_test(keys__rotation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
