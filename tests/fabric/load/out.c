// SPDX-License-Identifier: GPL-2.0-only
/*
 * The measurement file (see out.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include "load/log.h"
#include "load/out.h"

int eql_out_open(struct eql_out *o, const char *path)
{
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		o->path = "stdout";
		return 0;
	}
	o->f = fopen(path, "w");
	o->path = path;
	if (!o->f) {
		eql_warn_errno("--out %s", path);
		return -1;
	}
	return 0;
}

/* One '#' line: a prefix, then the caller's format. */
static void hash_line(struct eql_out *o, const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, o->f);
	vfprintf(o->f, fmt, ap);
	fputc('\n', o->f);
}

void eql_out_meta(struct eql_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hash_line(o, "# ", fmt, ap);
	va_end(ap);
}

void eql_out_columns(struct eql_out *o, const char *cols)
{
	fprintf(o->f, "#%s\n", cols);
}

void eql_out_summary(struct eql_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hash_line(o, "# summary ", fmt, ap);
	va_end(ap);
	fflush(o->f);
}

int eql_out_close(struct eql_out *o)
{
	int bad = ferror(o->f);

	if (o->f == stdout)
		bad |= fflush(o->f) != 0;
	else
		bad |= fclose(o->f) != 0;
	o->f = NULL;
	if (bad) {
		eql_warn("writing %s failed%s%s", o->path, errno ? ": " : "",
			 errno ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

const char *eql_out_word(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '=') ? '_' : s[i];
	buf[i] = 0;
	return buf;
}
