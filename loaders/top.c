// SPDX-License-Identifier: GPL-2.0-only
/*
 * edgeq top: a live view, refreshed every interval.  Two snapshots
 * (snapshot.h) an interval apart give the rates: per underlay peer the
 * bits and packets each way and, with an agent, its credit, backlog, data
 * in flight, smoothed RTT and what it repaired (retransmissions, NACKs,
 * RTOs, trimmed headers) and dropped at the edge; per attachment the
 * agent's health and every drop counter that moved, by reason.
 *
 * Plain text for a plain terminal (over ssh, in tmux): on a terminal the
 * screen is cleared and redrawn, and lines are cut at its width; into a
 * pipe or file, frames follow each other.  Ctrl-C ends it.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "cmd.h"
#include "snapshot.h"
#include "stats.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* What one line may hold: the terminal's width, or no limit. */
static int width(bool tty)
{
	struct winsize ws;

	if (tty && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return 0;
}

static void line(int w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(int w, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (w > 0 && (int)strlen(buf) > w)
		buf[w] = '\0';
	printf("%s\n", buf);
}

/* The same peer in the earlier snapshot, if it was there. */
/* The same peer in the last frame: at the same row, unless peers came or
 * went (a search of every row for every peer took 10,000 peers 10^8
 * steps a frame). */
static const struct eq_snap_peer *before(const struct eq_snap *old, const char *ifname,
					 __u32 slot, __u32 row)
{
	for (int i = 0; i < old->n; i++) {
		const struct eq_snap_att *o = &old->a[i];

		if (strcmp(o->ifname, ifname))
			continue;
		if (row < o->npeers && o->peers[row].slot == slot)
			return &o->peers[row];
		for (__u32 j = 0; j < o->npeers; j++)
			if (o->peers[j].slot == slot)
				return &o->peers[j];
	}
	return NULL;
}

static const struct eq_snap_att *att_before(const struct eq_snap *old, const char *ifname)
{
	for (int i = 0; i < old->n; i++)
		if (!strcmp(old->a[i].ifname, ifname))
			return &old->a[i];
	return NULL;
}

/* Per second, from two readings of a counter dt seconds apart (0 when it
 * went back: the agent restarted, the tunnel was freed). */
static double rate(__u64 now, __u64 then, double dt)
{
	return now >= then && dt > 0 ? (double)(now - then) / dt : 0;
}

static void show_att(const struct eq_snap_att *t, const struct eq_snap *old, double dt, int w)
{
	const struct eq_snap_att *o = att_before(old, t->ifname);
	char drops[512] = "";
	size_t n = 0;

	if (t->eqds && t->alive)
		line(w, "%s: scheme eqds, agent pid %u up (heartbeat %.0f ms ago), link %.2f Gbit/s",
		     t->ifname, t->ag.pid, t->age_ns / 1e6, t->c.link_rate_bps / 1e9);
	else if (t->eqds)
		line(w, "%s: scheme eqds, AGENT DOWN (traffic follows on_agent_down), link %.2f Gbit/s",
		     t->ifname, t->c.link_rate_bps / 1e9);
	else
		line(w, "%s: scheme none, link %.2f Gbit/s", t->ifname, t->c.link_rate_bps / 1e9);
	/* Three short lines a peer, each within 80 columns. */
	for (__u32 j = 0; j < t->npeers; j++) {
		const struct eq_snap_peer *p = &t->peers[j], *q = before(old, t->ifname, p->slot, j);
		/* A peer new since the last frame: no rate yet (its counters
		 * against zero would be all it ever did, as per second). */
		if (!q)
			q = p;
		line(w, "  %-18s tx %7.1f Mb/s %6.0f pkt/s  rx %7.1f Mb/s %6.0f pkt/s",
		     p->via, rate(p->st.tx_bytes, q->st.tx_bytes, dt) * 8 / 1e6,
		     rate(p->st.tx_packets, q->st.tx_packets, dt),
		     rate(p->st.rx_bytes, q->st.rx_bytes, dt) * 8 / 1e6,
		     rate(p->st.rx_packets, q->st.rx_packets, dt));
		if (!p->has_agent) {
			line(w, "    scheme none: the plain tunnel");
			continue;
		}
		const struct eq_agent_peer *a = &p->a, *b = &q->a;

		line(w, "    srtt %u us  credit %.0f KB  backlog %u pkts  in flight %.0f KB", a->srtt_us,
		     a->credit / 1e3, a->backlog_pkts, a->inflight_bytes / 1e3);
		line(w, "    per s: rtx %.0f  nack %.0f  rto %.0f  trimmed %.0f  edge drops %.0f",
		     rate(a->tx_rtx, b->tx_rtx, dt), rate(a->rx_nacks, b->rx_nacks, dt),
		     rate(a->rto_fired, b->rto_fired, dt), rate(a->rx_trimmed, b->rx_trimmed, dt),
		     rate(a->edge_drops, b->edge_drops, dt));
	}
	if (!t->npeers)
		line(w, "  (no peers)");
	/* Drops by reason: every counter of a drop that moved. */
	for (size_t i = 0; i < eq_stat_count && n < sizeof(drops) - 64; i++) {
		const char *name = eq_stat_names[i];
		__u64 now = eq_stat_get(&t->s, i), then = o ? eq_stat_get(&o->s, i) : now;

		if (strncmp(name, "rx_drop_", 8) && strncmp(name, "tx_err_", 7) &&
		    strcmp(name, "tx_backpressure") && strcmp(name, "rx_agent_err") &&
		    strcmp(name, "agent_rx_err") && strcmp(name, "rx_agent_too_big") &&
		    strcmp(name, "tx_agent_down") && strcmp(name, "rx_agent_down"))
			continue;
		if (now > then)
			n += (size_t)snprintf(drops + n, sizeof(drops) - n, " %s %.0f/s", name,
					      rate(now, then, dt));
	}
	line(w, "  drops:%s", n ? drops : " none");
}

static void frame(const struct eq_snap *now, const struct eq_snap *old, double interval, bool tty)
{
	int w = width(tty);
	double dt = (now->taken_ns - old->taken_ns) / 1e9;
	time_t wall = time(NULL);
	char hms[16];

	strftime(hms, sizeof(hms), "%H:%M:%S", localtime(&wall));
	if (tty)
		printf("\033[H\033[2J");
	line(w, "edgeq top  %s  every %.1f s  (rates over %.2f s; Ctrl-C ends)", hms, interval, dt);
	for (int i = 0; i < now->n; i++) {
		printf("\n");
		show_att(&now->a[i], old, dt, w);
	}
	if (!now->n)
		line(w, "edgeq is not attached to any interface");
	if (!tty)
		printf("\n");
	fflush(stdout);
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (!stop && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cmd_top(const struct eq_opts *o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	bool tty = isatty(STDOUT_FILENO);
	struct eq_snap old, now;
	int rc;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = eq_snap_read(o->ifname, &old);
	if (rc < 0)
		return eq_not_attached(o->ifname);
	for (unsigned long k = 0; !stop && (!o->count || k < o->count); k++) {
		nap(o->interval);
		if (stop)
			break;
		rc = eq_snap_read(o->ifname, &now);
		if (rc < 0) {
			eq_snap_free(&old);
			return eq_not_attached(o->ifname);
		}
		frame(&now, &old, o->interval, tty);
		eq_snap_free(&old);
		old = now;
	}
	eq_snap_free(&old);
	return 0;
}
