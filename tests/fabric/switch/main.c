// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqswitch: the test fabric's software switch.
 *
 *   eqswitch plan TOPO --name NAME [--set KEY=VALUE]...
 *       prints what tests/fabric/fabric.sh creates: namespaces, hosts,
 *       addresses, MACs, link rates (one line per switch and per host)
 *   eqswitch run TOPO --name NAME --dir DIR [--set KEY=VALUE]... [--spin] [--rt N]
 *       runs every switch of the fabric in this process, one thread
 *       (--rt: under SCHED_FIFO at priority N, as below)
 *   eqswitch ctl DIR COMMAND...
 *       sends a command to a running switch (link, port, reset, stats, quit)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include "switch/fabric.h"
#include "switch/telemetry.h"
#include "switch/xsk_port.h"

/* Every frame waiting in a ring is read before time moves on: frames left
 * behind would enter later than they arrived. */
#define RX_BUDGET 1024

static volatile sig_atomic_t stop;

static void on_signal(int sig) { stop = 1; }

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: eqswitch plan TOPO --name NAME [--set KEY=VALUE]...\n"
		"       eqswitch run TOPO --name NAME --dir DIR [--set KEY=VALUE]... [--spin] [--rt N]\n"
		"       eqswitch ctl DIR COMMAND...\n"
		"TOPO is a description file (tests/fabric/topos/); see docs/fabric.md.\n");
	return 2;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || n > 1 << 20 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		errno = EINVAL;
		return NULL;
	}
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

struct opts {
	const char *topo, *name, *dir;
	int spin;
	int rt;		/* SCHED_FIFO priority, 0: the default scheduler */
};

/* Reads TOPO, applies --set overrides, expands. */
static int load_topo(int argc, char **argv, struct opts *o, struct topo *t)
{
	char err[256], *text;

	topo_defaults(&t->p);
	if (argc < 3)
		return usage();
	o->topo = argv[2];
	text = read_file(o->topo);
	if (!text) {
		fprintf(stderr, "eqswitch: %s: %s\n", o->topo, strerror(errno));
		return 1;
	}
	if (topo_parse(&t->p, text, err, sizeof(err))) {
		fprintf(stderr, "eqswitch: %s: %s\n", o->topo, err);
		free(text);
		return 1;
	}
	free(text);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			o->name = argv[++i];
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			o->dir = argv[++i];
		} else if (!strcmp(argv[i], "--spin")) {
			o->spin = 1;
		} else if (!strcmp(argv[i], "--rt") && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 0 || v > 99) {
				fprintf(stderr, "eqswitch: --rt %s: expected 0-99\n", argv[i]);
				return 1;
			}
			o->rt = (int)v;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			char kv[200], *eq;

			snprintf(kv, sizeof(kv), "%s", argv[++i]);
			eq = strchr(kv, '=');
			if (!eq) {
				fprintf(stderr, "eqswitch: --set %s: expected KEY=VALUE\n", kv);
				return 1;
			}
			*eq = 0;
			if (topo_set(&t->p, kv, eq + 1, err, sizeof(err))) {
				fprintf(stderr, "eqswitch: --set: %s\n", err);
				return 1;
			}
		} else {
			return usage();
		}
	}
	if (!o->name || strlen(o->name) > 40 || strpbrk(o->name, "/ .")) {
		fprintf(stderr, "eqswitch: --name NAME is required: a short prefix for namespace names "
			"(no '/', '.', ' ')\n");
		return 1;
	}
	if (topo_expand(t, err, sizeof(err))) {
		fprintf(stderr, "eqswitch: %s: %s\n", o->topo, err);
		return 1;
	}
	return 0;
}

static void fmt_mac(char *s, const uint8_t *m)
{
	sprintf(s, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static int cmd_plan(int argc, char **argv)
{
	static struct topo t;
	struct opts o = {0};
	int r = load_topo(argc, argv, &o, &t);

	if (r)
		return r;
	printf("# switch NAME NETNS\n");
	for (int s = 0; s < t.nsw; s++)
		printf("switch %s %s-%s\n", t.sw[s].name, o.name, t.sw[s].name);
	printf("# host NAME NETNS MAC IPV4 IPV6 SWITCH SWITCH_NETNS SWITCH_IF SWITCH_MAC RATE_BPS DELAY_NS\n");
	for (int h = 0; h < t.nhosts; h++) {
		const struct topo_host *hh = &t.hosts[h];
		const struct topo_port *down = &t.ports[hh->down_port];
		char mac[20], smac[20], a4[INET_ADDRSTRLEN], a6[INET6_ADDRSTRLEN];

		fmt_mac(mac, hh->mac);
		fmt_mac(smac, down->mac);
		inet_ntop(AF_INET, hh->ip4, a4, sizeof(a4));
		inet_ntop(AF_INET6, hh->ip6, a6, sizeof(a6));
		printf("host %s %s-%s %s %s %s %s %s-%s %s %s %llu %llu\n", hh->name, o.name, hh->name,
		       mac, a4, a6, t.sw[hh->sw].name, o.name, t.sw[hh->sw].name, hh->name, smac,
		       (unsigned long long)t.p.rate, (unsigned long long)t.p.delay_ns);
	}
	return 0;
}

/* ---- run ------------------------------------------------------------------- */

struct staged;

struct sw_run {
	struct topo t;
	struct fabric fab;
	struct telemetry tm;
	struct xsk_port xp[TOPO_MAX_HOSTS];
	int cur_host;
	int nstaged;
	uint64_t stalls, stall_max_ns;	/* loop stalls over STALL_NS, the longest */
	struct staged *stage;		/* RX_BUDGET per host */
	uint64_t now;
	int lfd;
};

/* Frames read in one round, from every host, before they enter the
 * fabric in the order they arrived. */
struct staged {
	uint64_t t;
	int host;
	struct pkt *k;
};

static void on_rx(void *ctx, const uint8_t *frame, uint32_t len, uint64_t t)
{
	struct sw_run *r = ctx;
	struct pkt *k = fabric_take(&r->fab, frame, len);

	if (k)
		r->stage[r->nstaged++] = (struct staged){ .t = t, .host = r->cur_host, .k = k };
}

static int by_time(const void *a, const void *b)
{
	const struct staged *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static void inject_staged(struct sw_run *r)
{
	qsort(r->stage, (size_t)r->nstaged, sizeof(r->stage[0]), by_time);
	for (int i = 0; i < r->nstaged; i++) {
		fabric_run(&r->fab, r->stage[i].t);
		fabric_inject(&r->fab, r->stage[i].host, r->stage[i].k, r->stage[i].t);
	}
	r->nstaged = 0;
}

static void on_deliver(void *ctx, int host, struct pkt *k, uint64_t t)
{
	struct sw_run *r = ctx;

	xsk_port_tx(&r->xp[host], k->data, k->len);
}

static void on_sample(void *ctx, int port, uint64_t t, const struct port *p)
{
	struct sw_run *r = ctx;

	telemetry_sample(&r->tm, port, t, p);
}

/* hosts.tsv: the AF_XDP side of each host link (frames the switch could
 * not hand to the kernel are counted here, not lost silently). */
static int write_hosts(struct sw_run *r)
{
	char path[300], tmp[310];
	FILE *o;

	snprintf(path, sizeof(path), "%s/hosts.tsv", r->tm.dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	o = fopen(tmp, "w");
	if (!o)
		return -1;
	fprintf(o, "# loop_stalls_over_500us=%llu loop_stall_max_ns=%llu\n",
		(unsigned long long)r->stalls, (unsigned long long)r->stall_max_ns);
	fprintf(o, "#host\trx_pkts\ttx_pkts\ttx_drop\trx_unstamped\trx_lost\n");
	for (int h = 0; h < r->t.nhosts; h++)
		fprintf(o, "%s\t%llu\t%llu\t%llu\t%llu\t%llu\n", r->t.hosts[h].name,
			(unsigned long long)r->xp[h].rx_pkts, (unsigned long long)r->xp[h].tx_pkts,
			(unsigned long long)r->xp[h].tx_drop, (unsigned long long)r->xp[h].rx_unstamped,
			(unsigned long long)(xsk_port_rx_lost(&r->xp[h]) - r->xp[h].rx_lost_base));
	if (fclose(o))
		return -1;
	return rename(tmp, path);
}

static int write_all(struct sw_run *r)
{
	fabric_run(&r->fab, r->now);
	return telemetry_write(&r->tm, &r->fab, r->now) || write_hosts(r) ? -1 : 0;
}

static int ctl_path(char *buf, size_t n, const char *dir)
{
	return snprintf(buf, n, "%s/ctl.sock", dir) >= (int)n ? -1 : 0;
}

static int ctl_listen(const char *dir)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (ctl_path(sa.sun_path, sizeof(sa.sun_path), dir))
		return -1;
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (void *)&sa, sizeof(sa)) || listen(fd, 8)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* One command per connection: a line in, a line out. */
static void ctl_serve(struct sw_run *r)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	char cmd[512], out[512];
	ssize_t n;
	int c = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0)
		return;
	setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));	/* a stuck client cannot stall the fabric */
	n = recv(c, cmd, sizeof(cmd) - 1, 0);
	if (n <= 0) {
		close(c);
		return;
	}
	cmd[n] = 0;
	cmd[strcspn(cmd, "\r\n")] = 0;
	r->now = now_ns();
	if (!strcmp(cmd, "stats")) {
		if (write_all(r))
			snprintf(out, sizeof(out), "error writing %s/ports.tsv: %s", r->tm.dir, strerror(errno));
		else
			snprintf(out, sizeof(out), "ok %s/ports.tsv", r->tm.dir);
	} else if (!strcmp(cmd, "quit")) {
		stop = 1;
		snprintf(out, sizeof(out), "ok");
	} else {
		fabric_cmd(&r->fab, cmd, out, sizeof(out), r->now);
		if (!strcmp(cmd, "reset")) {
			telemetry_truncate(&r->tm);
			r->stalls = r->stall_max_ns = 0;
			for (int h = 0; h < r->t.nhosts; h++) {
				r->xp[h].rx_pkts = r->xp[h].tx_pkts = r->xp[h].tx_drop =
					r->xp[h].rx_unstamped = 0;
				r->xp[h].rx_lost_base = xsk_port_rx_lost(&r->xp[h]);
			}
		}
	}
	strcat(out, "\n");
	if (send(c, out, strlen(out), MSG_NOSIGNAL) < 0)
		perror("eqswitch: ctl reply");
	close(c);
}

/*
 * Waiting: the switch sleeps in ppoll() when its next event (a packet
 * finishing serialisation or reaching the far end of a link, a sample) is
 * more than SPIN_NS away, and spins when it is closer, because a timed
 * sleep in a VM oversleeps by tens of microseconds, which is a link's
 * whole propagation delay.  An idle fabric costs no CPU; a busy one costs
 * a core, as a switch would.  --spin never sleeps.
 */
#define SPIN_NS		200000
#define STALL_NS	500000
#define CTL_EVERY_NS	1000000

static int run_loop(struct sw_run *r, int spin)
{
	static struct pollfd pfd[TOPO_MAX_HOSTS + 1];
	int n = r->t.nhosts;
	uint64_t next_sample, next_ctl = 0, last_iter = 0;

	for (int h = 0; h < n; h++)
		pfd[h] = (struct pollfd){ .fd = xsk_port_fd(&r->xp[h]), .events = POLLIN };
	pfd[n] = (struct pollfd){ .fd = r->lfd, .events = POLLIN };
	r->now = now_ns();
	next_sample = r->now + r->t.p.sample_ns;
	while (!stop) {
		uint64_t next = fabric_next_event(&r->fab);
		int polled = 0;

		/* Samples of empty queues are skipped, so an idle fabric need
		 * not wake for them; a packet arriving wakes it anyway. */
		if (next_sample < next && (r->fab.queues_busy || next != UINT64_MAX))
			next = next_sample;
		r->now = now_ns();
		if (spin || (next > r->now && next - r->now < SPIN_NS)) {
			if (r->now >= next_ctl) {	/* the control socket, now and then */
				pfd[n].revents = 0;
				if (poll(&pfd[n], 1, 0) < 0 && errno != EINTR)
					return -1;
				polled = 1;
				next_ctl = r->now + CTL_EVERY_NS;
			}
		} else {
			struct timespec ts = {0};

			if (next > r->now) {
				uint64_t d = next - r->now - SPIN_NS / 2;	/* wake early, spin the rest */

				if (d > 100000000)
					d = 100000000;
				ts.tv_sec = (time_t)(d / 1000000000ULL);
				ts.tv_nsec = (long)(d % 1000000000ULL);
			}
			if (ppoll(pfd, (nfds_t)n + 1, &ts, NULL) < 0 && errno != EINTR)
				return -1;
			polled = 1;
		}
		r->now = now_ns();
		/* A stall: the loop was busy but did not run (its CPU was taken). */
		if (last_iter && r->now - last_iter > r->stall_max_ns)
			r->stall_max_ns = r->now - last_iter;
		if (last_iter && r->now - last_iter > STALL_NS)
			r->stalls++;
		for (int h = 0; h < n; h++) {
			r->cur_host = h;
			xsk_port_rx(&r->xp[h], RX_BUDGET, r->now, on_rx, r);
		}
		inject_staged(r);
		fabric_run(&r->fab, r->now);
		for (int h = 0; h < n; h++)
			if (r->xp[h].tx_pending)
				xsk_port_flush(&r->xp[h]);
		if (r->now >= next_sample) {
			fabric_sample(&r->fab, r->now);
			next_sample += r->t.p.sample_ns;
			if (next_sample <= r->now)	/* fell behind: skip, don't catch up */
				next_sample = r->now + r->t.p.sample_ns;
		}
		if (polled && (pfd[n].revents & POLLIN))
			ctl_serve(r);
		last_iter = polled && !spin ? 0 : now_ns();
	}
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	static struct sw_run r;
	struct opts o = {0};
	char err[300];
	int ret = 1;

	ret = load_topo(argc, argv, &o, &r.t);
	if (ret)
		return ret;
	ret = 1;
	if (!o.dir) {
		fprintf(stderr, "eqswitch run: --dir DIR is required (telemetry and the control socket)\n");
		return 1;
	}
	if (telemetry_init(&r.tm, o.dir)) {
		fprintf(stderr, "eqswitch: %s/queues: %s\n", o.dir, strerror(errno));
		return 1;
	}
	prctl(PR_SET_TIMERSLACK, 1UL);	/* sleep to the microsecond, not to 50 us */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	r.now = now_ns();
	if (fabric_init(&r.fab, &r.t, r.now)) {
		fprintf(stderr, "eqswitch: out of memory for %u packet slots\n", r.t.p.pool);
		return 1;
	}
	r.stage = calloc((size_t)r.t.nhosts * RX_BUDGET, sizeof(*r.stage));
	if (!r.stage) {
		fprintf(stderr, "eqswitch: out of memory\n");
		return 1;
	}
	r.fab.deliver = on_deliver;
	r.fab.sample = on_sample;
	r.fab.ctx = &r;
	r.lfd = -1;
	for (int h = 0; h < r.t.nhosts; h++) {
		char ns[64];

		snprintf(ns, sizeof(ns), "%s-%s", o.name, r.t.sw[r.t.hosts[h].sw].name);
		if (xsk_port_open(&r.xp[h], ns, r.t.hosts[h].name, err, sizeof(err))) {
			fprintf(stderr, "eqswitch: port %s: %s\n", r.t.ports[r.t.hosts[h].down_port].name, err);
			goto out;
		}
	}
	r.lfd = ctl_listen(o.dir);
	if (r.lfd < 0) {
		fprintf(stderr, "eqswitch: control socket in %s: %s\n", o.dir, strerror(errno));
		goto out;
	}
	/* Under SCHED_FIFO a wake-up is not kept waiting behind other tasks'
	 * time slices: on the 2-vCPU fabric, with 8 agents and the hosts'
	 * applications runnable, the default scheduler read frames 2.4 ms
	 * (p50) after they arrived and handed them on 4.8 ms late (docs/
	 * fabric.md).  It still spins near an event, as below: a loaded
	 * fabric then holds a CPU at real-time priority, up to the kernel's
	 * real-time throttling (95 % of each second by default). */
	if (o.rt) {
		struct sched_param sp = { .sched_priority = o.rt };

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp)) {
			fprintf(stderr, "eqswitch: SCHED_FIFO %d refused (%s): the default scheduler\n",
				o.rt, strerror(errno));
		} else {
			fprintf(stderr, "eqswitch: SCHED_FIFO %d\n", o.rt);
		}
	}
	fprintf(stderr, "eqswitch: %d switches, %d hosts, %d ports; %s mode; control: eqswitch ctl %s CMD\n",
		r.t.nsw, r.t.nhosts, r.t.nports, o.spin ? "spin" : "poll", o.dir);
	ret = run_loop(&r, o.spin) ? 1 : 0;
	r.now = now_ns();
	if (write_all(&r))
		fprintf(stderr, "eqswitch: writing telemetry to %s: %s\n", o.dir, strerror(errno));
out:
	if (r.lfd >= 0) {
		char p[128];

		close(r.lfd);
		if (!ctl_path(p, sizeof(p), o.dir))
			unlink(p);
	}
	for (int h = 0; h < r.t.nhosts; h++)
		if (r.xp[h].xsk || r.xp[h].skel)
			xsk_port_close(&r.xp[h]);
	telemetry_close(&r.tm);
	fabric_fini(&r.fab);
	free(r.stage);
	return ret;
}

/* ---- ctl ------------------------------------------------------------------- */

static int cmd_ctl(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cmd[512] = "", reply[600];
	ssize_t n;
	size_t len = 0;
	int fd;

	if (argc < 4)
		return usage();
	for (int i = 3; i < argc; i++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "%s%s", i > 3 ? " " : "", argv[i]);
	if (len >= sizeof(cmd) - 1 || ctl_path(sa.sun_path, sizeof(sa.sun_path), argv[2])) {
		fprintf(stderr, "eqswitch ctl: command or path too long\n");
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (void *)&sa, sizeof(sa))) {
		fprintf(stderr, "eqswitch ctl: %s: %s (is the switch running?)\n", sa.sun_path, strerror(errno));
		return 1;
	}
	strcat(cmd, "\n");
	if (send(fd, cmd, strlen(cmd), 0) < 0 || (n = recv(fd, reply, sizeof(reply) - 1, 0)) <= 0) {
		fprintf(stderr, "eqswitch ctl: no reply from %s\n", sa.sun_path);
		close(fd);
		return 1;
	}
	close(fd);
	reply[n] = 0;
	fputs(reply, strncmp(reply, "ok", 2) ? stderr : stdout);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "plan"))
		return cmd_plan(argc, argv);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (!strcmp(argv[1], "ctl"))
		return cmd_ctl(argc, argv);
	return usage();
}
