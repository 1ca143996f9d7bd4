// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload udp-recv (see udp_recv.h).
 *
 * Arrival times are the kernel's receive timestamps (SO_TIMESTAMPNS), not
 * the time recvmmsg() returned: a batch read at once would otherwise share
 * one time, and the order of arrivals within a burst (a trimmed header
 * overtaking queued data) would be lost.  The kernel stamps with
 * CLOCK_REALTIME; it is moved to CLOCK_MONOTONIC by their difference, read
 * for every batch (the two advance together, NTP slews both, so only a
 * step of the wall clock between a datagram's arrival and its batch's
 * read could misplace it).
 *
 * The ECN field comes with each datagram (IP_RECVTOS, IPV6_RECVTCLASS),
 * and SO_RXQ_OVFL counts datagrams the socket itself dropped: loss at the
 * receiving host, as opposed to in the fabric.
 */
#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include "load/clock.h"
#include "load/datagram.h"
#include "load/log.h"
#include "load/rxstats.h"
#include "load/sock.h"
#include "load/stop.h"
#include "load/udp_recv.h"

#define BATCH		64
#define BUF_LEN		65536
#define CMSG_LEN_	256
#define RCVBUF		(8 << 20)

struct receiver {
	const struct eql_udp_recv_cfg *cfg;
	int fd;
	uint8_t *bufs;
	struct iovec iov[BATCH];
	struct mmsghdr msgs[BATCH];
	struct sockaddr_in6 from[BATCH];
	uint8_t cbuf[BATCH][CMSG_LEN_];
	uint32_t sock_drops;
	struct eql_rxstats st;
};

static int receiver_open(struct receiver *r, const struct eql_udp_recv_cfg *cfg, char *desc,
			 size_t desclen)
{
	int one = 1, rcvbuf = RCVBUF, v4, v6;

	r->cfg = cfg;
	r->fd = eql_listen(SOCK_DGRAM, cfg->bind, cfg->port, desc, desclen);
	if (r->fd < 0)
		return -1;
	/* One of the two fails on a single-family socket; the other is the
	 * one that matters.  A dual-stack socket takes both. */
	v4 = setsockopt(r->fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	v6 = setsockopt(r->fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one, sizeof(one));
	if (v4 && v6) {
		eql_warn_errno("udp-recv: IP_RECVTOS");
		return -1;
	}
	if (setsockopt(r->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one))) {
		eql_warn_errno("udp-recv: SO_TIMESTAMPNS");
		return -1;
	}
	setsockopt(r->fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	/* Bursts arrive faster than one thread reads them. */
	if (setsockopt(r->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	r->bufs = malloc((size_t)BATCH * BUF_LEN);
	if (!r->bufs) {
		eql_warn("udp-recv: out of memory");
		return -1;
	}
	for (int i = 0; i < BATCH; i++)
		r->iov[i] = (struct iovec){ r->bufs + (size_t)i * BUF_LEN, BUF_LEN };
	return 0;
}

/* Resets the headers that recvmmsg() overwrites (lengths). */
static void arm_msgs(struct receiver *r)
{
	for (int i = 0; i < BATCH; i++) {
		r->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = &r->from[i], .msg_namelen = sizeof(r->from[i]),
			.msg_iov = &r->iov[i], .msg_iovlen = 1,
			.msg_control = r->cbuf[i], .msg_controllen = CMSG_LEN_,
		};
	}
}

static int family_of(const struct sockaddr_in6 *sa)
{
	if (sa->sin6_family == AF_INET6 && !IN6_IS_ADDR_V4MAPPED(&sa->sin6_addr))
		return AF_INET6;
	return AF_INET;		/* AF_INET, or IPv4 on a dual-stack socket */
}

/* One received datagram: its ECN field and arrival time from the
 * control messages, then accounting and the row. */
static void take(struct receiver *r, int i, uint64_t mono_now, int64_t rt_minus_mono)
{
	struct msghdr *mh = &r->msgs[i].msg_hdr;
	unsigned int len = r->msgs[i].msg_len, ecn = 0;
	uint64_t arrival = mono_now, frame;
	struct eql_dg_info d;
	enum eql_rx_verdict v;
	bool ok;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
			ecn = *(uint8_t *)CMSG_DATA(c) & 3;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS) {
			int tc;

			memcpy(&tc, CMSG_DATA(c), sizeof(tc));
			ecn = (unsigned int)tc & 3;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			int64_t rt;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			rt = (int64_t)ts.tv_sec * (int64_t)EQL_NS_PER_SEC + ts.tv_nsec;
			if (rt - rt_minus_mono > 0)
				arrival = (uint64_t)(rt - rt_minus_mono);
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			memcpy(&r->sock_drops, CMSG_DATA(c), sizeof(r->sock_drops));
		}
	}
	if (arrival > mono_now)		/* a wall-clock step: trust the read */
		arrival = mono_now;
	ok = eql_dg_decode(r->iov[i].iov_base, len, r->cfg->edgeq, &d) == 0;
	frame = eql_dg_frame_bytes(len, family_of(&r->from[i]));
	v = eql_rxstats_add(&r->st, ok ? &d : NULL, frame, ecn, arrival);
	if (r->cfg->rows && v != EQL_RX_BAD)
		fprintf(r->cfg->out->f, "%llu\t%u\t%u\t%llu\t%lld\t%d\n", (unsigned long long)d.seq,
			len, ecn, (unsigned long long)arrival,
			d.has_time && arrival >= d.send_ns ? (long long)(arrival - d.send_ns) : -1LL,
			d.trimmed);
}

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC: the realtime read bracketed by two
 * monotonic ones, best of three, so that a preemption inside one bracket
 * (microseconds) does not shift every arrival of the batch.  mono gets the
 * time of the read.
 */
static int64_t clock_offset(uint64_t *mono)
{
	int64_t best = 0, best_win = INT64_MAX;

	for (int i = 0; i < 3; i++) {
		struct timespec a, rt, b;
		int64_t ta, tb, win;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &rt);
		clock_gettime(CLOCK_MONOTONIC, &b);
		ta = (int64_t)a.tv_sec * (int64_t)EQL_NS_PER_SEC + a.tv_nsec;
		tb = (int64_t)b.tv_sec * (int64_t)EQL_NS_PER_SEC + b.tv_nsec;
		win = tb - ta;
		if (win < best_win) {
			best_win = win;
			best = (int64_t)rt.tv_sec * (int64_t)EQL_NS_PER_SEC + rt.tv_nsec -
			       (ta + win / 2);
			*mono = (uint64_t)tb;
		}
	}
	return best;
}

/* Receives until a limit; 0, or -1 on a socket error (said). */
static int receive(struct receiver *r, uint64_t t_start)
{
	const struct eql_udp_recv_cfg *cfg = r->cfg;
	uint64_t t_end = cfg->duration_ns ? t_start + cfg->duration_ns : 0, last_read = 0;
	struct pollfd p = { .fd = r->fd, .events = POLLIN };

	for (;;) {
		uint64_t now = eql_now_ns(), wake = now + EQL_STOP_POLL_NS, mono = now;
		unsigned int want = BATCH;
		struct timespec tmo;
		int64_t off;
		int n;

		if (eql_stop_requested || (cfg->count && r->st.pkts >= cfg->count))
			return 0;
		if (t_end && now >= t_end)
			return 0;
		if (cfg->idle_ns && last_read && now >= last_read + cfg->idle_ns)
			return 0;
		if (t_end && t_end < wake)
			wake = t_end;
		if (cfg->idle_ns && last_read && last_read + cfg->idle_ns < wake)
			wake = last_read + cfg->idle_ns;
		tmo = eql_timespec(wake - now);
		if (ppoll(&p, 1, &tmo, NULL) <= 0)
			continue;
		/* Never read past --count: the rest stays for nobody. */
		if (cfg->count && cfg->count - r->st.pkts < want)
			want = (unsigned int)(cfg->count - r->st.pkts);
		arm_msgs(r);
		n = recvmmsg(r->fd, r->msgs, want, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			eql_warn_errno("udp-recv: recvmmsg");
			return -1;
		}
		off = clock_offset(&mono);
		for (int i = 0; i < n; i++)
			take(r, i, mono, off);
		if (r->st.pkts)
			last_read = mono;
	}
}

int eql_udp_recv(const struct eql_udp_recv_cfg *cfg)
{
	struct receiver *r = calloc(1, sizeof(*r));
	struct eql_rxstats *s;
	uint64_t t_start;
	char desc[128];
	int rc = 1;

	if (!r || eql_rxstats_init(&r->st)) {
		eql_warn("udp-recv: out of memory");
		free(r);
		return 1;
	}
	r->fd = -1;
	s = &r->st;
	if (receiver_open(r, cfg, desc, sizeof(desc)))
		goto out;
	t_start = eql_now_ns();
	fprintf(stderr, "eqload: udp-recv: listening on %s\n", desc);
	eql_out_meta(cfg->out, "tool=eqload mode=udp-recv port=%u bind=%s count=%llu duration_ns=%llu "
		     "idle_ns=%llu edgeq=%d start_ns=%llu", cfg->port, cfg->bind ? cfg->bind : "any",
		     (unsigned long long)cfg->count, (unsigned long long)cfg->duration_ns,
		     (unsigned long long)cfg->idle_ns, cfg->edgeq, (unsigned long long)t_start);
	if (cfg->rows)
		eql_out_columns(cfg->out, "seq\tlen\tecn\tarrival_ns\towd_ns\ttrimmed");
	fflush(cfg->out->f);

	rc = receive(r, t_start) ? 1 : 0;

	eql_out_summary(cfg->out, "pkts=%llu bytes=%llu first_ns=%llu last_ns=%llu rate_bps=%.0f "
			"reordered=%llu dups=%llu lost=%llu ce=%llu ect=%llu not_ect=%llu "
			"trimmed=%llu bad=%llu sock_drops=%u owd_min_ns=%llu owd_p50_ns=%llu "
			"owd_p99_ns=%llu owd_max_ns=%llu interrupted=%d",
			(unsigned long long)s->pkts, (unsigned long long)s->bytes,
			(unsigned long long)s->first_ns, (unsigned long long)s->last_ns,
			eql_rxstats_rate_bps(s), (unsigned long long)s->reordered,
			(unsigned long long)s->dups, (unsigned long long)eql_rxstats_lost(s),
			(unsigned long long)s->ce, (unsigned long long)s->ect,
			(unsigned long long)s->not_ect, (unsigned long long)s->trimmed,
			(unsigned long long)s->bad, r->sock_drops,
			(unsigned long long)(s->owd.count ? s->owd.min : 0),
			(unsigned long long)eql_hist_pct(&s->owd, 0.5),
			(unsigned long long)eql_hist_pct(&s->owd, 0.99),
			(unsigned long long)s->owd.max,
			(int)eql_stop_requested);
out:
	if (r->fd >= 0)
		close(r->fd);
	free(r->bufs);
	eql_rxstats_free(&r->st);
	free(r);
	return rc;
}
