// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tests/fabric/load/dist.c, eqload's flow-size CDFs:
 *  - parsing: a good file with comments, blanks, tabs and CRLF; every kind
 *    of bad file refused with a message naming the problem and the line,
 *    and nothing kept; random text never crashes, and whatever it accepts
 *    satisfies the format's rules;
 *  - sampling: for each shipped CDF (tests/scenarios/dists/) and fixed
 *    seeds, the empirical CDF of 200k samples is within 0.01 of the file's
 *    at every point, every sample lies in [first size, last size], and the
 *    sample mean is within 2% of the computed mean;
 *  - the computed mean against an independent numerical integration of
 *    the inverse CDF.
 */
#include "testlib.h"
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "load/dist.h"

#define SAMPLES		200000
static const char *const shipped[] = { "websearch", "hadoop", "google" };

/* ---- helpers ------------------------------------------------------------ */

static void parse_ok(struct eql_dist *d, const char *text)
{
	char err[512] = "";

	if (eql_dist_parse(d, text, "t.cdf", err, sizeof(err)))
		fail_msg("rejected a good CDF: %s", err);
}

/* Parsing fails, the message contains want, and nothing is kept. */
static void parse_bad(const char *text, const char *want)
{
	struct eql_dist d = { .n = 99 };
	char err[512] = "";

	if (eql_dist_parse(&d, text, "t.cdf", err, sizeof(err)) == 0)
		fail_msg("accepted a bad CDF (want an error with '%s'): %s", want, text);
	if (!strstr(err, want))
		fail_msg("error '%s' does not say '%s'", err, want);
	assert_null(d.pt);
	assert_int_equal(d.n, 0);
}

/* The shipped CDF file `name`, from the repository root (the working
 * directory of tests/run.sh) or found from this program's path
 * (build/tests/unit/ is three levels below the root). */
static void shipped_path(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n;

	snprintf(buf, len, "tests/scenarios/dists/%s.cdf", name);
	if (access(buf, R_OK) == 0)
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		for (int up = 0; up < 4; up++) {
			char *slash = strrchr(exe, '/');

			if (slash)
				*slash = 0;
		}
		snprintf(buf, len, "%s/tests/scenarios/dists/%s.cdf", exe, name);
		if (access(buf, R_OK) == 0)
			return;
	}
	fail_msg("cannot find tests/scenarios/dists/%s.cdf: run from the repository root", name);
}

static void load_shipped(struct eql_dist *d, const char *name)
{
	char path[PATH_MAX + 64], err[512];

	shipped_path(name, path, sizeof(path));
	if (eql_dist_load(d, path, err, sizeof(err)))
		fail_msg("%s", err);
}

/* The format's rules, for any distribution the parser accepted. */
static void assert_well_formed(const struct eql_dist *d)
{
	assert_true(d->n >= 1);
	for (size_t i = 0; i < d->n; i++) {
		assert_true(d->pt[i].size >= 1);
		assert_true(d->pt[i].prob >= 0 && d->pt[i].prob <= 1);
		if (i) {
			assert_true(d->pt[i].size > d->pt[i - 1].size);
			assert_true(d->pt[i].prob >= d->pt[i - 1].prob);
		}
	}
	assert_true(d->pt[d->n - 1].prob == 1.0);
	assert_true(d->mean >= (double)d->pt[0].size && d->mean <= (double)d->pt[d->n - 1].size);
}

/* ---- parsing ------------------------------------------------------------ */

static void parse__good_file_with_comments_blanks_tabs_crlf(void **state)
{
	struct eql_dist d;

	parse_ok(&d, "# a comment\n"
		     "\n"
		     "   # indented comment\n"
		     "100 0.25\r\n"
		     "\t200\t0.5  \n"
		     "   \t\n"
		     "400 1.0");		/* no final newline */
	assert_int_equal(d.n, 3);
	assert_int_equal(d.pt[0].size, 100);
	assert_true(d.pt[0].prob == 0.25);
	assert_int_equal(d.pt[1].size, 200);
	assert_true(d.pt[1].prob == 0.5);
	assert_int_equal(d.pt[2].size, 400);
	assert_true(d.pt[2].prob == 1.0);
	/* 0.25 * 100 + 0.25 * 150 + 0.5 * 300 */
	assert_true(fabs(d.mean - 212.5) < 1e-9);
	assert_well_formed(&d);
	eql_dist_free(&d);
	assert_null(d.pt);
}

static void parse__single_point_and_flat_segments(void **state)
{
	struct eql_dist d;

	parse_ok(&d, "1000 1\n");
	assert_int_equal(d.n, 1);
	assert_true(d.mean == 1000.0);
	eql_dist_free(&d);
	/* A zero-probability segment is allowed and never sampled. */
	parse_ok(&d, "10 0\n20 0.5\n30 0.5\n40 1\n");
	for (double u = 0; u < 1; u += 0.001) {
		uint64_t s = eql_dist_quantile(&d, u);

		assert_false(s > 20 && s < 30);
	}
	eql_dist_free(&d);
}

static void parse__bad_files_say_what_and_where(void **state)
{
	parse_bad("", "no points");
	parse_bad("# only a comment\n\n  \n", "no points");
	parse_bad("100 0.5\n50 1.0\n", "t.cdf:2: sizes must increase");
	parse_bad("100 0.5\n100 1.0\n", "t.cdf:2: sizes must increase");
	parse_bad("100 0.6\n200 0.5\n300 1\n", "t.cdf:2: cumulative probabilities must not decrease");
	parse_bad("100 1.5\n", "t.cdf:1: probability 1.5 is outside [0, 1]");
	parse_bad("100 -0.1\n200 1\n", "outside [0, 1]");
	parse_bad("100 nan\n", "outside [0, 1]");
	parse_bad("100 inf\n", "outside [0, 1]");
	parse_bad("100 0.5\n200 0.9\n", "the CDF must end at 1");
	parse_bad("100 0.5\n200 0.999\n", "the CDF must end at 1");
	parse_bad("hello world\n", "t.cdf:1: expected 'SIZE_BYTES CUMULATIVE_PROBABILITY', got 'hello");
	parse_bad("# c\n100\n", "t.cdf:2: expected");
	parse_bad("100 0.5 7\n200 1\n", "t.cdf:1: expected");
	parse_bad("100 0.5x\n200 1\n", "expected");
	parse_bad("100,0.5\n200 1\n", "expected");
	parse_bad("-5 0.5\n200 1\n", "expected");
	parse_bad("+5 0.5\n200 1\n", "expected");
	parse_bad("1e3 1\n", "expected");
	parse_bad("12.5 1\n", "expected");
	parse_bad("0 0.5\n200 1\n", "size 0 is not a whole number of bytes");
	parse_bad("2000000000000 1\n", "is not a whole number of bytes in [1, 2^40]");
	parse_bad("99999999999999999999999 1\n", "not a whole number of bytes");
	parse_bad("100 0.5\n200 1\n150 1\n", "t.cdf:3: sizes must increase");
}

static void parse__long_line_is_refused(void **state)
{
	char text[400];

	memset(text, ' ', sizeof(text));
	memcpy(text + 300, "100 1", 5);
	text[305] = 0;
	parse_bad(text, "line too long");
}

/* Random text: never a crash, never an accepted file that breaks a rule. */
static void parse__random_text_never_crashes(void **state)
{
	static const char alphabet[] = "0123456789 .\t\n#-+eE1x\r";
	char text[64];
	unsigned int accepted = 0;

	rng_state = 0x5eed0001;
	for (int i = 0; i < 200000; i++) {
		size_t len = rnd32() % (sizeof(text) - 1);
		struct eql_dist d;
		char err[256];

		for (size_t j = 0; j < len; j++)
			text[j] = alphabet[rnd32() % (sizeof(alphabet) - 1)];
		text[len] = 0;
		if (eql_dist_parse(&d, text, "r", err, sizeof(err)) == 0) {
			assert_well_formed(&d);
			accepted++;
			eql_dist_free(&d);
		} else {
			assert_null(d.pt);
			assert_true(err[0] != 0);
		}
	}
	/* The alphabet makes some valid files: the accepting path ran too. */
	assert_true(accepted > 0);
}

static void load__missing_and_binary_files(void **state)
{
	struct eql_dist d;
	char err[512], path[] = "/tmp/test_load_dist.XXXXXX";
	int fd;

	assert_int_equal(eql_dist_load(&d, "/nonexistent/x.cdf", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/x.cdf"));
	assert_non_null(strstr(err, "No such file"));

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "100 0.5\n\0\n200 1\n", 16), 16);
	close(fd);
	assert_int_equal(eql_dist_load(&d, path, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "NUL"));
	assert_null(d.pt);
	unlink(path);
}

/* ---- sampling ----------------------------------------------------------- */

static void quantile__is_monotone_and_spans_the_sizes(void **state)
{
	for (size_t f = 0; f < sizeof(shipped) / sizeof(shipped[0]); f++) {
		struct eql_dist d;
		uint64_t prev = 0;

		load_shipped(&d, shipped[f]);
		assert_well_formed(&d);
		assert_int_equal(eql_dist_quantile(&d, 0), d.pt[0].size);
		assert_int_equal(eql_dist_quantile(&d, nextafter(1.0, 0)), d.pt[d.n - 1].size);
		for (int i = 0; i < 100000; i++) {
			uint64_t q = eql_dist_quantile(&d, i / 100000.0);

			assert_true(q >= prev);
			prev = q;
		}
		/* At each point's probability the inverse CDF leaves the point. */
		for (size_t i = 1; i + 1 < d.n; i++)
			assert_true(eql_dist_quantile(&d, d.pt[i].prob) >= d.pt[i].size);
		eql_dist_free(&d);
	}
}

/* The spec's test: empirical CDF within 0.01 at every point, samples in
 * range, mean within 2%; two seeds per file. */
static void sample__matches_the_file_cdf(void **state)
{
	static const uint64_t seeds[] = { 1, 0xfeedface };

	for (size_t f = 0; f < sizeof(shipped) / sizeof(shipped[0]); f++) {
		struct eql_dist d;

		load_shipped(&d, shipped[f]);
		for (size_t s = 0; s < 2; s++) {
			size_t *below = calloc(d.n, sizeof(*below));
			struct eql_rng r;
			double sum = 0;

			assert_non_null(below);
			eql_rng_seed(&r, seeds[s]);
			for (int i = 0; i < SAMPLES; i++) {
				uint64_t x = eql_dist_sample(&d, &r);

				if (x < d.pt[0].size || x > d.pt[d.n - 1].size)
					fail_msg("%s: sample %llu outside [%llu, %llu]", shipped[f],
						 (unsigned long long)x, (unsigned long long)d.pt[0].size,
						 (unsigned long long)d.pt[d.n - 1].size);
				for (size_t p = 0; p < d.n; p++)
					below[p] += x <= d.pt[p].size;
				sum += (double)x;
			}
			for (size_t p = 0; p < d.n; p++) {
				double emp = (double)below[p] / SAMPLES;

				if (fabs(emp - d.pt[p].prob) > 0.01)
					fail_msg("%s seed %llu: P(size <= %llu) = %.4f, file says %.4f",
						 shipped[f], (unsigned long long)seeds[s],
						 (unsigned long long)d.pt[p].size, emp, d.pt[p].prob);
			}
			if (fabs(sum / SAMPLES - d.mean) > 0.02 * d.mean)
				fail_msg("%s: sample mean %.0f, computed mean %.0f", shipped[f],
					 sum / SAMPLES, d.mean);
			free(below);
		}
		eql_dist_free(&d);
	}
}

/* The closed-form mean against the mean of the inverse CDF on a fine grid
 * (the midpoint rule): two different computations of one number. */
static void mean__equals_the_integral_of_the_quantile(void **state)
{
	for (size_t f = 0; f < sizeof(shipped) / sizeof(shipped[0]); f++) {
		const int n = 2000000;
		struct eql_dist d;
		double sum = 0;

		load_shipped(&d, shipped[f]);
		for (int i = 0; i < n; i++)
			sum += (double)eql_dist_quantile(&d, (i + 0.5) / n);
		if (fabs(sum / n - d.mean) > 0.001 * d.mean)
			fail_msg("%s: integral %.1f, mean %.1f", shipped[f], sum / n, d.mean);
		eql_dist_free(&d);
	}
}

/* The headers of the shipped files state their means: keep them true. */
static void shipped__means_are_as_documented(void **state)
{
	static const double want[] = { 1.67e6, 240e3, 69e3 };

	for (size_t f = 0; f < sizeof(shipped) / sizeof(shipped[0]); f++) {
		struct eql_dist d;

		load_shipped(&d, shipped[f]);
		if (fabs(d.mean - want[f]) > 0.01 * want[f])
			fail_msg("%s: mean %.0f, header says ~%.0f", shipped[f], d.mean, want[f]);
		eql_dist_free(&d);
	}
}

static void fixed__every_sample_is_the_size(void **state)
{
	struct eql_dist d;
	struct eql_rng r;

	assert_int_equal(eql_dist_fixed(&d, 65536), 0);
	assert_true(d.mean == 65536.0);
	eql_rng_seed(&r, 7);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(eql_dist_sample(&d, &r), 65536);
	eql_dist_free(&d);
}

/* Flow k gets the same size in every run with the same seed. */
static void sample__same_seed_same_sizes(void **state)
{
	struct eql_dist d;
	struct eql_rng a, b, c;
	int differ = 0;

	load_shipped(&d, "websearch");
	eql_rng_seed(&a, 42);
	eql_rng_seed(&b, 42);
	eql_rng_seed(&c, 43);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = eql_dist_sample(&d, &a);

		assert_int_equal(x, eql_dist_sample(&d, &b));
		differ += x != eql_dist_sample(&d, &c);
	}
	assert_true(differ > 500);
	eql_dist_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse__good_file_with_comments_blanks_tabs_crlf),
		cmocka_unit_test(parse__single_point_and_flat_segments),
		cmocka_unit_test(parse__bad_files_say_what_and_where),
		cmocka_unit_test(parse__long_line_is_refused),
		cmocka_unit_test(parse__random_text_never_crashes),
		cmocka_unit_test(load__missing_and_binary_files),
		cmocka_unit_test(quantile__is_monotone_and_spans_the_sizes),
		cmocka_unit_test(sample__matches_the_file_cdf),
		cmocka_unit_test(mean__equals_the_integral_of_the_quantile),
		cmocka_unit_test(shipped__means_are_as_documented),
		cmocka_unit_test(fixed__every_sample_is_the_size),
		cmocka_unit_test(sample__same_seed_same_sizes),
	};

	return cmocka_run_group_tests_name("load_dist", tests, NULL, NULL);
}
