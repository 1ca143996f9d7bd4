/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The registry of schemes (core/scheme.h): the one place that names
 * every control-loop module the agent can run.
 */
#ifndef EDGEQ_SCHEMES_H
#define EDGEQ_SCHEMES_H

#include <stdint.h>
#include "scheme.h"

/* The module for `scheme` (enum eq_scheme), or NULL: none runs in the
 * agent (scheme none is TC and XDP alone). */
const struct eqt_scheme_ops *eq_scheme_find(uint32_t scheme);
/* The same by name; NULL if no module has it. */
const struct eqt_scheme_ops *eq_scheme_by_name(const char *name);

#endif
