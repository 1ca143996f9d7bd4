// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness for the agent's frame layer (user/agent/frame.c): any
 * bytes as a frame from the wire.  eqf_parse() must accept only what it
 * can stand behind, and what it accepts must hold up:
 *  - every offset it gives lies inside the frame (the edgeq header, the
 *    inner packet of a DATA frame);
 *  - the agent's own uses of a parsed frame stay inside it: the pure-ACK
 *    test, the reply route, stamping a DATA frame and parsing it again
 *    (it still parses, as DATA with the seq stamped), decapsulating it
 *    (the inner packet, within the frame, one Ethernet header in front);
 *  - a control frame built from the parsed header parses back to the same
 *    fields.
 * AddressSanitizer and UBSan (the build's -fsanitize) catch what an
 * assertion does not.  Built and run by tests/fuzz/run.sh.
 *
 * An input is either the frame itself (first byte's top bit set) or a
 * recipe: a well-formed frame of a kind the first bytes choose (outer
 * IPv4 or IPv6; a control type, or DATA with an inner IPv4 or IPv6 TCP
 * segment and maybe the segment option), then byte patches and a new
 * length from the rest.  So that every run starts deep in the parser
 * without a corpus of frames to keep.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "edgeq/wire.h"
#include "frame.h"

#define PORT		EQ_DEFAULT_PORT
#define FRAME_MAX	9216

#define need(c) do { if (!(c)) { fprintf(stderr, "fuzz_frame: %s:%d: %s\n", __FILE__, \
					 __LINE__, #c); abort(); } } while (0)

static bool is_ctl(uint8_t t)
{
	return t == EQ_T_PULL || t == EQ_T_ACK || t == EQ_T_NACK || t == EQ_T_RTS ||
	       t == EQ_T_RST;
}

/* The options a parse found are those h said, with their values. */
static void same_opts(const struct eqt_hdr *got, const struct eqt_hdr *h)
{
	need(got->opts == h->opts);
	if (h->opts & EQT_OPT(EQ_OPT_TSTAMP))
		need(got->ts == h->ts && got->ts_echo == h->ts_echo);
	if (h->opts & EQT_OPT(EQ_OPT_CREDIT))
		need(got->credit == h->credit);
	if (h->opts & EQT_OPT(EQ_OPT_SRC))
		need(got->src_qbytes == h->src_qbytes && got->src_mbps == h->src_mbps);
	if (h->opts & EQT_OPT(EQ_OPT_QID))
		need(got->qid == h->qid);
	if (h->opts & EQT_OPT(EQ_OPT_PATH))
		need(got->path_echo == h->path_echo);
}

/* A control frame built from h back to its sender parses to h's fields. */
static void ctl_round_trip(const uint8_t *f, const struct eqf_info *fi)
{
	uint8_t buf[256];
	struct eqf_route r;
	struct eqf_info back;
	uint32_t n;

	eqf_route_reply(f, fi, PORT, 7, &r);
	n = eqf_build_ctl(buf, sizeof(buf), &r, &fi->hdr, fi->hdr.path_id, 0);
	need(n > 0 && n <= sizeof(buf));
	need(eqf_parse(buf, n, PORT, &back) == 0);
	need(back.hdr.type == fi->hdr.type && back.hdr.seq_ack == fi->hdr.seq_ack &&
	     back.hdr.pull == fi->hdr.pull && back.hdr.aux == fi->hdr.aux);
	same_opts(&back.hdr, &fi->hdr);
	need(back.v6 == fi->v6 && !memcmp(&back.dst, &fi->src, sizeof(back.dst)));
}

static void data_uses(const uint8_t *f, uint32_t len, const struct eqf_info *fi)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	uint8_t *copy = malloc(len);
	struct eqf_info again;
	struct eqt_hdr h = fi->hdr;
	uint32_t out_len = 0;
	uint8_t *inner;

	need(copy);
	need(fi->inner_off >= fi->eq_off + EQ_HDR_LEN);
	need((uint32_t)fi->inner_off + fi->inner_len <= len);
	(void)eqf_tcp_pure_ack(f, fi);
	/* The agent stamps its fields and sends the frame on. */
	memcpy(copy, f, len);
	h.pull = 12345;
	h.opts ^= EQT_OPT(EQ_OPT_TSTAMP);	/* another set than it came with */
	h.ts = 0x01020304;
	int rc = eqf_stamp_data(copy, fi, &h, 0);

	need(rc == 0 || rc == -ENOSPC);
	need(eqf_parse(copy, len, PORT, &again) == 0);
	need(again.hdr.type == EQ_T_DATA && again.hdr.seq_ack == h.seq_ack &&
	     again.hdr.pull == h.pull && again.inner_len == fi->inner_len);
	if (!rc && h.opts)	/* they fitted: they are there */
		same_opts(&again.hdr, &h);
	need(rc == 0 || eqf_opts_len(&h) > (uint32_t)(fi->inner_off - fi->eq_off - EQ_HDR_LEN));
	/* ... or delivers the inner packet. */
	memcpy(copy, f, len);
	inner = eqf_decap(copy, fi, mac, mac, &out_len);
	if (inner) {
		need(inner >= copy && inner + out_len <= copy + len);
		need(out_len == 14u + fi->inner_len);
	}
	free(copy);
}

struct input {
	const uint8_t	*p;
	size_t		left;
};

static uint8_t in8(struct input *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static uint32_t in32(struct input *in)
{
	return (uint32_t)in8(in) << 24 | (uint32_t)in8(in) << 16 | (uint32_t)in8(in) << 8 | in8(in);
}

/* A DATA frame from the control frame at buf (len bytes, outer v6 or
 * not): the type, an inner TCP segment of IPv4 or IPv6 with `pay` bytes,
 * maybe the segment option, and the outer lengths to match. */
static uint32_t to_data(uint8_t *buf, uint32_t len, bool v6, struct input *in)
{
	uint32_t l3 = 14, udp = l3 + (v6 ? 40 : 20), eqo = udp + 8, at = len;
	struct eq_hdr *eq = (struct eq_hdr *)(buf + eqo);
	uint8_t flags = in8(in);
	bool inner6 = flags & 1, seg = flags & 2;
	uint32_t pay = in8(in) * 4u, mss = 1 + in8(in) * 8u, idx = in8(in) % 4;
	uint32_t tcp_seq0 = in32(in), ihl = inner6 ? 40 : 20;

	eq->ver_type = eq_mk_ver_type(EQ_WIRE_VERSION, EQ_T_DATA);
	eq->proto = inner6 ? EQ_PROTO_IPV6 : EQ_PROTO_IPV4;
	if (seg) {
		struct eq_opt_seg o = { EQ_OPT_SEG, EQ_OPT_SEG_LEN, htons((uint16_t)mss),
					htonl(tcp_seq0) };

		memcpy(buf + at, &o, sizeof(o));
		at += sizeof(o);
		eq->hdr_len = (EQ_HDR_LEN + EQ_OPT_SEG_LEN) / 4;
	}
	uint8_t *ip = buf + at, *tcp = ip + ihl;
	uint32_t ilen = ihl + 20 + pay;

	memset(ip, 0, ilen);
	if (inner6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((ilen - 40) >> 8);
		ip[5] = (uint8_t)(ilen - 40);
		ip[6] = 6;
		ip[7] = 64;
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)(ilen >> 8);
		ip[3] = (uint8_t)ilen;
		ip[8] = 64;
		ip[9] = 6;
	}
	uint32_t tseq = htonl(tcp_seq0 + idx * mss);

	memcpy(tcp + 4, &tseq, 4);
	tcp[12] = 0x50;
	tcp[13] = in8(in);	/* TCP flags: a pure ACK or not */
	at += ilen;
	if (v6) {
		buf[l3 + 4] = (uint8_t)((at - udp) >> 8);
		buf[l3 + 5] = (uint8_t)(at - udp);
	} else {
		buf[l3 + 2] = (uint8_t)((at - l3) >> 8);
		buf[l3 + 3] = (uint8_t)(at - l3);
	}
	buf[udp + 4] = (uint8_t)((at - udp) >> 8);
	buf[udp + 5] = (uint8_t)(at - udp);
	return at;
}

/* A frame from a recipe (see the top), into buf of FRAME_MAX bytes. */
static uint32_t recipe(uint8_t *buf, struct input *in)
{
	uint8_t kind = in8(in);
	bool v6 = kind & 1;
	struct eqf_route r = { .eth_dst = { 2, 0, 0, 0, 0, 2 }, .eth_src = { 2, 0, 0, 0, 0, 1 },
			       .v6 = v6, .port = PORT, .node_id = 7 };
	struct eqt_hdr h = { .type = (uint8_t)(EQ_T_PULL + in8(in) % 5), .flags = in8(in) };
	uint32_t len, cut, q;

	if (v6) {
		inet_pton(AF_INET6, "fd00::1", r.src.a);
		inet_pton(AF_INET6, "fd00::2", r.dst.a);
	} else {
		r.src.a[10] = r.src.a[11] = r.dst.a[10] = r.dst.a[11] = 0xff;
		r.src.a[12] = r.dst.a[12] = 10;
		r.src.a[15] = 1;
		r.dst.a[15] = 2;
	}
	h.seq_ack = in32(in);
	h.pull = in32(in);
	h.aux = in32(in);
	/* Options, each with its values. */
	h.opts = in8(in) & (EQT_OPT(EQ_OPT_TSTAMP) | EQT_OPT(EQ_OPT_CREDIT) | EQT_OPT(EQ_OPT_SRC) |
			    EQT_OPT(EQ_OPT_QID) | EQT_OPT(EQ_OPT_PATH));
	h.ts = in32(in);
	h.ts_echo = in32(in);
	h.credit = in32(in);
	h.src_qbytes = in32(in);
	h.src_mbps = in32(in);
	q = in32(in);
	h.qid = (uint16_t)q;
	h.path_echo = (uint16_t)(q >> 16);
	len = eqf_build_ctl(buf, FRAME_MAX, &r, &h, (uint16_t)in32(in), 0);
	need(len > 0);
	if (kind & 2)
		len = to_data(buf, len, v6, in);
	/* Patches: (offset, value) pairs, then maybe a cut. */
	for (int i = in8(in) % 8; i > 0; i--) {
		uint32_t off = in8(in);

		buf[off % len] = in8(in);
	}
	cut = in8(in);
	if (cut && cut < len)
		len = kind & 4 ? len - cut : cut;
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t built[FRAME_MAX];
	struct input in = { data, size };
	struct eqf_info fi;
	uint8_t *f;
	int rc;

	if (size > FRAME_MAX)
		return 0;
	if (size && !(data[0] & 0x80)) {
		in.p++;
		in.left--;
		memset(built, 0, sizeof(built));
		size = recipe(built, &in);
		data = built;
	}
	/* A buffer of exactly the frame's size: a read past it is caught. */
	f = malloc(size ? size : 1);
	need(f);
	memcpy(f, data, size);
	rc = eqf_parse(f, (uint32_t)size, PORT, &fi);
	need(rc == 0 || rc == -EINVAL || rc == -ENOMSG);
	if (rc == 0) {
		/* A tag check of anything that parses: in bounds, and never a
		 * pass for a tag no key made (the keys are the input's too). */
		struct eq_peer_keys k = { .valid = 3, .id = { 1, 2 } };
		int ac;

		memset(k.key[1], 0x42, sizeof(k.key[1]));
		need(fi.eq_off + fi.eq_len <= size);
		ac = eqf_auth_check(f, &fi, &k);
		need(ac == 0 || ac == -ENOKEY || ac == -EBADMSG);
		if (ac == 0 && fi.eq_len >= EQ_HDR_LEN + EQ_OPT_AUTH_LEN) {
			/* Only a tag that one of the keys makes: signed again
			 * with that key, the header is unchanged. */
			uint8_t *copy = malloc(size);
			const uint8_t *o = f + fi.eq_off + fi.eq_len - EQ_OPT_AUTH_LEN;

			need(copy);
			memcpy(copy, f, size);
			need(!eqf_auth_sign(copy + fi.eq_off, fi.eq_len, &fi.src, &fi.dst,
					    k.key[eq_key_slot(&k, o[2])], o[2]) || fi.hdr.type == EQ_T_TRIMMED);
			need(fi.hdr.type == EQ_T_TRIMMED || !memcmp(copy, f, size));
			free(copy);
		}
		need(fi.l3_off == 14 && fi.eq_off + EQ_HDR_LEN <= size);
		need(fi.hdr.type <= EQ_T_MAX && fi.hdr.wire_len == size);
		if (fi.hdr.type == EQ_T_DATA)
			data_uses(f, (uint32_t)size, &fi);
		else if (is_ctl(fi.hdr.type))
			ctl_round_trip(f, &fi);
	}
	free(f);
	return 0;
}
