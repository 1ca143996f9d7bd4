// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flow-size CDFs: parsing, inverse-CDF sampling, mean (see dist.h).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "load/dist.h"

#define LINE_MAX_SHOWN	40	/* characters of a bad line quoted in an error */

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* Mean of the interpolated distribution: the point mass at the first size,
 * then each segment's probability at the midpoint of its sizes. */
static double dist_mean(const struct eql_dist_point *pt, size_t n)
{
	double m = pt[0].prob * (double)pt[0].size;

	for (size_t i = 1; i < n; i++)
		m += (pt[i].prob - pt[i - 1].prob) *
		     ((double)pt[i - 1].size + (double)pt[i].size) / 2;
	return m;
}

/* One "SIZE PROB" line (no newline).  Returns 0, or -1 with err set. */
static int parse_point(const char *line, size_t len, struct eql_dist_point *p,
		       const char *where, char *err, size_t errlen)
{
	char buf[128], *end;
	unsigned long long size;
	double prob;
	const char *s;

	if (len >= sizeof(buf))
		return fail(err, errlen, "%s: line too long for 'SIZE_BYTES CUMULATIVE_PROBABILITY'",
			    where);
	memcpy(buf, line, len);
	buf[len] = 0;
	s = buf + strspn(buf, " \t");
	errno = 0;
	size = strtoull(s, &end, 10);
	if (end == s || *s == '-' || *s == '+' || (*end != ' ' && *end != '\t'))
		goto bad;
	if (errno || size < 1 || size > EQL_DIST_MAX_SIZE)
		return fail(err, errlen, "%s: size %.*s is not a whole number of bytes in [1, 2^40]",
			    where, (int)(end - s), s);
	s = end + strspn(end, " \t");
	prob = strtod(s, &end);
	if (end == s || end[strspn(end, " \t")] != 0)
		goto bad;
	if (!(prob >= 0 && prob <= 1))	/* also NaN */
		return fail(err, errlen, "%s: probability %s is outside [0, 1]", where, s);
	p->size = size;
	p->prob = prob;
	return 0;
bad:
	return fail(err, errlen, "%s: expected 'SIZE_BYTES CUMULATIVE_PROBABILITY', got '%.*s'",
		    where, LINE_MAX_SHOWN, buf + strspn(buf, " \t"));
}

int eql_dist_parse(struct eql_dist *d, const char *text, const char *name,
		   char *err, size_t errlen)
{
	struct eql_dist_point *pt = NULL;
	size_t n = 0, cap = 0;
	unsigned int lineno = 0;
	char where[300];

	memset(d, 0, sizeof(*d));
	for (const char *line = text; *line; ) {
		size_t len = strcspn(line, "\n");
		const char *next = line[len] ? line + len + 1 : line + len;
		struct eql_dist_point p;

		lineno++;
		if (len && line[len - 1] == '\r')	/* files edited on Windows */
			len--;
		size_t lead = strspn(line, " \t");

		if (lead >= len || line[lead] == '#') {
			line = next;
			continue;
		}
		snprintf(where, sizeof(where), "%s:%u", name, lineno);
		if (parse_point(line, len, &p, where, err, errlen))
			goto out_fail;
		if (n && p.size <= pt[n - 1].size) {
			fail(err, errlen, "%s: sizes must increase from line to line (%llu after %llu)",
			     where, (unsigned long long)p.size, (unsigned long long)pt[n - 1].size);
			goto out_fail;
		}
		if (n && p.prob < pt[n - 1].prob) {
			fail(err, errlen, "%s: cumulative probabilities must not decrease (%g after %g)",
			     where, p.prob, pt[n - 1].prob);
			goto out_fail;
		}
		if (n == cap) {
			struct eql_dist_point *np;

			if (n == EQL_DIST_MAX_POINTS) {
				fail(err, errlen, "%s: more than %d points", where, EQL_DIST_MAX_POINTS);
				goto out_fail;
			}
			cap = cap ? cap * 2 : 64;
			np = realloc(pt, cap * sizeof(*pt));
			if (!np) {
				fail(err, errlen, "%s: out of memory", name);
				goto out_fail;
			}
			pt = np;
		}
		pt[n++] = p;
		line = next;
	}
	if (!n) {
		fail(err, errlen, "%s: no points (expected lines 'SIZE_BYTES CUMULATIVE_PROBABILITY')",
		     name);
		goto out_fail;
	}
	/* The sampler relies on the last probability being exactly 1. */
	if (fabs(pt[n - 1].prob - 1.0) > 1e-9) {
		fail(err, errlen, "%s: the last cumulative probability is %g; the CDF must end at 1",
		     name, pt[n - 1].prob);
		goto out_fail;
	}
	pt[n - 1].prob = 1.0;
	d->pt = pt;
	d->n = n;
	d->mean = dist_mean(pt, n);
	return 0;
out_fail:
	free(pt);
	return -1;
}

int eql_dist_load(struct eql_dist *d, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0;
	int ret;

	memset(d, 0, sizeof(*d));
	if (!f)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	for (;;) {
		if (cap - len < 4096) {
			char *nt;

			cap = cap ? cap * 2 : 65536;
			if (cap > (64u << 20)) {
				fclose(f);
				free(text);
				return fail(err, errlen, "%s: larger than 64 MiB: not a CDF file", path);
			}
			nt = realloc(text, cap);
			if (!nt) {
				fclose(f);
				free(text);
				return fail(err, errlen, "%s: out of memory", path);
			}
			text = nt;
		}
		size_t got = fread(text + len, 1, cap - len - 1, f);

		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		ret = fail(err, errlen, "%s: read error", path);
	} else if (memchr(text, 0, len)) {
		ret = fail(err, errlen, "%s: contains NUL bytes: not a text CDF file", path);
	} else {
		text[len] = 0;
		ret = eql_dist_parse(d, text, path, err, errlen);
	}
	fclose(f);
	free(text);
	return ret;
}

int eql_dist_fixed(struct eql_dist *d, uint64_t size)
{
	memset(d, 0, sizeof(*d));
	d->pt = malloc(sizeof(*d->pt));
	if (!d->pt)
		return -1;
	d->pt[0] = (struct eql_dist_point){ .size = size, .prob = 1.0 };
	d->n = 1;
	d->mean = (double)size;
	return 0;
}

uint64_t eql_dist_quantile(const struct eql_dist *d, double u)
{
	size_t lo = 0, hi = d->n - 1;
	const struct eql_dist_point *a, *b;
	double x;

	/* The first point with u < prob: it exists, the last prob is 1 > u. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u < d->pt[mid].prob)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo == 0)
		return d->pt[0].size;
	a = &d->pt[lo - 1];
	b = &d->pt[lo];
	/* b->prob > u >= a->prob, so the segment has mass: no division by 0. */
	x = (double)a->size + (u - a->prob) / (b->prob - a->prob) *
	    (double)(b->size - a->size);
	x = floor(x + 0.5);
	return x > (double)b->size ? b->size : (uint64_t)x;
}

uint64_t eql_dist_sample(const struct eql_dist *d, struct eql_rng *r)
{
	return eql_dist_quantile(d, eql_rng_uniform(r));
}

void eql_dist_free(struct eql_dist *d)
{
	free(d->pt);
	memset(d, 0, sizeof(*d));
}
