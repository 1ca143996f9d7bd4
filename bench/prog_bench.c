// SPDX-License-Identifier: GPL-2.0-only
/*
 * ns per packet of tc_egress and xdp_ingress against empty TC and XDP
 * programs, all timed by BPF_PROG_TEST_RUN in the same run (root only).
 *
 * Two ways of timing, because BPF_PROG_TEST_RUN with repeat > 1 runs the
 * program again on the SAME packet, not on a fresh copy: after one encap
 * (or decap) the other runs see the rewritten packet and take another path.
 * This program checks that with the counters and says so.
 *  - repeat: one call, repeat = REPEAT; the kernel's average.  Exact, but
 *    only for programs that leave the packet as it was (empty, miss, pass).
 *  - single: CALLS calls with repeat = 1, the kernel's per-call times
 *    averaged.  Valid for every program; each time includes the kernel's
 *    timer overhead (a clock read), which the "single" empty figure shows.
 * Each figure is the median of ROUNDS rounds; a ratio is always against
 * the empty program of the same hook timed the same way.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tc_egress.skel.h"
#include "xdp_ingress.skel.h"
/* By path: the Makefile's generic .o rule has no -Itests/bpf. */
#include "pkt.h"
#include "edgeq/auth.h"

#define ROUNDS	7
#define REPEAT	1000000
#define CALLS	50000
#define TARGET	4.0		/* within 4x of the empty program */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "prog_bench: %s: %s\n", what, strerror(err < 0 ? -err : err));
	exit(1);
}

/* One timing: ns per run.  Every call must give expect_ret. */
static double time_once(int fd, const void *pkt, size_t len, bool single, uint32_t expect_ret)
{
	static struct pkt_result r;
	uint64_t sum = 0;
	int calls = single ? CALLS : 1;

	for (int c = 0; c < calls; c++) {
		int err = pkt_run_ctx(fd, pkt, len, NULL, 0, single ? 1 : REPEAT, &r);

		if (err)
			die("test run", err);
		if (r.retval != expect_ret)
			die("unexpected verdict", EINVAL);
		sum += r.duration;
	}
	return (double)sum / calls;
}

/* r0 = verdict; exit */
static int load_empty(enum bpf_prog_type type, int verdict)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = verdict },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(type, NULL, "GPL", insns, 2, NULL);

	if (fd < 0)
		die("load empty program", fd);
	return fd;
}

struct figure {
	const char	*name, *what;
	int		fd;
	const uint8_t	*pkt;
	size_t		len;
	bool		single;		/* method: single, or repeat */
	uint32_t	verdict;
	int		base;		/* index of its empty program, -1: is one */
	bool		no_target;	/* a figure to report, not to hold to TARGET */
	double		ns[ROUNDS], ratio[ROUNDS];
};

/* Every round times every figure, so that drift in the machine's load
 * hits all of them alike; a ratio is taken within its round. */
static void run_rounds(struct figure *f, int n)
{
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < n; i++)
			f[i].ns[r] = time_once(f[i].fd, f[i].pkt, f[i].len, f[i].single, f[i].verdict);
		for (int i = 0; i < n; i++)
			f[i].ratio[r] = f[i].base < 0 ? 1.0 : f[i].ns[r] / f[f[i].base].ns[r];
	}
}

/* Prints both lines of a figure; returns true when it meets the target. */
static bool report(struct figure *f)
{
	double ns = median(f->ns, ROUNDS), ratio = median(f->ratio, ROUNDS);
	const char *method = f->single ? "single" : "repeat";
	bool ok = f->no_target || ratio <= TARGET;

	printf("  %-24s %8.1f ns  %5.2fx empty  %-6s %s\n", f->name, ns, ratio, method, f->what);
	printf("bench %s ns=%.1f ratio=%.2f method=%s%s\n", f->name, ns, ratio, method,
	       f->base < 0 ? " baseline" : f->no_target ? " target=none" :
	       ok ? " target=met" : " target=missed");
	return ok;
}

/* Slot PKT_PEER_SLOT keyed (auth.h): every header to or from it signed. */
static void set_keyed(const struct pkt_maps *m, int keys_fd)
{
	static const uint8_t key[16] = { 0x5a, 1, 2, 3 };

	if (pkt_set_key(m, keys_fd, key, 1))
		die("set a key", errno);
}

int main(void)
{
	struct tc_egress *tc = tc_egress__open_and_load();
	struct tc_egress *spray = tc_egress__open_and_load();	/* EQ_ENTROPY_PACKET */
	struct xdp_ingress *xdp = xdp_ingress__open_and_load();
	struct tc_egress *ktc = tc_egress__open_and_load();	/* a keyed peer */
	struct xdp_ingress *kxdp = xdp_ingress__open_and_load();
	static uint8_t hit[PKT_MAX], miss[PKT_MAX], data[PKT_MAX], other[PKT_MAX], kdata[PKT_MAX];
	size_t hit_len, miss_len, data_len, other_len, kdata_len;
	static struct pkt_result r;
	struct eq_config cfg;
	struct eq_stats st;
	struct pkt_spec s;
	struct utsname u;
	cpu_set_t cpus;
	int err;

	if (!tc || !spray || !xdp || !ktc || !kxdp)
		die("open_and_load (run as root)", errno);
	struct pkt_maps tm = PKT_MAPS(tc), sm = PKT_MAPS(spray), xm = PKT_MAPS(xdp);
	struct pkt_maps ktm = PKT_MAPS(ktc), kxm = PKT_MAPS(kxdp);
	int ktc_fd = bpf_program__fd(ktc->progs.tc_egress);
	int kxdp_fd = bpf_program__fd(kxdp->progs.xdp_ingress);
	int tc_fd = bpf_program__fd(tc->progs.tc_egress);
	int spray_fd = bpf_program__fd(spray->progs.tc_egress);
	int xdp_fd = bpf_program__fd(xdp->progs.xdp_ingress);
	int empty_tc = load_empty(BPF_PROG_TYPE_SCHED_CLS, TC_ACT_OK);
	int empty_xdp = load_empty(BPF_PROG_TYPE_XDP, XDP_PASS);

	/* Stay on one CPU: the per-CPU stats and the timings stay put. */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu(), &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);

	if ((err = pkt_setup_host(&tm, &pkt_host_a, &pkt_host_b, AF_INET)) ||
	    (err = pkt_setup_host(&sm, &pkt_host_a, &pkt_host_b, AF_INET)) ||
	    (err = pkt_setup_host(&xm, &pkt_host_b, &pkt_host_a, AF_INET)) ||
	    (err = pkt_setup_host(&ktm, &pkt_host_a, &pkt_host_b, AF_INET)) ||
	    (err = pkt_setup_host(&kxm, &pkt_host_b, &pkt_host_a, AF_INET)) ||
	    (err = pkt_get_config(&sm, &cfg)))
		die("configure maps", err);
	set_keyed(&ktm, bpf_map__fd(ktc->maps.eq_keys));
	set_keyed(&kxm, bpf_map__fd(kxdp->maps.eq_keys));
	cfg.entropy = EQ_ENTROPY_PACKET;
	if ((err = pkt_set_config(&sm, &cfg)))
		die("configure maps", err);

	/* (b) a 1400-byte IPv4 TCP packet to B, and one to nobody. */
	pkt_spec_init(&s, AF_INET, IPPROTO_TCP, &pkt_host_a, &pkt_host_b);
	s.payload_len = 1400 - 40;
	hit_len = pkt_build_frame(hit, sizeof(hit), &s);
	s.dst = pkt_addr("10.9.9.9");
	miss_len = pkt_build_frame(miss, sizeof(miss), &s);
	/* (c) the hit as A's tc_egress encapsulates it, and plain UDP. */
	if ((err = pkt_run(tc_fd, hit, hit_len, &r)) || r.retval != TC_ACT_OK)
		die("encapsulate the decap sample", err ? err : EINVAL);
	data_len = r.len;
	memcpy(data, r.out, data_len);
	if ((err = pkt_run(ktc_fd, hit, hit_len, &r)) || r.retval != TC_ACT_OK)
		die("encapsulate the keyed decap sample", err ? err : EINVAL);
	kdata_len = r.len;
	memcpy(kdata, r.out, kdata_len);
	pkt_spec_init(&s, AF_INET, IPPROTO_UDP, &pkt_host_a, &pkt_host_b);
	s.payload_len = 1400 - 28;
	s.dport = 53;
	other_len = pkt_build_frame(other, sizeof(other), &s);

	uname(&u);
	printf("edgeq prog_bench: kernel %s, %d rounds, median; ns per packet as "
	       "BPF_PROG_TEST_RUN times it\n", u.release, ROUNDS);

	/* Check what repeat > 1 does to a program that rewrites the packet. */
	struct eq_stats before;

	pkt_read_stats(&tm, &before);
	pkt_run_ctx(tc_fd, hit, hit_len, NULL, 0, REPEAT, &r);
	pkt_read_stats(&tm, &st);
	printf("check: tc_egress hit with repeat=%d counted %llu encap + %llu miss "
	       "(output %zu bytes, input %zu)\n", REPEAT,
	       (unsigned long long)(st.tx_encap - before.tx_encap),
	       (unsigned long long)(st.tx_miss - before.tx_miss), r.len, hit_len);
	pkt_read_stats(&xm, &before);
	pkt_run_ctx(xdp_fd, data, data_len, NULL, 0, REPEAT, &r);
	pkt_read_stats(&xm, &st);
	printf("check: xdp_ingress decap with repeat=%d counted %llu decap + %llu pass\n",
	       REPEAT, (unsigned long long)(st.rx_decap - before.rx_decap),
	       (unsigned long long)(st.rx_pass - before.rx_pass));
	printf("=> repeat > 1 re-runs on the same packet, not a fresh copy: the encap and\n"
	       "   decap figures below are timed one run per call (method single).\n\n");

#define FIG(n, w, prog, p, single_, verdict_, base_) \
	{ .name = n, .what = w, .fd = prog, .pkt = p, .len = p##_len, .single = single_, \
	  .verdict = verdict_, .base = base_ }
	struct figure f[] = {
		/* 0..3: the empty programs */
		FIG("empty_tc", "r0 = TC_ACT_OK; exit", empty_tc, miss, false, TC_ACT_OK, -1),
		FIG("empty_xdp", "r0 = XDP_PASS; exit", empty_xdp, other, false, XDP_PASS, -1),
		FIG("empty_tc_single", "the same, one run per call", empty_tc, miss, true,
		    TC_ACT_OK, -1),
		FIG("empty_xdp_single", "the same, one run per call", empty_xdp, other, true,
		    XDP_PASS, -1),
		FIG("tc_egress_hit", "encap of a 1400-byte IPv4 TCP packet", tc_fd, hit, true,
		    TC_ACT_OK, 2),
		/* A test-run skb has no hash, so flow entropy runs the flow
		 * dissector; a socket's skb usually carries one already. */
		FIG("tc_egress_hit_spray", "the same with per-packet entropy (no flow hash)",
		    spray_fd, hit, true, TC_ACT_OK, 2),
		FIG("tc_egress_miss", "no prefix: untouched", tc_fd, miss, true, TC_ACT_OK, 2),
		FIG("tc_egress_miss_repeat", "no prefix: untouched", tc_fd, miss, false,
		    TC_ACT_OK, 0),
		FIG("xdp_ingress_decap", "DATA decap of that packet", xdp_fd, data, true,
		    XDP_PASS, 3),
		FIG("xdp_ingress_pass", "UDP to port 53: passed", xdp_fd, other, true, XDP_PASS, 3),
		/* 10, 11: authenticated headers (auth.h), against 4 and 8 */
		FIG("tc_egress_hit_keyed", "encap of that packet to a keyed peer: signed", ktc_fd, hit,
		    true, TC_ACT_OK, 2),
		FIG("xdp_ingress_decap_keyed", "DATA decap of the signed packet: tag checked", kxdp_fd,
		    kdata, true, XDP_PASS, 3),
		FIG("xdp_ingress_pass_repeat", "UDP to port 53: passed", xdp_fd, other, false,
		    XDP_PASS, 1),
	};
	int n = (int)(sizeof(f) / sizeof(f[0])), missed = 0;

	/* The price of a key, reported beside the unkeyed figures: no target
	 * of its own (a user who wants authenticated headers pays it). */
	f[10].no_target = f[11].no_target = true;

	run_rounds(f, n);
	printf("  %-24s %8s     %5s        %-6s\n", "figure", "ns/pkt", "ratio", "method");
	for (int i = 0; i < n; i++)
		missed += !report(&f[i]);
	printf("\nauthenticated headers (SipHash-2-4 over the outer addresses and the edgeq\n"
	       "header): signing costs TC %.1f ns a packet, checking costs XDP %.1f ns\n",
	       median(f[10].ns, ROUNDS) - median(f[4].ns, ROUNDS),
	       median(f[11].ns, ROUNDS) - median(f[8].ns, ROUNDS));
	printf("bench auth_sign_tc_ns=%.1f auth_check_xdp_ns=%.1f\n",
	       median(f[10].ns, ROUNDS) - median(f[4].ns, ROUNDS),
	       median(f[11].ns, ROUNDS) - median(f[8].ns, ROUNDS));
	printf("\ntarget: every figure but the keyed ones within %.0fx of the empty program of its hook, "
	       "timed the same way: %s (%d missed)\n", TARGET, missed ? "MISSED" : "met", missed);

	close(empty_tc);
	close(empty_xdp);
	tc_egress__destroy(tc);
	tc_egress__destroy(spray);
	xdp_ingress__destroy(xdp);
	tc_egress__destroy(ktc);
	xdp_ingress__destroy(kxdp);
	return 0;
}
