/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Flow-size distributions: an empirical CDF read from a file, sampled by
 * inversion.  Pure: no I/O but eql_dist_load() reading the file.
 *
 * File format (the .cdf files in tests/scenarios/dists/):
 *   # comment lines start with '#'; blank lines are ignored
 *   SIZE_BYTES CUMULATIVE_PROBABILITY
 *   ...
 * SIZE_BYTES is a whole number >= 1 and strictly increases from line to
 * line; the probability P(size <= SIZE_BYTES) never decreases, lies in
 * [0, 1] and is 1 on the last line.
 *
 * Between two points the size is spread uniformly (linear interpolation
 * of the CDF, as pFabric's and HPCC's generators do), so a file of a few
 * points still gives a continuum of sizes; the first point's probability
 * is a point mass at the first size.  Samples are rounded to whole bytes.
 */
#ifndef EDGEQ_LOAD_DIST_H
#define EDGEQ_LOAD_DIST_H

#include <stddef.h>
#include <stdint.h>
#include "load/rng.h"

#define EQL_DIST_MAX_POINTS	100000
#define EQL_DIST_MAX_SIZE	(1ULL << 40)	/* 1 TiB: anything above is a typo */

struct eql_dist_point {
	uint64_t size;
	double prob;		/* P(flow size <= size) */
};

struct eql_dist {
	struct eql_dist_point *pt;
	size_t n;
	double mean;		/* bytes, of the interpolated distribution */
};

/*
 * Parses the text of a CDF file.  name (the file name) prefixes error
 * messages, which say what is wrong on which line.  Returns 0, or -1 with
 * err filled in and *d left empty.
 */
int eql_dist_parse(struct eql_dist *d, const char *text, const char *name,
		   char *err, size_t errlen);
/* Reads and parses the file at path; errors as eql_dist_parse. */
int eql_dist_load(struct eql_dist *d, const char *path, char *err, size_t errlen);
/* Every flow of the same size (--size). */
int eql_dist_fixed(struct eql_dist *d, uint64_t size);
/* The inverse CDF at u in [0, 1): what a uniform u maps to. */
uint64_t eql_dist_quantile(const struct eql_dist *d, double u);
uint64_t eql_dist_sample(const struct eql_dist *d, struct eql_rng *r);
void eql_dist_free(struct eql_dist *d);

#endif
