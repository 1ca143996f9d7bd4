/* SPDX-License-Identifier: GPL-2.0-only */
/* The `edgeq` command: subcommands and the helpers they share. */
#ifndef EDGEQ_CMD_H
#define EDGEQ_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include "edgeq/maps.h"
#include "pins.h"

struct eq_opts {
	const char *ifname;
	const char *config;
	const char *netns;
	const char *xdp_mode;	/* auto, native, generic */
	const char *peer;	/* flush --peer ADDR */
	bool json;
	bool verbose;
	bool no_agent;		/* attach --no-agent: run edgeqd by hand */
	double interval;	/* top --interval SECONDS */
	unsigned long count;	/* top --count N: frames, then exit (0: until Ctrl-C) */
};

#define EQ_TC_HANDLE	0xe9	/* our TC filter: handle and priority */
#define EQ_TC_PRIO	0xe9

/* Print "edgeq: <msg>" to stderr. */
void eq_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void eq_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* netns.c: move this process into /run/netns/NAME (bpffs stays the
 * host's, unlike `ip netns exec`). */
int eq_enter_netns(const char *name);
/* 0, or -EXDEV (said on stderr) when pins would vanish with this process:
 * no bpffs at /sys/fs/bpf, in a mount namespace of its own (as `ip netns
 * exec` makes). */
int eq_check_pins_visible(void);

/* routes.c: keep the inner stack's packets to a prefix small enough to be
 * encapsulated.  apply() returns the EQ_PFX_* flags saying what it did. */
int eq_route_apply(const char *ifname, const struct eq_prefix_key *k, unsigned int inner_mtu,
		   __u32 *flags, char *err, size_t errlen);
void eq_route_undo(const char *ifname, const struct eq_prefix_key *k, __u32 flags);
void eq_route_flush_ours(const char *ifname);
/* The same for n prefixes at once, with a few ip processes instead of up
 * to three per prefix: flags[i] as eq_route_apply() gives it for keys[i],
 * also for those done before a failure (err says the failure as
 * eq_route_apply() does).  Only where no route of ours is on ifname yet
 * (attach): a failed batch is undone by flushing them all. */
int eq_routes_apply_all(const char *ifname, const struct eq_prefix_key *keys,
			const unsigned int *inner_mtus, size_t n, __u32 *flags, char *err,
			size_t errlen);
void eq_routes_undo_all(const char *ifname, const struct eq_prefix_key *keys, const __u32 *flags,
			size_t n);

/* hooks.c: the XDP and TC attachment points. */
struct bpf_object;
int eq_xdp_attach(int ifindex, struct bpf_object *obj, const char *mode, struct eq_config *cfg,
		  char *err, size_t errlen);
int eq_xdp_detach(int ifindex, int prog_fd, const struct eq_config *cfg);
bool eq_xdp_is_ours(int ifindex, int prog_fd);
int eq_xdp_detach_orphan(int ifindex);
/* eq_tc_attach() records each step in the pinned config (m) before taking it. */
int eq_tc_attach(int ifindex, int prog_fd, struct eq_config *cfg, const struct eq_maps *m,
		 char *err, size_t errlen);
int eq_tc_detach(int ifindex, int prog_fd, const struct eq_config *cfg);
bool eq_tc_is_ours(int ifindex, int prog_fd, const struct eq_config *cfg);
__u32 eq_prog_id(int prog_fd);

/* routes.c: run ip(8), or tc(8), as argv[0] says, with argv, stdout and
 * stderr into out.  Exit status, or -errno. */
int eq_run_ip(char *const argv[], char *out, size_t outlen);

/* agent_veth.c: the internal veth eqa<ifindex>/eqb<ifindex> of scheme eqds,
 * with xdp_agent on eqb sharing the maps of maps_from.  Records both
 * ifindexes in cfg and the pinned config (m) as soon as they exist. */
#include <net/if.h>
void eq_agent_veth_names(int ifindex, char a[IF_NAMESIZE], char b[IF_NAMESIZE]);
int eq_agent_veth_create(int ifindex, unsigned int mtu, struct eq_config *cfg,
			 const struct eq_maps *m, struct bpf_object *maps_from, const char *dir,
			 char *err, size_t len);
void eq_agent_veth_delete(int ifindex);

/* agent_proc.c: the agent process of the attachment pinned at dir. */
#define EQ_RUN_DIR	"/run/edgeq"
void eq_agent_log_path(const char *dir, char *buf, size_t len);
/* Our stderr is systemd's journal (a service): the agent logs there. */
bool eq_agent_logs_to_journal(void);
/* Where the agent logs, to tell a user: its log's path, or the journal. */
void eq_agent_log_where(const char *dir, char *buf, size_t len);
int eq_agent_start(const char *ifname, const char *dir, char *err, size_t len);
int eq_agent_stop(const char *dir);
int eq_agent_flush(const char *dir, __u32 slot, char *err, size_t len);
/* Alive: ready, heartbeat within agent_dead_ns, and the pid is an edgeqd. */
bool eq_agent_state(const char *dir, const struct eq_config *cfg, struct eq_agent *ag,
		    __u64 *age_ns);

/* attachments.c: fn for the attachment of ifname (NULL: of every pin
 * directory under the root); entry is the directory's name there, first
 * true for the first.  The OR of fn's results; -1 when ifname is not
 * attached (nothing said).  *count: how many fn saw. */
typedef int (*eq_attachment_fn)(const char *dir, const char *entry, bool first, void *arg);
int eq_attachments_foreach(const char *ifname, eq_attachment_fn fn, void *arg, int *count);
/* "edgeq is not attached to IFNAME (nothing at DIR)": 1. */
int eq_not_attached(const char *ifname);

/* status.c: the program pinned as name in dir is attached to ifindex. */
bool eq_hook_live(const char *dir, const char *name, int ifindex, const struct eq_config *c);

/* Subcommands: exit status. */
int cmd_attach(const struct eq_opts *o);
int cmd_detach(const struct eq_opts *o);
int cmd_status(const struct eq_opts *o);
int cmd_metrics(const struct eq_opts *o);
int cmd_top(const struct eq_opts *o);
int cmd_peer(const struct eq_opts *o, int argc, char **argv);
int cmd_features(void);
int cmd_agent(const struct eq_opts *o, const char *action);
int cmd_flush(const struct eq_opts *o);

/* features.c: print what the kernel lacks; the number missing. */
int eq_check_features(bool list);
/* Mounts bpffs at /sys/fs/bpf when it is not there: 0 or -errno. */
int eq_mount_bpffs(void);

/* Serialise attach/detach/peer changes across processes. */
int eq_lock(void);
void eq_unlock(int fd);

#endif
