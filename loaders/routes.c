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
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include "addr.h"
#include "cmd.h"

#define EQ_RT_PROTO	"233"	/* marks the routes edgeq added (unused in rt_protos) */
#define MAX_ARGS	48

extern char **environ;

/* Start argv[0] with stdin from in_fd (-1: ours) and stdout into a pipe
 * whose read end is *rfd; stderr into the pipe too, or (keep_err false)
 * to /dev/null.  0, or -errno. */
static int spawn_ip(char *const argv[], int in_fd, bool keep_err, pid_t *pid, int *rfd)
{
	posix_spawn_file_actions_t fa;
	int pfd[2], rc;

	if (pipe(pfd))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	if (in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (keep_err)
		posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	else
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, pfd[0]);
	rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return -ENOENT;
	}
	*rfd = pfd[0];
	return 0;
}

/* Exit status of pid, or -errno. */
static int reap(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -EINTR;
}

/* Run iproute2's ip or tc (argv[0]) with argv; capture stdout (and
 * stderr) into out.  Exit status, or -errno. */
int eq_run_ip(char *const argv[], char *out, size_t outlen)
{
	char sink[256];
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	int fd, rc = spawn_ip(argv, -1, true, &pid, &fd);

	if (rc)
		return rc;
	while (got < outlen - 1 && (n = read(fd, out + got, outlen - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	while (read(fd, sink, sizeof(sink)) > 0)
		;	/* drain, so that ip never blocks on a full pipe */
	close(fd);
	return reap(pid);
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

/*
 * Many prefixes at once.  One ip per step and prefix costs about 1.3 ms a
 * process: 40 s for 10,000 prefixes.  Here a handful of ip processes do
 * the same work: one dump of table main per family, one `ip -batch` of
 * `route get`s for the next hops and one of `route add`s.  The precise
 * path above stays the only one that explains a failure: whenever the
 * batches meet anything it would not accept as is, they are undone and it
 * runs instead.  One difference: every `route get` of a batch sees the
 * table as it was before attach, where one at a time each saw the routes
 * added for the prefixes before it.  They differ only for a peer prefix
 * inside another whose added route would have been its next hop; the
 * batch's answer is the one docs/config.md promises (the next hop the
 * kernel uses now), and does not depend on the config's order.
 */

/* Fewer prefixes than this: the few processes the batches save are not
 * worth a second path. */
#define EQ_ROUTES_BATCH_MIN	16

static const char *const families[] = { "-4", "-6" };

/* ip's batch reader takes '#' for a comment and a leading quote for
 * quoting; Linux allows both in a device name, which then goes the precise
 * way (its own argv, no parsing). */
static bool batch_safe(const char *ifname)
{
	return !strpbrk(ifname, "#'\"\\");
}

/* All of fd up to its end, into *out (malloc'd, NUL-terminated): its
 * length, or -errno. */
static ssize_t read_all(int fd, char **out)
{
	size_t len = 0, cap = 0;
	char *buf = NULL, *nb;
	ssize_t r;

	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (r < 0) {
		r = -errno;
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

/* Run argv with stdin from in_fd (-1: ours) and its stdout into *out
 * (malloc'd, NUL-terminated; NULL when it could not be read).  stderr is
 * dropped: a failed batch is redone the precise way, which says what went
 * wrong.  Exit status, or -errno. */
static int run_ip_out(char *const argv[], int in_fd, char **out)
{
	ssize_t len;
	pid_t pid;
	int fd, rc = spawn_ip(argv, in_fd, false, &pid, &fd);

	*out = NULL;
	if (rc)
		return rc;
	len = read_all(fd, out);
	close(fd);	/* when read_all gave up, ip's next write ends it (SIGPIPE) */
	rc = reap(pid);
	return len < 0 ? (int)len : rc;
}

/* A batch of ip commands, one a line.  It lives in a memfd, not a pipe:
 * ip's answers to a long batch fill our pipe while we would still be
 * writing its input into the other, and both would wait forever. */
static FILE *batch_new(void)
{
	int fd = memfd_create("edgeq-ip-batch", MFD_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (fd >= 0 && !f)
		close(fd);
	return f;
}

/* `ip FAMILY [OPT] -batch -` on the lines of batch, its stdout into *out
 * (free it).  A family for the whole batch, because a batch line cannot
 * carry ip's options (-4, -6).  Exit status, or -errno. */
static int batch_run(FILE *batch, const char *fam, const char *opt, char **out)
{
	char *argv[8];
	int a = 0;

	*out = NULL;
	if (fflush(batch) || ferror(batch) || lseek(fileno(batch), 0, SEEK_SET))
		return -EIO;
	argv[a++] = "ip";
	argv[a++] = (char *)fam;
	if (opt)
		argv[a++] = (char *)opt;
	argv[a++] = "-batch";
	argv[a++] = "-";
	argv[a] = NULL;
	return run_ip_out(argv, fileno(batch), out);
}

static int prefix_cmp(const void *a, const void *b)
{
	const struct eq_prefix_key *x = a, *y = b;

	if (x->prefixlen != y->prefixlen)
		return x->prefixlen < y->prefixlen ? -1 : 1;
	return memcmp(&x->addr, &y->addr, sizeof(x->addr));
}

/* A route's "dst" in ip's JSON: "default", an address alone for a host
 * route, or a prefix. */
static int route_dst(const char *fam, const char *dst, struct eq_prefix_key *k)
{
	if (!strcmp(dst, "default"))
		dst = strcmp(fam, "-4") ? "::/0" : "0.0.0.0/0";
	return eq_prefix_parse(dst, k);
}

/* The prefixes of table main's routes of family fam, sorted: *n of them
 * in *pfx (free it).  0, or -1 when ip failed or said something unexpected. */
static int main_table(const char *fam, struct eq_prefix_key **pfx, size_t *n)
{
	char *argv[] = { "ip", "-j", (char *)fam, "route", "show", "table", "main", NULL };
	json_t *routes = NULL, *r;
	char *out;
	size_t i;
	int rc = -1;

	*pfx = NULL;
	if (run_ip_out(argv, -1, &out) == 0)
		routes = json_loads(out, 0, NULL);
	free(out);
	if (!json_is_array(routes) || !(*pfx = calloc(json_array_size(routes) + 1, sizeof(**pfx))))
		goto out;
	json_array_foreach(routes, i, r) {
		const char *dst = json_string_value(json_object_get(r, "dst"));

		if (!dst || route_dst(fam, dst, &(*pfx)[i]))
			goto out;
	}
	*n = json_array_size(routes);
	qsort(*pfx, *n, sizeof(**pfx), prefix_cmp);
	rc = 0;
out:
	json_decref(routes);
	if (rc) {
		free(*pfx);
		*pfx = NULL;
	}
	return rc;
}

/* own[i]: keys[i] has a route of its own in table main, as `ip route show
 * exact` finds it for the precise path. */
static int mark_own(const struct eq_prefix_key *keys, size_t n, bool *own)
{
	for (size_t f = 0; f < 2; f++) {
		struct eq_prefix_key *table;
		size_t tn = 0, i;

		for (i = 0; i < n && strcmp(family(&keys[i]), families[f]); i++)
			;
		if (i == n)
			continue;	/* no prefix of this family */
		if (main_table(families[f], &table, &tn))
			return -1;
		/* By family too: "::ffff:10.0.0.0/104" in the IPv6 table has the
		 * key of 10.0.0.0/8. */
		for (i = 0; i < n; i++)
			if (!strcmp(family(&keys[i]), families[f]) &&
			    bsearch(&keys[i], table, tn, sizeof(*table), prefix_cmp))
				own[i] = true;
		free(table);
	}
	return 0;
}

/* The next of ip's answers to `route get` at *p (moved past it), the
 * answer for prefix k: write the route through the same next hop to add.
 * -1 when it is anything but a unicast route out of ifname, which the
 * precise path then explains (a local address, another device) or takes
 * as it is (a broadcast route, a gateway of another family). */
static int add_line(const char **p, const char *end, const struct eq_prefix_key *k,
		    const char *ifname, unsigned int mtu, FILE *add)
{
	json_error_t e;
	json_t *a = json_loadb(*p, (size_t)(end - *p), JSON_DISABLE_EOF_CHECK, &e);
	json_t *r = json_array_get(a, 0), *gwj = json_object_get(r, "gateway");
	const char *type = json_string_value(json_object_get(r, "type"));
	const char *dst = json_string_value(json_object_get(r, "dst"));
	const char *dev = json_string_value(json_object_get(r, "dev"));
	const char *gw = json_string_value(gwj);
	char pfx[EQ_PREFIXSTRLEN];
	struct eq_addr d, g;
	int rc = -1;

	if (!a)
		return -1;
	*p += e.position;
	if (json_array_size(a) != 1 || (type && strcmp(type, "unicast")) ||
	    json_object_get(r, "via") || !dst || eq_addr_parse(dst, &d) ||
	    memcmp(&d, &k->addr, sizeof(d)) || !dev || strcmp(dev, ifname) ||
	    (gwj && (!gw || eq_addr_parse(gw, &g))))
		goto out;
	eq_prefix_format(k, pfx, sizeof(pfx));
	/* As the precise path adds it: "onlink" because the gateway may be
	 * reached by an onlink route of its own (eq_route_apply says more). */
	fprintf(add, "route add %s%s%s%s dev %s mtu %u proto %s\n", pfx, gw ? " via " : "",
		gw ? gw : "", gw ? " onlink" : "", ifname, mtu, EQ_RT_PROTO);
	rc = 0;
out:
	json_decref(a);
	return rc;
}

/* Whether keys[i] is one the batches of family fam take. */
static bool batched(const struct eq_prefix_key *keys, const bool *own, size_t i, const char *fam)
{
	return !own[i] && !strcmp(family(&keys[i]), fam);
}

/* Add the routes of the prefixes of family fam without one of their own:
 * their next hops from one ip, then the routes from another.  0 (flags
 * set), or -1 when a step failed or an answer was unexpected: some routes
 * may be in, none recorded in flags. */
static int add_family(const char *ifname, const char *fam, const struct eq_prefix_key *keys,
		      const unsigned int *mtus, const bool *own, size_t n, __u32 *flags)
{
	FILE *get = batch_new(), *add = batch_new();
	char addr[EQ_ADDRSTRLEN], *out = NULL, *out2 = NULL;
	const char *p, *end;
	size_t cnt = 0;
	int rc = -1;

	if (!get || !add)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (!batched(keys, own, i, fam))
			continue;
		eq_addr_format(&keys[i].addr, addr, sizeof(addr));
		fprintf(get, "route get %s\n", addr);
		cnt++;
	}
	if (!cnt) {
		rc = 0;
		goto out;
	}
	if (batch_run(get, fam, "-j", &out))
		goto out;
	/* One JSON array per `route get`, one after the other. */
	p = out;
	end = out + strlen(out);
	for (size_t i = 0; i < n; i++)
		if (batched(keys, own, i, fam) && add_line(&p, end, &keys[i], ifname, mtus[i], add))
			goto out;
	if (p[strspn(p, " \t\r\n")] || batch_run(add, fam, NULL, &out2))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (batched(keys, own, i, fam))
			flags[i] = EQ_PFX_ROUTE_ADDED;
	rc = 0;
out:
	free(out);
	free(out2);
	if (get)
		fclose(get);
	if (add)
		fclose(add);
	return rc;
}

/* eq_route_apply() for keys[i] in order (only those with only[i] when
 * only is given), up to the first failure. */
static int apply_each(const char *ifname, const struct eq_prefix_key *keys,
		      const unsigned int *mtus, size_t n, const bool *only, __u32 *flags,
		      char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (only && !only[i])
			continue;
		rc = eq_route_apply(ifname, &keys[i], mtus[i], &flags[i], err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

int eq_routes_apply_all(const char *ifname, const struct eq_prefix_key *keys,
			const unsigned int *inner_mtus, size_t n, __u32 *flags, char *err,
			size_t errlen)
{
	bool *own = n >= EQ_ROUTES_BATCH_MIN && batch_safe(ifname) ? calloc(n, sizeof(*own)) : NULL;
	int rc;

	memset(flags, 0, n * sizeof(*flags));
	if (own && !mark_own(keys, n, own) &&
	    !add_family(ifname, "-4", keys, inner_mtus, own, n, flags) &&
	    !add_family(ifname, "-6", keys, inner_mtus, own, n, flags)) {
		/* Those with a route of their own the precise way: rare, and
		 * it alone decides how an MTU goes onto a user's route.  After
		 * the batches, so that a failure of theirs never has to undo a
		 * user's route. */
		rc = apply_each(ifname, keys, inner_mtus, n, own, flags, err, errlen);
		free(own);
		return rc;
	}
	if (own) {
		/* The batches failed part-way.  Flushing every route of ours
		 * on ifname removes what they added and nothing else: the
		 * caller (attach) has added none before, and holds the lock
		 * that keeps `peer add` from adding any meanwhile. */
		eq_route_flush_ours(ifname);
		memset(flags, 0, n * sizeof(*flags));
		free(own);
	}
	return apply_each(ifname, keys, inner_mtus, n, NULL, flags, err, errlen);
}

/* Delete the routes edgeq added for the prefixes of family fam.  -force:
 * one already gone (deleted by hand) must not keep the rest.  0, or -1
 * when the batch did not run to its end. */
static int del_family(const char *ifname, const char *fam, const struct eq_prefix_key *keys,
		      const __u32 *flags, size_t n)
{
	FILE *del = batch_new();
	char pfx[EQ_PREFIXSTRLEN], *out = NULL;
	size_t cnt = 0;
	int rc = -1;

	if (!del)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(flags[i] & EQ_PFX_ROUTE_ADDED) || strcmp(family(&keys[i]), fam))
			continue;
		eq_prefix_format(&keys[i], pfx, sizeof(pfx));
		fprintf(del, "route del %s dev %s proto %s\n", pfx, ifname, EQ_RT_PROTO);
		cnt++;
	}
	if (!cnt)
		rc = 0;
	else
		rc = batch_run(del, fam, "-force", &out);
	free(out);
	fclose(del);
	/* 1: some lines failed (those routes were gone); more: ip gave up
	 * on the batch. */
	return rc == 0 || rc == 1 ? 0 : -1;
}

void eq_routes_undo_all(const char *ifname, const struct eq_prefix_key *keys, const __u32 *flags,
			size_t n)
{
	bool done = n >= EQ_ROUTES_BATCH_MIN && batch_safe(ifname) &&
		    !del_family(ifname, "-4", keys, flags, n) &&
		    !del_family(ifname, "-6", keys, flags, n);

	/* The MTUs set on the user's own routes (rare) the precise way; and
	 * everything so when the batches could not run. */
	for (size_t i = 0; i < n; i++)
		eq_route_undo(ifname, &keys[i], done ? flags[i] & ~EQ_PFX_ROUTE_ADDED : flags[i]);
}
