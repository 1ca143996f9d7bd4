// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attachment points.  XDP goes through libxdp so that edgeq can share
 * the interface with other XDP programs through its dispatcher; where the
 * dispatcher cannot load (this host refuses freplace programs), libxdp
 * falls back to attaching our program alone, and we record which happened.
 * TC egress uses libbpf's bpf_tc_* on a clsact qdisc, created only if the
 * interface has none, so that detach can remove exactly what attach made.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <xdp/libxdp.h>
#include "cmd.h"

__u32 eq_prog_id(int prog_fd)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	return info.id;
}

/* Is our program (by id) on the interface, alone or under a dispatcher? */
bool eq_xdp_is_ours(int ifindex, int prog_fd)
{
	__u32 id = eq_prog_id(prog_fd);
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	bool found = false;

	if (!id)
		return false;
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (libxdp_get_error(mp))
		return false;
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		found = p && xdp_program__id(p) == id;
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp))
			if (xdp_program__id(p) == id)
				found = true;
	}
	xdp_multiprog__close(mp);
	return found;
}

static int try_attach(struct xdp_program *p, int ifindex, enum xdp_attach_mode m)
{
	return xdp_program__attach(p, ifindex, m, 0);
}

/* obj is opened but not loaded: libxdp loads it, as an freplace extension
 * of its dispatcher when the kernel allows that (a program already loaded
 * as plain XDP cannot join a dispatcher), else as a plain XDP program. */
int eq_xdp_attach(int ifindex, struct bpf_object *obj, const char *mode, struct eq_config *cfg,
		  char *err, size_t errlen)
{
	struct xdp_program *p = xdp_program__from_bpf_obj(obj, "xdp");
	struct xdp_multiprog *mp;
	int rc = -EINVAL;

	if (libxdp_get_error(p)) {
		snprintf(err, errlen, "libxdp cannot use the XDP program: %s",
			 strerror(-(int)libxdp_get_error(p)));
		return -EINVAL;
	}
	if (!strcmp(mode, "native") || !strcmp(mode, "auto")) {
		rc = try_attach(p, ifindex, XDP_MODE_NATIVE);
		if (!rc)
			cfg->xdp_mode = EQ_XDP_NATIVE;
	}
	if (rc && (!strcmp(mode, "generic") || !strcmp(mode, "auto"))) {
		rc = try_attach(p, ifindex, XDP_MODE_SKB);
		if (!rc)
			cfg->xdp_mode = EQ_XDP_GENERIC;
	}
	if (rc) {
		if (rc == -EEXIST || rc == -EBUSY)
			snprintf(err, errlen, "the interface already has an XDP program that libxdp cannot "
				 "share (see 'ip link show'); detach it first");
		else
			snprintf(err, errlen, "cannot attach XDP (%s mode): %s", mode, strerror(-rc));
		xdp_program__close(p);
		return rc;
	}
	mp = xdp_multiprog__get_from_ifindex(ifindex);
	if (!libxdp_get_error(mp)) {
		if (!xdp_multiprog__is_legacy(mp))
			cfg->flags |= EQ_CFG_XDP_MULTIPROG;
		xdp_multiprog__close(mp);
	}
	xdp_program__close(p);	/* the kernel keeps the attachment; obj stays ours */
	return 0;
}

int eq_xdp_detach(int ifindex, int prog_fd, const struct eq_config *cfg)
{
	enum xdp_attach_mode m = cfg->xdp_mode == EQ_XDP_GENERIC ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	struct xdp_program *p;
	int rc;

	if (!eq_xdp_is_ours(ifindex, prog_fd))
		return 0;
	if (cfg->xdp_mode == EQ_XDP_NONE) {
		/* Attached, but a crash came before the mode was recorded
		 * ("auto" may have fallen back to generic): ask the kernel. */
		struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);

		if (!libxdp_get_error(mp)) {
			if (xdp_multiprog__attach_mode(mp) == XDP_MODE_SKB)
				m = XDP_MODE_SKB;
			xdp_multiprog__close(mp);
		}
	}
	p = xdp_program__from_fd(prog_fd);
	if (libxdp_get_error(p))
		return (int)libxdp_get_error(p);
	rc = xdp_program__detach(p, ifindex, m, 0);
	xdp_program__close(p);
	return rc;
}

/* An attach killed after libxdp attached the XDP program but before it was
 * pinned leaves a program nobody can find by pin.  Teardown of that stale
 * attachment calls this: remove a program named xdp_ingress (ours: the
 * name is the function's in bpf/xdp_ingress.bpf.c), alone or under the
 * dispatcher, from this interface.  0, or -errno. */
int eq_xdp_detach_orphan(int ifindex)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p, *found = NULL;
	enum xdp_attach_mode m;
	int rc = 0;

	if (libxdp_get_error(mp))
		return 0;	/* no XDP program at all */
	m = xdp_multiprog__attach_mode(mp);
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), "xdp_ingress"))
			found = p;
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp))
			if (!strcmp(xdp_program__name(p), "xdp_ingress"))
				found = p;
	}
	if (found) {
		struct xdp_program *q = xdp_program__from_id(xdp_program__id(found));

		rc = libxdp_get_error(q) ? (int)libxdp_get_error(q) : xdp_program__detach(q, ifindex, m, 0);
		if (!libxdp_get_error(q))
			xdp_program__close(q);
	}
	xdp_multiprog__close(mp);
	return rc;
}

static void tc_hook(struct bpf_tc_hook *h, int ifindex)
{
	memset(h, 0, sizeof(*h));
	h->sz = sizeof(*h);
	h->ifindex = ifindex;
	h->attach_point = BPF_TC_EGRESS;
}

bool eq_tc_is_ours(int ifindex, int prog_fd, const struct eq_config *cfg)
{
	LIBBPF_OPTS(bpf_tc_opts, q, .handle = cfg->tc_handle, .priority = cfg->tc_priority);
	struct bpf_tc_hook h;
	__u32 id = eq_prog_id(prog_fd);

	tc_hook(&h, ifindex);
	return id && cfg->tc_handle && bpf_tc_query(&h, &q) == 0 && q.prog_id == id;
}

/* 1 when the interface has a clsact (or ingress) qdisc, 0 when it has
 * none, -errno.  libbpf has no query for this (bpf_tc_query() says EINVAL
 * both for "no qdisc" and "no filter chain"): dump the qdiscs. */
static int clsact_present(int ifindex)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)), .nlmsg_type = RTM_GETQDISC,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		.tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex },
	};
	static char buf[32768];	/* the kernel sizes dump messages to fit */
	int fd, rc = 0, found = 0;
	ssize_t n;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (send(fd, &req, req.nh.nlmsg_len, 0) < 0) {
		rc = -errno;
		goto out;
	}
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			rc = -errno;
			goto out;
		}
		for (struct nlmsghdr *nh = (void *)buf; NLMSG_OK(nh, (size_t)n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_type == NLMSG_DONE) {
				rc = found;
				goto out;
			}
			if (nh->nlmsg_type == NLMSG_ERROR) {
				rc = ((struct nlmsgerr *)NLMSG_DATA(nh))->error;
				goto out;
			}
			struct tcmsg *t = NLMSG_DATA(nh);

			/* clsact and ingress both sit at parent ffff:fff1. */
			if (nh->nlmsg_type == RTM_NEWQDISC && t->tcm_ifindex == ifindex &&
			    t->tcm_parent == TC_H_INGRESS)
				found = 1;
		}
	}
out:
	close(fd);
	return rc;
}

/* Every step is recorded in the pinned config (m) before it is taken, so
 * that a crash between two steps leaves nothing teardown() cannot find:
 * it removes the filter only if it runs our program (by id), and the
 * clsact only if there was none before.  Recording after the fact left an
 * unrecorded clsact and filter behind when `edgeq attach` was killed here;
 * the filter then kept the old program running and made every later
 * attach fail with "filter ... already exists". */
int eq_tc_attach(int ifindex, int prog_fd, struct eq_config *cfg, const struct eq_maps *m,
		 char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = EQ_TC_HANDLE, .priority = EQ_TC_PRIO, .prog_fd = prog_fd);
	struct bpf_tc_hook h;
	int rc;

	tc_hook(&h, ifindex);
	rc = clsact_present(ifindex);
	if (rc < 0) {
		snprintf(err, errlen, "cannot list the qdiscs: %s", strerror(-rc));
		return rc;
	}
	if (rc == 0)
		cfg->flags |= EQ_CFG_CREATED_CLSACT;
	cfg->tc_handle = EQ_TC_HANDLE;
	cfg->tc_priority = EQ_TC_PRIO;
	rc = eq_config_write(m, cfg);
	if (rc) {
		snprintf(err, errlen, "cannot write the pinned config: %s", strerror(-rc));
		goto undo;
	}
	rc = bpf_tc_hook_create(&h);
	if (rc == -EEXIST && (cfg->flags & EQ_CFG_CREATED_CLSACT)) {
		cfg->flags &= ~EQ_CFG_CREATED_CLSACT;	/* someone else made one meanwhile */
		eq_config_write(m, cfg);
	} else if (rc && rc != -EEXIST) {
		snprintf(err, errlen, "cannot create the clsact qdisc: %s", strerror(-rc));
		goto undo;
	}
	rc = bpf_tc_attach(&h, &o);
	if (rc) {
		snprintf(err, errlen, rc == -EEXIST ?
			 "a TC egress filter with handle/priority 0x%x already exists" :
			 "cannot attach the TC egress program (handle/priority 0x%x): %s",
			 EQ_TC_HANDLE, strerror(-rc));
		goto undo;
	}
	return 0;

undo:
	if (cfg->flags & EQ_CFG_CREATED_CLSACT) {
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h);
	}
	cfg->flags &= ~EQ_CFG_CREATED_CLSACT;
	cfg->tc_handle = 0;
	cfg->tc_priority = 0;
	eq_config_write(m, cfg);
	return rc;
}

int eq_tc_detach(int ifindex, int prog_fd, const struct eq_config *cfg)
{
	LIBBPF_OPTS(bpf_tc_opts, o, .handle = cfg->tc_handle, .priority = cfg->tc_priority);
	struct bpf_tc_hook h;
	int rc = 0;

	tc_hook(&h, ifindex);
	if (eq_tc_is_ours(ifindex, prog_fd, cfg))
		rc = bpf_tc_detach(&h, &o);
	if (cfg->flags & EQ_CFG_CREATED_CLSACT) {
		/* Destroying the clsact hook removes the whole qdisc. */
		h.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&h);
	}
	return rc;
}
