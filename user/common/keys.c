// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int eq_key_parse(const char *s, __u8 key[EQ_SIPHASH_KEY_LEN], __u8 *id)
{
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);

	if (n != 2 * EQ_SIPHASH_KEY_LEN)
		return -EINVAL;
	for (size_t i = 0; i < EQ_SIPHASH_KEY_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		key[i] = (__u8)(hi << 4 | lo);
	}
	*id = EQ_KEY_ID_DEFAULT;
	return slash ? eq_key_id_parse(slash + 1, id) : 0;
}

int eq_key_id_parse(const char *s, __u8 *id)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')	/* no sign, no space, not empty */
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end || v > 255)
		return -EINVAL;
	*id = (__u8)v;
	return 0;
}

int eq_key_arg(const char *arg, __u8 key[EQ_SIPHASH_KEY_LEN], __u8 *id, char *err, size_t len)
{
	char line[128] = "";
	const char *s = arg;

	if (arg[0] == '@') {
		FILE *f = fopen(arg + 1, "re");

		if (!f || !fgets(line, sizeof(line), f)) {
			snprintf(err, len, "cannot read the key file %s: %s", arg + 1,
				 f ? "it is empty" : strerror(errno));
			if (f)
				fclose(f);
			return -EINVAL;
		}
		fclose(f);
		line[strcspn(line, " \t\r\n")] = 0;
		s = line;
	}
	if (eq_key_parse(s, key, id)) {
		snprintf(err, len, "a key is 32 hex digits (16 bytes), optionally /ID with ID "
			 "0-255%s%s", arg[0] == '@' ? ": not what " : "", arg[0] == '@' ? arg + 1 : "");
		if (arg[0] == '@')
			snprintf(err + strlen(err), len - strlen(err), " holds");
		return -EINVAL;
	}
	return 0;
}

void eq_keys_one(struct eq_peer_keys *k, const __u8 key[EQ_SIPHASH_KEY_LEN], __u8 id)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->key[0], key, EQ_SIPHASH_KEY_LEN);
	k->id[0] = id;
	k->valid = 1;
	k->tx = 0;
}

bool eq_keys_same(const struct eq_peer_keys *a, const struct eq_peer_keys *b)
{
	if (a->valid != b->valid || (a->valid && a->tx != b->tx))
		return false;
	for (int i = 0; i < 2; i++)
		if ((a->valid & (1u << i)) && (a->id[i] != b->id[i] ||
		    memcmp(a->key[i], b->key[i], EQ_SIPHASH_KEY_LEN)))
			return false;
	return true;
}

int eq_keys_accept(struct eq_peer_keys *k, const __u8 key[EQ_SIPHASH_KEY_LEN], __u8 id)
{
	int slot = eq_key_slot(k, id), free;

	if (slot >= 0)
		return memcmp(k->key[slot], key, EQ_SIPHASH_KEY_LEN) ? -EEXIST : 0;
	if (!k->valid) {
		eq_keys_one(k, key, id);
		return 0;
	}
	free = !(k->valid & 1) ? 0 : !(k->valid & 2) ? 1 : -1;
	if (free < 0)
		return -EBUSY;
	memcpy(k->key[free], key, EQ_SIPHASH_KEY_LEN);
	k->id[free] = id;
	k->valid |= (__u8)(1u << free);
	return 0;
}

int eq_keys_sign(struct eq_peer_keys *k, __u8 id)
{
	int slot = eq_key_slot(k, id);

	if (slot < 0)
		return -ENOENT;
	k->tx = (__u8)slot;
	return 0;
}

int eq_keys_drop(struct eq_peer_keys *k, __u8 id)
{
	int slot = eq_key_slot(k, id);

	if (slot < 0)
		return -ENOENT;
	if (slot == k->tx)
		return -EBUSY;
	k->valid &= (__u8)~(1u << slot);
	memset(k->key[slot], 0, EQ_SIPHASH_KEY_LEN);
	return 0;
}
