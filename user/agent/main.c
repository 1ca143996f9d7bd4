// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeqd --iface IFNAME [--pin-dir DIR] [--foreground]
 *
 * Normally started by `edgeq attach` (scheme eqds) and stopped by
 * `edgeq detach`; `edgeq attach --no-agent` then `edgeqd --iface IF` runs
 * it in the foreground for debugging.  Everything it needs is in the
 * pinned maps, so a restarted agent resumes where the last one left.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "pins.h"
#include "agent.h"

static struct agent the_agent;

static void on_signal(int sig)
{
	the_agent.stop = 1;
}

static int quiet(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	return l == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int quiet_xdp(enum libxdp_print_level l, const char *fmt, va_list ap)
{
	return l == LIBXDP_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: edgeqd --iface IFNAME [--pin-dir DIR] [--foreground]\n"
		"  the agent of an edgeq attachment with 'scheme eqds' (docs/agent.md)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *ifname = NULL, *dir = NULL;
	char pin_dir[512], err[512] = "";
	struct sigaction sa = { .sa_handler = on_signal };
	int c, rc;

	while ((c = getopt_long(argc, argv, "i:p:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 'p': dir = optarg; break;
		case 'f': break;	/* it always runs in the foreground; edgeq daemonises it */
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname) {
		usage(stderr);
		return 2;
	}
	if (!dir) {
		if (eq_pin_dir(ifname, pin_dir, sizeof(pin_dir)))
			return 1;
		dir = pin_dir;
	}
	libbpf_set_print(quiet);
	libxdp_set_print(quiet_xdp);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (agent_open(&the_agent, ifname, dir, err, sizeof(err))) {
		/* The error last: `edgeq attach` reports the log's last line. */
		agent_close(&the_agent);
		fprintf(stderr, "edgeqd: %s: %s\n", ifname, err);
		return 1;
	}
	rc = agent_run(&the_agent);
	if (rc)
		fprintf(stderr, "edgeqd: %s: %s\n", ifname, strerror(-rc));
	agent_close(&the_agent);
	return rc ? 1 : 0;
}
