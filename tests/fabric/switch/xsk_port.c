// SPDX-License-Identifier: GPL-2.0-only
/* AF_XDP switch ports on veth, through libxdp's xsk API. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include "xsk_redirect.skel.h"
#include "switch/xsk_port.h"

#define FRAME_SIZE	2048
/* A deep receive ring: frames carry their arrival time, so reading them
 * late costs nothing but memory, while a full ring loses them. */
#define NUM_FRAMES	4096
#define RX_FRAMES	2048		/* frames [0, RX_FRAMES) circulate fill -> rx */
#define RING		2048

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto out; } while (0)

/* Runs the port setup inside the switch's namespace; sockets and XDP
 * attachments stay bound to the device after we return to ours. */
static int enter_ns(const char *ns, int *saved)
{
	char path[128];
	int fd;

	*saved = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || *saved < 0 || setns(fd, CLONE_NEWNET)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

static void leave_ns(int saved)
{
	if (saved >= 0) {
		if (setns(saved, CLONE_NEWNET))
			perror("eqswitch: setns back");
		close(saved);
	}
}

int xsk_port_open(struct xsk_port *xp, const char *ns, const char *ifname, char *err, size_t errlen)
{
	struct xsk_umem_config ucfg = {
		.fill_size = RING, .comp_size = RING, .frame_size = FRAME_SIZE,
		.frame_headroom = 0, .flags = 0,
	};
	struct xsk_socket_config scfg = {
		.rx_size = RING, .tx_size = RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = XDP_FLAGS_DRV_MODE,
		.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP,
	};
	int saved = -1, ret = -1, e;
	uint32_t idx;

	memset(xp, 0, sizeof(*xp));
	snprintf(xp->ns, sizeof(xp->ns), "%s", ns);
	snprintf(xp->ifname, sizeof(xp->ifname), "%s", ifname);
	if (enter_ns(ns, &saved))
		FAIL("netns %s: %s (is the fabric up?)", ns, strerror(errno));
	xp->ifindex = (int)if_nametoindex(ifname);
	if (!xp->ifindex)
		FAIL("%s in netns %s: no such interface", ifname, ns);
	xp->skel = xsk_redirect__open_and_load();
	if (!xp->skel)
		FAIL("loading the port XDP program: %s", strerror(errno));
	e = bpf_xdp_attach(xp->ifindex, bpf_program__fd(xp->skel->progs.xsk_redirect),
			   XDP_FLAGS_DRV_MODE, NULL);
	if (e)
		FAIL("attaching XDP to %s in %s: %s (another XDP program there?)",
		     ifname, ns, strerror(-e));
	xp->xdp_attached = 1;
	xp->area = mmap(NULL, (size_t)NUM_FRAMES * FRAME_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (xp->area == MAP_FAILED) {
		xp->area = NULL;
		FAIL("UMEM for %s: %s", ifname, strerror(errno));
	}
	e = xsk_umem__create(&xp->umem, xp->area, (uint64_t)NUM_FRAMES * FRAME_SIZE,
			     &xp->fill, &xp->comp, &ucfg);
	if (e)
		FAIL("UMEM for %s: %s", ifname, strerror(-e));
	e = xsk_socket__create(&xp->xsk, ifname, 0, xp->umem, &xp->rx, &xp->tx, &scfg);
	if (e)
		FAIL("AF_XDP socket on %s in %s: %s", ifname, ns, strerror(-e));
	e = xsk_socket__update_xskmap(xp->xsk, bpf_map__fd(xp->skel->maps.xsks));
	if (e)
		FAIL("XSKMAP for %s: %s", ifname, strerror(-e));
	if (xsk_ring_prod__reserve(&xp->fill, RX_FRAMES, &idx) != RX_FRAMES)
		FAIL("fill ring of %s", ifname);
	for (uint32_t i = 0; i < RX_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&xp->fill, idx + i) = (uint64_t)i * FRAME_SIZE;
	xsk_ring_prod__submit(&xp->fill, RX_FRAMES);
	xp->tx_free = calloc(NUM_FRAMES - RX_FRAMES, sizeof(uint64_t));
	if (!xp->tx_free)
		FAIL("out of memory");
	for (uint32_t i = RX_FRAMES; i < NUM_FRAMES; i++)
		xp->tx_free[xp->n_tx_free++] = (uint64_t)i * FRAME_SIZE;
	ret = 0;
out:
	leave_ns(saved);
	if (ret)
		xsk_port_close(xp);
	return ret;
}

void xsk_port_close(struct xsk_port *xp)
{
	int saved = -1;

	if (xp->xsk)
		xsk_socket__delete(xp->xsk);
	if (xp->umem)
		xsk_umem__delete(xp->umem);
	if (xp->area)
		munmap(xp->area, (size_t)NUM_FRAMES * FRAME_SIZE);
	if (xp->xdp_attached && !enter_ns(xp->ns, &saved))
		bpf_xdp_detach(xp->ifindex, XDP_FLAGS_DRV_MODE, NULL);
	leave_ns(saved);
	if (xp->skel)
		xsk_redirect__destroy(xp->skel);
	free(xp->tx_free);
	memset(xp, 0, sizeof(*xp));
}

/* Frames the kernel could not give us (ring full, no fill frame):
 * XDP_STATISTICS of the socket. */
uint64_t xsk_port_rx_lost(const struct xsk_port *xp)
{
	struct xdp_statistics st;
	socklen_t len = sizeof(st);

	if (getsockopt(xsk_socket__fd(xp->xsk), SOL_XDP, XDP_STATISTICS, &st, &len))
		return 0;
	return st.rx_dropped + st.rx_ring_full + st.rx_fill_ring_empty_descs;
}

int xsk_port_fd(const struct xsk_port *xp)
{
	return xsk_socket__fd(xp->xsk);
}

/* The stamp is trusted within a second of `now` (frames stamped after the
 * loop read its clock are newer than `now`: that is fine). */
static uint64_t arrival(struct xsk_port *xp, const uint8_t *data, uint64_t now)
{
	uint64_t t;

	memcpy(&t, data - sizeof(t), sizeof(t));
	if (t > now + 1000000000ULL || t + 1000000000ULL < now) {
		xp->rx_unstamped++;
		return now;
	}
	return t;
}

unsigned int xsk_port_rx(struct xsk_port *xp, unsigned int budget, uint64_t now,
			 void (*cb)(void *ctx, const uint8_t *frame, uint32_t len, uint64_t t),
			 void *ctx)
{
	uint32_t idx_rx = 0, idx_fill = 0;
	unsigned int n = xsk_ring_cons__peek(&xp->rx, budget, &idx_rx);

	if (!n)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&xp->rx, idx_rx + i);

		const uint8_t *data = xsk_umem__get_data(xp->area, d->addr);

		cb(ctx, data, d->len, arrival(xp, data, now));
	}
	/* Give the same frames straight back to the kernel: we copied them. */
	while (xsk_ring_prod__reserve(&xp->fill, n, &idx_fill) != n)
		;	/* cannot fail: fill + rx together hold exactly RX_FRAMES */
	for (unsigned int i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&xp->rx, idx_rx + i);

		*xsk_ring_prod__fill_addr(&xp->fill, idx_fill + i) = xsk_umem__extract_addr(d->addr);
	}
	xsk_ring_prod__submit(&xp->fill, n);
	xsk_ring_cons__release(&xp->rx, n);
	xp->rx_pkts += n;
	return n;
}

static void reclaim(struct xsk_port *xp)
{
	uint32_t idx;
	unsigned int n = xsk_ring_cons__peek(&xp->comp, RING, &idx);

	for (unsigned int i = 0; i < n; i++)
		xp->tx_free[xp->n_tx_free++] = *xsk_ring_cons__comp_addr(&xp->comp, idx + i);
	xsk_ring_cons__release(&xp->comp, n);
}

int xsk_port_tx(struct xsk_port *xp, const uint8_t *frame, uint32_t len)
{
	struct xdp_desc *d;
	uint32_t idx;
	uint64_t addr;

	if (!xp->n_tx_free)
		reclaim(xp);
	if (!xp->n_tx_free || len > FRAME_SIZE || xsk_ring_prod__reserve(&xp->tx, 1, &idx) != 1) {
		xp->tx_drop++;
		return -1;
	}
	addr = xp->tx_free[--xp->n_tx_free];
	memcpy(xsk_umem__get_data(xp->area, addr), frame, len);
	d = xsk_ring_prod__tx_desc(&xp->tx, idx);
	d->addr = addr;
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&xp->tx, 1);
	xp->tx_pending++;
	xp->tx_pkts++;
	return 0;
}

/* Descriptors in the TX ring that the kernel has not taken yet. */
static uint32_t tx_outstanding(const struct xsk_ring_prod *tx)
{
	return tx->cached_prod - __atomic_load_n(tx->consumer, __ATOMIC_ACQUIRE);
}

void xsk_port_flush(struct xsk_port *xp)
{
	/* Copy mode sends from sendto(), a bounded batch per call: kick
	 * until the kernel has taken everything (or stops making progress). */
	for (int tries = 0; xp->tx_pending && tx_outstanding(&xp->tx) && tries < 64; tries++)
		if (sendto(xsk_socket__fd(xp->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
			break;
	xp->tx_pending = tx_outstanding(&xp->tx);
	reclaim(xp);
}
