// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

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
