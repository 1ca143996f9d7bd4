// SPDX-License-Identifier: GPL-2.0-only
/* Telemetry files of the switch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "switch/telemetry.h"

int telemetry_init(struct telemetry *tm, const char *dir)
{
	char path[300];

	memset(tm, 0, sizeof(*tm));
	snprintf(tm->dir, sizeof(tm->dir), "%s", dir);
	snprintf(path, sizeof(path), "%s/queues", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -1;
	return 0;
}

/* A queue's series: its occupancy, and the bytes it took in and put on
 * the link since the last reset (their rates over any window say whether
 * a queue grew from what came or from what did not go). */
#define SERIES_HEADER "#t_ns\tdata_bytes\tdata_pkts\tprio_bytes\tenq_bytes\ttx_bytes\n"

/* The fabric only samples ports whose queue is or just was non-empty. */
void telemetry_sample(void *ctx, int port, uint64_t t, const struct port *p)
{
	struct telemetry *tm = ctx;
	FILE *f = tm->series[port];

	if (!f) {
		char path[400];

		snprintf(path, sizeof(path), "%s/queues/%s.tsv", tm->dir, p->name);
		f = tm->series[port] = fopen(path, "w");
		if (!f)
			return;
		setvbuf(f, NULL, _IOFBF, 1 << 16);
		fprintf(f, SERIES_HEADER);
	}
	fprintf(f, "%llu\t%llu\t%u\t%llu\t%llu\t%llu\n", (unsigned long long)t,
		(unsigned long long)p->data_bytes, p->data_pkts, (unsigned long long)p->prio.bytes,
		(unsigned long long)p->st.enq_bytes, (unsigned long long)p->st.tx_bytes);
}

static int write_file(const char *dir, const char *name, struct fabric *f, uint64_t now)
{
	char path[400], tmp[410];
	FILE *o;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o = fopen(tmp, "w");
	if (!o)
		return -1;
	if (!strcmp(name, "ports.tsv"))
		fabric_write_ports(f, o, now);
	else
		fabric_write_switches(f, o);
	if (fclose(o))
		return -1;
	return rename(tmp, path);	/* readers never see half a file */
}

int telemetry_write(struct telemetry *tm, struct fabric *f, uint64_t now)
{
	for (int i = 0; i < TOPO_MAX_PORTS; i++)
		if (tm->series[i])
			fflush(tm->series[i]);
	if (write_file(tm->dir, "ports.tsv", f, now) || write_file(tm->dir, "switches.tsv", f, now))
		return -1;
	return 0;
}

void telemetry_truncate(struct telemetry *tm)
{
	for (int i = 0; i < TOPO_MAX_PORTS; i++)
		if (tm->series[i]) {
			fflush(tm->series[i]);
			if (ftruncate(fileno(tm->series[i]), 0) == 0) {
				rewind(tm->series[i]);
				fprintf(tm->series[i], SERIES_HEADER);
			}
		}
}

void telemetry_close(struct telemetry *tm)
{
	for (int i = 0; i < TOPO_MAX_PORTS; i++)
		if (tm->series[i]) {
			fclose(tm->series[i]);
			tm->series[i] = NULL;
		}
}
