/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The measurement file (--out FILE, default stdout), tab-separated:
 *
 *   # key=value key=value ...          metadata: what ran, with what
 *   #col1<TAB>col2<TAB>...             column names (modes with rows)
 *   v1<TAB>v2<TAB>...                  one row per measurement
 *   # summary key=value ...            last line: the totals
 *
 * Lines starting with '#' are skipped by plotting tools; awk reads the
 * summary with split() on '='.  Values never contain spaces.
 */
#ifndef EDGEQ_LOAD_OUT_H
#define EDGEQ_LOAD_OUT_H

#include <stddef.h>
#include <stdio.h>

struct eql_out {
	FILE *f;
	const char *path;	/* for messages; "stdout" */
};

/* path NULL or "-": stdout.  0, or -1 (said why). */
int eql_out_open(struct eql_out *o, const char *path);
/* "# " fmt "\n": one metadata line of key=value pairs. */
void eql_out_meta(struct eql_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "#" cols "\n"; cols is tab-separated. */
void eql_out_columns(struct eql_out *o, const char *cols);
/* "# summary " fmt "\n", flushed. */
void eql_out_summary(struct eql_out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Closes; 0, or -1 if anything written was lost (disk full...), said. */
int eql_out_close(struct eql_out *o);
/* s made fit for a value: blanks and '=' become '_'. */
const char *eql_out_word(const char *s, char *buf, size_t len);

#endif
