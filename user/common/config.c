// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "addr.h"
#include "config.h"
#include "keys.h"
#include "settings.h"
#include "edgeq/wire.h"

#define MAX_WORDS 8

unsigned int eq_inner_mtu(unsigned int wire_mtu, bool outer_v6)
{
	unsigned int o = outer_v6 ? EQ_ROOM_V6 : EQ_ROOM_V4;

	return wire_mtu > o ? wire_mtu - o : 0;
}

unsigned int eq_peer_inner_mtu(unsigned int wire_mtu, bool outer_v6, int scheme, bool keyed)
{
	const struct eq_scheme_info *si = eq_scheme_info_of((uint32_t)scheme);
	unsigned int in = eq_inner_mtu(wire_mtu, outer_v6), o = si ? eq_opts_room(si->data_opts) : 0;

	if (keyed)
		o += EQ_OPT_AUTH_LEN;

	return in > o ? in - o : 0;
}

int eq_parse_rate(const char *s, __u64 *bps)
{
	static const struct { const char *sfx; __u64 mul; } units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1000ULL }, { "mbit", 1000000ULL },
		{ "gbit", 1000000000ULL },
	};
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].sfx) == 0) {
			if (v > ~0ULL / units[i].mul)
				return -EINVAL;
			*bps = v * units[i].mul;
			return 0;
		}
	}
	return -EINVAL;
}

static int fail(char *err, size_t errlen, const char *name, int line, const char *fmt, ...)
{
	va_list ap;
	int n = line ? snprintf(err, errlen, "%s:%d: ", name, line)
		     : snprintf(err, errlen, "%s: ", name);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return (errno || *end || *out < min || *out > max) ? -EINVAL : 0;
}

static int add_peer(struct eq_cfg *cfg, const struct eq_cfg_peer *p)
{
	struct eq_cfg_peer *n = realloc(cfg->peers, (cfg->npeers + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	cfg->peers = n;
	cfg->peers[cfg->npeers++] = *p;
	return 0;
}

int eq_scheme_parse(const char *w)
{
	const struct eq_scheme_info *s = eq_scheme_info_find(w, strlen(w));

	return s ? (int)s->id : -1;
}


/* The prefixes said so far, to find one said twice at the line that
 * repeats it (first error wins) without comparing every pair: a config
 * may have tens of thousands of peers (max_peers).  Open addressing over
 * indices into cfg->peers (+1; 0 empty), grown at half full. */
struct pfx_seen {
	uint32_t	*slot;
	uint32_t	cap;	/* a power of two */
};

static void pfx_put(struct pfx_seen *s, const struct eq_cfg *cfg, uint32_t idx)
{
	uint32_t h = eq_hash_bytes(&cfg->peers[idx].prefix, sizeof(struct eq_prefix_key));

	while (s->slot[h & (s->cap - 1)])
		h++;
	s->slot[h & (s->cap - 1)] = idx + 1;
}

/* Is k one of cfg's peers' prefixes?  Grows the set first when it must
 * (-ENOMEM). */
static int pfx_check(struct pfx_seen *s, const struct eq_cfg *cfg, const struct eq_prefix_key *k)
{
	if (2 * (cfg->npeers + 1) > (size_t)s->cap) {
		uint32_t *old = s->slot, cap = s->cap;

		s->cap = cap ? 2 * cap : 64;
		s->slot = calloc(s->cap, sizeof(*s->slot));
		if (!s->slot) {
			s->slot = old;
			s->cap = cap;
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < cap; i++)
			if (old[i])
				pfx_put(s, cfg, old[i] - 1);
		free(old);
	}
	for (uint32_t h = eq_hash_bytes(k, sizeof(*k)); s->slot[h & (s->cap - 1)]; h++)
		if (!memcmp(&cfg->peers[s->slot[h & (s->cap - 1)] - 1].prefix, k, sizeof(*k)))
			return 1;
	return 0;
}

static int by_via(const void *a, const void *b)
{
	const struct eq_cfg_peer *x = *(struct eq_cfg_peer *const *)a, *y = *(struct eq_cfg_peer *const *)b;
	int c = memcmp(&x->via, &y->via, sizeof(x->via));

	return c ? c : x->line - y->line;
}

/* Each underlay peer with one scheme, and no more of them than the maps
 * are sized for: sorted by address (idx, the peers), in n log n.  Of the
 * clashes, the one whose later line comes first is reported. */
static int check_peers(struct eq_cfg *cfg, struct eq_cfg_peer **idx, const char *name, char *err,
		       size_t errlen)
{
	const struct eq_config *b = &cfg->bpf;
	const struct eq_cfg_peer *bad = NULL, *with = NULL;
	size_t n = cfg->npeers, vias = 0;

	qsort(idx, n, sizeof(*idx), by_via);
	for (size_t i = 0, head = 0; i < n; i++) {
		if (i == 0 || memcmp(&idx[i]->via, &idx[head]->via, sizeof(idx[i]->via))) {
			head = i;
			vias++;
			continue;
		}
		if (idx[i]->scheme != idx[head]->scheme && (!bad || idx[i]->line < bad->line)) {
			bad = idx[i];
			with = idx[head];
		}
		/* One underlay peer, one set of keys: the first line that
		 * gives one (sorted by line within an address) gives it for
		 * all; another that gives another is an error. */
		if (idx[i]->keyed && idx[head]->keyed && !eq_keys_same(&idx[i]->keys, &idx[head]->keys)) {
			char a[EQ_ADDRSTRLEN];

			eq_addr_format(&idx[i]->via, a, sizeof(a));
			return fail(err, errlen, name, idx[i]->line, "peer via %s has another key on "
				    "line %d: one underlay peer has one key", a, idx[head]->line);
		}
		if (idx[i]->keyed && !idx[head]->keyed)
			for (size_t j = head; j < i; j++) {
				idx[j]->keyed = true;
				idx[j]->keys = idx[i]->keys;
			}
		if (!idx[i]->keyed && idx[head]->keyed) {
			idx[i]->keyed = true;
			idx[i]->keys = idx[head]->keys;
		}
	}
	if (bad) {
		char a[EQ_ADDRSTRLEN];

		eq_addr_format(&bad->via, a, sizeof(a));
		return fail(err, errlen, name, bad->line, "peer via %s is scheme %s here and %s on "
			    "line %d: one underlay peer has one scheme", a, eq_scheme_name((uint32_t)bad->scheme),
			    eq_scheme_name((uint32_t)with->scheme), with->line);
	}
	if (vias > b->max_peers)
		return fail(err, errlen, name, 0, "%zu underlay peers (distinct 'via' addresses), more "
			    "than max_peers %u: raise max_peers (up to %u)", vias, b->max_peers,
			    EQ_PEERS_LIMIT);
	if (n > b->max_prefixes)
		return fail(err, errlen, name, 0, "%zu peer prefixes, more than max_prefixes %u: raise "
			    "max_prefixes (up to %u)", n, b->max_prefixes, EQ_PREFIXES_LIMIT);
	return 0;
}

/* Each peer's scheme: its own, or the config's.  One underlay peer has
 * one scheme, whatever prefixes go to it.  The attachment runs an agent
 * when any peer's scheme has one (eq_scheme_has_agent(): eq_config.scheme
 * is then the default, or the first such peer's); its scheme none peers
 * are then `plain`: TC tunnels them as scheme none does, and the agent
 * never sees them.  `peer_scheme` keeps the default for `edgeq peer add`. */
static int resolve_schemes(struct eq_cfg *cfg, const char *name, char *err, size_t errlen)
{
	struct eq_config *b = &cfg->bpf;
	struct eq_cfg_peer **idx = calloc(cfg->npeers ? cfg->npeers : 1, sizeof(*idx));
	uint32_t agent = eq_scheme_has_agent(b->scheme) ? b->scheme : EQ_SCHEME_NONE;
	int rc;

	if (!idx)
		return fail(err, errlen, name, 0, "out of memory");
	b->peer_scheme = b->scheme;
	for (size_t i = 0; i < cfg->npeers; i++) {
		struct eq_cfg_peer *p = &cfg->peers[i];

		if (p->scheme < 0)
			p->scheme = (int)b->scheme;
		if (!agent && eq_scheme_has_agent((uint32_t)p->scheme))
			agent = (uint32_t)p->scheme;
		idx[i] = p;
	}
	rc = check_peers(cfg, idx, name, err, errlen);
	free(idx);
	if (rc)
		return rc;
	b->scheme = agent;
	for (size_t i = 0; i < cfg->npeers; i++)
		cfg->peers[i].plain = agent && cfg->peers[i].scheme == EQ_SCHEME_NONE;
	return 0;
}

static int bad_scheme(const char *w, const char *name, int ln, char *err, size_t errlen)
{
	char names[128];

	eq_scheme_names(NULL, names, sizeof(names));
	return fail(err, errlen, name, ln, "scheme '%s': use %s", w, names);
}

/* A directive that sets a value (settings.h): `NAME VALUE`, the tunnel's,
 * or `SCHEME.KEY VALUE`, a scheme's. */
static int setting_line(struct eq_config *b, char **w, int nw, const char *name, int ln,
			char *err, size_t errlen)
{
	const struct eq_setting *s = eq_setting_find(w[0]);
	const char *dot = strchr(w[0], '.');
	char msg[1024];

	if (!s && dot) {
		const struct eq_scheme_info *sc = eq_scheme_info_find(w[0], (size_t)(dot - w[0]));
		char names[768] = "";

		if (!sc) {
			eq_scheme_names(NULL, names, sizeof(names));
			return fail(err, errlen, name, ln, "unknown directive '%s': no scheme '%.*s' "
				    "(%s)", w[0], (int)(dot - w[0]), w[0], names);
		}
		for (size_t i = 0; i < sc->nset; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", sc->set[i].name);
		return fail(err, errlen, name, ln, "scheme %s has no setting '%s' (%s)", sc->name,
			    dot + 1, sc->nset ? names : "it has none");
	}
	if (!s) {
		eq_setting_names(msg, sizeof(msg));
		return fail(err, errlen, name, ln, "unknown directive '%s' (local, node_id, peer, "
			    "scheme, %s)", w[0], msg);
	}
	if (nw != 2) {
		eq_setting_usage(s, w[0], msg, sizeof(msg));
		return fail(err, errlen, name, ln, "%s", msg);
	}
	if (eq_setting_set(b, s, w[1])) {
		eq_setting_bad(s, w[0], w[1], msg, sizeof(msg));
		return fail(err, errlen, name, ln, "%s", msg);
	}
	return 0;
}

/* One directive; words[0] is the keyword. */
static int parse_line(struct eq_cfg *cfg, struct pfx_seen *seen, char **w, int nw,
		      const char *name, int ln, char *err, size_t errlen)
{
	struct eq_config *b = &cfg->bpf;
	unsigned long v;
	int rc;

#define WANT(n, usage) do { if (nw != (n)) return fail(err, errlen, name, ln, "usage: %s", usage); } while (0)
	if (!strcmp(w[0], "local")) {
		struct eq_addr a;

		WANT(2, "local ADDRESS");
		if (eq_addr_parse(w[1], &a))
			return fail(err, errlen, name, ln, "'%s' is not an IPv4 or IPv6 address", w[1]);
		/* node_id default: low 16 bits of the first local address. */
		if (!(b->flags & (EQ_CFG_HAS_V4 | EQ_CFG_HAS_V6)) && !cfg->node_id_set)
			b->node_id = (__u16)(a.a[14] << 8 | a.a[15]);
		if (eq_addr_is_v4(&a)) {
			if (b->flags & EQ_CFG_HAS_V4)
				return fail(err, errlen, name, ln, "a second IPv4 'local' address");
			b->local4 = a;
			b->flags |= EQ_CFG_HAS_V4;
		} else {
			if (b->flags & EQ_CFG_HAS_V6)
				return fail(err, errlen, name, ln, "a second IPv6 'local' address");
			b->local6 = a;
			b->flags |= EQ_CFG_HAS_V6;
		}
	} else if (!strcmp(w[0], "node_id")) {
		WANT(2, "node_id 0-65535");
		if (parse_uint(w[1], 0, 65535, &v))
			return fail(err, errlen, name, ln, "node_id '%s' is not in 0-65535", w[1]);
		b->node_id = (__u16)v;
		cfg->node_id_set = true;
	} else if (!strcmp(w[0], "peer")) {
		struct eq_cfg_peer p = { .scheme = -1, .line = ln };

		char names[128], msg[300];

		eq_scheme_names("|", names, sizeof(names));
		if (nw < 4 || nw % 2 || strcmp(w[2], "via"))
			return fail(err, errlen, name, ln, "usage: peer PREFIX via ADDRESS [scheme %s] "
				    "[key HEX[/ID]|@FILE]", names);
		for (int i = 4; i < nw; i += 2) {
			if (!strcmp(w[i], "scheme") && p.scheme < 0) {
				if ((p.scheme = eq_scheme_parse(w[i + 1])) < 0)
					return bad_scheme(w[i + 1], name, ln, err, errlen);
			} else if (!strcmp(w[i], "key") && !p.keyed) {
				__u8 key[EQ_SIPHASH_KEY_LEN], id;

				if (eq_key_arg(w[i + 1], key, &id, msg, sizeof(msg)))
					return fail(err, errlen, name, ln, "%s", msg);
				eq_keys_one(&p.keys, key, id);
				p.keyed = true;
			} else {
				return fail(err, errlen, name, ln, "usage: peer PREFIX via ADDRESS "
					    "[scheme %s] [key HEX[/ID]|@FILE]: '%s'", names, w[i]);
			}
		}
		if (eq_prefix_parse(w[1], &p.prefix))
			return fail(err, errlen, name, ln, "'%s' is not a prefix (ADDRESS[/LEN])", w[1]);
		if (eq_addr_parse(w[3], &p.via))
			return fail(err, errlen, name, ln, "'%s' is not an IPv4 or IPv6 address", w[3]);
		if ((rc = pfx_check(seen, cfg, &p.prefix)) > 0)
			return fail(err, errlen, name, ln, "prefix '%s' is configured twice", w[1]);
		if (rc < 0 || add_peer(cfg, &p))
			return fail(err, errlen, name, ln, "out of memory");
		pfx_put(seen, cfg, (uint32_t)cfg->npeers - 1);
	} else if (!strcmp(w[0], "scheme")) {
		char names[128];
		int sc;

		eq_scheme_names("|", names, sizeof(names));
		if (nw != 2)
			return fail(err, errlen, name, ln, "usage: scheme %s", names);
		if ((sc = eq_scheme_parse(w[1])) < 0)
			return bad_scheme(w[1], name, ln, err, errlen);
		b->scheme = (__u32)sc;
	} else {
		return setting_line(b, w, nw, name, ln, err, errlen);
	}
#undef WANT
	return 0;
}

/* Checks that need the whole file. */
static int validate(struct eq_cfg *cfg, const char *name, char *err, size_t errlen)
{
	struct eq_config *b = &cfg->bpf;

	if (!(b->flags & (EQ_CFG_HAS_V4 | EQ_CFG_HAS_V6)))
		return fail(err, errlen, name, 0, "no 'local' address: say which underlay address this host sends from");
	if (b->tunnel.edge_ecn > b->tunnel.edge_limit)
		return fail(err, errlen, name, 0, "edge_ecn %u is above edge_queue %u: nothing would ever be marked",
			    b->tunnel.edge_ecn, b->tunnel.edge_limit);
	if (b->mtu && b->tunnel.bdp_bytes && b->tunnel.bdp_bytes < b->mtu)
		return fail(err, errlen, name, 0, "bdp %u is below the mtu %u: not one packet could be pulled",
			    b->tunnel.bdp_bytes, b->mtu);
	/* The peer waits an RTO for an ACK this host may hold for its ACK
	 * delay (ACKs that say so are no RTT sample, so nothing stretches
	 * the RTO by it): with both set alike, half the RTO leaves a round
	 * trip's room. */
	if ((uint64_t)b->tunnel.ack_delay_ns * 2 > b->tunnel.rto_ns)
		return fail(err, errlen, name, 0,
			    "ack_delay_us %u is above half of rto_us %u: the peer would resend what is only waiting for a held ACK",
			    b->tunnel.ack_delay_ns / 1000, (unsigned)(b->tunnel.rto_ns / 1000));
	if (!b->max_prefixes)
		b->max_prefixes = b->max_peers * EQ_PREFIXES_PER_PEER > EQ_PREFIXES_LIMIT ?
				  EQ_PREFIXES_LIMIT : b->max_peers * EQ_PREFIXES_PER_PEER;
	/* hold_tcp auto: on where the agent could not carry a bulk flow. */
	if (b->tunnel.hold_tcp == EQ_HOLD_AUTO)
		b->tunnel.hold_tcp = b->link_rate_bps >= EQ_HOLD_AUTO_BPS;
	for (size_t i = 0; i < cfg->npeers; i++) {
		const struct eq_cfg_peer *p = &cfg->peers[i];
		bool v4 = eq_addr_is_v4(&p->via);
		char a[EQ_ADDRSTRLEN];

		eq_addr_format(&p->via, a, sizeof(a));
		if (!(b->flags & (v4 ? EQ_CFG_HAS_V4 : EQ_CFG_HAS_V6)))
			return fail(err, errlen, name, 0, "peer via %s needs a local %s address", a, v4 ? "IPv4" : "IPv6");
	}
	return resolve_schemes(cfg, name, err, errlen);
}

int eq_cfg_parse(const char *text, const char *name, struct eq_cfg *cfg, char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *save = NULL;
	struct pfx_seen seen = {};
	int ln = 0, rc = 0;

	memset(cfg, 0, sizeof(*cfg));
	/* Every setting's default, written out so that the pinned config
	 * shows them (bdp and reorder_queue stay 0: the scheme derives them
	 * from the link rate and the round trip). */
	eq_settings_defaults(&cfg->bpf);
	if (!copy)
		return fail(err, errlen, name, 0, "out of memory");
	/* strsep, not strtok: keeps empty lines so line numbers stay right. */
	save = copy;
	while (!rc && (line = strsep(&save, "\n")) != NULL) {
		char *w[MAX_WORDS + 1], *hash = strchr(line, '#'), *tok, *sp = NULL;
		int nw = 0;

		ln++;
		if (hash)
			*hash = '\0';
		for (tok = strtok_r(line, " \t\r", &sp); tok; tok = strtok_r(NULL, " \t\r", &sp)) {
			if (nw == MAX_WORDS) {
				rc = fail(err, errlen, name, ln, "too many words");
				break;
			}
			w[nw++] = tok;
		}
		if (!rc && nw)
			rc = parse_line(cfg, &seen, w, nw, name, ln, err, errlen);
	}
	free(copy);
	free(seen.slot);
	if (!rc)
		rc = validate(cfg, name, err, errlen);
	if (rc)
		eq_cfg_free(cfg);
	return rc;
}

int eq_cfg_load(const char *path, struct eq_cfg *cfg, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	int rc;

	memset(cfg, 0, sizeof(*cfg));
	if (!f) {
		snprintf(err, errlen, "cannot open config '%s': %s", path, strerror(errno));
		return -errno;
	}
	FILE *m = open_memstream(&text, &len);
	char buf[4096];
	size_t n;

	while (m && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, m);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!m || fclose(m) || rc) {
		free(text);
		snprintf(err, errlen, "cannot read config '%s'", path);
		return -EIO;
	}
	rc = eq_cfg_parse(text, path, cfg, err, errlen);
	free(text);
	return rc;
}

void eq_cfg_free(struct eq_cfg *cfg)
{
	free(cfg->peers);
	cfg->peers = NULL;
	cfg->npeers = 0;
}
