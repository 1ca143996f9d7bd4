/* SPDX-License-Identifier: GPL-2.0-only */
/* Text <-> struct eq_addr / struct eq_prefix_key.  IPv4 is stored
 * IPv4-mapped (::ffff:a.b.c.d) with the prefix length offset by 96. */
#ifndef EDGEQ_ADDR_H
#define EDGEQ_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include "edgeq/maps.h"

#define EQ_ADDRSTRLEN	46	/* INET6_ADDRSTRLEN */
#define EQ_PREFIXSTRLEN	(EQ_ADDRSTRLEN + 4)

bool eq_addr_is_v4(const struct eq_addr *a);
/* Parse an IPv4 or IPv6 address; 0 or -EINVAL. */
int eq_addr_parse(const char *s, struct eq_addr *out);
void eq_addr_format(const struct eq_addr *a, char *buf, size_t len);
/* Parse "addr" or "addr/len" (len defaults to a host prefix); host bits
 * are cleared.  0, or -EINVAL. */
int eq_prefix_parse(const char *s, struct eq_prefix_key *out);
void eq_prefix_format(const struct eq_prefix_key *k, char *buf, size_t len);
/* True when prefix k contains address a. */
bool eq_prefix_contains(const struct eq_prefix_key *k, const struct eq_addr *a);

/* FNV-1a over n bytes: the hash of the open-addressed tables of addresses
 * (the agent's peer table) and prefixes (the config's duplicate check). */
static inline unsigned int eq_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned int h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

#endif
