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
#include "settings.h"

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

/* Each command: its usage line, what it does, and an example (`edgeq help
 * CMD`, `edgeq CMD --help`). */
static const struct command {
	const char *name, *args, *what, *example;
} commands[] = {
	{ "attach", "IFACE --config FILE [--xdp-mode auto|native|generic] [--no-agent]",
	  "hook edgeq to IFACE as FILE says (docs/config.md); with a peer of scheme eqds, also\n"
	  "  start the agent (--no-agent: leave that to 'edgeq agent start')",
	  "edgeq attach eth0 --config /etc/edgeq.conf" },
	{ "detach", "IFACE", "unhook edgeq from IFACE: programs, pins, routes, the agent",
	  "edgeq detach eth0" },
	{ "agent", "start|stop IFACE", "start or stop the agent of an attachment that runs one",
	  "edgeq agent stop eth0" },
	{ "flush", "IFACE [--peer ADDR]", "drop the agent's tunnel state: every tunnel, or one peer's",
	  "edgeq flush eth0 --peer 192.0.2.12" },
	{ "status", "[IFACE] [--json]", "show attachments, peers, the agent and the counters",
	  "edgeq status eth0 --json" },
	{ "top", "[IFACE] [--interval SECONDS] [--count N]",
	  "a live view, refreshed every interval (1 s): per peer the rates each way, credit,\n"
	  "  backlog, in flight, RTT, repairs and edge drops; the agent's health; drops by reason",
	  "edgeq top eth0 --interval 0.5" },
	{ "metrics", "[IFACE]",
	  "print what status shows in Prometheus's text format (for node_exporter's textfile\n"
	  "  collector, or a scrape that runs a command): per attachment, agent and underlay peer",
	  "edgeq metrics > /var/lib/prometheus/node-exporter/edgeq.prom.$$ &&\n"
	  "  mv /var/lib/prometheus/node-exporter/edgeq.prom.$$ /var/lib/prometheus/node-exporter/edgeq.prom" },
	{ "peer", "add PREFIX via ADDR [scheme none|eqds] [key HEX[/ID]|@FILE] dev IFACE |\n"
	  "        key ADDR accept HEX[/ID]|@FILE | sign ID | drop ID dev IFACE |\n"
	  "        del PREFIX dev IFACE | list dev IFACE [--json]",
	  "change the peers of a live attachment (scheme: the config's unless given); key:\n"
	  "  replace a keyed peer's key while it runs (accept the new one, sign with it, drop\n"
	  "  the old, each on both hosts: docs/config.md, \"Keys\")",
	  "edgeq peer add 10.1.2.0/24 via 192.0.2.12 dev eth0" },
	{ "features", "", "check the kernel features edgeq needs", "edgeq features" },
	{ "help", "[COMMAND|config]", "this text, or one command's; config: every setting of the\n"
	  "  config file, its values and default (docs/config.md says what each does)",
	  "edgeq help config" },
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: edgeq [--netns NAME] [-v] COMMAND ...\n");
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %s%s%s\n", commands[i].name, *commands[i].args ? " " : "",
			commands[i].args);
	fprintf(f,
		"'edgeq help COMMAND' or 'edgeq COMMAND --help': what it does, with an example.\n"
		"--netns NAME works on an interface in /run/netns/NAME (bpffs pins stay\n"
		"visible, unlike 'ip netns exec'); 'nsenter --net=...' works too.\n"
		"State is pinned under /sys/fs/bpf/edgeq/<ifname>/: see README.md.\n"
		"Exit status: 0 done, 1 failed, 2 usage error.\n");
}

/* `edgeq help config`: the settings tables (settings.h), one line each:
 * what a config file may say, the values, the default. */
static void setting_help(FILE *f, const struct eq_setting *r)
{
	char what[256], def[64] = "";

	switch (r->type) {
	case EQ_SET_UINT: {
		uint64_t sc = r->scale ? r->scale : 1;

		snprintf(what, sizeof(what), "%llu-%llu%s%s", (unsigned long long)r->min,
			 (unsigned long long)r->max, r->unit ? " " : "", r->unit ? r->unit : "");
		snprintf(def, sizeof(def), "%llu", (unsigned long long)(r->def / sc));
		break;
	}
	case EQ_SET_RATE:
		snprintf(what, sizeof(what), "RATE (bit, kbit, mbit, gbit)");
		snprintf(def, sizeof(def), r->def % 1000000000 ? "%llumbit" : "%llugbit",
			 (unsigned long long)(r->def / (r->def % 1000000000 ? 1000000 : 1000000000)));
		break;
	case EQ_SET_WORDS:
		eq_setting_words(r, "|", what, sizeof(what));
		for (const struct eq_setting_word *w = r->words; w->word; w++)
			if (w->value == r->def)
				snprintf(def, sizeof(def), "%s", w->word);
		break;
	}
	fprintf(f, "  %-20s %-30s default %s%s%s\n", r->name, what, r->rule ? r->rule : def,
		r->alias ? ", also read as " : "", r->alias ? r->alias : "");
}

static void eq_settings_help(FILE *f)
{
	char names[128];

	eq_scheme_names("|", names, sizeof(names));
	fprintf(f, "edgeq config files (docs/config.md): one directive per line, '#' comments.\n"
		"  local ADDRESS                       the underlay address (once per family)\n"
		"  node_id 0-65535                     default: the low 16 bits of the first local\n"
		"  peer PREFIX via ADDRESS [scheme S]  carry PREFIX to the edgeq host at ADDRESS\n"
		"  scheme %-28s the peers' default scheme: none\n"
		"The tunnel's settings:\n", names);
	for (size_t i = 0; i < eq_tunnel_nsettings; i++)
		setting_help(f, &eq_tunnel_settings[i]);
	for (size_t i = 0; i < eq_nschemes; i++) {
		if (!eq_schemes[i].nset)
			continue;
		fprintf(f, "Scheme %s's settings (%s.KEY VALUE):\n", eq_schemes[i].name,
			eq_schemes[i].name);
		for (size_t j = 0; j < eq_schemes[i].nset; j++)
			setting_help(f, &eq_schemes[i].set[j]);
	}
}

static void command_usage(FILE *f, const struct command *c)
{
	fprintf(f, "usage: edgeq [--netns NAME] [-v] %s%s%s\n  %s\nexample:\n  %s\n", c->name,
		*c->args ? " " : "", c->args, c->what, c->example);
}

int main(int argc, char **argv)
{
	struct eq_opts o = { .xdp_mode = "auto", .interval = 1.0 };
	char *pos[16];
	int npos = 0;
	bool help = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help = true;	/* the command's, if one is named */
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o.verbose = verbose = true;
		} else if (!strcmp(a, "--json")) {
			o.json = true;
		} else if (!strcmp(a, "--no-agent")) {
			o.no_agent = true;
		} else if (!strcmp(a, "--peer") && i + 1 < argc) {
			o.peer = argv[++i];
		} else if ((!strcmp(a, "--interval") || !strcmp(a, "--count")) && i + 1 < argc) {
			char *end;
			double v = strtod(argv[++i], &end);

			if (*end || v != v || (a[2] == 'i' ? v < 0.1 || v > 3600 : v < 1 || v > 1e9 ||
								     v != (unsigned long)v)) {
				fprintf(stderr, "edgeq: %s '%s': %s\n", a, argv[i],
					a[2] == 'i' ? "seconds, 0.1-3600" : "a count, 1 or more");
				return 2;
			}
			if (a[2] == 'i')
				o.interval = v;
			else
				o.count = (unsigned long)v;
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
		usage(help ? stdout : stderr);
		return help ? 0 : 2;
	}
	if (!strcmp(pos[0], "help") || help) {
		const char *name = !strcmp(pos[0], "help") ? (npos > 1 ? pos[1] : NULL) : pos[0];
		const struct command *c = name ? command(name) : NULL;

		if (!name) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(name, "config") && !c) {
			eq_settings_help(stdout);
			return 0;
		}
		if (!c) {
			fprintf(stderr, "edgeq: no command '%s'\n", name);
			usage(stderr);
			return 2;
		}
		command_usage(stdout, c);
		return 0;
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
	if (!strcmp(cmd, "top") && npos <= 2) {
		if (npos > 1)
			o.ifname = pos[1];
		return cmd_top(&o);
	}
	if (!strcmp(cmd, "metrics") && npos <= 2) {
		if (npos > 1)
			o.ifname = pos[1];
		return cmd_metrics(&o);
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
	/* A command with the wrong arguments gets its own usage. */
	if (command(cmd)) {
		fprintf(stderr, "edgeq: wrong arguments for '%s'\n", cmd);
		command_usage(stderr, command(cmd));
		return 2;
	}
	fprintf(stderr, "edgeq: unknown command '%s'\n", cmd);
	usage(stderr);
	return 2;
}
