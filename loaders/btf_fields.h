/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The integer members of a map's value, read from the map's BTF: how
 * `edgeq status` and `edgeq metrics` show a scheme's own per-peer state
 * (eq_<scheme>_peers, which the agent makes from the scheme's table)
 * without knowing the scheme.
 */
#ifndef EDGEQ_BTF_FIELDS_H
#define EDGEQ_BTF_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EQ_BTF_FIELDS_MAX	64

struct eq_btf_field {
	char		name[48];
	uint32_t	off;		/* bytes into the value */
	uint8_t		size;		/* 1, 2, 4 or 8 */
	bool		is_signed;
};

struct eq_btf_value {
	uint32_t		size;	/* the map's value_size */
	uint32_t		n;
	struct eq_btf_field	f[EQ_BTF_FIELDS_MAX];
};

/* The map's value struct's integer members (others are skipped): 0, or
 * -errno (no BTF, not a struct). */
int eq_btf_value_read(int map_fd, struct eq_btf_value *v);
/* A member's value in a buffer of the value's size. */
long long eq_btf_field_get(const void *value, const struct eq_btf_field *f);

#endif
