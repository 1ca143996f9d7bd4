// SPDX-License-Identifier: GPL-2.0-only
/*
 * Messages on stderr (see log.h).  Each line is written with one call so
 * that lines of several eqload processes sharing a terminal do not mix.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "load/log.h"

static void vwarn(int errnum, const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "eqload: ");

	n += vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	if (n < (int)sizeof(line) && errnum)
		n += snprintf(line + n, sizeof(line) - (size_t)n, ": %s", strerror(errnum));
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	fwrite(line, 1, (size_t)n, stderr);
}

void eql_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(0, fmt, ap);
	va_end(ap);
}

void eql_warn_errno(const char *fmt, ...)
{
	int errnum = errno;
	va_list ap;

	va_start(ap, fmt);
	vwarn(errnum, fmt, ap);
	va_end(ap);
}
