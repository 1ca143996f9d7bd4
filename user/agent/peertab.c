// SPDX-License-Identifier: GPL-2.0-only
/* Underlay address -> peer slot, and how to reach each peer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "addr.h"
#include "peertab.h"

static uint32_t hash(const struct peertab *t, const struct eq_addr *a)
{
	return eq_hash_bytes(a, sizeof(*a)) & (t->nbuckets - 1);
}

int peertab_init(struct peertab *t, uint32_t slots)
{
	memset(t, 0, sizeof(*t));
	t->n = slots;
	for (t->nbuckets = 2; t->nbuckets < 2 * slots; t->nbuckets *= 2)
		;
	t->addr = calloc(slots, sizeof(*t->addr));
	t->used = calloc(slots, sizeof(*t->used));
	t->routed = calloc(slots, sizeof(*t->routed));
	t->scheme = calloc(slots, sizeof(*t->scheme));
	t->route = calloc(slots, sizeof(*t->route));
	t->bucket = calloc(t->nbuckets, sizeof(*t->bucket));
	t->scratch = calloc(slots, sizeof(*t->scratch));
	return t->addr && t->used && t->routed && t->scheme && t->route && t->bucket && t->scratch ?
	       0 : -ENOMEM;
}

void peertab_free(struct peertab *t)
{
	free(t->addr);
	free(t->used);
	free(t->routed);
	free(t->scheme);
	free(t->route);
	free(t->bucket);
	free(t->scratch);
	memset(t, 0, sizeof(*t));
}

bool peertab_set(struct peertab *t, uint32_t slot, bool used, const struct eq_addr *a,
		 uint8_t scheme)
{
	bool other;

	if (slot >= t->n)
		return false;
	other = !used || !t->used[slot] || memcmp(&t->addr[slot], a, sizeof(*a));
	if (other)
		t->routed[slot] = false;
	other = t->used[slot] && (other || t->scheme[slot] != scheme);
	t->used[slot] = used;
	if (used) {
		t->addr[slot] = *a;
		t->scheme[slot] = scheme;
	}
	return other;
}

void peertab_rehash(struct peertab *t)
{
	memset(t->bucket, 0, t->nbuckets * sizeof(*t->bucket));
	for (uint32_t s = 0; s < t->n; s++) {
		uint32_t b;

		if (!t->used[s])
			continue;
		for (b = hash(t, &t->addr[s]); t->bucket[b]; b = (b + 1) & (t->nbuckets - 1))
			;
		t->bucket[b] = (int32_t)s + 1;
	}
}

/* The whole of eq_peers in as few system calls as the kernel allows: the
 * agent rereads it every second, and one lookup per slot of 16,384 took
 * as many calls. */
static int read_all(struct peertab *t, int fd)
{
	__u32 keys[1024], out = 0, done = 0;
	bool first = true;

	while (done < t->n) {
		__u32 count = t->n - done < 1024 ? t->n - done : 1024;
		int rc = bpf_map_lookup_batch(fd, first ? NULL : &out, &out, keys,
					      t->scratch + done, &count, NULL);

		first = false;
		done += count;
		if (rc && errno == ENOENT)
			break;	/* the end of the map */
		if (rc)
			return -errno;
	}
	return done == t->n ? 0 : -EIO;
}

int peertab_load(struct peertab *t, int peers_fd, uint8_t dflt,
		 void (*gone)(void *ctx, uint32_t slot), void *ctx)
{
	/* One slot at a time where batches fail (a kernel without them). */
	if (read_all(t, peers_fd))
		for (uint32_t s = 0; s < t->n; s++)
			if (bpf_map_lookup_elem(peers_fd, &s, &t->scratch[s]))
				return -errno;
	for (uint32_t s = 0; s < t->n; s++) {
		const struct eq_peer *p = &t->scratch[s];
		uint8_t sc = p->scheme || (p->flags & EQ_PEER_PLAIN) ? p->scheme : dflt;

		if (peertab_set(t, s, p->flags & EQ_PEER_USED, &p->underlay, sc) && gone)
			gone(ctx, s);
	}
	peertab_rehash(t);
	return 0;
}

int peertab_find(const struct peertab *t, const struct eq_addr *a)
{
	for (uint32_t b = hash(t, a); t->bucket[b]; b = (b + 1) & (t->nbuckets - 1)) {
		int s = t->bucket[b] - 1;

		if (!memcmp(&t->addr[s], a, sizeof(*a)))
			return s;
	}
	return -1;
}
