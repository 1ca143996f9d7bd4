// SPDX-License-Identifier: GPL-2.0-only
/*
 * xsk_fwd --iface IFNAME --pin-dir DIR: the baseline of the agent
 * benchmark (bench/run.sh, section 5), the least an agent can do.  It
 * stands in for edgeqd (the loader starts it when EDGEQD points here) and
 * takes the same two AF_XDP sockets through the same code (user/agent/
 * xsk.c), with the same heartbeat, but has no transport: frames TC sent to
 * a peer go to the wire as TC built them, and DATA from the wire goes to
 * the local stack decapsulated (user/agent/frame.c), everything else
 * dropped.  It sleeps in ppoll() as the agent does.  The difference
 * between the two in packets per second and in latency is the cost of the
 * agent's own work: EQDS, its queues, pacers and timers.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include "edgeq/maps.h"
#include "edgeq/wire.h"
#include "frame.h"
#include "xsk.h"

#define BEAT_NS	(10 * 1000000ULL)
#define BATCH	64

struct fwd {
	struct eq_config cfg;
	int		fd_agent;
	struct eq_xsk	wire, host;
	uint8_t		wire_mac[6], host_src[6];
	uint64_t	out, in, dropped;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int pinned(const char *dir, const char *name)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fprintf(stderr, "xsk_fwd: cannot open %s: %s\n", path, strerror(errno));
	return fd;
}

static int if_mac(unsigned int ifindex, uint8_t mac[6], char name[IF_NAMESIZE])
{
	struct ifreq ifr = {};
	int s, rc;

	if (!if_indextoname(ifindex, name))
		return -1;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	rc = s < 0 ? -1 : ioctl(s, SIOCGIFHWADDR, &ifr);
	if (!rc)
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (s >= 0)
		close(s);
	return rc;
}

/* Host -> wire: the frame as TC built it. */
static void from_host(void *ctx, uint8_t *f, uint32_t len)
{
	struct fwd *w = ctx;

	if (eq_xsk_tx(&w->wire, f, len))
		w->dropped++;
	else
		w->out++;
}

/* Wire -> host: DATA decapsulated; control frames have no one to go to. */
static void from_wire(void *ctx, uint8_t *f, uint32_t len)
{
	struct fwd *w = ctx;
	struct eqf_info fi;
	uint8_t *inner;
	uint32_t n;

	if (eqf_parse(f, len, w->cfg.port, &fi) || fi.hdr.type != EQ_T_DATA ||
	    !(inner = eqf_decap(f, &fi, w->wire_mac, f + 6, &n)) ||
	    eq_xsk_tx(&w->host, inner, n)) {
		w->dropped++;
		return;
	}
	w->in++;
}

static void beat(struct fwd *w, bool alive)
{
	uint32_t zero = 0;
	struct eq_agent ag = {};

	bpf_map_lookup_elem(w->fd_agent, &zero, &ag);
	ag.heartbeat_ns = alive ? now_ns() : 0;
	ag.pid = alive ? (uint32_t)getpid() : 0;
	ag.flags = alive ? EQ_AGENT_READY : 0;
	ag.xsk_mode = w->wire.zero_copy ? 2 : 1;
	ag.flush_done = ag.flush_seq;	/* nothing to flush */
	bpf_map_update_elem(w->fd_agent, &zero, &ag, 0);
}

static int run(struct fwd *w)
{
	struct pollfd pfd[2] = {
		{ .fd = eq_xsk_fd(&w->wire), .events = POLLIN },
		{ .fd = eq_xsk_fd(&w->host), .events = POLLIN },
	};
	uint64_t next_beat = 0;

	while (!stop) {
		unsigned int n = eq_xsk_rx(&w->wire, BATCH, from_wire, w);
		uint64_t now;

		n += eq_xsk_rx(&w->host, BATCH, from_host, w);
		eq_xsk_flush(&w->wire);
		eq_xsk_flush(&w->host);
		now = now_ns();
		if (now >= next_beat) {
			beat(w, true);
			next_beat = now + BEAT_NS;
		}
		if (!n) {
			uint64_t d = next_beat - now;
			struct timespec ts = { (time_t)(d / 1000000000ULL), (long)(d % 1000000000ULL) };

			if (ppoll(pfd, 2, &ts, NULL) < 0 && errno != EINTR)
				return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "pin-dir", required_argument, NULL, 'p' },
		{ 0 }
	};
	const char *ifname = NULL, *dir = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	char wire_if[IF_NAMESIZE], peer_if[IF_NAMESIZE], err[512] = "";
	struct fwd w = { .fd_agent = -1 };
	int c, fd_config, fd_xsks, rc = 1;
	uint32_t fs;
	uint32_t zero = 0;

	while ((c = getopt_long(argc, argv, "i:p:", opts, NULL)) != -1) {
		switch (c) {
		case 'i': ifname = optarg; break;
		case 'p': dir = optarg; break;
		default: goto usage;
		}
	}
	if (!ifname || !dir)
		goto usage;
	/* The loader knows its agent by the process name (a pid alone could
	 * have been reused): stand in for edgeqd under its name, so that
	 * detach stops us as it stops the agent. */
	prctl(PR_SET_NAME, "edgeqd");
	libxdp_set_print(NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stderr, NULL, _IOLBF, 0);
	fd_config = pinned(dir, EQ_MAP_CONFIG);
	fd_xsks = pinned(dir, EQ_MAP_XSKS);
	w.fd_agent = pinned(dir, EQ_MAP_AGENT);
	if (fd_config < 0 || fd_xsks < 0 || w.fd_agent < 0 ||
	    bpf_map_lookup_elem(fd_config, &zero, &w.cfg))
		return 1;
	/* Deliveries go to this host's MAC on the wire interface: tc_deliver
	 * moves them from eqa into its stack, as for the agent. */
	if (if_mac(w.cfg.ifindex, w.wire_mac, wire_if) ||
	    if_mac(w.cfg.agent_peer_ifindex, w.host_src, peer_if)) {
		fprintf(stderr, "xsk_fwd: %s has no internal veth (attach with scheme eqds)\n", ifname);
		return 1;
	}
	fs = eq_xsk_frame_size(w.cfg.mtu + 14);
	/* The agent's sockets' sizes (agent.c), so that only the work differs. */
	if (eq_xsk_open(&w.wire, ifname, 0, fd_xsks, EQ_XSK_WIRE, fs, true, 2048, 2048, err,
			sizeof(err)) ||
	    eq_xsk_open(&w.host, peer_if, 0, fd_xsks, EQ_XSK_AGENT, fs, false, 2048, 2048, err,
			sizeof(err))) {
		fprintf(stderr, "xsk_fwd: %s\n", err);
		goto out;
	}
	fprintf(stderr, "xsk_fwd: %s: forwarding between %s and the wire, no transport\n",
		ifname, peer_if);
	rc = run(&w) ? 1 : 0;
	beat(&w, false);
	fprintf(stderr, "xsk_fwd: %s: to the wire %llu, to the host %llu, dropped %llu\n", ifname,
		(unsigned long long)w.out, (unsigned long long)w.in, (unsigned long long)w.dropped);
out:
	eq_xsk_close(&w.host);
	eq_xsk_close(&w.wire);
	return rc;
usage:
	fprintf(stderr, "usage: xsk_fwd --iface IFNAME --pin-dir DIR (started by edgeq attach with EDGEQD=xsk_fwd)\n");
	return 2;
}
