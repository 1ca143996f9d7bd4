// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq: attach the edgeq datapath to an interface, detach it, show its
 * state and change its peers.  Exit status: 0 done, 1 failed, 2 usage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "cmd.h"

static bool verbose;

void eq_err(const char *fmt, ...)
{
	va_list ap;

	fputs("edgeq: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void eq_info(const char *fmt, ...)
{
	va_list ap;

	fputs("edgeq: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf and libxdp are chatty about fallbacks we handle ourselves. */
	if (level == LIBBPF_DEBUG || (level == LIBBPF_INFO && !verbose) ||
	    (level == LIBBPF_WARN && !verbose))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static int libxdp_log(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	/* "Falling back to loading single prog" is expected on hosts that
	 * refuse freplace; `edgeq status` reports it.  Show it with -v. */
	if (level == LIBXDP_DEBUG || (level != LIBXDP_WARN && !verbose) ||
	    (level == LIBXDP_WARN && !verbose))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: edgeq [--netns NAME] [-v] COMMAND ...\n"
		"  attach IFACE --config FILE [--xdp-mode auto|native|generic] [--no-agent]\n"
		"  detach IFACE\n"
		"  agent start|stop IFACE   the agent of a 'scheme eqds' attachment\n"
		"  flush IFACE [--peer ADDR]  drop the agent's tunnel state (all, or one peer)\n"
		"  status [IFACE] [--json]\n"
		"  peer add PREFIX via ADDR [scheme none|eqds] dev IFACE\n"
		"  peer del PREFIX dev IFACE\n"
		"  peer list dev IFACE [--json]\n"
		"  features                 check the kernel features edgeq needs\n"
		"--netns NAME works on an interface in /run/netns/NAME (bpffs pins stay\n"
		"visible, unlike 'ip netns exec'); 'nsenter --net=...' works too.\n"
		"State is pinned under /sys/fs/bpf/edgeq/<ifname>/: see README.md.\n");
}

int main(int argc, char **argv)
{
	struct eq_opts o = { .xdp_mode = "auto" };
	char *pos[16];
	int npos = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o.verbose = verbose = true;
		} else if (!strcmp(a, "--json")) {
			o.json = true;
		} else if (!strcmp(a, "--no-agent")) {
			o.no_agent = true;
		} else if (!strcmp(a, "--peer") && i + 1 < argc) {
			o.peer = argv[++i];
		} else if ((!strcmp(a, "--netns") || !strcmp(a, "--config") || !strcmp(a, "--xdp-mode")) &&
			   i + 1 < argc) {
			const char **dst = a[2] == 'n' ? &o.netns : a[2] == 'c' ? &o.config : &o.xdp_mode;

			*dst = argv[++i];
		} else if (!strcmp(a, "dev") && i + 1 < argc) {
			o.ifname = argv[++i];
		} else if (a[0] == '-') {
			fprintf(stderr, "edgeq: unknown or incomplete option '%s'\n", a);
			usage(stderr);
			return 2;
		} else if (npos < 16) {
			pos[npos++] = argv[i];
		}
	}
	if (npos == 0) {
		usage(stderr);
		return 2;
	}
	libbpf_set_print(libbpf_log);
	libxdp_set_print(libxdp_log);
	if (o.netns && eq_enter_netns(o.netns))
		return 1;

	const char *cmd = pos[0];

	if (!strcmp(cmd, "features"))
		return cmd_features();
	if (!strcmp(cmd, "peer"))
		return cmd_peer(&o, npos - 1, pos + 1);
	if (!strcmp(cmd, "status")) {
		if (npos > 1)
			o.ifname = pos[1];
		return cmd_status(&o);
	}
	if (!strcmp(cmd, "agent") && npos == 3) {
		o.ifname = pos[2];
		return cmd_agent(&o, pos[1]);
	}
	if (!strcmp(cmd, "flush") && npos == 2) {
		o.ifname = pos[1];
		return cmd_flush(&o);
	}
	if ((!strcmp(cmd, "attach") || !strcmp(cmd, "detach")) && npos == 2) {
		o.ifname = pos[1];
		return cmd[0] == 'a' ? cmd_attach(&o) : cmd_detach(&o);
	}
	fprintf(stderr, "edgeq: unknown command or wrong arguments: '%s'\n", cmd);
	usage(stderr);
	return 2;
}
