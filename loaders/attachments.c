// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attachments a command shows: one named interface's pin directory,
 * or every directory under the pin root (status, metrics).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmd.h"

int eq_attachments_foreach(const char *ifname, eq_attachment_fn fn, void *arg, int *count)
{
	char dir[512];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	*count = 0;
	if (ifname) {
		if (eq_pin_dir(ifname, dir, sizeof(dir)))
			return -1;
		if (access(dir, F_OK))
			return -1;
		*count = 1;
		return fn(dir, strrchr(dir, '/') + 1, true, arg);
	}
	d = opendir(eq_pin_root());
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		if (eq_path(dir, sizeof(dir), eq_pin_root(), e->d_name))
			continue;
		rc |= fn(dir, e->d_name, *count == 0, arg);
		(*count)++;
	}
	closedir(d);
	return rc;
}

int eq_not_attached(const char *ifname)
{
	char dir[512];

	/* eq_pin_dir() said why, if it failed. */
	if (!eq_pin_dir(ifname, dir, sizeof(dir)))
		eq_err("edgeq is not attached to %s (nothing at %s)", ifname, dir);
	return 1;
}
