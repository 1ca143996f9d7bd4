// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addr.h"
#include "config.h"
#include "edgeq/wire.h"

#define MAX_WORDS 8

unsigned int eq_inner_mtu(unsigned int wire_mtu, bool outer_v6)
{
	unsigned int o = outer_v6 ? EQ_OVERHEAD_V6 : EQ_OVERHEAD_V4;

	return wire_mtu > o ? wire_mtu - o : 0;
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

/* One directive; words[0] is the keyword. */
static int parse_line(struct eq_cfg *cfg, char **w, int nw, const char *name, int ln,
		      char *err, size_t errlen)
{
	struct eq_config *b = &cfg->bpf;
	unsigned long v;

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
	} else if (!strcmp(w[0], "port")) {
		WANT(2, "port 1-65535");
		if (parse_uint(w[1], 1, 65535, &v))
			return fail(err, errlen, name, ln, "port '%s' is not in 1-65535", w[1]);
		b->port = (__u16)v;
	} else if (!strcmp(w[0], "mtu")) {
		WANT(2, "mtu BYTES");
		if (parse_uint(w[1], 576, 65535, &v))
			return fail(err, errlen, name, ln, "mtu '%s' is not in 576-65535", w[1]);
		b->mtu = (__u32)v;
	} else if (!strcmp(w[0], "link_rate")) {
		WANT(2, "link_rate RATE (e.g. 10gbit)");
		if (eq_parse_rate(w[1], &b->link_rate_bps))
			return fail(err, errlen, name, ln, "link_rate '%s': use e.g. 100mbit, 10gbit", w[1]);
	} else if (!strcmp(w[0], "entropy")) {
		WANT(2, "entropy flow|packet");
		if (!strcmp(w[1], "flow"))
			b->entropy = EQ_ENTROPY_FLOW;
		else if (!strcmp(w[1], "packet"))
			b->entropy = EQ_ENTROPY_PACKET;
		else
			return fail(err, errlen, name, ln, "entropy '%s': use flow or packet", w[1]);
	} else if (!strcmp(w[0], "node_id")) {
		WANT(2, "node_id 0-65535");
		if (parse_uint(w[1], 0, 65535, &v))
			return fail(err, errlen, name, ln, "node_id '%s' is not in 0-65535", w[1]);
		b->node_id = (__u16)v;
		cfg->node_id_set = true;
	} else if (!strcmp(w[0], "peer")) {
		struct eq_cfg_peer p;

		WANT(4, "peer PREFIX via ADDRESS");
		if (strcmp(w[2], "via"))
			return fail(err, errlen, name, ln, "usage: peer PREFIX via ADDRESS");
		if (eq_prefix_parse(w[1], &p.prefix))
			return fail(err, errlen, name, ln, "'%s' is not a prefix (ADDRESS[/LEN])", w[1]);
		if (eq_addr_parse(w[3], &p.via))
			return fail(err, errlen, name, ln, "'%s' is not an IPv4 or IPv6 address", w[3]);
		for (size_t i = 0; i < cfg->npeers; i++)
			if (!memcmp(&cfg->peers[i].prefix, &p.prefix, sizeof(p.prefix)))
				return fail(err, errlen, name, ln, "prefix '%s' is configured twice", w[1]);
		if (add_peer(cfg, &p))
			return fail(err, errlen, name, ln, "out of memory");
	} else {
		return fail(err, errlen, name, ln, "unknown directive '%s' (local, port, mtu, link_rate, entropy, node_id, peer)", w[0]);
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
	for (size_t i = 0; i < cfg->npeers; i++) {
		const struct eq_cfg_peer *p = &cfg->peers[i];
		bool v4 = eq_addr_is_v4(&p->via);
		char a[EQ_ADDRSTRLEN];

		eq_addr_format(&p->via, a, sizeof(a));
		if (!(b->flags & (v4 ? EQ_CFG_HAS_V4 : EQ_CFG_HAS_V6)))
			return fail(err, errlen, name, 0, "peer via %s needs a local %s address", a, v4 ? "IPv4" : "IPv6");
	}
	return 0;
}

int eq_cfg_parse(const char *text, const char *name, struct eq_cfg *cfg, char *err, size_t errlen)
{
	char *copy = strdup(text), *line, *save = NULL;
	int ln = 0, rc = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->bpf.port = EQ_DEFAULT_PORT;
	cfg->bpf.entropy = EQ_ENTROPY_FLOW;
	cfg->bpf.link_rate_bps = 10000000000ULL;
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
			rc = parse_line(cfg, w, nw, name, ln, err, errlen);
	}
	free(copy);
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
