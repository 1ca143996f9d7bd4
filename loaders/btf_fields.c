// SPDX-License-Identifier: GPL-2.0-only
/* The integer members of a map's value, from its BTF (btf_fields.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "btf_fields.h"

int eq_btf_value_read(int map_fd, struct eq_btf_value *v)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	const struct btf_type *t;
	const struct btf_member *m;
	struct btf *b;
	int rc = 0;

	memset(v, 0, sizeof(*v));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	if (!info.btf_id || !info.btf_value_type_id)
		return -ENOENT;
	b = btf__load_from_kernel_by_id(info.btf_id);
	if (!b)
		return -errno;
	v->size = info.value_size;
	t = btf__type_by_id(b, btf__resolve_type(b, info.btf_value_type_id));
	if (!t || !btf_is_struct(t)) {
		rc = -EINVAL;
		goto out;
	}
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t) && v->n < EQ_BTF_FIELDS_MAX; i++, m++) {
		const struct btf_type *mt = btf__type_by_id(b, btf__resolve_type(b, m->type));
		struct eq_btf_field *f = &v->f[v->n];
		uint32_t bits = btf_member_bit_offset(t, i);

		/* Whole integers at byte offsets; bit fields and the rest are
		 * not state a scheme publishes. */
		if (!mt || !btf_is_int(mt) || btf_member_bitfield_size(t, i) || bits % 8 ||
		    (mt->size != 1 && mt->size != 2 && mt->size != 4 && mt->size != 8) ||
		    bits / 8 + mt->size > v->size)
			continue;
		snprintf(f->name, sizeof(f->name), "%s", btf__name_by_offset(b, m->name_off));
		f->off = bits / 8;
		f->size = (uint8_t)mt->size;
		f->is_signed = btf_int_encoding(mt) & BTF_INT_SIGNED;
		v->n++;
	}
out:
	btf__free(b);
	return rc;
}

long long eq_btf_field_get(const void *value, const struct eq_btf_field *f)
{
	const unsigned char *p = (const unsigned char *)value + f->off;

	switch (f->size) {
	case 1: { uint8_t x; memcpy(&x, p, 1); return f->is_signed ? (long long)(int8_t)x : (long long)x; }
	case 2: { uint16_t x; memcpy(&x, p, 2); return f->is_signed ? (long long)(int16_t)x : (long long)x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return f->is_signed ? (long long)(int32_t)x : (long long)x; }
	default: { uint64_t x; memcpy(&x, p, 8); return (long long)x; }
	}
}
