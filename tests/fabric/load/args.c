// SPDX-License-Identifier: GPL-2.0-only
/*
 * Command-line values (see args.h).  Numbers are checked character by
 * character before strtoull/strtod see them: those accept leading spaces,
 * signs, hex, "inf" and "nan", none of which is a valid option value here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "load/args.h"

/* Length of the leading run of digits, with one '.' if frac. */
static size_t number_len(const char *s, int frac)
{
	size_t i = 0, digits = 0;
	int dot = 0;

	for (;; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (frac && s[i] == '.' && !dot)
			dot = 1;
		else
			break;
	}
	return digits ? i : 0;
}

int eql_arg_u64(const char *s, uint64_t *out)
{
	size_t n = number_len(s, 0);
	unsigned long long v;

	if (!n || s[n])
		return -1;
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno)
		return -1;
	*out = v;
	return 0;
}

int eql_arg_port(const char *s, uint16_t *out)
{
	uint64_t v;

	if (eql_arg_u64(s, &v) || v < 1 || v > 65535)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

int eql_arg_size(const char *s, uint64_t *out)
{
	size_t n = number_len(s, 0);
	unsigned int shift = 0;
	unsigned long long v;

	if (!n)
		return -1;
	if (s[n]) {
		if (s[n + 1])
			return -1;
		switch (s[n] | 0x20) {	/* lower case */
		case 'k': shift = 10; break;
		case 'm': shift = 20; break;
		case 'g': shift = 30; break;
		default: return -1;
		}
	}
	errno = 0;
	v = strtoull(s, NULL, 10);
	if (errno || v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

int eql_arg_rate(const char *s, uint64_t *out)
{
	size_t n = number_len(s, 1);
	double mult = 1, v;

	if (!n)
		return -1;
	if (s[n]) {
		if (s[n + 1])
			return -1;
		switch (s[n] | 0x20) {
		case 'k': mult = 1e3; break;
		case 'm': mult = 1e6; break;
		case 'g': mult = 1e9; break;
		case 't': mult = 1e12; break;
		default: return -1;
		}
	}
	v = strtod(s, NULL) * mult;
	if (v < 1 || v > 1e15)		/* a petabit: more is a typo */
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

int eql_arg_secs(const char *s, uint64_t *ns)
{
	size_t n = number_len(s, 1);
	double v;

	if (!n || s[n])
		return -1;
	v = strtod(s, NULL);
	if (v > 1e7)
		return -1;
	*ns = (uint64_t)(v * 1e9 + 0.5);
	return 0;
}

int eql_arg_double(const char *s, double lo, double hi, double *out)
{
	size_t n = number_len(s, 1);
	double v;

	if (!n || s[n])
		return -1;
	v = strtod(s, NULL);
	if (v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int eql_arg_tos(const char *s, uint8_t *out)
{
	static const struct { const char *name; uint8_t tos; } names[] = {
		{ "not-ect", 0 }, { "ect1", 1 }, { "ect0", 2 }, { "ce", 3 },
	};
	uint64_t v;

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			*out = names[i].tos;
			return 0;
		}
	}
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		size_t n = strspn(s + 2, "0123456789abcdefABCDEF");

		if (n < 1 || n > 2 || s[2 + n])
			return -1;
		*out = (uint8_t)strtoul(s + 2, NULL, 16);
		return 0;
	}
	if (eql_arg_u64(s, &v) || v > 255)
		return -1;
	*out = (uint8_t)v;
	return 0;
}
