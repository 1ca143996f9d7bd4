// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include "cmd.h"
#include "pins.h"

/* `ip netns exec NAME cmd` runs cmd in a mount namespace of its own with
 * a fresh /sys, where /sys/fs/bpf is not the host's bpffs: pins made there
 * (edgeq would mount a bpffs of its own) vanish when the command exits,
 * while the XDP and TC hooks stay on the interface, and no later edgeq
 * finds them.  Refused: no bpffs at /sys/fs/bpf, and a mount namespace
 * that is not our caller's.  (A bpffs there is the host's, or one whoever
 * shares this namespace sees: a systemd service with private mounts.
 * None there, in our caller's namespace: a fresh host, where the bpffs
 * edgeq mounts stays.) */
int eq_check_pins_visible(void)
{
	char self[64] = "", parent[64] = "", path[64];
	struct statfs fs;

	if (strncmp(eq_pin_root(), "/sys/fs/bpf", 11))
		return 0;	/* a root of the caller's choosing (tests) */
	if (!statfs("/sys/fs/bpf", &fs) && fs.f_type == BPF_FS_MAGIC)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)getppid());
	if (readlink("/proc/self/ns/mnt", self, sizeof(self) - 1) <= 0 ||
	    readlink(path, parent, sizeof(parent) - 1) <= 0 || !strcmp(self, parent))
		return 0;
	eq_err("this edgeq runs in a mount namespace of its own (as under 'ip netns exec'), with "
	       "no bpffs at /sys/fs/bpf: pins made there would vanish when it exits and leave the "
	       "interface hooked; run 'edgeq --netns NAME ...' (or 'nsenter --net=/run/netns/NAME "
	       "edgeq ...') instead");
	return -EXDEV;
}

int eq_enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		eq_err("network namespace '%s' not found (%s: %s); list them with 'ip netns'",
		       name, path, strerror(errno));
		return -errno;
	}
	if (setns(fd, CLONE_NEWNET)) {
		int err = -errno;

		eq_err("cannot enter network namespace '%s': %s", name, strerror(errno));
		close(fd);
		return err;
	}
	close(fd);
	return 0;
}
