/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer's keys for authenticated headers (edgeq/auth.h): parsing them
 * from the config and the command line, and the steps of replacing one
 * without a restart (accept the new key, sign with it, drop the old),
 * applied to the eq_keys entry of the peer's slot.
 */
#ifndef EDGEQ_KEYS_H
#define EDGEQ_KEYS_H

#include <stdbool.h>
#include "edgeq/auth.h"

#define EQ_KEY_ID_DEFAULT	1

/* A key id, "0" to "255": 0, or -EINVAL. */
int eq_key_id_parse(const char *s, __u8 *id);

/* "HEX" (32 hex digits, the 16-byte key) or "HEX/ID" (ID 0-255, default
 * EQ_KEY_ID_DEFAULT): 0, or -EINVAL. */
int eq_key_parse(const char *s, __u8 key[EQ_SIPHASH_KEY_LEN], __u8 *id);

/* A key as the config and the command line give it: "HEX[/ID]", or
 * "@PATH", a file whose first line is that (a key on a command line
 * shows in the process list).  0, or -EINVAL with a message in err. */
int eq_key_arg(const char *arg, __u8 key[EQ_SIPHASH_KEY_LEN], __u8 *id, char *err, size_t len);

/* A peer's keys with one key, which signs. */
void eq_keys_one(struct eq_peer_keys *k, const __u8 key[EQ_SIPHASH_KEY_LEN], __u8 id);

/* The same keys and the same signer (what a second prefix of the same
 * peer must give, if it gives any). */
bool eq_keys_same(const struct eq_peer_keys *a, const struct eq_peer_keys *b);

/* Rotation, on k.  accept: take `key` as id `id` as well, in the slot that
 * does not sign (-EEXIST: that id names another key already; -EBUSY: both
 * slots hold keys, drop one first).  sign: sign with key `id` from now on
 * (-ENOENT: no such key).  drop: forget key `id` (-ENOENT: no such key;
 * -EBUSY: it signs).  Without any key left, the peer is unkeyed: that is
 * `edgeq peer key ... off`, which clears both. */
int eq_keys_accept(struct eq_peer_keys *k, const __u8 key[EQ_SIPHASH_KEY_LEN], __u8 id);
int eq_keys_sign(struct eq_peer_keys *k, __u8 id);
int eq_keys_drop(struct eq_peer_keys *k, __u8 id);

#endif
