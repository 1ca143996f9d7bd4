// SPDX-License-Identifier: GPL-2.0-only
/*
 * The internal veth pairs of `scheme eqds` (docs/agent.md): eqa<ifindex> is
 * where TC egress redirects encapsulated packets, and where tc_deliver
 * moves the agent's deliveries into the stack of the attached interface;
 * eqb<ifindex> is the agent's end, with
 * xdp_agent feeding its AF_XDP host socket.  eqc<ifindex> is where TC
 * clones its fast sends (docs/eqds.md, "The fast path"), eqd<ifindex> the
 * agent's end, feeding its copy socket: a pair of its own, so that copies
 * land in a socket the agent does not sleep on.
 *
 * eqa and eqc have no scatter-gather, TSO, GSO or checksum offload: the
 * kernel then segments and checksums every packet as it leaves them, so
 * the agent only ever sees complete frames of at most the wire MTU, which
 * it can send with AF_XDP as they are.  And they have a queue (pfifo):
 * a veth whose peer runs XDP hands packets over through a ring of 256,
 * and without a qdisc drops what finds it full; with one, Linux 6.16 and
 * later stop the queue instead, and the packet waits.  A copy dropped so
 * is a fast send the agent cannot resend (on a veth pair at 2.5 Gbit/s,
 * 1,200 in 4 s), and a packet handed to the agent and dropped so stalls
 * the lease until an RTO.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "cmd.h"
#include "xdp_agent.skel.h"
#include "tc_deliver.skel.h"

void eq_agent_veth_names(int ifindex, char a[IF_NAMESIZE], char b[IF_NAMESIZE])
{
	snprintf(a, IF_NAMESIZE, "eqa%d", ifindex);
	snprintf(b, IF_NAMESIZE, "eqb%d", ifindex);
}

static void copy_veth_names(int ifindex, char c[IF_NAMESIZE], char d[IF_NAMESIZE])
{
	snprintf(c, IF_NAMESIZE, "eqc%d", ifindex);
	snprintf(d, IF_NAMESIZE, "eqd%d", ifindex);
}

static int ethtool_off(int fd, const char *ifname, __u32 cmd)
{
	struct ethtool_value v = { .cmd = cmd, .data = 0 };
	struct ifreq ifr = {};

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&v;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static int offloads_off(const char *ifname)
{
	/* SG first: TSO and GSO depend on it and go with it. */
	static const __u32 cmds[] = { ETHTOOL_SSG, ETHTOOL_STSO, ETHTOOL_SGSO, ETHTOOL_STXCSUM };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]) && !rc; i++)
		rc = ethtool_off(fd, ifname, cmds[i]);
	close(fd);
	return rc;
}

static int ip(char *err, size_t len, const char *what, char *const argv[])
{
	char out[512];
	int rc = eq_run_ip(argv, out, sizeof(out));

	if (rc) {
		out[strcspn(out, "\n")] = '\0';
		if (rc < 0)
			snprintf(err, len, "%s: cannot run %s (install iproute2)", what, argv[0]);
		else
			snprintf(err, len, "%s: %s", what, out);
		return -EIO;
	}
	return 0;
}

static void delete_pair(const char *a)
{
	char out[256];

	/* Deleting one end deletes both, and the XDP program on the other. */
	if (if_nametoindex(a))
		eq_run_ip((char *[]){ "ip", "link", "del", (char *)a, NULL }, out, sizeof(out));
}

void eq_agent_veth_delete(int ifindex)
{
	char a[IF_NAMESIZE], b[IF_NAMESIZE];

	eq_agent_veth_names(ifindex, a, b);
	delete_pair(a);
	copy_veth_names(ifindex, a, b);
	delete_pair(a);
}

/* Native only: generic XDP skips packets redirected to the device (TC
 * sends every one here that way), so a generic fallback would attach and
 * never see a packet.  attach keeps the MTU where veth allows it
 * (EQ_AGENT_MTU_MAX). */
static int attach_one(int ifindex, int prog_fd)
{
	return bpf_xdp_attach(ifindex, prog_fd, XDP_FLAGS_DRV_MODE, NULL);
}

/* obj (opened, not loaded) uses the maps of maps_from: one instance per
 * attachment.  0, or -EINVAL with the map it could not share in err. */
static int share_maps(struct bpf_object *obj, struct bpf_object *maps_from, char *err, size_t len)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		struct bpf_map *src = bpf_object__find_map_by_name(maps_from, bpf_map__name(map));

		if (!src || bpf_map__reuse_fd(map, bpf_map__fd(src))) {
			snprintf(err, len, "%s cannot share map %s", bpf_object__name(obj),
				 bpf_map__name(map));
			return -EINVAL;
		}
	}
	return 0;
}

/* xdp_agent on the agent's ends of both pairs, pinned once. */
static int attach_xdp_agent(int host_ifindex, int copy_ifindex, struct bpf_object *maps_from,
			    const char *dir, char *err, size_t len)
{
	struct xdp_agent *skel = xdp_agent__open();
	char path[512];
	int rc;

	if (!skel) {
		snprintf(err, len, "cannot open xdp_agent: %s", strerror(errno));
		return -errno;
	}
	if ((rc = share_maps(skel->obj, maps_from, err, len)))
		goto out;
	rc = xdp_agent__load(skel);
	if (rc) {
		snprintf(err, len, "cannot load xdp_agent: %s", strerror(-rc));
		goto out;
	}
	rc = attach_one(host_ifindex, bpf_program__fd(skel->progs.xdp_agent));
	if (!rc)
		rc = attach_one(copy_ifindex, bpf_program__fd(skel->progs.xdp_agent));
	if (rc) {
		snprintf(err, len, "cannot attach xdp_agent natively to the internal veth: %s",
			 strerror(-rc));
		goto out;
	}
	if (!eq_path(path, sizeof(path), dir, EQ_PIN_PROG_AGENT))
		rc = bpf_program__pin(skel->progs.xdp_agent, path);
	if (rc)
		snprintf(err, len, "cannot pin xdp_agent: %s", strerror(-rc));
out:
	xdp_agent__destroy(skel);	/* the attachment and the pin keep it */
	return rc;
}

/* tc_deliver on eqa's ingress: the agent's deliveries into the stack of
 * the attached interface.  The clsact qdisc goes with eqa. */
static int attach_tc_deliver(int ifindex, struct bpf_object *maps_from, const char *dir,
			     char *err, size_t len)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, h, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, o, .handle = 1, .priority = 1);
	struct tc_deliver *skel = tc_deliver__open();
	char path[512];
	int rc;

	if (!skel) {
		snprintf(err, len, "cannot open tc_deliver: %s", strerror(errno));
		return -errno;
	}
	if ((rc = share_maps(skel->obj, maps_from, err, len)))
		goto out;
	rc = tc_deliver__load(skel);
	if (rc) {
		snprintf(err, len, "cannot load tc_deliver: %s", strerror(-rc));
		goto out;
	}
	rc = bpf_tc_hook_create(&h);
	if (rc && rc != -EEXIST) {
		snprintf(err, len, "cannot create a clsact qdisc on the internal veth: %s", strerror(-rc));
		goto out;
	}
	o.prog_fd = bpf_program__fd(skel->progs.tc_deliver);
	rc = bpf_tc_attach(&h, &o);
	if (rc) {
		snprintf(err, len, "cannot attach tc_deliver: %s", strerror(-rc));
		goto out;
	}
	if (!eq_path(path, sizeof(path), dir, EQ_PIN_PROG_DELIVER))
		rc = bpf_program__pin(skel->progs.tc_deliver, path);
	if (rc)
		snprintf(err, len, "cannot pin tc_deliver: %s", strerror(-rc));
out:
	tc_deliver__destroy(skel);	/* the filter and the pin keep it */
	return rc;
}

/* What the qdisc of eqa and eqc holds: the kernel's default txqueuelen,
 * 1.2 ms of full frames at 10 Gbit/s while the ring is full. */
#define INTERNAL_QUEUE	"1000"

/* One pair, a <-> b, both ends without link-local addresses (nothing but
 * our frames on it) and a without offloads, with a queue. */
static int make_pair(const char *a, const char *b, const char *mtus, char *err, size_t len)
{
	int rc = ip(err, len, "cannot create the internal veth",
		    (char *[]){ "ip", "link", "add", (char *)a, "mtu", (char *)mtus, "type", "veth",
				"peer", "name", (char *)b, "mtu", (char *)mtus, NULL });

	if (rc)
		return rc;
	if ((rc = offloads_off(a))) {
		snprintf(err, len, "cannot turn the offloads of %s off: %s", a, strerror(-rc));
		return rc;
	}
	if ((rc = ip(err, len, "cannot give the internal veth a queue",
		     (char *[]){ "tc", "qdisc", "replace", "dev", (char *)a, "root", "pfifo",
				 "limit", INTERNAL_QUEUE, NULL })))
		return rc;
	if ((rc = ip(err, len, "cannot configure the internal veth",
		     (char *[]){ "ip", "link", "set", (char *)a, "addrgenmode", "none", NULL })) ||
	    (rc = ip(err, len, "cannot configure the internal veth",
		     (char *[]){ "ip", "link", "set", (char *)b, "addrgenmode", "none", NULL })))
		return rc;
	return 0;
}

static int set_up(const char *dev, char *err, size_t len)
{
	return ip(err, len, "cannot bring the internal veth up",
		  (char *[]){ "ip", "link", "set", (char *)dev, "up", NULL });
}

int eq_agent_veth_create(int ifindex, unsigned int mtu, struct eq_config *cfg,
			 const struct eq_maps *m, struct bpf_object *maps_from, const char *dir,
			 char *err, size_t len)
{
	char a[IF_NAMESIZE], b[IF_NAMESIZE], c[IF_NAMESIZE], d[IF_NAMESIZE], mtus[16];
	int rc;

	eq_agent_veth_names(ifindex, a, b);
	copy_veth_names(ifindex, c, d);
	eq_agent_veth_delete(ifindex);	/* left by a crash: ours by their names */
	snprintf(mtus, sizeof(mtus), "%u", mtu);
	if ((rc = make_pair(a, b, mtus, err, len)) || (rc = make_pair(c, d, mtus, err, len)))
		return rc;
	cfg->agent_ifindex = if_nametoindex(a);
	cfg->agent_peer_ifindex = if_nametoindex(b);
	cfg->copy_ifindex = if_nametoindex(c);
	cfg->copy_peer_ifindex = if_nametoindex(d);
	if (!cfg->agent_ifindex || !cfg->agent_peer_ifindex || !cfg->copy_ifindex ||
	    !cfg->copy_peer_ifindex) {
		snprintf(err, len, "the internal veth %s/%s or %s/%s vanished", a, b, c, d);
		return -ENODEV;
	}
	if ((rc = eq_config_write(m, cfg))) {
		snprintf(err, len, "cannot record the internal veth: %s", strerror(-rc));
		return rc;
	}
	if ((rc = attach_xdp_agent((int)cfg->agent_peer_ifindex, (int)cfg->copy_peer_ifindex,
				   maps_from, dir, err, len)) ||
	    (rc = attach_tc_deliver((int)cfg->agent_ifindex, maps_from, dir, err, len)))
		return rc;
	if ((rc = set_up(b, err, len)) || (rc = set_up(a, err, len)) ||
	    (rc = set_up(d, err, len)) || (rc = set_up(c, err, len)))
		return rc;
	return 0;
}
