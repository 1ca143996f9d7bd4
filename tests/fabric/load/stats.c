// SPDX-License-Identifier: GPL-2.0-only
/*
 * Percentiles, histograms and Jain's index (see stats.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "load/stats.h"

/* q*n can land a hair above a whole number (0.29 * 100 = 29.000000000000004
 * in binary): without the slack its ceiling would skip a rank. */
#define RANK_SLACK	1e-9

/* 1-based nearest rank of the q-quantile among n >= 1 values. */
static uint64_t rank_of(double q, uint64_t n)
{
	double r;

	if (!(q > 0))		/* also NaN */
		return 1;
	if (q >= 1)
		return n;
	r = ceil(q * (double)n - RANK_SLACK);
	return r < 1 ? 1 : r > (double)n ? n : (uint64_t)r;
}

uint64_t eql_percentile(const uint64_t *sorted, size_t n, double q)
{
	return n ? sorted[rank_of(q, n) - 1] : 0;
}

int eql_samples_add(struct eql_samples *s, uint64_t x)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = x;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void eql_samples_sort(struct eql_samples *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
}

void eql_samples_free(struct eql_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- histogram ---------------------------------------------------------- */

static unsigned int bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < EQL_HIST_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v);		/* >= SUB_BITS */
	return EQL_HIST_SUB + (e - EQL_HIST_SUB_BITS) * EQL_HIST_SUB +
	       (unsigned int)((v >> (e - EQL_HIST_SUB_BITS)) & (EQL_HIST_SUB - 1));
}

/* Smallest value of bucket i, and its width. */
static void bucket_range(unsigned int i, uint64_t *lo, uint64_t *width)
{
	unsigned int shift, sub;

	if (i < EQL_HIST_SUB) {
		*lo = i;
		*width = 1;
		return;
	}
	shift = (i - EQL_HIST_SUB) / EQL_HIST_SUB;
	sub = (i - EQL_HIST_SUB) % EQL_HIST_SUB;
	*lo = (uint64_t)(EQL_HIST_SUB + sub) << shift;
	*width = 1ULL << shift;
}

void eql_hist_init(struct eql_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void eql_hist_add(struct eql_hist *h, uint64_t v)
{
	h->b[bucket_of(v)]++;
	h->count++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

uint64_t eql_hist_pct(const struct eql_hist *h, double q)
{
	uint64_t rank, seen = 0, lo, width, mid;

	if (!h->count)
		return 0;
	rank = rank_of(q, h->count);
	if (rank == 1)
		return h->min;
	if (rank == h->count)
		return h->max;
	for (unsigned int i = 0; i < EQL_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen < rank)
			continue;
		bucket_range(i, &lo, &width);
		mid = lo + (width - 1) / 2;
		return mid < h->min ? h->min : mid > h->max ? h->max : mid;
	}
	return h->max;	/* not reached: the buckets add up to count */
}

/* ---- fairness ----------------------------------------------------------- */

double eql_jain(const double *x, size_t n)
{
	double sum = 0, sq = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / ((double)n * sq) : 1.0;
}
