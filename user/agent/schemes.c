// SPDX-License-Identifier: GPL-2.0-only
/* The registry of schemes (schemes.h).  A new control loop is a module
 * under user/<name>/ with its ops, and one line here. */
#include <string.h>
#include "eqds.h"
#include "smartt.h"
#include "sird.h"
#include "schemes.h"

static const struct eqt_scheme_ops *const schemes[] = {
	&eqds_ops,
	&smartt_ops,
	&sird_ops,
};

#define N_SCHEMES (sizeof(schemes) / sizeof(schemes[0]))

const struct eqt_scheme_ops *eq_scheme_find(uint32_t scheme)
{
	for (size_t i = 0; i < N_SCHEMES; i++)
		if (schemes[i]->id == scheme)
			return schemes[i];
	return NULL;
}

const struct eqt_scheme_ops *eq_scheme_by_name(const char *name)
{
	for (size_t i = 0; i < N_SCHEMES; i++)
		if (!strcmp(schemes[i]->name, name))
			return schemes[i];
	return NULL;
}
