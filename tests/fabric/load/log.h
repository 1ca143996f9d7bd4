/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Messages for people, on stderr, one line each, prefixed "eqload: ":
 * what failed, on what, and why, e.g.
 *   eqload: connect 10.250.0.2:5201: Connection refused
 * Measurements never go here; they go to the --out file.
 */
#ifndef EDGEQ_LOAD_LOG_H
#define EDGEQ_LOAD_LOG_H

void eql_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, followed by ": " and strerror(errno). */
void eql_warn_errno(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
