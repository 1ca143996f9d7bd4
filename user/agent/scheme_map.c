// SPDX-License-Identifier: GPL-2.0-only
/* A scheme's own per-peer state in a BTF-typed pinned map (scheme_map.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/btf.h>
#include "edgeq/maps.h"
#include "scheme_map.h"

/* The value's BTF: struct eq_<scheme>_peer { one int member per field }. */
static struct btf *value_btf(const struct eqt_scheme_ops *ops, int *key_id, int *value_id)
{
	struct btf *b = btf__new_empty();
	int ints[2][2];	/* [signed][8 bytes] */
	char name[64];

	if (!b)
		return NULL;
	ints[0][0] = btf__add_int(b, "__u32", 4, 0);
	ints[0][1] = btf__add_int(b, "__u64", 8, 0);
	ints[1][0] = btf__add_int(b, "__s32", 4, BTF_INT_SIGNED);
	ints[1][1] = btf__add_int(b, "__s64", 8, BTF_INT_SIGNED);
	snprintf(name, sizeof(name), "eq_%s_peer", ops->name);
	*key_id = ints[0][0];
	*value_id = btf__add_struct(b, name, ops->stats_size);
	if (ints[0][0] < 0 || ints[0][1] < 0 || ints[1][0] < 0 || ints[1][1] < 0 || *value_id < 0)
		goto fail;
	for (uint32_t i = 0; i < ops->nstats; i++) {
		const struct eqt_stat *f = &ops->stats[i];

		if ((f->size != 4 && f->size != 8) || f->off + f->size > ops->stats_size ||
		    btf__add_field(b, f->name, ints[f->is_signed][f->size == 8], f->off * 8, 0))
			goto fail;
	}
	return b;
fail:
	btf__free(b);
	return NULL;
}

static bool same_shape(int fd, const struct eqt_scheme_ops *ops, uint32_t slots)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	return !bpf_obj_get_info_by_fd(fd, &info, &len) && info.type == BPF_MAP_TYPE_ARRAY &&
	       info.value_size == ops->stats_size && info.max_entries == slots && info.btf_id;
}

int eq_scheme_map_open(const char *pin_dir, const struct eqt_scheme_ops *ops, uint32_t slots,
		       char *err, size_t len)
{
	char path[600], name[32];
	int fd, key_id, value_id, rc;
	struct btf *b;

	if (!ops->nstats || !ops->stats_size)
		return -1;
	if (ops->stats_size > EQ_SCHEME_STATS_MAX) {
		snprintf(err, len, "scheme %s publishes %u bytes a peer, more than %u", ops->name,
			 ops->stats_size, EQ_SCHEME_STATS_MAX);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), EQ_MAP_SCHEME_PEERS, ops->name);
	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		if (same_shape(fd, ops, slots))
			return fd;	/* a restarted agent's: its last state stays */
		close(fd);
		unlink(path);
	}
	b = value_btf(ops, &key_id, &value_id);
	if (!b || btf__load_into_kernel(b)) {
		rc = -(errno ? errno : EINVAL);
		snprintf(err, len, "BTF of %s: %s", name, strerror(-rc));
		btf__free(b);
		return rc;
	}
	LIBBPF_OPTS(bpf_map_create_opts, o, .btf_fd = btf__fd(b), .btf_key_type_id = key_id,
		    .btf_value_type_id = value_id);
	/* The kernel's map name holds 15 characters; the pin has the whole. */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, name, sizeof(__u32), ops->stats_size, slots, &o);
	rc = fd < 0 ? -errno : 0;
	btf__free(b);	/* the map holds its own reference to the BTF */
	if (!rc && bpf_obj_pin(fd, path))
		rc = -errno;
	if (rc) {
		snprintf(err, len, "cannot make %s: %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}
