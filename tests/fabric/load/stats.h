/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Summary statistics, pure functions over numbers:
 *  - exact percentiles over a sorted array (nearest rank), and a growable
 *    array of samples to collect them (FCTs, RPC latencies);
 *  - approximate percentiles over a log-linear histogram, for series too
 *    long to keep (one-way delay of every datagram): constant memory,
 *    relative error below 1/256;
 *  - Jain's fairness index.
 */
#ifndef EDGEQ_LOAD_STATS_H
#define EDGEQ_LOAD_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The q-quantile (q in [0, 1]) of n sorted values by the nearest-rank
 * definition: the smallest value v such that at least q*n of the values
 * are <= v (q = 0 gives the minimum, q = 1 the maximum).  Always one of
 * the values, never an interpolation between two.  0 when n = 0.
 */
uint64_t eql_percentile(const uint64_t *sorted, size_t n, double q);

struct eql_samples {
	uint64_t *v;
	size_t n, cap;
};

/* Returns 0, or -1 when out of memory (the sample is not kept). */
int eql_samples_add(struct eql_samples *s, uint64_t x);
void eql_samples_sort(struct eql_samples *s);
/* After eql_samples_sort(). */
static inline uint64_t eql_samples_pct(const struct eql_samples *s, double q)
{
	return eql_percentile(s->v, s->n, q);
}
void eql_samples_free(struct eql_samples *s);

/*
 * Log-linear histogram: values below 2^EQL_HIST_SUB_BITS are counted
 * exactly; above, each power of two is cut into 2^EQL_HIST_SUB_BITS
 * buckets, so a bucket is never wider than 1/128 of its lower bound.
 */
#define EQL_HIST_SUB_BITS	7
#define EQL_HIST_SUB		(1u << EQL_HIST_SUB_BITS)
#define EQL_HIST_BUCKETS	(EQL_HIST_SUB + (64 - EQL_HIST_SUB_BITS) * EQL_HIST_SUB)

struct eql_hist {
	uint64_t count, min, max;
	uint64_t b[EQL_HIST_BUCKETS];
};

void eql_hist_init(struct eql_hist *h);
void eql_hist_add(struct eql_hist *h, uint64_t v);
/*
 * The nearest-rank q-quantile, as eql_percentile() would give over the
 * values added, to within 1/256 of it: the middle of its bucket, clamped
 * to [min, max]; the first and last rank are min and max exactly.  0 when
 * the histogram is empty.
 */
uint64_t eql_hist_pct(const struct eql_hist *h, double q);

/*
 * Jain's fairness index (sum x)^2 / (n * sum x^2) of n >= 1 non-negative
 * shares: 1 when all are equal, 1/n when one share has everything.
 * 0 when n = 0; 1 when every share is 0 (all equal).
 */
double eql_jain(const double *x, size_t n);

#endif
