// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload udp-send (see udp_send.h).
 *
 * Pacing: datagram k is due at t0 + k * frame bits / rate (pace.h).  The
 * loop sends everything due in one sendmmsg() (up to a batch) when it is
 * behind, and sleeps on an absolute CLOCK_MONOTONIC deadline until the
 * next one is due when it is ahead, so the long-run rate is exact and
 * short-term error stays within the timer's wake-up latency.
 *
 * Achieved rate: frame bits over the time the datagrams took, from t0 to
 * the later of the last sendmmsg() returning and the time the schedule
 * gives them (t0 + n frame times): exactly the target when on time, lower
 * when the host could not keep up.  A burst has no schedule: its time is
 * from before the first sendmmsg() to after the last.
 *
 * The socket is not connected: an ICMP port unreachable from a receiver
 * that is not up yet would otherwise fail the next send.  --sport binds
 * its source port, so that a test chooses the 5-tuple, and with it the
 * path an ECMP hash gives the datagrams.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <arpa/inet.h>
#include "load/clock.h"
#include "load/datagram.h"
#include "load/log.h"
#include "load/pace.h"
#include "load/stop.h"
#include "load/udp_send.h"

#define BATCH_PACED	64
#define BATCH_BURST	1024		/* UIO_MAXIOV */
#define BATCH_MEM	(16u << 20)	/* payload buffers of a batch, at most */
#define SNDBUF		(4 << 20)
#define NOBUFS_WAIT_NS	50000ULL	/* device queue full: retry after this */

struct sender {
	const struct eql_udp_send_cfg *cfg;
	int fd;
	unsigned int batch;
	uint8_t *bufs;
	struct iovec *iov;
	struct mmsghdr *msgs;
	uint64_t sent;
};

static int bind_sport(int fd, const struct eql_udp_send_cfg *cfg)
{
	struct sockaddr_storage ss;
	socklen_t len;

	memset(&ss, 0, sizeof(ss));
	if (cfg->dst.family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons(cfg->sport);
		len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(cfg->sport);
		len = sizeof(*s4);
	}
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		eql_warn_errno("udp-send: --sport %u", cfg->sport);
		return -1;
	}
	return 0;
}

static int sender_open(struct sender *s, const struct eql_udp_send_cfg *cfg)
{
	int sndbuf = SNDBUF;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->fd = socket(cfg->dst.family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		eql_warn_errno("udp-send: UDP socket");
		return -1;
	}
	if (cfg->sport && bind_sport(s->fd, cfg))
		return -1;
	if (cfg->tos >= 0) {
		int tos = cfg->tos, rc = cfg->dst.family == AF_INET6 ?
			setsockopt(s->fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
			setsockopt(s->fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));

		if (rc) {
			eql_warn_errno("udp-send: --tos 0x%02x", cfg->tos);
			return -1;
		}
	}
	/* Room for a burst: root may exceed net.core.wmem_max. */
	if (setsockopt(s->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(s->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));

	s->batch = cfg->rate_bps ? BATCH_PACED : BATCH_BURST;
	if (s->batch > BATCH_MEM / cfg->size)
		s->batch = BATCH_MEM / cfg->size;
	s->bufs = calloc(s->batch, cfg->size);
	s->iov = calloc(s->batch, sizeof(*s->iov));
	s->msgs = calloc(s->batch, sizeof(*s->msgs));
	if (!s->bufs || !s->iov || !s->msgs) {
		eql_warn("udp-send: out of memory for %u datagram buffers", s->batch);
		return -1;
	}
	for (unsigned int i = 0; i < s->batch; i++) {
		s->iov[i] = (struct iovec){ s->bufs + (size_t)i * cfg->size, cfg->size };
		s->msgs[i].msg_hdr = (struct msghdr){
			.msg_name = (void *)&cfg->dst.ss, .msg_namelen = cfg->dst.len,
			.msg_iov = &s->iov[i], .msg_iovlen = 1,
		};
	}
	return 0;
}

static void sender_close(struct sender *s)
{
	if (s->fd >= 0)
		close(s->fd);
	free(s->bufs);
	free(s->iov);
	free(s->msgs);
}

/* Sends datagrams s->sent .. s->sent + n - 1 stamped now (n <= batch);
 * returns how many went, or -1 on an error (said).  Blocks while the
 * socket buffer is full, retries while the device queue is. */
static int send_batch(struct sender *s, unsigned int n, uint64_t now)
{
	int m;

	for (unsigned int i = 0; i < n; i++)
		eql_dg_encode(s->iov[i].iov_base, s->cfg->size, s->cfg->edgeq, s->sent + i, now);
	for (;;) {
		m = sendmmsg(s->fd, s->msgs, n, 0);
		if (m >= 0)
			break;
		if (errno == EINTR && eql_stop_requested)
			return 0;
		if (errno == ENOBUFS || errno == EAGAIN) {
			if (eql_sleep_until(eql_now_ns() + NOBUFS_WAIT_NS))
				return 0;
			continue;
		}
		if (errno != EINTR) {
			eql_warn_errno("udp-send: sendmmsg to %s", s->cfg->dst.text);
			return -1;
		}
	}
	s->sent += (unsigned int)m;
	return m;
}

static int run_burst(struct sender *s)
{
	while (s->sent < s->cfg->burst && !eql_stop_requested) {
		uint64_t left = s->cfg->burst - s->sent;

		if (send_batch(s, left < s->batch ? (unsigned int)left : s->batch, eql_now_ns()) < 0)
			return -1;
	}
	return 0;
}

/*
 * t_end: --duration's end (0: none).  Past it, one last batch sends what
 * was due before it (the timer may wake us a little after the last
 * datagram's time), then the run stops, even when a host too slow for the
 * rate is still behind.
 */
static int run_paced(struct sender *s, uint64_t t0, uint64_t t_end, uint64_t total,
		     uint64_t frame)
{
	while (s->sent < total && !eql_stop_requested) {
		uint64_t now = eql_now_ns();
		bool last = t_end && now >= t_end;
		uint64_t due = eql_pace_due((last ? t_end - 1 : now) - t0, frame, s->cfg->rate_bps);

		if (due > total)
			due = total;
		if (due <= s->sent) {
			if (last)
				break;
			eql_sleep_until(t0 + eql_pace_offset_ns(s->sent, frame, s->cfg->rate_bps));
			continue;
		}
		if (send_batch(s, due - s->sent < s->batch ? (unsigned int)(due - s->sent) : s->batch,
			       now) < 0)
			return -1;
		if (last)
			break;
	}
	return 0;
}

int eql_udp_send(const struct eql_udp_send_cfg *cfg)
{
	uint64_t frame = eql_dg_frame_bytes(cfg->size, cfg->dst.family);
	uint64_t total = UINT64_MAX, t0, end, bytes;
	bool bounded = cfg->burst || cfg->count || cfg->duration_ns, interrupted;
	struct sender s;
	int rc = -1;

	if (cfg->count)
		total = cfg->count;
	else if (cfg->duration_ns)	/* the datagrams due before the end */
		total = eql_pace_due(cfg->duration_ns - 1, frame, cfg->rate_bps);

	eql_out_meta(cfg->out, "tool=eqload mode=udp-send dst=%s sport=%u size=%u frame=%llu "
		     "rate_bps=%llu burst=%llu count=%llu duration_ns=%llu tos=0x%02x edgeq=%d "
		     "start_at=%llu", cfg->dst.text, cfg->sport, cfg->size, (unsigned long long)frame,
		     (unsigned long long)cfg->rate_bps, (unsigned long long)cfg->burst,
		     (unsigned long long)cfg->count, (unsigned long long)cfg->duration_ns,
		     cfg->tos < 0 ? 0 : cfg->tos, cfg->edgeq, (unsigned long long)cfg->start_at);
	fflush(cfg->out->f);
	if (sender_open(&s, cfg))
		goto out;
	t0 = eql_start_at(cfg->start_at, "udp-send");
	if (!t0) {
		t0 = eql_now_ns();
		rc = 0;
	} else if (cfg->burst) {
		rc = run_burst(&s);
	} else {
		rc = run_paced(&s, t0, cfg->duration_ns ? t0 + cfg->duration_ns : 0, total, frame);
	}
	end = eql_now_ns();
	if (!cfg->burst) {
		uint64_t sched = t0 + eql_pace_offset_ns(s.sent, frame, cfg->rate_bps);

		if (sched > end)
			end = sched;
	}
	interrupted = eql_stop_requested;
	bytes = s.sent * frame;
	eql_out_summary(cfg->out, "pkts=%llu bytes=%llu secs=%.9f rate_bps=%.0f start_ns=%llu "
			"end_ns=%llu interrupted=%d", (unsigned long long)s.sent,
			(unsigned long long)bytes, (double)(end - t0) / 1e9,
			eql_rate_bps(bytes, end - t0), (unsigned long long)t0,
			(unsigned long long)end, interrupted);
	if (interrupted && bounded) {
		eql_warn("udp-send: interrupted after %llu datagrams", (unsigned long long)s.sent);
		rc = -1;
	}
out:
	sender_close(&s);
	return rc ? 1 : 0;
}
