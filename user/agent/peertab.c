// SPDX-License-Identifier: GPL-2.0-only
/* Underlay address -> peer slot, and how to reach each peer. */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include "peertab.h"

static uint32_t hash(const struct eq_addr *a)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (int i = 0; i < 16; i++)
		h = (h ^ a->a[i]) * 16777619u;
	return h & (PEERTAB_BUCKETS - 1);
}

void peertab_set(struct peertab *t, uint32_t slot, bool used, const struct eq_addr *a)
{
	if (slot >= EQ_MAX_PEERS)
		return;
	if (!used || !t->used[slot] || memcmp(&t->addr[slot], a, sizeof(*a)))
		t->routed[slot] = false;
	t->used[slot] = used;
	if (used)
		t->addr[slot] = *a;
}

void peertab_rehash(struct peertab *t)
{
	memset(t->bucket, 0, sizeof(t->bucket));
	for (uint32_t s = 0; s < EQ_MAX_PEERS; s++) {
		uint32_t b;

		if (!t->used[s])
			continue;
		for (b = hash(&t->addr[s]); t->bucket[b]; b = (b + 1) & (PEERTAB_BUCKETS - 1))
			;
		t->bucket[b] = (int32_t)s + 1;
	}
}

int peertab_load(struct peertab *t, int peers_fd)
{
	for (uint32_t s = 0; s < EQ_MAX_PEERS; s++) {
		struct eq_peer p;

		if (bpf_map_lookup_elem(peers_fd, &s, &p))
			return -errno;
		peertab_set(t, s, p.flags & EQ_PEER_USED, &p.underlay);
	}
	peertab_rehash(t);
	return 0;
}

int peertab_find(const struct peertab *t, const struct eq_addr *a)
{
	for (uint32_t b = hash(a); t->bucket[b]; b = (b + 1) & (PEERTAB_BUCKETS - 1)) {
		int s = t->bucket[b] - 1;

		if (!memcmp(&t->addr[s], a, sizeof(*a)))
			return s;
	}
	return -1;
}
