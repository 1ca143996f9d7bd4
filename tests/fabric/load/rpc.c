// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload rpc (see rpc.h).
 *
 * The connection is made before --start-at, so that the handshake is not
 * in the first RPC's latency.  An RPC's latency runs from just before its
 * request is written to the arrival of the last byte of its response.
 * With --rate, issue times are t0 + a sum of exponential gaps; an RPC
 * whose time has passed while the previous one was still outstanding is
 * issued at once and counted as late (its latency does not include the
 * wait: that would be the previous RPC's latency counted twice).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include "load/clock.h"
#include "load/log.h"
#include "load/msg.h"
#include "load/rng.h"
#include "load/rpc.h"
#include "load/stats.h"
#include "load/stop.h"

/* One RPC.  0, or -1 (errno; EINTR: stop requested), -2: peer closed. */
static int one_rpc(int fd, const uint8_t *hdr, uint64_t req, uint32_t resp)
{
	bool first = true;

	/* The header goes with the start of the payload: one segment for a
	 * small request, as a real RPC stack would send it. */
	do {
		size_t chunk = req < EQL_ZEROS_LEN ? (size_t)req : EQL_ZEROS_LEN;
		struct iovec iov[2];
		int n = 0;

		if (first) {
			iov[n].iov_base = (void *)hdr;
			iov[n++].iov_len = EQL_MSG_HDR_LEN;
		}
		if (chunk) {
			iov[n].iov_base = (void *)eql_zeros;
			iov[n++].iov_len = chunk;
		}
		if (eql_send_all(fd, iov, n))
			return -1;
		req -= chunk;
		first = false;
	} while (req);
	return eql_recv_drop(fd, resp);
}

int eql_rpc(const struct eql_rpc_cfg *cfg)
{
	struct eql_msg m = { .resp_len = cfg->resp, .req_len = cfg->req };
	struct eql_samples lat = { 0 };
	struct eql_rng rng;
	uint8_t hdr[EQL_MSG_HDR_LEN];
	uint64_t t0, t_end, next, end, late = 0;
	bool interrupted = false, failed = false;
	double mean = 0;
	int fd;

	eql_msg_encode(hdr, &m);
	eql_rng_seed(&rng, cfg->seed);
	eql_out_meta(cfg->out, "tool=eqload mode=rpc dst=%s cc=%s req=%llu resp=%u count=%llu "
		     "duration_ns=%llu rate=%g seed=%llu start_at=%llu", cfg->dst.text, cfg->cc_name,
		     (unsigned long long)cfg->req, cfg->resp, (unsigned long long)cfg->count,
		     (unsigned long long)cfg->duration_ns, cfg->rate,
		     (unsigned long long)cfg->seed, (unsigned long long)cfg->start_at);
	eql_out_columns(cfg->out, "start_ns\tlatency_ns");

	fd = eql_tcp_socket(&cfg->dst, cfg->cc, true, false);
	if (fd < 0)
		return 1;
	if (eql_tcp_connect(fd, &cfg->dst)) {
		close(fd);
		return 1;
	}
	fflush(cfg->out->f);
	t0 = eql_start_at(cfg->start_at, "rpc");
	interrupted = !t0;
	if (!t0)
		t0 = eql_now_ns();
	t_end = t0 + cfg->duration_ns;
	next = t0;

	while (!interrupted && (cfg->count ? lat.n < cfg->count : eql_now_ns() < t_end)) {
		uint64_t start, done;
		int rc;

		if (cfg->rate > 0) {
			next += (uint64_t)eql_rng_exp(&rng, 1e9 / cfg->rate);
			if (!cfg->count && next >= t_end)
				break;
			if (eql_now_ns() > next)
				late++;
			else if (eql_sleep_until(next))
				break;
		}
		start = eql_now_ns();
		rc = one_rpc(fd, hdr, cfg->req, cfg->resp);
		done = eql_now_ns();
		if (rc) {
			if (rc == -1 && errno == EINTR)
				break;		/* stop requested */
			if (rc == -2)
				eql_warn("rpc: %s closed the connection", cfg->dst.text);
			else
				eql_warn_errno("rpc: %s", cfg->dst.text);
			failed = true;
			break;
		}
		fprintf(cfg->out->f, "%llu\t%llu\n", (unsigned long long)start,
			(unsigned long long)(done - start));
		if (eql_samples_add(&lat, done - start)) {
			eql_warn("rpc: out of memory for latencies");
			failed = true;
			break;
		}
	}
	interrupted |= eql_stop_requested;
	end = eql_now_ns();
	close(fd);

	eql_samples_sort(&lat);
	for (size_t i = 0; i < lat.n; i++)
		mean += (double)lat.v[i] / (double)lat.n;
	eql_out_summary(cfg->out, "count=%zu mean_ns=%.0f min_ns=%llu p50_ns=%llu p99_ns=%llu "
			"p999_ns=%llu max_ns=%llu late=%llu start_ns=%llu end_ns=%llu errors=%d "
			"interrupted=%d", lat.n, mean,
			(unsigned long long)eql_samples_pct(&lat, 0),
			(unsigned long long)eql_samples_pct(&lat, 0.5),
			(unsigned long long)eql_samples_pct(&lat, 0.99),
			(unsigned long long)eql_samples_pct(&lat, 0.999),
			(unsigned long long)eql_samples_pct(&lat, 1),
			(unsigned long long)late, (unsigned long long)t0, (unsigned long long)end,
			failed, interrupted);
	if (interrupted)
		eql_warn("rpc: interrupted after %zu RPCs", lat.n);
	eql_samples_free(&lat);
	return failed || interrupted ? 1 : 0;
}
