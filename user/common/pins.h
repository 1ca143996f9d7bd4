/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where an attachment's state lives and how to open it.
 *
 * Maps and programs are pinned under EQ_PIN_ROOT/<ifname> for an interface
 * in the initial network namespace, and EQ_PIN_ROOT/<ifname>@ns<inode> for
 * one in another namespace (interface names are only unique per netns),
 * with '.', '%' and '@' in <ifname> spelt %2e, %25 and %40 (eq_pin_dir()).
 * EDGEQ_PIN_ROOT in the environment overrides the root (tests use it).
 */
#ifndef EDGEQ_PINS_H
#define EDGEQ_PINS_H

#include <stddef.h>
#include <stdint.h>
#include "edgeq/maps.h"

#define EQ_PIN_ROOT	"/sys/fs/bpf/edgeq"

struct eq_maps {
	int config;
	int prefixes;
	int peers;
	int peer_stats;
	int underlay;
	int stats;
	int keys;		/* eq_keys, or -1: an attachment made before
				 * there were keys (auth.h) */
	__u32 peer_slots;	/* eq_peers' max_entries: the attachment's max_peers */
	__u32 free_hint;	/* where the next free slot is looked for first */
};

const char *eq_pin_root(void);
/* Inode of this thread's network namespace, and whether it is the initial one. */
uint64_t eq_netns_ino(void);
int eq_netns_is_init(void);
/* Pin directory for ifname in the current netns: <root>/<name>, and
 * <root>/<name>@ns<inode> outside the initial netns, where <name> is
 * ifname with '.', '%' and '@' spelt %2e, %25 and %40 (bpffs refuses a
 * '.' anywhere in a name, and VLAN devices are named eth0.100). */
int eq_pin_dir(const char *ifname, char *buf, size_t len);
/* The interface name a pin directory's name (its last component) stands
 * for, into ifname (at least IF_NAMESIZE bytes). */
void eq_pin_ifname(const char *entry, char *ifname, size_t len);

/* dir/name into buf; -ENAMETOOLONG if it does not fit. */
int eq_path(char *buf, size_t len, const char *dir, const char *name);
/* Open the pinned maps under dir; -errno if any is missing. */
int eq_maps_open(const char *dir, struct eq_maps *m);
/* A map's max_entries (the peer maps': the attachment's max_peers), or 0
 * when it cannot be read. */
__u32 eq_map_max_entries(int fd);
void eq_maps_close(struct eq_maps *m);
int eq_config_read(const struct eq_maps *m, struct eq_config *cfg);
int eq_config_write(const struct eq_maps *m, const struct eq_config *cfg);

/* Remove every pin under dir and dir itself (one level of files). */
int eq_pins_remove(const char *dir);

#endif
