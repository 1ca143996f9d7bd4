// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pins.h"
#include "edgeq/auth.h"

const char *eq_pin_root(void)
{
	const char *r = getenv("EDGEQ_PIN_ROOT");

	return r && *r ? r : EQ_PIN_ROOT;
}

static uint64_t ns_ino(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_ino;
}

uint64_t eq_netns_ino(void)
{
	return ns_ino("/proc/thread-self/ns/net");
}

/* The kernel gives the initial network namespace a fixed inode number
 * (PROC_NET_INIT_INO in include/linux/proc_ns.h, stable since 3.8); /proc/1
 * may not be readable in a container, so do not ask it. */
#define EQ_NETNS_INIT_INO 0xEFFFFFF9ULL

int eq_netns_is_init(void)
{
	return eq_netns_ino() == EQ_NETNS_INIT_INO;
}

int eq_pin_dir(const char *ifname, char *buf, size_t len)
{
	char name[3 * 64 + 1];
	size_t k = 0;
	int n;

	for (const char *c = ifname; *c && k + 4 < sizeof(name); c++) {
		if (*c == '.' || *c == '%' || *c == '@')
			k += (size_t)snprintf(name + k, sizeof(name) - k, "%%%02x", (unsigned char)*c);
		else
			name[k++] = *c;
	}
	name[k] = '\0';
	if (eq_netns_is_init())
		n = snprintf(buf, len, "%s/%s", eq_pin_root(), name);
	else
		n = snprintf(buf, len, "%s/%s@ns%llu", eq_pin_root(), name,
			     (unsigned long long)eq_netns_ino());
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void eq_pin_ifname(const char *entry, char *ifname, size_t len)
{
	const char *at = strrchr(entry, '@');
	size_t end = at && !strncmp(at, "@ns", 3) ? (size_t)(at - entry) : strlen(entry), k = 0;

	for (size_t i = 0; i < end && k + 1 < len; i++) {
		unsigned int v;

		if (entry[i] == '%' && i + 2 < end && sscanf(entry + i + 1, "%2x", &v) == 1) {
			ifname[k++] = (char)v;
			i += 2;
		} else {
			ifname[k++] = entry[i];
		}
	}
	ifname[k] = '\0';
}

int eq_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int open_one(const char *dir, const char *name)
{
	char path[512];

	if (eq_path(path, sizeof(path), dir, name))
		return -1;
	return bpf_obj_get(path);
}

int eq_maps_open(const char *dir, struct eq_maps *m)
{
	m->config = open_one(dir, EQ_MAP_CONFIG);
	m->prefixes = open_one(dir, EQ_MAP_PREFIXES);
	m->peers = open_one(dir, EQ_MAP_PEERS);
	m->peer_stats = open_one(dir, EQ_MAP_PEER_STATS);
	m->underlay = open_one(dir, EQ_MAP_UNDERLAY);
	m->stats = open_one(dir, EQ_MAP_STATS);
	m->keys = open_one(dir, EQ_MAP_KEYS);
	if (m->config < 0 || m->prefixes < 0 || m->peers < 0 || m->peer_stats < 0 || m->underlay < 0 || m->stats < 0) {
		int err = -errno;

		eq_maps_close(m);
		return err ? err : -ENOENT;
	}
	m->peer_slots = eq_map_max_entries(m->peers);
	if (!m->peer_slots)
		m->peer_slots = EQ_MAX_PEERS;
	m->free_hint = 0;
	return 0;
}

__u32 eq_map_max_entries(int fd)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.max_entries;
}

void eq_maps_close(struct eq_maps *m)
{
	int *fds[] = { &m->config, &m->prefixes, &m->peers, &m->peer_stats, &m->underlay, &m->stats,
		       &m->keys };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

int eq_config_read(const struct eq_maps *m, struct eq_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->config, &zero, cfg) ? -errno : 0;
}

int eq_config_write(const struct eq_maps *m, const struct eq_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->config, &zero, cfg, BPF_ANY) ? -errno : 0;
}

int eq_pins_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (eq_path(path, sizeof(path), dir, e->d_name))
			continue;
		if (unlink(path) && errno != ENOENT)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT)
		err = -errno;
	return err;
}
