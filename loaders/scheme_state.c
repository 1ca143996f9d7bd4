// SPDX-License-Identifier: GPL-2.0-only
/* A peer's scheme and the scheme's own state (scheme_state.h). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pins.h"
#include "scheme_state.h"
#include "settings.h"

void eq_scheme_maps_init(struct eq_scheme_maps *s, const char *dir)
{
	s->dir = dir;
	for (int i = 0; i < EQ_SCHEME_IDS; i++) {
		s->fd[i] = -2;
		s->v[i] = NULL;
	}
}

void eq_scheme_maps_close(struct eq_scheme_maps *s)
{
	for (int i = 0; i < EQ_SCHEME_IDS; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		free(s->v[i]);
		s->fd[i] = -2;
		s->v[i] = NULL;
	}
}

static void open_own(struct eq_scheme_maps *s, __u32 scheme)
{
	char name[64], path[600];
	int fd;

	s->fd[scheme] = -1;
	snprintf(name, sizeof(name), EQ_MAP_SCHEME_PEERS, eq_scheme_name(scheme));
	if (eq_path(path, sizeof(path), s->dir, name) || (fd = bpf_obj_get(path)) < 0)
		return;
	s->v[scheme] = calloc(1, sizeof(*s->v[scheme]));
	if (!s->v[scheme] || eq_btf_value_read(fd, s->v[scheme]) ||
	    s->v[scheme]->size > EQ_SCHEME_VALUE_MAX) {
		free(s->v[scheme]);
		s->v[scheme] = NULL;
		close(fd);
		return;
	}
	s->fd[scheme] = fd;
}

const struct eq_btf_value *eq_scheme_own(struct eq_scheme_maps *s, __u32 scheme, __u32 slot,
					 void *val)
{
	if (scheme >= EQ_SCHEME_IDS)
		return NULL;
	if (s->fd[scheme] == -2)
		open_own(s, scheme);
	if (s->fd[scheme] < 0 || bpf_map_lookup_elem(s->fd[scheme], &slot, val))
		return NULL;
	return s->v[scheme];
}

__u32 eq_peer_scheme(const struct eq_peer *p, const struct eq_config *c)
{
	if (p->scheme || (p->flags & EQ_PEER_PLAIN) || c->scheme == EQ_SCHEME_NONE)
		return p->scheme;
	return c->scheme;
}

