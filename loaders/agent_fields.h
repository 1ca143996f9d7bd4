/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fields of struct eq_agent_peer (the agent's published per-peer
 * state) as data: one table that `status --json` and `metrics` both walk,
 * so that a field added to the struct and the table shows in both.
 */
#ifndef EDGEQ_AGENT_FIELDS_H
#define EDGEQ_AGENT_FIELDS_H

#include <stddef.h>
#include "edgeq/maps.h"

enum eq_field_kind { EQ_FIELD_COUNTER, EQ_FIELD_GAUGE };
enum eq_field_type { EQ_FIELD_U32, EQ_FIELD_U64, EQ_FIELD_S64 };

struct eq_agent_field {
	const char		*json;		/* status --json member */
	const char		*metric;	/* metrics: edgeq_peer_<metric> */
	enum eq_field_kind	kind;
	enum eq_field_type	type;
	size_t			off;
	double			scale;		/* to the metric's base unit */
	const char		*help;
};

extern const struct eq_agent_field eq_agent_fields[];
extern const size_t eq_agent_field_count;

/* The agent's own counters (eq_agent.cnt) and each socket's (eq_agent.xsk[],
 * named by eq_agent_socket_names), in their structs' order. */
#define EQ_AGENT_COUNTERS	12
#define EQ_AGENT_SOCKET_COUNTERS 8
extern const char *const eq_agent_counter_names[EQ_AGENT_COUNTERS];
extern const char *const eq_agent_socket_counter_names[EQ_AGENT_SOCKET_COUNTERS];
extern const char *const eq_agent_socket_names[EQ_XSK_MAX];

/* The field's value in p, as stored (signed for EQ_FIELD_S64). */
long long eq_agent_field_get(const struct eq_agent_peer *p, const struct eq_agent_field *f);

#endif
