// SPDX-License-Identifier: GPL-2.0-only
/*
 * Route MTUs for peer prefixes, through iproute2's `ip`.
 *
 * Encapsulation adds 48 (IPv4) or 68 (IPv6) bytes, so a full-size packet
 * from the inner stack would no longer fit the wire.  Rather than ask the
 * user to lower MTUs by hand, attach gives each peer prefix a route MTU of
 * wire MTU - overhead: TCP then derives its MSS from it and GSO cuts
 * segments to fit, and PMTU discovery works as usual for everything else.
 *
 * If the prefix has no route of its own, we add one (same next hop as the
 * kernel uses now, marked "proto EQ_RT_PROTO"); if the user has one, we set
 * its MTU and undo just that on detach.  What was done is recorded in the
 * prefix's map entry (EQ_PFX_*).
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "addr.h"
#include "cmd.h"

#define EQ_RT_PROTO	"233"	/* marks the routes edgeq added (unused in rt_protos) */
#define MAX_ARGS	48

extern char **environ;

/* Run iproute2's ip or tc (argv[0]) with argv; capture stdout (and
 * stderr) into out.  Exit status, or -errno. */
int eq_run_ip(char *const argv[], char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	int pfd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ)) {
		posix_spawn_file_actions_destroy(&fa);
		close(pfd[0]);
		close(pfd[1]);
		return -ENOENT;
	}
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	while (got < outlen - 1 && (n = read(pfd[0], out + got, outlen - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	char sink[256];

	while (read(pfd[0], sink, sizeof(sink)) > 0)
		;	/* drain, so that ip never blocks on a full pipe */
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}

/* Split the first line of s into words (in place). */
static int words(char *s, char **w, int max)
{
	int n = 0;
	char *sp = NULL, *nl = strchr(s, '\n');

	if (nl)
		*nl = '\0';
	for (char *t = strtok_r(s, " \t", &sp); t && n < max - 1; t = strtok_r(NULL, " \t", &sp))
		w[n++] = t;
	w[n] = NULL;
	return n;
}

static const char *family(const struct eq_prefix_key *k)
{
	return eq_addr_is_v4(&k->addr) && k->prefixlen >= 96 ? "-4" : "-6";
}

/* The user's own route for exactly this prefix, as `ip route show` prints it. */
static int existing_route(const struct eq_prefix_key *k, const char *pfx, char *line, size_t len)
{
	char *argv[] = { "ip", (char *)family(k), "route", "show", "exact", (char *)pfx,
			 "table", "main", NULL };
	int rc = eq_run_ip(argv, line, len);

	return rc == 0 && line[0] ? 1 : 0;
}

int eq_route_apply(const char *ifname, const struct eq_prefix_key *k, unsigned int inner_mtu,
		   __u32 *flags, char *err, size_t errlen)
{
	char pfx[EQ_PREFIXSTRLEN], addr[EQ_ADDRSTRLEN], out[1024], mtu[16];
	char *argv[MAX_ARGS], *w[MAX_ARGS];
	int n, a = 0;

	*flags = 0;
	eq_prefix_format(k, pfx, sizeof(pfx));
	eq_addr_format(&k->addr, addr, sizeof(addr));
	snprintf(mtu, sizeof(mtu), "%u", inner_mtu);

	if (existing_route(k, pfx, out, sizeof(out))) {
		const char *rdev = NULL;

		n = words(out, w, MAX_ARGS);
		/* The user's route must leave through ifname too, as the next hop
		 * we look up below must: otherwise TC egress never sees the
		 * traffic, and we would set an MTU on another device's route. */
		for (int i = 0; i + 1 < n; i++)
			if (!strcmp(w[i], "dev"))
				rdev = w[i + 1];
		if (!rdev || strcmp(rdev, ifname)) {
			snprintf(err, errlen, "traffic to peer prefix %s leaves through %s, not %s: "
				 "route it out of %s", pfx, rdev ? rdev : "no device", ifname, ifname);
			return -EINVAL;
		}
		for (int i = 0; i + 1 < n; i++) {
			if (!strcmp(w[i], "mtu")) {
				const char *v = strcmp(w[i + 1], "lock") ? w[i + 1] : (i + 2 < n ? w[i + 2] : "0");

				if (strtoul(v, NULL, 10) <= inner_mtu)
					return 0;	/* already small enough: leave it */
				snprintf(err, errlen, "prefix %s has a route with mtu %s, larger than the %u "
					 "edgeq needs; lower it or remove the mtu", pfx, v, inner_mtu);
				return -EEXIST;
			}
		}
		argv[a++] = "ip";
		argv[a++] = (char *)family(k);
		argv[a++] = "route";
		argv[a++] = "change";
		for (int i = 0; i < n && a < MAX_ARGS - 3; i++)
			argv[a++] = w[i];
		argv[a++] = "mtu";
		argv[a++] = mtu;
		argv[a] = NULL;
		if (eq_run_ip(argv, out, sizeof(out))) {
			snprintf(err, errlen, "cannot set mtu %s on the route to %s: %s", mtu, pfx, out);
			return -EIO;
		}
		*flags = EQ_PFX_ROUTE_MTU;
		return 0;
	}

	/* No route of its own: add one through the next hop the kernel uses now. */
	char *get[] = { "ip", (char *)family(k), "route", "get", addr, NULL };
	const char *via = NULL, *dev = NULL;

	if (eq_run_ip(get, out, sizeof(out))) {
		snprintf(err, errlen, "no route to peer prefix %s: %s", pfx, out);
		return -ENETUNREACH;
	}
	n = words(out, w, MAX_ARGS);
	if (n > 0 && !strcmp(w[0], "local")) {
		snprintf(err, errlen, "peer prefix %s is a local address of this host", pfx);
		return -EINVAL;
	}
	for (int i = 0; i + 1 < n; i++) {
		if (!strcmp(w[i], "via"))
			via = w[i + 1];
		else if (!strcmp(w[i], "dev"))
			dev = w[i + 1];
	}
	if (!dev || strcmp(dev, ifname)) {
		snprintf(err, errlen, "traffic to peer prefix %s leaves through %s, not %s: "
			 "route it out of %s", pfx, dev ? dev : "no device", ifname, ifname);
		return -EINVAL;
	}
	argv[a++] = "ip";
	argv[a++] = (char *)family(k);
	argv[a++] = "route";
	argv[a++] = "add";
	argv[a++] = pfx;
	if (via) {
		argv[a++] = "via";
		argv[a++] = (char *)via;
		/* The kernel reaches this gateway through ifname right now, maybe
		 * by an onlink route of its own (not in the subnet of ifname):
		 * say so, or ip refuses the gateway. */
		argv[a++] = "onlink";
	}
	argv[a++] = "dev";
	argv[a++] = (char *)ifname;
	argv[a++] = "mtu";
	argv[a++] = mtu;
	argv[a++] = "proto";
	argv[a++] = EQ_RT_PROTO;
	argv[a] = NULL;
	if (eq_run_ip(argv, out, sizeof(out))) {
		snprintf(err, errlen, "cannot add a route with mtu %s for %s: %s", mtu, pfx, out);
		return -EIO;
	}
	*flags = EQ_PFX_ROUTE_ADDED;
	return 0;
}

void eq_route_undo(const char *ifname, const struct eq_prefix_key *k, __u32 flags)
{
	char pfx[EQ_PREFIXSTRLEN], out[1024];
	char *argv[MAX_ARGS], *w[MAX_ARGS];
	int n, a = 0;

	eq_prefix_format(k, pfx, sizeof(pfx));
	if (flags & EQ_PFX_ROUTE_ADDED) {
		char *del[] = { "ip", (char *)family(k), "route", "del", pfx, "dev", (char *)ifname,
				"proto", EQ_RT_PROTO, NULL };

		eq_run_ip(del, out, sizeof(out));
	}
	if ((flags & EQ_PFX_ROUTE_MTU) && existing_route(k, pfx, out, sizeof(out))) {
		n = words(out, w, MAX_ARGS);
		argv[a++] = "ip";
		argv[a++] = (char *)family(k);
		argv[a++] = "route";
		argv[a++] = "change";
		for (int i = 0; i < n && a < MAX_ARGS - 1; i++) {
			if (!strcmp(w[i], "mtu")) {	/* drop "mtu [lock] N" */
				i += (i + 1 < n && !strcmp(w[i + 1], "lock")) ? 2 : 1;
				continue;
			}
			argv[a++] = w[i];
		}
		argv[a] = NULL;
		eq_run_ip(argv, out, sizeof(out));
	}
}

void eq_route_flush_ours(const char *ifname)
{
	char out[1024];
	char *v4[] = { "ip", "-4", "route", "flush", "dev", (char *)ifname, "proto", EQ_RT_PROTO, NULL };
	char *v6[] = { "ip", "-6", "route", "flush", "dev", (char *)ifname, "proto", EQ_RT_PROTO, NULL };

	eq_run_ip(v4, out, sizeof(out));
	eq_run_ip(v6, out, sizeof(out));
}
