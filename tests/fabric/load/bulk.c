// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload bulk (see bulk.h).
 *
 * One message: req_len = --bytes, or EQL_MSG_REQ_STREAM for --duration.
 * The socket is nonblocking and the loop waits with ppoll for
 * writability, the next row's time or the end, whichever comes first.
 *
 * --bytes ends when the server's 1-byte answer arrives: the server has
 * then read every byte, so start_ns..end_ns is the completion time of the
 * transfer (connect included).  --duration ends at its time with an
 * abortive close (SO_LINGER 0): data still in the socket buffer is
 * dropped instead of trickling into the network after end_ns, where it
 * would load the experiment's next phase.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "load/bulk.h"
#include "load/clock.h"
#include "load/log.h"
#include "load/msg.h"
#include "load/pace.h"
#include "load/stop.h"

#define SEND_BUDGET	64	/* sendmsg calls between clock checks */

struct bulk {
	const struct eql_bulk_cfg *cfg;
	int fd;
	uint64_t base;			/* tcpi_bytes_acked before the message (the SYN) */
	uint64_t acked, last_row_acked, last_row_ns;
	uint32_t retrans;
};

/* Refreshes acked (payload bytes the peer acknowledged) and retrans. */
static void sample(struct bulk *b)
{
	struct eql_tcp_stats ts;
	uint64_t skip = b->base + EQL_MSG_HDR_LEN;

	if (eql_tcp_stats(b->fd, &ts))
		return;
	b->acked = ts.bytes_acked > skip ? ts.bytes_acked - skip : 0;
	b->retrans = ts.total_retrans;
}

static void row(struct bulk *b, uint64_t t)
{
	sample(b);
	fprintf(b->cfg->out->f, "%llu\t%llu\n", (unsigned long long)t,
		(unsigned long long)(b->acked - b->last_row_acked));
	fflush(b->cfg->out->f);
	b->last_row_acked = b->acked;
	b->last_row_ns = t;
}

/* Sends what the socket takes now.  0, or -1 on an error (said). */
static int push(struct bulk *b, const uint8_t *hdr, uint64_t *sent, uint64_t total)
{
	for (int budget = SEND_BUDGET; budget > 0 && *sent < total; budget--) {
		uint64_t left = total - (*sent > EQL_MSG_HDR_LEN ? *sent : EQL_MSG_HDR_LEN);
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov };
		ssize_t n;

		if (*sent < EQL_MSG_HDR_LEN) {
			iov[mh.msg_iovlen].iov_base = (void *)(hdr + *sent);
			iov[mh.msg_iovlen++].iov_len = EQL_MSG_HDR_LEN - *sent;
		}
		if (left) {
			iov[mh.msg_iovlen].iov_base = (void *)eql_zeros;
			iov[mh.msg_iovlen++].iov_len = left < EQL_ZEROS_LEN ? (size_t)left : EQL_ZEROS_LEN;
		}
		n = sendmsg(b->fd, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return 0;
			eql_warn_errno("bulk: send to %s", b->cfg->dst.text);
			return -1;
		}
		*sent += (uint64_t)n;
	}
	return 0;
}

/* The transfer, from connect to its end; end gets the end time.
 * 0, 1 if interrupted, -1 on an error (said). */
static int transfer(struct bulk *b, uint64_t start, uint64_t *end)
{
	const struct eql_bulk_cfg *cfg = b->cfg;
	struct eql_msg m = { .resp_len = 1,
			     .req_len = cfg->bytes ? cfg->bytes : EQL_MSG_REQ_STREAM };
	uint64_t total = cfg->bytes ? EQL_MSG_HDR_LEN + cfg->bytes : UINT64_MAX;
	uint64_t t_end = cfg->bytes ? 0 : start + cfg->duration_ns;
	uint64_t next_row = start + cfg->interval_ns, sent = 0;
	struct eql_tcp_stats ts = { 0 };
	uint8_t hdr[EQL_MSG_HDR_LEN], ans;
	ssize_t n;

	eql_msg_encode(hdr, &m);
	if (eql_tcp_connect(b->fd, &cfg->dst))
		return -1;
	eql_tcp_stats(b->fd, &ts);
	b->base = ts.bytes_acked;

	for (;;) {
		uint64_t now = eql_now_ns(), wake;
		struct pollfd p = { .fd = b->fd, .events = sent < total ? POLLOUT : POLLIN };
		struct timespec tmo;

		if (eql_stop_requested) {
			*end = now;
			return 1;
		}
		if (now >= next_row) {
			row(b, now);
			while (next_row <= now)
				next_row += cfg->interval_ns;
		}
		if (t_end && now >= t_end) {
			*end = now;
			return 0;
		}
		wake = t_end && t_end < next_row ? t_end : next_row;
		if (wake - now > EQL_STOP_POLL_NS)
			wake = now + EQL_STOP_POLL_NS;
		tmo = eql_timespec(wake - now);
		if (ppoll(&p, 1, &tmo, NULL) <= 0)
			continue;
		if (sent < total) {
			if (push(b, hdr, &sent, total))
				return -1;
			continue;
		}
		/* Everything sent: the answer marks the end (--bytes). */
		n = recv(b->fd, &ans, 1, 0);
		if (n == 1) {
			*end = eql_now_ns();
			return 0;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			if (n == 0)
				errno = ECONNRESET;
			eql_warn_errno("bulk: answer from %s", cfg->dst.text);
			return -1;
		}
	}
}

int eql_bulk(const struct eql_bulk_cfg *cfg)
{
	struct bulk b = { .cfg = cfg, .fd = -1 };
	uint64_t start, end = 0;
	int ret;

	eql_out_meta(cfg->out, "tool=eqload mode=bulk dst=%s cc=%s bytes=%llu duration_ns=%llu "
		     "interval_ns=%llu start_at=%llu", cfg->dst.text, cfg->cc_name,
		     (unsigned long long)cfg->bytes, (unsigned long long)cfg->duration_ns,
		     (unsigned long long)cfg->interval_ns, (unsigned long long)cfg->start_at);
	eql_out_columns(cfg->out, "t_ns\tbytes_acked");
	fflush(cfg->out->f);

	b.fd = eql_tcp_socket(&cfg->dst, cfg->cc, true, cfg->bytes == 0);
	if (b.fd < 0)
		return 1;
	start = eql_start_at(cfg->start_at, "bulk");
	if (!start) {
		start = end = eql_now_ns();
		ret = 1;
	} else {
		ret = transfer(&b, start, &end);
		if (!end)			/* failed before its end */
			end = eql_now_ns();
		if (end > b.last_row_ns)
			row(&b, end);	/* the last, partial interval */
	}
	close(b.fd);
	eql_out_summary(cfg->out, "bytes=%llu secs=%.9f goodput_bps=%.0f start_ns=%llu end_ns=%llu "
			"retrans=%u cc=%s complete=%d interrupted=%d",
			(unsigned long long)b.acked, (double)(end - start) / 1e9,
			eql_rate_bps(b.acked, end - start), (unsigned long long)start,
			(unsigned long long)end, b.retrans, cfg->cc_name,
			ret == 0 && (!cfg->bytes || b.acked == cfg->bytes), ret == 1);
	if (ret == 1)
		eql_warn("bulk: interrupted after %llu bytes", (unsigned long long)b.acked);
	return ret ? 1 : 0;
}
