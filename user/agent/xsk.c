// SPDX-License-Identifier: GPL-2.0-only
/* The agent's AF_XDP sockets (libxdp xsk API). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <xdp/xsk.h>
#include "edgeq/maps.h"
#include "xsk.h"

#define RING		2048	/* the TX and completion rings; the RX and fill
				 * rings hold what the socket receives into */

struct eq_xsk_rings {
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
};

static int try_open(struct eq_xsk *x, struct eq_xsk_rings *r, bool zc)
{
	struct xsk_socket_config scfg = {
		.rx_size = x->rx_frames, .tx_size = RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = (zc ? XDP_ZEROCOPY : XDP_COPY) | XDP_USE_NEED_WAKEUP,
	};

	return xsk_socket__create(&x->xsk, x->ifname, x->queue, x->umem, &r->rx, &r->tx, &scfg);
}

int eq_xsk_open(struct eq_xsk *x, const char *ifname, uint32_t queue, int xskmap_fd,
		uint32_t key, uint32_t frame_size, bool try_zero_copy, uint32_t rx_frames,
		uint32_t tx_frames, char *err, size_t errlen)
{
	struct xsk_umem_config ucfg = {
		.fill_size = rx_frames, .comp_size = RING, .frame_size = frame_size,
	};
	struct eq_xsk_rings *r;
	uint32_t idx;
	int e, fd;

	memset(x, 0, sizeof(*x));
	snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
	x->frame_size = frame_size;
	x->queue = queue;
	if (!rx_frames || (rx_frames & (rx_frames - 1)) || tx_frames > RING) {
		snprintf(err, errlen, "%s: %u receive frames (a power of two) and %u to send "
			 "(at most %u)", ifname, rx_frames, tx_frames, RING);
		return -1;
	}
	x->nframes = rx_frames + tx_frames;
	x->rx_frames = rx_frames;
	r = calloc(1, sizeof(*r));
	x->tx_free = calloc(x->nframes - x->rx_frames + 1, sizeof(uint64_t));
	x->rings = r;
	if (!r || !x->tx_free) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	x->area = mmap(NULL, (size_t)x->nframes * frame_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		snprintf(err, errlen, "UMEM for %s: %s", ifname, strerror(errno));
		goto fail;
	}
	e = xsk_umem__create(&x->umem, x->area, (uint64_t)x->nframes * frame_size,
			     &r->fill, &r->comp, &ucfg);
	if (e) {
		snprintf(err, errlen, "UMEM for %s: %s", ifname, strerror(-e));
		goto fail;
	}
	e = -EOPNOTSUPP;
	if (try_zero_copy)
		e = try_open(x, r, true);
	x->zero_copy = !e;
	if (e)
		e = try_open(x, r, false);
	/* A socket closed a moment ago (the agent before a restart, a
	 * detach just before this attach) releases its queue from deferred
	 * kernel work: the queue is busy for a few milliseconds more.  Wait
	 * for it, up to 2 s, rather than fail the attach. */
	for (int i = 0; e == -EBUSY && i < 200; i++) {
		usleep(10000);
		e = try_open(x, r, false);
	}
	if (e) {
		snprintf(err, errlen, "AF_XDP socket on %s queue %u: %s", ifname, queue, strerror(-e));
		goto fail;
	}
	fd = xsk_socket__fd(x->xsk);
	if (bpf_map_update_elem(xskmap_fd, &key, &fd, 0)) {
		snprintf(err, errlen, "putting the %s socket into eq_xsks: %s", ifname, strerror(errno));
		goto fail;
	}
	if (xsk_ring_prod__reserve(&r->fill, x->rx_frames, &idx) != x->rx_frames) {
		snprintf(err, errlen, "fill ring of %s", ifname);
		goto fail;
	}
	for (uint32_t i = 0; i < x->rx_frames; i++)
		*xsk_ring_prod__fill_addr(&r->fill, idx + i) = (uint64_t)i * frame_size;
	xsk_ring_prod__submit(&r->fill, x->rx_frames);
	for (uint32_t i = x->rx_frames; i < x->nframes; i++)
		x->tx_free[x->n_tx_free++] = (uint64_t)i * frame_size;
	return 0;
fail:
	eq_xsk_close(x);
	return -1;
}

void eq_xsk_close(struct eq_xsk *x)
{
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area)
		munmap(x->area, (size_t)x->nframes * x->frame_size);
	free(x->tx_free);
	free(x->rings);
	memset(x, 0, sizeof(*x));
}

int eq_xsk_fd(const struct eq_xsk *x)
{
	return xsk_socket__fd(x->xsk);
}

void eq_xsk_counters(const struct eq_xsk *x, struct eq_xsk_stats *c)
{
	struct xdp_statistics st = { 0 };
	socklen_t len = sizeof(st);

	memset(c, 0, sizeof(*c));
	if (!x->xsk)
		return;
	if (!getsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_STATISTICS, &st, &len)) {
		c->rx_dropped = st.rx_dropped;
		c->rx_invalid = st.rx_invalid_descs;
		c->rx_ring_full = st.rx_ring_full;
		c->rx_fill_empty = st.rx_fill_ring_empty_descs;
		c->tx_invalid = st.tx_invalid_descs;
	}
	c->rx_pkts = x->rx_pkts;
	c->tx_pkts = x->tx_pkts;
	c->tx_no_room = x->tx_drop;
}

unsigned int eq_xsk_rx(struct eq_xsk *x, unsigned int budget,
		       void (*cb)(void *ctx, uint8_t *frame, uint32_t len), void *ctx)
{
	struct eq_xsk_rings *r = x->rings;
	uint32_t idx_rx = 0, idx_fill = 0;
	unsigned int n = xsk_ring_cons__peek(&r->rx, budget, &idx_rx);

	if (!n)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&r->rx, idx_rx + i);

		cb(ctx, xsk_umem__get_data(x->area, d->addr), d->len);
	}
	/* The frames go straight back to the kernel: cb copied what it keeps. */
	while (xsk_ring_prod__reserve(&r->fill, n, &idx_fill) != n)
		;	/* cannot fail: fill + rx together hold exactly rx_frames */
	for (unsigned int i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&r->rx, idx_rx + i);

		*xsk_ring_prod__fill_addr(&r->fill, idx_fill + i) = xsk_umem__extract_addr(d->addr);
	}
	xsk_ring_prod__submit(&r->fill, n);
	xsk_ring_cons__release(&r->rx, n);
	x->rx_pkts += n;
	return n;
}

static void reclaim(struct eq_xsk *x)
{
	struct eq_xsk_rings *r = x->rings;
	uint32_t idx;
	unsigned int n = xsk_ring_cons__peek(&r->comp, RING, &idx);

	for (unsigned int i = 0; i < n; i++)
		x->tx_free[x->n_tx_free++] = *xsk_ring_cons__comp_addr(&r->comp, idx + i);
	xsk_ring_cons__release(&r->comp, n);
}

int eq_xsk_tx(struct eq_xsk *x, const uint8_t *frame, uint32_t len)
{
	struct eq_xsk_rings *r = x->rings;
	struct xdp_desc *d;
	uint32_t idx;
	uint64_t addr;

	if (!x->n_tx_free)
		reclaim(x);
	if (!x->n_tx_free)
		eq_xsk_flush(x);	/* a full ring: push it out, then retry */
	if (!x->n_tx_free || len > x->frame_size || xsk_ring_prod__reserve(&r->tx, 1, &idx) != 1) {
		x->tx_drop++;
		return -1;
	}
	addr = x->tx_free[--x->n_tx_free];
	memcpy(xsk_umem__get_data(x->area, addr), frame, len);
	d = xsk_ring_prod__tx_desc(&r->tx, idx);
	d->addr = addr;
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&r->tx, 1);
	x->tx_pending++;
	x->tx_pkts++;
	return 0;
}

bool eq_xsk_tx_done(struct eq_xsk *x)
{
	if (!x->xsk)
		return true;
	reclaim(x);
	return x->n_tx_free == x->nframes - x->rx_frames;
}

static uint32_t tx_outstanding(const struct xsk_ring_prod *tx)
{
	return tx->cached_prod - __atomic_load_n(tx->consumer, __ATOMIC_ACQUIRE);
}

void eq_xsk_flush(struct eq_xsk *x)
{
	struct eq_xsk_rings *r = x->rings;

	/* Copy mode sends from sendto(), a bounded batch per call: kick
	 * until the kernel has taken everything or stops making progress. */
	for (int tries = 0; x->tx_pending && tx_outstanding(&r->tx) && tries < 64; tries++)
		if (sendto(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
			break;
	x->tx_pending = tx_outstanding(&r->tx);
	reclaim(x);
}
