/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsing of command-line values, pure.  Every function takes the whole
 * string (no trailing junk, no sign, no spaces), returns 0 and the value,
 * or -1 and leaves *out alone, so the caller can name the option.
 *
 * Units differ on purpose, as in iperf3: sizes are bytes with binary
 * suffixes, rates bits per second with decimal ones.
 */
#ifndef EDGEQ_LOAD_ARGS_H
#define EDGEQ_LOAD_ARGS_H

#include <stdint.h>

/* A decimal integer. */
int eql_arg_u64(const char *s, uint64_t *out);
/* 1 .. 65535. */
int eql_arg_port(const char *s, uint16_t *out);
/* Bytes: a decimal integer with an optional suffix k (x1024), m (x1024^2)
 * or g (x1024^3), either case: 1500, 64k, 1M. */
int eql_arg_size(const char *s, uint64_t *out);
/* Bits per second >= 1: a decimal number, fraction allowed, with an
 * optional suffix k, m, g or t (x1000 each), either case: 200m, 2.5g. */
int eql_arg_rate(const char *s, uint64_t *out);
/* Seconds, fraction allowed (0.5), to ns; at most 10^7 s. */
int eql_arg_secs(const char *s, uint64_t *ns);
/* A plain decimal number (fraction allowed) in [lo, hi]. */
int eql_arg_double(const char *s, double lo, double hi, double *out);
/* A TOS / traffic class byte: ect0, ect1, ce, not-ect, 0xNN or 0..255. */
int eql_arg_tos(const char *s, uint8_t *out);

#endif
