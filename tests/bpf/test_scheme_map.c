// SPDX-License-Identifier: GPL-2.0-only
/*
 * A scheme's own per-peer state map (user/agent/scheme_map.c) and its
 * reading by BTF (loaders/btf_fields.c), against the kernel: the agent
 * makes eq_<scheme>_peers from a scheme's table of fields, pins it, and
 * the tools find each field by name, offset, size and sign in the map's
 * BTF; a restarted agent gets the same map back (its state stays), one of
 * another shape is remade; a scheme with no fields gets no map; one too
 * large is refused with a message.  Needs root (bpf maps, bpffs); the
 * pins go under a directory of its own, removed on every exit.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <cmocka.h>
#include "scheme_map.h"
#include "btf_fields.h"

struct mock_pub {
	uint32_t	a;
	uint32_t	pad;
	int64_t		b;
	uint64_t	c;
};

static const struct eqt_stat mock_stats[] = {
	EQT_STAT(struct mock_pub, a, false),
	EQT_STAT(struct mock_pub, b, true),
	EQT_STAT(struct mock_pub, c, false),
};

static const struct eqt_scheme_ops mock = {
	.name = "mock", .id = 9, .stats = mock_stats, .nstats = 3,
	.stats_size = sizeof(struct mock_pub),
};

static char dir[128], pin[200];

static void cleanup(void)
{
	unlink(pin);
	rmdir(dir);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/edgeq-test-scheme-map-%d", getpid());
	snprintf(pin, sizeof(pin), "%s/eq_mock_peers", dir);
	cleanup();
	return mkdir(dir, 0700);
}

static int teardown(void **state)
{
	cleanup();
	return 0;
}

static void made_pinned_and_read_back_by_btf(void **state)
{
	char err[200] = "";
	struct eq_btf_value v;
	struct mock_pub in = { .a = 7, .b = -5, .c = 1ULL << 40 }, out;
	uint32_t slot = 5;
	int fd = eq_scheme_map_open(dir, &mock, 64, err, sizeof(err)), fd2;

	if (fd < 0)
		fail_msg("eq_scheme_map_open: %d %s", fd, err);
	assert_int_equal(access(pin, F_OK), 0);
	assert_int_equal(eq_btf_value_read(fd, &v), 0);
	assert_int_equal(v.size, sizeof(struct mock_pub));
	assert_int_equal(v.n, 3);
	assert_string_equal(v.f[0].name, "a");
	assert_int_equal(v.f[0].off, offsetof(struct mock_pub, a));
	assert_int_equal(v.f[0].size, 4);
	assert_false(v.f[0].is_signed);
	assert_string_equal(v.f[1].name, "b");
	assert_int_equal(v.f[1].off, offsetof(struct mock_pub, b));
	assert_int_equal(v.f[1].size, 8);
	assert_true(v.f[1].is_signed);
	assert_string_equal(v.f[2].name, "c");
	assert_int_equal(v.f[2].off, offsetof(struct mock_pub, c));
	assert_int_equal(bpf_map_update_elem(fd, &slot, &in, 0), 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &slot, &out), 0);
	assert_int_equal(eq_btf_field_get(&out, &v.f[0]), 7);
	assert_int_equal(eq_btf_field_get(&out, &v.f[1]), -5);
	assert_int_equal(eq_btf_field_get(&out, &v.f[2]), 1LL << 40);
	close(fd);

	/* A restarted agent: the same map, its state kept. */
	fd2 = eq_scheme_map_open(dir, &mock, 64, err, sizeof(err));
	assert_true(fd2 >= 0);
	memset(&out, 0, sizeof(out));
	assert_int_equal(bpf_map_lookup_elem(fd2, &slot, &out), 0);
	assert_int_equal(out.a, 7);
	close(fd2);

	/* Another shape (more peer slots): remade, empty. */
	fd2 = eq_scheme_map_open(dir, &mock, 128, err, sizeof(err));
	assert_true(fd2 >= 0);
	memset(&out, 0xff, sizeof(out));
	assert_int_equal(bpf_map_lookup_elem(fd2, &slot, &out), 0);
	assert_int_equal(out.a, 0);
	slot = 100;
	assert_int_equal(bpf_map_lookup_elem(fd2, &slot, &out), 0);
	close(fd2);
}

static void no_fields_no_map_and_too_large_refused(void **state)
{
	struct eqt_scheme_ops none = mock, big = mock;
	char err[200] = "";

	none.nstats = 0;
	assert_int_equal(eq_scheme_map_open(dir, &none, 64, err, sizeof(err)), -1);
	assert_int_equal(access(pin, F_OK), -1);
	big.stats_size = EQ_SCHEME_STATS_MAX + 8;
	assert_int_equal(eq_scheme_map_open(dir, &big, 64, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "scheme mock publishes"));
	assert_int_equal(access(pin, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(made_pinned_and_read_back_by_btf, setup, teardown),
		cmocka_unit_test_setup_teardown(no_fields_no_map_and_too_large_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
