/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The config's settings as data: one table row per directive that sets a
 * value (name, type, range, unit, default, where it goes in struct
 * eq_config), after xdp-tools' prog_option tables.  The tunnel's settings
 * have plain names (`rto_us 10000`); a scheme's are `SCHEME.KEY VALUE`
 * (`eqds.mode rts`) and live in its member of struct eq_scheme_settings.
 * Adding a scheme adds its name and a table here, not parser code: the
 * parser, its messages, the defaults and `edgeq help config` all walk
 * these tables.
 */
#ifndef EDGEQ_SETTINGS_H
#define EDGEQ_SETTINGS_H

#include <stddef.h>
#include <stdint.h>
#include "edgeq/maps.h"

enum eq_setting_type {
	EQ_SET_UINT,	/* N within [min, max], stored as N * scale */
	EQ_SET_RATE,	/* 10gbit, 500mbit, N (bit/s): a __u64 of bit/s */
	EQ_SET_WORDS,	/* one of words[], stored as its value */
};

struct eq_setting_word {
	const char	*word;
	uint32_t	value;
};

struct eq_setting {
	const char			*name;	/* as written: "rto_us", "eqds.mode" */
	const char			*alias;	/* an older name still read, or NULL */
	enum eq_setting_type		type;
	uint64_t			min, max; /* UINT: bounds of N as written */
	const char			*unit;	/* UINT: what N counts */
	uint64_t			scale;	/* UINT: stored = N * scale (0: 1) */
	const struct eq_setting_word	*words;	/* WORDS: ends with a NULL word */
	uint64_t			def;	/* stored before the file is read */
	const char			*rule;	/* the default when it is a rule, not def */
	size_t				off;	/* in struct eq_config */
	size_t				size;	/* 1, 2, 4 or 8 bytes */
};

/* A scheme the config can name, its settings (none for `none`) and what
 * it needs of TC on the wire. */
struct eq_scheme_info {
	const char		*name;	/* `scheme NAME`, `peer ... scheme NAME` */
	uint32_t		id;	/* enum eq_scheme */
	const struct eq_setting	*set;
	size_t			nset;
	uint32_t		data_opts;	/* 1 << EQ_OPT_x every DATA packet
						 * carries: TC leaves room for them
						 * (eq_opts_room), route MTUs too */
	uint32_t		tc_opts;	/* of those, the ones TC fills on
						 * the fast path (TSTAMP) */
};

extern const struct eq_setting eq_tunnel_settings[];
extern const size_t eq_tunnel_nsettings;
extern const struct eq_scheme_info eq_schemes[];
extern const size_t eq_nschemes;

/* The setting a directive names (its name or alias; `SCHEME.KEY` in that
 * scheme's table), or NULL. */
const struct eq_setting *eq_setting_find(const char *name);
/* The scheme named `name` (of `SCHEME.KEY`, len bytes of it), or NULL. */
const struct eq_scheme_info *eq_scheme_info_find(const char *name, size_t len);
/* The scheme whose id is `id`, or NULL. */
const struct eq_scheme_info *eq_scheme_info_of(uint32_t id);
/* The config's word for a scheme id ("?" if none has it). */
const char *eq_scheme_name(uint32_t id);

/* Store value word v of setting s into c: 0, or -EINVAL (out of range, not
 * one of its words, not a rate). */
int eq_setting_set(struct eq_config *c, const struct eq_setting *s, const char *v);
/* The stored value of s in c. */
uint64_t eq_setting_get(const struct eq_config *c, const struct eq_setting *s);
/* Every setting's default into c. */
void eq_settings_defaults(struct eq_config *c);

/* For messages: "usage: NAME ..." for a wrong word count, and what is
 * wrong with a bad value. */
void eq_setting_usage(const struct eq_setting *s, const char *as, char *buf, size_t len);
void eq_setting_bad(const struct eq_setting *s, const char *as, const char *v, char *buf,
		    size_t len);
/* The words of a WORDS setting or the scheme names, joined as "a, b or c"
 * (sep NULL) or "a|b|c" (sep "|"). */
void eq_setting_words(const struct eq_setting *s, const char *sep, char *buf, size_t len);
void eq_scheme_names(const char *sep, char *buf, size_t len);
/* Every setting's name, ", "-separated, tunnel's first then each scheme's. */
void eq_setting_names(char *buf, size_t len);

#endif
