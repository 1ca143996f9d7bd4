// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "addr.h"

static const unsigned char v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

bool eq_addr_is_v4(const struct eq_addr *a)
{
	return memcmp(a->a, v4_mapped, sizeof(v4_mapped)) == 0;
}

int eq_addr_parse(const char *s, struct eq_addr *out)
{
	struct in_addr v4;

	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, s, &v4) == 1) {
		memcpy(out->a, v4_mapped, sizeof(v4_mapped));
		memcpy(&out->a[12], &v4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->a) == 1)
		return 0;
	return -EINVAL;
}

void eq_addr_format(const struct eq_addr *a, char *buf, size_t len)
{
	const char *r = eq_addr_is_v4(a) ? inet_ntop(AF_INET, &a->a[12], buf, len)
					  : inet_ntop(AF_INET6, a->a, buf, len);

	if (!r && len)
		buf[0] = '\0';
}

static void clear_host_bits(struct eq_addr *a, unsigned int plen)
{
	for (unsigned int i = 0; i < 16; i++) {
		unsigned int bits = plen > i * 8 ? plen - i * 8 : 0;

		if (bits < 8)
			a->a[i] &= (unsigned char)(0xff00 >> bits);
	}
}

int eq_prefix_parse(const char *s, struct eq_prefix_key *out)
{
	char buf[EQ_PREFIXSTRLEN];
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long plen;
	char *end;
	bool v4;

	if (alen == 0 || alen >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	memset(out, 0, sizeof(*out));
	if (eq_addr_parse(buf, &out->addr))
		return -EINVAL;
	v4 = eq_addr_is_v4(&out->addr) && strchr(buf, ':') == NULL;
	if (slash) {
		if (!isdigit((unsigned char)slash[1]))
			return -EINVAL;
		errno = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (errno || end == slash + 1 || *end || plen > (v4 ? 32u : 128u))
			return -EINVAL;
	} else {
		plen = v4 ? 32 : 128;
	}
	out->prefixlen = (__u32)(v4 ? plen + 96 : plen);
	clear_host_bits(&out->addr, out->prefixlen);
	return 0;
}

void eq_prefix_format(const struct eq_prefix_key *k, char *buf, size_t len)
{
	char a[EQ_ADDRSTRLEN];
	bool v4 = eq_addr_is_v4(&k->addr) && k->prefixlen >= 96;

	eq_addr_format(&k->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, v4 ? k->prefixlen - 96 : k->prefixlen);
}

bool eq_prefix_contains(const struct eq_prefix_key *k, const struct eq_addr *a)
{
	struct eq_addr masked = *a;

	clear_host_bits(&masked, k->prefixlen);
	return memcmp(&masked, &k->addr, sizeof(masked)) == 0;
}
