// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqforge: a flood of forged edgeq control headers, for the netns tests of
 * what a tunnel refuses (tests/netns/test_flood.sh, issue 16).
 *
 *   eqforge --src ADDR --dst ADDR --type pull|ack|nack|rst --count N
 *           [--ack BASE[+SPREAD]] [--pull BASE[+SPREAD]] [--path ID]
 *           [--seed S] [--rate PPS]
 *
 * Sends N headers of TYPE (20 bytes, no options) from ADDR to the edgeq
 * port of --dst, back to back with sendmmsg() (or, with --rate, in
 * batches paced at PPS headers a second), from the source port a
 * peer's path ID selects (0xc000 | ID), as an attacker who can put packets
 * on the wire with a peer's address would.  Each number is BASE plus a
 * random offset below SPREAD; without a BASE it is random over 32 bits
 * (an attacker off the path, who must guess).  Prints how many it sent.
 *
 * socat sends one datagram per process; at a few hundred a second that
 * is no flood.
 */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "edgeq/wire.h"
#include "args.h"	/* eqload's library (tests/fabric/load/) */
#include "rng.h"
#include "sock.h"

#define BATCH 64

struct range {
	uint32_t base, spread;	/* spread 0: random over 32 bits */
	int given;
};

static struct eql_rng rng;	/* eqload's: reproducible from --seed */

static uint32_t rng32(void)
{
	return (uint32_t)(eql_rng_next(&rng) >> 32);
}

static uint32_t pick(const struct range *r)
{
	if (!r->given)
		return rng32();
	return r->base + (r->spread ? rng32() % r->spread : 0);
}

static int parse_range(const char *s, struct range *r)
{
	char *end;
	unsigned long long b = strtoull(s, &end, 0), sp = 0;

	if (end == s || b > UINT32_MAX)
		return -1;
	if (*end == '+') {
		s = end + 1;
		sp = strtoull(s, &end, 0);
		if (end == s || sp > UINT32_MAX)
			return -1;
	}
	if (*end)
		return -1;
	*r = (struct range){ .base = (uint32_t)b, .spread = (uint32_t)sp, .given = 1 };
	return 0;
}

static int parse_type(const char *s)
{
	static const struct { const char *name; int type; } types[] = {
		{ "pull", EQ_T_PULL }, { "ack", EQ_T_ACK }, { "nack", EQ_T_NACK }, { "rst", EQ_T_RST },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(s, types[i].name))
			return types[i].type;
	return -1;
}

static void usage(void)
{
	fprintf(stderr, "usage: eqforge --src ADDR --dst ADDR --type pull|ack|nack|rst --count N\n"
			"               [--ack BASE[+SPREAD]] [--pull BASE[+SPREAD]] [--path ID] [--seed S]\n"
			"               [--rate PPS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "src", required_argument, NULL, 's' }, { "dst", required_argument, NULL, 'd' },
		{ "type", required_argument, NULL, 't' }, { "count", required_argument, NULL, 'n' },
		{ "ack", required_argument, NULL, 'a' }, { "pull", required_argument, NULL, 'p' },
		{ "path", required_argument, NULL, 'P' }, { "seed", required_argument, NULL, 'S' },
		{ "rate", required_argument, NULL, 'r' },
		{ 0 }
	};
	const char *src = NULL, *dst = NULL;
	struct range ack = { 0 }, pull = { 0 };
	uint64_t count = 0, seed = 1, rate = 0;
	unsigned path = 7;
	int type = -1, c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': src = optarg; break;
		case 'd': dst = optarg; break;
		case 't': type = parse_type(optarg); if (type < 0) usage(); break;
		case 'n': if (eql_arg_u64(optarg, &count)) usage(); break;
		case 'a': if (parse_range(optarg, &ack)) usage(); break;
		case 'p': if (parse_range(optarg, &pull)) usage(); break;
		case 'P': path = (unsigned)strtoul(optarg, NULL, 0) & 0x3fff; break;
		case 'S': if (eql_arg_u64(optarg, &seed)) usage(); break;
		case 'r': if (eql_arg_u64(optarg, &rate)) usage(); break;
		default: usage();
		}
	}
	if (!src || !dst || type < 0 || !count || optind != argc)
		usage();
	eql_rng_seed(&rng, seed);

	struct eql_endpoint from, to;

	if (eql_resolve(src, 0xc000 | path, &from) || eql_resolve(dst, EQ_DEFAULT_PORT, &to) ||
	    from.family != to.family) {
		fprintf(stderr, "eqforge: --src and --dst must be addresses of one family\n");
		return 2;
	}
	int fd = socket(from.family, SOCK_DGRAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&from.ss, from.len)) {
		fprintf(stderr, "eqforge: socket on %s: %s\n", src, strerror(errno));
		return 1;
	}

	struct eq_hdr hdr[BATCH];
	struct iovec iov[BATCH];
	struct mmsghdr msg[BATCH];
	uint64_t sent = 0;

	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	memset(msg, 0, sizeof(msg));
	for (int i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = &hdr[i], .iov_len = sizeof(hdr[i]) };
		msg[i].msg_hdr = (struct msghdr){ .msg_name = &to.ss, .msg_namelen = to.len,
						   .msg_iov = &iov[i], .msg_iovlen = 1 };
	}
	while (sent < count) {
		unsigned n = count - sent < BATCH ? (unsigned)(count - sent) : BATCH;

		if (rate) {	/* the next batch when the rate allows it */
			uint64_t ns = (uint64_t)start.tv_sec * 1000000000ull + (uint64_t)start.tv_nsec +
				      sent * 1000000000ull / rate;
			struct timespec at = { .tv_sec = (time_t)(ns / 1000000000ull),
					       .tv_nsec = (long)(ns % 1000000000ull) };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		}

		for (unsigned i = 0; i < n; i++) {
			hdr[i] = (struct eq_hdr){
				.ver_type = (EQ_WIRE_VERSION << 4) | type,
				.hdr_len = EQ_HDR_WORDS,
				.path_id = htons(path),
				.ctl = { .ack = htonl(pick(&ack)), .pull_no = htonl(pick(&pull)) },
			};
		}
		int r = sendmmsg(fd, msg, n, 0);

		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "eqforge: sendmmsg: %s\n", strerror(errno));
			break;
		}
		sent += (unsigned)r;
	}
	printf("%llu\n", (unsigned long long)sent);
	close(fd);
	return sent == count ? 0 : 1;
}
