// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload flows (see flows.h).
 *
 * A flow is a slot in a fixed array (--concurrency of them) that goes
 * connecting -> sending -> waiting for the answer, driven by epoll on
 * nonblocking sockets; a timerfd wakes the loop for the next Poisson
 * arrival with ns precision (epoll_wait's timeout is in ms).  Arrivals
 * that find every slot busy queue and are counted as "waited"; their FCT
 * starts when they get a slot, as it would on a real host's connection
 * pool.
 *
 * Sizes and interarrival gaps come from two separate PRNG streams of the
 * seed, so flow k has the same size in every run with that seed, however
 * the timing of the run turns out.
 *
 * Clients close with SO_LINGER 0 (a RST): a FIN would leave each
 * connection in TIME_WAIT for 60 s on this side, and a few hundred flows
 * per second would run the host out of ephemeral ports within a minute.
 * The answer has arrived by then, so the RST loses nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include "load/clock.h"
#include "load/flows.h"
#include "load/log.h"
#include "load/msg.h"
#include "load/pace.h"
#include "load/stats.h"
#include "load/stop.h"

#define MAX_EVENTS	256
#define SEND_BUDGET	16		/* sendmsg calls per flow per wake: fairness */
#define WARN_MAX	10
#define TIMER_TAG	UINT64_MAX	/* epoll data of the timerfd */
#define GAP_STREAM	0x67617073ULL	/* "gaps": the second PRNG stream's seed offset */

enum fstate { F_FREE, F_CONNECTING, F_SENDING, F_WAITING };

struct flow {
	int fd;
	enum fstate st;
	uint64_t id, size, start_ns;
	uint64_t sent;			/* header and payload bytes written */
	uint8_t hdr[EQL_MSG_HDR_LEN];
};

struct run {
	const struct eql_flows_cfg *cfg;
	bool open_loop;
	int ep, tfd;
	uint64_t armed;			/* timerfd expiry, 0: disarmed */
	struct flow *slot;
	unsigned int *free_slots, nfree, inflight;
	struct eql_rng size_rng, gap_rng;
	double gap_mean_ns;
	uint64_t t0, t_end;		/* t_end: end of arrivals (duration mode) */
	uint64_t issued, pending, next_id, next_arrival;
	bool arrivals_done;
	/* results */
	struct eql_samples fct;
	uint64_t done, bytes, errors, unfinished, waited, not_started;
	unsigned int warned;
};

static void flow_error(struct run *r, struct flow *f, const char *what, int errnum)
{
	if (r->warned < WARN_MAX)
		eql_warn("flow %llu (%llu bytes): %s %s: %s", (unsigned long long)f->id,
			 (unsigned long long)f->size, what, r->cfg->dst.text, strerror(errnum));
	if (++r->warned == WARN_MAX)
		eql_warn("flows: further errors are only counted");
}

/* May another flow be issued?  Marks the end of arrivals when not. */
static bool may_issue(struct run *r, uint64_t at)
{
	if (r->arrivals_done)
		return false;
	if ((r->cfg->count && r->issued >= r->cfg->count) ||
	    (!r->cfg->count && at >= r->t_end)) {
		r->arrivals_done = true;
		return false;
	}
	return true;
}

static void flow_release(struct run *r, struct flow *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	f->st = F_FREE;
	r->free_slots[r->nfree++] = (unsigned int)(f - r->slot);
	r->inflight--;
	/* Closed loop: the worker starts its next flow at once. */
	if (!r->open_loop && may_issue(r, eql_now_ns())) {
		r->issued++;
		r->pending++;
	}
}

static void flow_fail(struct run *r, struct flow *f, const char *what, int errnum)
{
	flow_error(r, f, what, errnum);
	r->errors++;
	flow_release(r, f);
}

static void flow_done(struct run *r, struct flow *f, uint64_t now)
{
	struct eql_tcp_stats ts = { 0 };
	uint64_t fct = now - f->start_ns;

	eql_tcp_stats(f->fd, &ts);
	fprintf(r->cfg->out->f, "%llu\t%llu\t%llu\t%llu\t%u\n", (unsigned long long)f->id,
		(unsigned long long)f->start_ns, (unsigned long long)f->size,
		(unsigned long long)fct, ts.total_retrans);
	if (eql_samples_add(&r->fct, fct))
		eql_warn("flows: out of memory for FCTs; percentiles will miss flow %llu",
			 (unsigned long long)f->id);
	r->done++;
	r->bytes += f->size;
	flow_release(r, f);
}

static void flow_start(struct run *r)
{
	struct flow *f = &r->slot[r->free_slots[--r->nfree]];
	struct epoll_event ev = { .events = EPOLLOUT };
	struct eql_msg m;

	r->inflight++;
	f->id = r->next_id++;
	f->size = eql_dist_sample(r->cfg->dist, &r->size_rng);
	f->sent = 0;
	m = (struct eql_msg){ .resp_len = 1, .req_len = f->size };
	eql_msg_encode(f->hdr, &m);
	f->fd = eql_tcp_socket(&r->cfg->dst, r->cfg->cc, true, true);
	if (f->fd < 0) {
		r->errors++;
		flow_release(r, f);
		return;
	}
	f->start_ns = eql_now_ns();
	if (connect(f->fd, (const struct sockaddr *)&r->cfg->dst.ss, r->cfg->dst.len) == 0) {
		f->st = F_SENDING;
	} else if (errno == EINPROGRESS) {
		f->st = F_CONNECTING;
	} else {
		flow_fail(r, f, "connect", errno);
		return;
	}
	ev.data.u64 = (uint64_t)(f - r->slot);
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, f->fd, &ev))
		flow_fail(r, f, "epoll_ctl for", errno);
}

/* Writes what the socket takes; true once the whole message is out. */
static bool flow_send(struct run *r, struct flow *f)
{
	uint64_t total = EQL_MSG_HDR_LEN + f->size;

	for (int budget = SEND_BUDGET; budget > 0 && f->sent < total; budget--) {
		uint64_t payload_left = total - (f->sent > EQL_MSG_HDR_LEN ? f->sent : EQL_MSG_HDR_LEN);
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov };
		ssize_t n;

		if (f->sent < EQL_MSG_HDR_LEN) {
			iov[mh.msg_iovlen].iov_base = f->hdr + f->sent;
			iov[mh.msg_iovlen++].iov_len = EQL_MSG_HDR_LEN - f->sent;
		}
		if (payload_left) {
			iov[mh.msg_iovlen].iov_base = (void *)eql_zeros;
			iov[mh.msg_iovlen++].iov_len = payload_left < EQL_ZEROS_LEN ?
						       (size_t)payload_left : EQL_ZEROS_LEN;
		}
		n = sendmsg(f->fd, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno != EAGAIN && errno != EINTR)
				flow_fail(r, f, "send to", errno);
			return false;
		}
		f->sent += (uint64_t)n;
	}
	return f->sent == total;
}

static void flow_event(struct run *r, struct flow *f)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uint64_t)(f - r->slot) };
	int err = 0;
	socklen_t len = sizeof(err);
	uint8_t b;
	ssize_t n;

	switch (f->st) {
	case F_FREE:
		return;		/* an event queued before the flow failed */
	case F_CONNECTING:
		if (getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) {
			f->st = F_SENDING;
		} else {
			flow_fail(r, f, "connect", err ? err : errno);
			return;
		}
		/* fall through */
	case F_SENDING:
		if (!flow_send(r, f))
			return;		/* more later, or failed */
		f->st = F_WAITING;
		if (epoll_ctl(r->ep, EPOLL_CTL_MOD, f->fd, &ev))
			flow_fail(r, f, "epoll_ctl for", errno);
		return;
	case F_WAITING:
		n = recv(f->fd, &b, 1, 0);
		if (n == 1)
			flow_done(r, f, eql_now_ns());
		else if (n == 0)
			flow_fail(r, f, "answer from", ECONNRESET);
		else if (errno != EAGAIN && errno != EINTR)
			flow_fail(r, f, "answer from", errno);
		return;
	}
}

/* Open loop: every Poisson arrival due by now. */
static void arrivals(struct run *r, uint64_t now)
{
	while (r->next_arrival <= now && may_issue(r, r->next_arrival)) {
		r->issued++;
		if (r->inflight + r->pending >= r->cfg->concurrency)
			r->waited++;
		r->pending++;
		r->next_arrival += (uint64_t)eql_rng_exp(&r->gap_rng, r->gap_mean_ns) + 1;
	}
}

static void arm(struct run *r, uint64_t at)
{
	struct itimerspec its = { .it_value = eql_timespec(at) };

	if (at == r->armed)
		return;
	r->armed = at;
	timerfd_settime(r->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

/* Ends every flow still in flight (stop request, or the drain timed out). */
static void abandon(struct run *r)
{
	r->not_started += r->pending;
	r->pending = 0;
	for (unsigned int i = 0; i < r->cfg->concurrency; i++) {
		if (r->slot[i].st != F_FREE) {
			r->unfinished++;
			r->arrivals_done = true;	/* no replacement in closed loop */
			flow_release(r, &r->slot[i]);
		}
	}
}

static void loop(struct run *r, bool *interrupted)
{
	struct epoll_event evs[MAX_EVENTS];
	uint64_t drain_deadline = 0;

	for (;;) {
		uint64_t now = eql_now_ns(), wake = 0;
		int n;

		if (eql_stop_requested) {
			*interrupted = true;
			abandon(r);
			return;
		}
		if (!r->cfg->count && now >= r->t_end && !drain_deadline) {
			/* --duration: no new flows; queued ones never start. */
			r->arrivals_done = true;
			r->not_started += r->pending;
			r->pending = 0;
			drain_deadline = now + EQL_FLOWS_DRAIN_NS;
		}
		if (r->open_loop)
			arrivals(r, now);
		while (r->pending && r->nfree) {
			r->pending--;
			flow_start(r);
		}
		if (r->arrivals_done && !r->pending && !r->inflight)
			return;
		if (drain_deadline && now >= drain_deadline) {
			eql_warn("flows: %u flows still running %llu s after --duration; abandoned",
				 r->inflight, (unsigned long long)(EQL_FLOWS_DRAIN_NS / EQL_NS_PER_SEC));
			abandon(r);
			return;
		}
		if (r->open_loop && !r->arrivals_done)
			wake = r->next_arrival;
		if (!r->cfg->count && !drain_deadline && (!wake || r->t_end < wake))
			wake = r->t_end;
		if (drain_deadline && (!wake || drain_deadline < wake))
			wake = drain_deadline;
		arm(r, wake);

		n = epoll_wait(r->ep, evs, MAX_EVENTS, EQL_STOP_POLL_MS);
		for (int i = 0; i < n; i++) {
			if (evs[i].data.u64 == TIMER_TAG) {
				uint64_t ticks;

				/* Fails only with EAGAIN (re-armed since it fired): fine. */
				if (read(r->tfd, &ticks, sizeof(ticks)) < 0)
					ticks = 0;
				r->armed = 0;
				continue;
			}
			flow_event(r, &r->slot[evs[i].data.u64]);
		}
	}
}

static int setup(struct run *r, const struct eql_flows_cfg *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = TIMER_TAG };

	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->ep = r->tfd = -1;
	r->open_loop = cfg->load > 0;
	r->slot = calloc(cfg->concurrency, sizeof(*r->slot));
	r->free_slots = calloc(cfg->concurrency, sizeof(*r->free_slots));
	if (!r->slot || !r->free_slots) {
		eql_warn("flows: out of memory for %u flow slots", cfg->concurrency);
		return -1;
	}
	for (unsigned int i = 0; i < cfg->concurrency; i++) {
		r->slot[i].fd = -1;
		r->free_slots[r->nfree++] = cfg->concurrency - 1 - i;	/* slot 0 first */
	}
	eql_rng_seed(&r->size_rng, cfg->seed);
	eql_rng_seed(&r->gap_rng, cfg->seed + GAP_STREAM);
	if (r->open_loop)
		r->gap_mean_ns = eql_interarrival_ns(cfg->dist->mean, cfg->load, cfg->link_bps);
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (r->ep < 0 || r->tfd < 0 || epoll_ctl(r->ep, EPOLL_CTL_ADD, r->tfd, &ev)) {
		eql_warn_errno("flows: epoll/timerfd");
		return -1;
	}
	return 0;
}

static void teardown(struct run *r)
{
	if (r->ep >= 0)
		close(r->ep);
	if (r->tfd >= 0)
		close(r->tfd);
	free(r->slot);
	free(r->free_slots);
	eql_samples_free(&r->fct);
}

int eql_flows(const struct eql_flows_cfg *cfg)
{
	struct run r;
	bool interrupted = false;
	char w[256];
	uint64_t end;
	double mean = 0;
	int rc = 1;

	if (setup(&r, cfg))
		goto out;
	eql_out_meta(cfg->out, "tool=eqload mode=flows dst=%s cc=%s dist=%s mean_size=%.0f "
		     "arrivals=%s load=%g link_rate_bps=%llu concurrency=%u count=%llu "
		     "duration_ns=%llu seed=%llu start_at=%llu",
		     cfg->dst.text, cfg->cc_name, eql_out_word(cfg->dist_name, w, sizeof(w)),
		     cfg->dist->mean, r.open_loop ? "poisson" : "closed", cfg->load,
		     (unsigned long long)cfg->link_bps, cfg->concurrency,
		     (unsigned long long)cfg->count, (unsigned long long)cfg->duration_ns,
		     (unsigned long long)cfg->seed, (unsigned long long)cfg->start_at);
	eql_out_columns(cfg->out, "id\tstart_ns\tsize\tfct_ns\tretrans");
	fflush(cfg->out->f);

	r.t0 = eql_start_at(cfg->start_at, "flows");
	if (!r.t0) {
		interrupted = true;
		r.t0 = eql_now_ns();
	} else {
		r.t_end = r.t0 + cfg->duration_ns;
		if (r.open_loop) {
			r.next_arrival = r.t0 + (uint64_t)eql_rng_exp(&r.gap_rng, r.gap_mean_ns);
		} else {
			for (unsigned int i = 0; i < cfg->concurrency && may_issue(&r, r.t0); i++) {
				r.issued++;
				r.pending++;
			}
		}
		loop(&r, &interrupted);
	}
	end = eql_now_ns();

	eql_samples_sort(&r.fct);
	for (size_t i = 0; i < r.fct.n; i++)
		mean += (double)r.fct.v[i] / (double)r.fct.n;
	eql_out_summary(cfg->out, "flows=%llu bytes=%llu fct_mean_ns=%.0f fct_p50_ns=%llu "
			"fct_p99_ns=%llu fct_max_ns=%llu errors=%llu unfinished=%llu waited=%llu "
			"not_started=%llu start_ns=%llu end_ns=%llu interrupted=%d",
			(unsigned long long)r.done, (unsigned long long)r.bytes, mean,
			(unsigned long long)eql_samples_pct(&r.fct, 0.5),
			(unsigned long long)eql_samples_pct(&r.fct, 0.99),
			(unsigned long long)eql_samples_pct(&r.fct, 1.0),
			(unsigned long long)r.errors, (unsigned long long)r.unfinished,
			(unsigned long long)r.waited, (unsigned long long)r.not_started,
			(unsigned long long)r.t0, (unsigned long long)end, interrupted);
	if (interrupted)
		eql_warn("flows: interrupted after %llu flows", (unsigned long long)r.done);
	else if (r.errors || r.unfinished)
		eql_warn("flows: %llu of %llu flows did not complete",
			 (unsigned long long)(r.errors + r.unfinished),
			 (unsigned long long)(r.done + r.errors + r.unfinished));
	rc = interrupted || r.errors || r.unfinished ? 1 : 0;
out:
	teardown(&r);
	return rc;
}
