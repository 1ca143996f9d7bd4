// SPDX-License-Identifier: GPL-2.0-only
/* The config's settings as data (settings.h): the tables and the code that
 * walks them. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "settings.h"
#include "edgeq/wire.h"

#define CFG(field)	offsetof(struct eq_config, field), sizeof(((struct eq_config *)0)->field)
#define US		1000ULL		/* microseconds, stored in ns */
#define MS		1000000ULL

static const struct eq_setting_word on_off[] = { { "on", 1 }, { "off", 0 }, { NULL, 0 } };

#define UINT(n, lo, hi, u, sc, d, f) \
	{ .name = n, .type = EQ_SET_UINT, .min = lo, .max = hi, .unit = u, .scale = sc, .def = d, .off = CFG(f) }
/* A UINT whose default (stored 0) is a rule that something later applies. */
#define UINT_RULE(n, lo, hi, u, sc, r, f) \
	{ .name = n, .type = EQ_SET_UINT, .min = lo, .max = hi, .unit = u, .scale = sc, .rule = r, \
	  .off = CFG(f) }
#define WORDS(n, al, w, d, f) \
	{ .name = n, .alias = al, .type = EQ_SET_WORDS, .words = w, .def = d, .off = CFG(f) }

/* The attachment's and the tunnel's settings, whatever the scheme
 * (docs/config.md, in the order it lists them). */
const struct eq_setting eq_tunnel_settings[] = {
	UINT("port", 1, 65535, NULL, 1, EQ_DEFAULT_PORT, port),
	UINT_RULE("mtu", 576, 65535, "bytes", 1, "the interface's", mtu),
	{ .name = "link_rate", .type = EQ_SET_RATE, .def = 10000000000ULL, .off = CFG(link_rate_bps) },
	UINT("link_framing", 0, 64, "bytes", 1, EQ_ETH_FRAMING, link_framing),
	WORDS("entropy", NULL, ((const struct eq_setting_word[]){
		{ "flow", EQ_ENTROPY_FLOW }, { "packet", EQ_ENTROPY_PACKET }, { NULL, 0 } }),
	      EQ_ENTROPY_FLOW, entropy),
	UINT("max_peers", EQ_PEERS_MIN, EQ_PEERS_LIMIT, "peer slots", 1, EQ_MAX_PEERS, max_peers),
	/* config.c's validate applies the rule */
	UINT_RULE("max_prefixes", EQ_PEERS_MIN, EQ_PREFIXES_LIMIT, "prefixes", 1, "4 x max_peers",
		  max_prefixes),
	WORDS("on_agent_down", NULL, ((const struct eq_setting_word[]){
		{ "tunnel", EQ_DOWN_TUNNEL }, { "pass", EQ_DOWN_PASS }, { "drop", EQ_DOWN_DROP },
		{ NULL, 0 } }), EQ_DOWN_TUNNEL, on_agent_down),
	UINT("agent_dead_ms", 10, 60000, "milliseconds", MS, 200 * MS, agent_dead_ns),
	UINT("agent_priority", 0, 99, "SCHED_FIFO priority", 1, 0, agent_priority),
	/* the scheme applies the rules of bdp and reorder_queue */
	UINT_RULE("bdp", 1500, 16777216, "bytes", 1, "each tunnel's from its round trip",
		  tunnel.bdp_bytes),
	UINT("edge_queue", 1, 8192, "packets", 1, 100, tunnel.edge_limit),
	UINT("edge_ecn", 1, 8192, "packets", 1, 30, tunnel.edge_ecn),
	UINT_RULE("reorder_queue", 1, 4096, "packets", 1, "what link_rate delivers in 2 ms",
		  tunnel.reorder_limit),
	UINT("reorder_timeout_us", 10, 10000000, "microseconds", US, 12000 * US, tunnel.reorder_ns),
	UINT("loss_window_us", 0, 1000000, "microseconds", US, 500 * US, tunnel.loss_ns),
	UINT("rto_us", 10, 10000000, "microseconds", US, 10000 * US, tunnel.rto_ns),
	UINT("drr_quantum", 64, 1048576, "bytes", 1, 3000, tunnel.drr_quantum),
	UINT("pacer_burst_us", 10, 100000, "microseconds", US, 150 * US, tunnel.burst_ns),
	UINT("ack_delay_us", 0, 10000, "microseconds", US, 2000 * US, tunnel.ack_delay_ns),
	UINT("rx_poll_us", 0, 10000, "microseconds", US, 50 * US, tunnel.rx_poll_ns),
	WORDS("fast_path", NULL, on_off, 1, tunnel.fast_path),
	WORDS("direct_rx", NULL, on_off, 1, tunnel.direct_rx),
	/* auto: resolved by the link rate once the file is read (config.c) */
	WORDS("hold_tcp", NULL, ((const struct eq_setting_word[]){
		{ "auto", EQ_HOLD_AUTO }, { "on", 1 }, { "off", 0 }, { NULL, 0 } }),
	      EQ_HOLD_AUTO, tunnel.hold_tcp),
};
const size_t eq_tunnel_nsettings = sizeof(eq_tunnel_settings) / sizeof(eq_tunnel_settings[0]);

/* EQDS (docs/eqds.md); the old names stay readable. */
static const struct eq_setting eqds_settings[] = {
	WORDS("eqds.mode", "eqds_mode", ((const struct eq_setting_word[]){
		{ "trim", 0 }, { "rts", 1 }, { NULL, 0 } }), 0, schemes.eqds.mode),
	WORDS("eqds.asl", "asl", ((const struct eq_setting_word[]){
		{ "fifo", 0 }, { "weighted", 1 }, { NULL, 0 } }), 0, schemes.eqds.asl),
};

/* SMaRTT (docs/smartt.md): the gains are the paper's; what depends on the
 * path is in units of it (the base RTT, a BDP). */
static const struct eq_setting smartt_settings[] = {
	WORDS("smartt.variant", NULL, ((const struct eq_setting_word[]){
		{ "smartt", 0 }, { "nscc", 1 }, { NULL, 0 } }), 0, schemes.smartt.variant),
	WORDS("smartt.trimming", NULL, on_off, 1, schemes.smartt.trimming),
	UINT("smartt.target_rtt", 110, 1000, "percent of the base RTT", 1, 150,
	     schemes.smartt.trtt_pct),
	UINT("smartt.max_window", 50, 1000, "percent of a BDP", 1, 125, schemes.smartt.max_wnd_pct),
	UINT_RULE("smartt.base_rtt_us", 1, 1000000, "microseconds", US, "the lowest measured",
		  schemes.smartt.base_rtt_ns),
	WORDS("smartt.reps", NULL, on_off, 1, schemes.smartt.reps),
	UINT("smartt.entropies", 1, 4096, "entropies", 1, 256, schemes.smartt.entropies),
	UINT("smartt.paths_kept", 0, 4096, "entropies", 1, 0, schemes.smartt.paths_kept),
};

/* SIRD (docs/sird.md): the paper's defaults, in units of a BDP. */
static const struct eq_setting sird_settings[] = {
	UINT("sird.b", 100, 1000, "percent of a BDP", 1, 150, schemes.sird.b_pct),
	UINT("sird.sthr", 1, 1000, "percent of a BDP", 1, 50, schemes.sird.sthr_pct),
	UINT("sird.unsch", 0, 1000, "percent of a BDP", 1, 100, schemes.sird.unsch_pct),
	UINT("sird.rho", 50, 100, "percent of link_rate", 1, 100, schemes.sird.rho_pct),
	WORDS("sird.policy", NULL, ((const struct eq_setting_word[]){
		{ "srpt", 0 }, { "rr", 1 }, { NULL, 0 } }), 0, schemes.sird.policy),
	UINT_RULE("sird.base_rtt_us", 1, 1000000, "microseconds", US, "as the senders measure it",
		  schemes.sird.base_rtt_ns),
};

/* EQDS carries everything in the fixed header: no options. */
const struct eq_scheme_info eq_schemes[] = {
	{ "none", EQ_SCHEME_NONE, NULL, 0, 0, 0 },
	{ "eqds", EQ_SCHEME_EQDS, eqds_settings, sizeof(eqds_settings) / sizeof(eqds_settings[0]),
	  0, 0 },
	{ "smartt", EQ_SCHEME_SMARTT, smartt_settings,
	  sizeof(smartt_settings) / sizeof(smartt_settings[0]), 0, 0 },
	{ "sird", EQ_SCHEME_SIRD, sird_settings, sizeof(sird_settings) / sizeof(sird_settings[0]),
	  0, 0 },
};
const size_t eq_nschemes = sizeof(eq_schemes) / sizeof(eq_schemes[0]);

static bool named(const struct eq_setting *s, const char *name)
{
	return !strcmp(s->name, name) || (s->alias && !strcmp(s->alias, name));
}

const struct eq_scheme_info *eq_scheme_info_find(const char *name, size_t len)
{
	for (size_t i = 0; i < eq_nschemes; i++)
		if (strlen(eq_schemes[i].name) == len && !strncmp(eq_schemes[i].name, name, len))
			return &eq_schemes[i];
	return NULL;
}

const struct eq_scheme_info *eq_scheme_info_of(uint32_t id)
{
	for (size_t i = 0; i < eq_nschemes; i++)
		if (eq_schemes[i].id == id)
			return &eq_schemes[i];
	return NULL;
}

const char *eq_scheme_name(uint32_t id)
{
	const struct eq_scheme_info *si = eq_scheme_info_of(id);

	return si ? si->name : "?";
}

const struct eq_setting *eq_setting_find(const char *name)
{
	for (size_t i = 0; i < eq_tunnel_nsettings; i++)
		if (named(&eq_tunnel_settings[i], name))
			return &eq_tunnel_settings[i];
	/* A scheme's, by its full name or an old alias (which has no dot). */
	for (size_t i = 0; i < eq_nschemes; i++)
		for (size_t j = 0; j < eq_schemes[i].nset; j++)
			if (named(&eq_schemes[i].set[j], name))
				return &eq_schemes[i].set[j];
	return NULL;
}

static void store(struct eq_config *c, const struct eq_setting *s, uint64_t v)
{
	unsigned char *p = (unsigned char *)c + s->off;

	switch (s->size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

uint64_t eq_setting_get(const struct eq_config *c, const struct eq_setting *s)
{
	const unsigned char *p = (const unsigned char *)c + s->off;

	switch (s->size) {
	case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	default: { uint64_t x; memcpy(&x, p, 8); return x; }
	}
}

int eq_setting_set(struct eq_config *c, const struct eq_setting *s, const char *v)
{
	unsigned long long n;
	__u64 bps;
	char *end;

	switch (s->type) {
	case EQ_SET_UINT:
		if (!isdigit((unsigned char)*v))
			return -EINVAL;
		errno = 0;
		n = strtoull(v, &end, 10);
		if (errno || *end || n < s->min || n > s->max)
			return -EINVAL;
		store(c, s, n * (s->scale ? s->scale : 1));
		return 0;
	case EQ_SET_RATE:
		if (eq_parse_rate(v, &bps))
			return -EINVAL;
		store(c, s, bps);
		return 0;
	case EQ_SET_WORDS:
		for (const struct eq_setting_word *w = s->words; w->word; w++)
			if (!strcmp(w->word, v)) {
				store(c, s, w->value);
				return 0;
			}
		return -EINVAL;
	}
	return -EINVAL;
}

void eq_settings_defaults(struct eq_config *c)
{
	for (size_t i = 0; i < eq_tunnel_nsettings; i++)
		store(c, &eq_tunnel_settings[i], eq_tunnel_settings[i].def);
	for (size_t i = 0; i < eq_nschemes; i++)
		for (size_t j = 0; j < eq_schemes[i].nset; j++)
			store(c, &eq_schemes[i].set[j], eq_schemes[i].set[j].def);
}

/* Append to buf (NUL-terminated, len bytes): what fits. */
static void append(char *buf, size_t len, const char *s)
{
	size_t n = strnlen(buf, len);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "%s", s);
}

/* "a, b or c" (sep NULL) or "a|b|c". */
static void join(const char *const *w, size_t n, const char *sep, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (i)
			append(buf, len, sep ? sep : i + 1 == n ? " or " : ", ");
		append(buf, len, w[i]);
	}
}

void eq_setting_words(const struct eq_setting *s, const char *sep, char *buf, size_t len)
{
	const char *w[16];
	size_t n = 0;

	for (const struct eq_setting_word *x = s->words; x && x->word && n < 16; x++)
		w[n++] = x->word;
	join(w, n, sep, buf, len);
}

void eq_scheme_names(const char *sep, char *buf, size_t len)
{
	const char *w[16];
	size_t n = 0;

	for (size_t i = 0; i < eq_nschemes && n < 16; i++)
		w[n++] = eq_schemes[i].name;
	join(w, n, sep, buf, len);
}

void eq_setting_names(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < eq_tunnel_nsettings; i++) {
		append(buf, len, i ? ", " : "");
		append(buf, len, eq_tunnel_settings[i].name);
	}
	/* The schemes' own by their names only: listed whole, they grew
	 * past what an error message holds (512 bytes in attach). */
	append(buf, len, ", or SCHEME.KEY of ");
	for (size_t i = 0, k = 0; i < eq_nschemes; i++)
		if (eq_schemes[i].nset) {
			append(buf, len, k++ ? ", " : "");
			append(buf, len, eq_schemes[i].name);
		}
	append(buf, len, " (edgeq help config)");
}

/* The value a UINT takes as written: "1-65535" or "10-60000 milliseconds". */
static void range(const struct eq_setting *s, char *buf, size_t len)
{
	snprintf(buf, len, "%llu-%llu%s%s", (unsigned long long)s->min, (unsigned long long)s->max,
		 s->unit ? " " : "", s->unit ? s->unit : "");
}

void eq_setting_usage(const struct eq_setting *s, const char *as, char *buf, size_t len)
{
	char what[256];

	switch (s->type) {
	case EQ_SET_UINT:
		range(s, what, sizeof(what));
		snprintf(buf, len, "usage: %s N (%s)", as, what);
		break;
	case EQ_SET_RATE:
		snprintf(buf, len, "usage: %s RATE (e.g. 10gbit)", as);
		break;
	case EQ_SET_WORDS:
		eq_setting_words(s, "|", what, sizeof(what));
		snprintf(buf, len, "usage: %s %s", as, what);
		break;
	}
}

void eq_setting_bad(const struct eq_setting *s, const char *as, const char *v, char *buf,
		    size_t len)
{
	char what[256];

	switch (s->type) {
	case EQ_SET_UINT:
		range(s, what, sizeof(what));
		snprintf(buf, len, "%s '%s' is not in %s", as, v, what);
		break;
	case EQ_SET_RATE:
		snprintf(buf, len, "%s '%s': use e.g. 100mbit, 10gbit", as, v);
		break;
	case EQ_SET_WORDS:
		eq_setting_words(s, NULL, what, sizeof(what));
		snprintf(buf, len, "%s '%s': use %s", as, v, what);
		break;
	}
}
