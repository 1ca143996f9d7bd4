/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The switch's files, for experiments to read (formats in docs/fabric.md):
 *   DIR/ports.tsv       counters and occupancy figures per port
 *   DIR/switches.tsv    drops that belong to no port
 *   DIR/queues/PORT.tsv queue occupancy time series per switch port
 */
#ifndef EDGEQ_FABRIC_TELEMETRY_H
#define EDGEQ_FABRIC_TELEMETRY_H

#include "switch/fabric.h"

struct telemetry {
	char dir[256];
	FILE *series[TOPO_MAX_PORTS];
};

int telemetry_init(struct telemetry *tm, const char *dir);
/* fabric's sample callback */
void telemetry_sample(void *ctx, int port, uint64_t t, const struct port *p);
/* Writes ports.tsv and switches.tsv, flushes the series. */
int telemetry_write(struct telemetry *tm, struct fabric *f, uint64_t now);
/* Starts the series afresh (after a stats reset). */
void telemetry_truncate(struct telemetry *tm);
void telemetry_close(struct telemetry *tm);

#endif
