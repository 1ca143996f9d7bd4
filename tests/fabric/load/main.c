// SPDX-License-Identifier: GPL-2.0-only
/*
 * eqload: the workload generator and meter of the edgeq test fabric.
 *
 * This file is the command line only: it reads the subcommand and its
 * options, checks them, and hands a filled-in configuration to the module
 * that runs the mode (server.c, flows.c, bulk.c, rpc.c, udp_send.c,
 * udp_recv.c).  Everything the modes measure goes to the --out file
 * (out.h); messages for people go to stderr (log.h).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "load/args.h"
#include "load/bulk.h"
#include "load/clock.h"
#include "load/datagram.h"
#include "load/dist.h"
#include "load/flows.h"
#include "load/log.h"
#include "load/msg.h"
#include "load/out.h"
#include "load/rpc.h"
#include "load/server.h"
#include "load/sock.h"
#include "load/stop.h"
#include "load/udp_recv.h"
#include "load/udp_send.h"

#define EXIT_USAGE	2
#define DEFAULT_SEED	1
#define DEFAULT_CONC_OPEN	256
#define DEFAULT_INTERVAL_MS	100
#define DEFAULT_RPC_LEN	64

enum opt {
	O_DST = 256, O_PORT, O_BIND, O_OUT, O_START_AT, O_CC, O_COUNT, O_DURATION, O_SEED,
	O_SIZE, O_DIST, O_LOAD, O_LINK_RATE, O_CONCURRENCY, O_BYTES, O_INTERVAL, O_REQ,
	O_RESP, O_RATE, O_BURST, O_TOS, O_EDGEQ, O_IDLE_EXIT, O_ROWS, O_SPORT, O_END
};

static const struct option long_opts[] = {
	{ "help",	 no_argument,	    NULL, 'h' },
	{ "dst",	 required_argument, NULL, O_DST },
	{ "port",	 required_argument, NULL, O_PORT },
	{ "bind",	 required_argument, NULL, O_BIND },
	{ "out",	 required_argument, NULL, O_OUT },
	{ "start-at",	 required_argument, NULL, O_START_AT },
	{ "cc",		 required_argument, NULL, O_CC },
	{ "count",	 required_argument, NULL, O_COUNT },
	{ "duration",	 required_argument, NULL, O_DURATION },
	{ "seed",	 required_argument, NULL, O_SEED },
	{ "size",	 required_argument, NULL, O_SIZE },
	{ "dist",	 required_argument, NULL, O_DIST },
	{ "load",	 required_argument, NULL, O_LOAD },
	{ "link-rate",	 required_argument, NULL, O_LINK_RATE },
	{ "concurrency", required_argument, NULL, O_CONCURRENCY },
	{ "bytes",	 required_argument, NULL, O_BYTES },
	{ "interval",	 required_argument, NULL, O_INTERVAL },
	{ "req",	 required_argument, NULL, O_REQ },
	{ "resp",	 required_argument, NULL, O_RESP },
	{ "rate",	 required_argument, NULL, O_RATE },
	{ "burst",	 required_argument, NULL, O_BURST },
	{ "tos",	 required_argument, NULL, O_TOS },
	{ "edgeq",	 no_argument,	    NULL, O_EDGEQ },
	{ "idle-exit",	 required_argument, NULL, O_IDLE_EXIT },
	{ "rows",	 no_argument,	    NULL, O_ROWS },
	{ "sport",	 required_argument, NULL, O_SPORT },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	const char *sub;
	const char *v[O_END];		/* option values by enum opt; NULL: not given */
};

struct subcmd {
	const char *name;
	const char *help;		/* synopsis and options, for --help */
	const enum opt *opts;		/* the options it takes, 0-terminated */
	int (*run)(const struct cli *c);
};

static const char main_help[] =
"usage: eqload SUBCOMMAND [OPTION]...      eqload SUBCOMMAND --help: its options\n"
"\n"
"Workload generator and meter of the edgeq test fabric.\n"
"\n"
"  serve      TCP server for flows, bulk and rpc\n"
"  flows      flow completion times: one new TCP connection per flow\n"
"  bulk       one TCP connection sending as fast as it can: goodput, or the\n"
"             completion time of --bytes\n"
"  rpc        request/response latency on one persistent TCP connection\n"
"  udp-send   paced UDP datagrams, or one back-to-back burst\n"
"  udp-recv   receives udp-send's datagrams: rate, loss, order, ECN marks,\n"
"             trimmed edgeq headers, one-way delay\n"
"  now        prints CLOCK_MONOTONIC in ns, for --start-at arithmetic:\n"
"             --start-at $(( $(eqload now) + 2000000000 ))\n"
"\n"
"Units:\n"
"  times      CLOCK_MONOTONIC ns: one clock for every namespace of the machine\n"
"             and for the fabric's switch, so all files line up\n"
"  sizes      bytes; suffix k = 1024, m = 1024^2, g = 1024^3 (64k = 65536)\n"
"  rates      bits per second; suffix k, m, g, t = 10^3 .. 10^12 (200m)\n"
"  durations  seconds, fractions allowed (0.5)\n"
"  addresses  IPv4 or IPv6 literals, no names\n"
"\n"
"Output (--out FILE, default stdout), tab-separated:\n"
"  # key=value ...       metadata: the mode and its settings\n"
"  #col1<TAB>col2 ...     column names (modes that write rows)\n"
"  rows\n"
"  # summary key=value ...   last line: the totals\n"
"Messages for people go to stderr.  SIGINT/SIGTERM stop any mode; the\n"
"summary of what was measured is still written.\n"
"\n"
"Exit status: 0 success (servers and receivers also when stopped by a\n"
"signal); 1 failure, or a client run cut short by a signal; 2 bad usage.\n";

static const char serve_help[] =
"usage: eqload serve [--port P] [--bind ADDR] [--cc NAME]\n"
"\n"
"TCP server of the flows, bulk and rpc modes, one thread for any number of\n"
"connections.  Each message on a connection is a 16-byte header (magic\n"
"'EQLD', resp_len, req_len; network order) and req_len bytes; the server\n"
"drops them and answers with resp_len bytes.  A connection with a bad\n"
"header is closed and counted.  Runs until SIGINT/SIGTERM, then prints on\n"
"stderr and exits 0:\n"
"  # summary connections= messages= bytes_in= bytes_out= bad= aborted=\n"
"            refused= open=\n"
"(bad: a header with a bad magic or lengths; aborted: closed mid-message;\n"
"refused: turned away for lack of file descriptors.)\n"
"\n"
"  --port P      TCP port (default 5201)\n"
"  --bind ADDR   this address only (default: every IPv4 and IPv6 address)\n"
"  --cc NAME     congestion control of accepted connections (default: the\n"
"                system's, net.ipv4.tcp_congestion_control)\n";

static const char flows_help[] =
"usage: eqload flows --dst ADDR [--port P] (--size BYTES | --dist FILE)\n"
"                    (--count N | --duration SECS)\n"
"                    [--load FRACTION --link-rate BPS] [--concurrency C]\n"
"                    [--seed S] [--cc NAME] [--start-at NS] [--out FILE]\n"
"\n"
"Flow completion times.  Each flow opens a new TCP connection (TCP_NODELAY),\n"
"sends one request of the flow's size, waits for a 1-byte answer, and closes\n"
"with a RST (no TIME_WAIT).  FCT: from just before connect() to the answer.\n"
"\n"
"  --dst ADDR         the server (eqload serve)\n"
"  --port P           its port (default 5201)\n"
"  --size BYTES       every flow this size (k = 1024, m = 1024^2, g = 1024^3)\n"
"  --dist FILE        sizes drawn from a CDF file (tests/scenarios/dists/*.cdf:\n"
"                     'SIZE_BYTES CUMULATIVE_PROBABILITY' lines, interpolated)\n"
"  --count N          run N flows\n"
"  --duration SECS    start flows for SECS; then wait up to 30 s for the\n"
"                     running ones (abandoned after: 'unfinished')\n"
"  --load FRACTION    open loop: Poisson arrivals offering FRACTION (0 .. 10]\n"
"                     of --link-rate: mean gap = mean size * 8 / (FRACTION * BPS)\n"
"  --link-rate BPS    the rate --load is a fraction of (e.g. 10g)\n"
"                     Without --load: closed loop, see --concurrency.\n"
"  --concurrency C    open loop: flows in flight at most (default 256); an\n"
"                     arrival that finds C running waits ('waited')\n"
"                     closed loop: C workers, each starting its next flow when\n"
"                     its last one ends (default 1)\n"
"  --seed S           PRNG seed of sizes and arrivals (default 1): flow k has\n"
"                     the same size in every run with the same seed\n"
"  --cc NAME          TCP congestion control (default: the system's)\n"
"  --start-at NS      start when CLOCK_MONOTONIC reaches NS\n"
"  --out FILE         results (default stdout)\n"
"\n"
"Metadata: tool mode dst cc dist mean_size arrivals load link_rate_bps\n"
"          concurrency count duration_ns seed start_at\n"
"Rows (in completion order): id start_ns size fct_ns retrans\n"
"          retrans: tcpi_total_retrans of the flow's socket\n"
"Summary: flows bytes fct_mean_ns fct_p50_ns fct_p99_ns fct_max_ns errors\n"
"          unfinished waited not_started start_ns end_ns interrupted\n";

static const char bulk_help[] =
"usage: eqload bulk --dst ADDR [--port P] (--duration SECS | --bytes N)\n"
"                   [--interval MS] [--cc NAME] [--start-at NS] [--out FILE]\n"
"\n"
"One TCP connection sending as fast as TCP lets it.  Goodput is what the\n"
"receiver acknowledged (TCP_INFO tcpi_bytes_acked), not what was buffered.\n"
"\n"
"  --dst ADDR       the server (eqload serve)\n"
"  --port P         its port (default 5201)\n"
"  --duration SECS  send for SECS, then reset the connection: nothing queued\n"
"                   is sent after the end\n"
"  --bytes N        send N bytes (k, m, g suffixes) and wait for the server's\n"
"                   answer, which ends the transfer (e.g. incast: 1m)\n"
"  --interval MS    a row every MS milliseconds (default 100)\n"
"  --cc NAME        TCP congestion control (default: the system's)\n"
"  --start-at NS    start when CLOCK_MONOTONIC reaches NS\n"
"  --out FILE       results (default stdout)\n"
"\n"
"Metadata: tool mode dst cc bytes duration_ns interval_ns start_at\n"
"Rows:     t_ns bytes_acked   (payload bytes acknowledged since the last row)\n"
"Summary:  bytes secs goodput_bps start_ns end_ns retrans cc complete interrupted\n"
"          start_ns: just before connect(); end_ns: the answer's arrival\n"
"          (--bytes) or the end of --duration\n";

static const char rpc_help[] =
"usage: eqload rpc --dst ADDR [--port P] [--req BYTES] [--resp BYTES]\n"
"                  (--count N | --duration SECS) [--rate PER_SEC] [--seed S]\n"
"                  [--cc NAME] [--start-at NS] [--out FILE]\n"
"\n"
"Request/response latency on one persistent TCP connection (TCP_NODELAY),\n"
"one RPC outstanding at a time.  Latency: from just before the request is\n"
"written to the last byte of the response.  The connection is made before\n"
"--start-at.\n"
"\n"
"  --dst ADDR       the server (eqload serve)\n"
"  --port P         its port (default 5201)\n"
"  --req BYTES      request payload (default 64; k, m, g suffixes)\n"
"  --resp BYTES     response (default 64; 1 .. 64m)\n"
"  --count N        N RPCs\n"
"  --duration SECS  RPCs for SECS\n"
"  --rate PER_SEC   issue at Poisson times, PER_SEC on average; one that is\n"
"                   due while the previous one is outstanding goes at once\n"
"                   ('late').  Default: back to back\n"
"  --seed S         PRNG seed of the Poisson times (default 1)\n"
"  --cc NAME        TCP congestion control (default: the system's)\n"
"  --start-at NS    start when CLOCK_MONOTONIC reaches NS\n"
"  --out FILE       results (default stdout)\n"
"\n"
"Metadata: tool mode dst cc req resp count duration_ns rate seed start_at\n"
"Rows:     start_ns latency_ns\n"
"Summary:  count mean_ns min_ns p50_ns p99_ns p999_ns max_ns late start_ns\n"
"          end_ns errors interrupted\n";

static const char udp_send_help[] =
"usage: eqload udp-send --dst ADDR [--port P] [--sport P] --size PAYLOAD_BYTES\n"
"                       (--rate BPS [--count N | --duration SECS] | --burst N)\n"
"                       [--tos ect0|ect1|ce|not-ect|0xNN] [--edgeq]\n"
"                       [--start-at NS] [--out FILE]\n"
"\n"
"UDP datagrams from an unconnected socket.  Payload: seq (8 bytes, from 0)\n"
"and send time (8, CLOCK_MONOTONIC ns), big-endian, then zeros.\n"
"\n"
"  --dst ADDR       the receiver (eqload udp-recv)\n"
"  --port P         its port (default 5202; the fabric's edgeq port is 7446)\n"
"  --sport P        source port (default: an ephemeral one): the 5-tuple, and\n"
"                   so the ECMP path, of the datagrams\n"
"  --size BYTES     UDP payload (at least 16, 36 with --edgeq; 1472 fills a\n"
"                   1500-byte IPv4 MTU)\n"
"  --rate BPS       paced at BPS frame bits per second, a frame being\n"
"                   payload + 8 UDP + 20 IPv4 (40 IPv6) + 14 Ethernet bytes\n"
"                   (no FCS, preamble or gap): --size 1472 is a 1514-byte frame\n"
"  --count N        with --rate: N datagrams\n"
"  --duration SECS  with --rate: for SECS (neither: until SIGINT/SIGTERM)\n"
"  --burst N        N datagrams back to back, as fast as sendmmsg() goes\n"
"  --tos VALUE      TOS / traffic class byte: ect0, ect1, ce, not-ect, 0xNN\n"
"                   (default: the system's, Not-ECT)\n"
"  --edgeq          payload starts with an edgeq DATA header (version 1,\n"
"                   hdr_len 5, proto 253, sender_id 1, seq = datagram number)\n"
"                   followed by the seq and send time: the fabric's switch\n"
"                   trims such datagrams when sent to its edgeq port\n"
"  --start-at NS    start when CLOCK_MONOTONIC reaches NS\n"
"  --out FILE       results (default stdout)\n"
"\n"
"Metadata: tool mode dst sport size frame rate_bps burst count duration_ns tos\n"
"          edgeq start_at\n"
"Summary:  pkts bytes secs rate_bps start_ns end_ns interrupted\n"
"          bytes: frame bytes; rate_bps: achieved (target when on time)\n";

static const char now_help[] =
"usage: eqload now\n"
"\n"
"Prints the time on CLOCK_MONOTONIC, in ns: the clock of --start-at, of\n"
"every timestamp eqload writes and of the fabric's switch, the same in\n"
"every network namespace.  (/proc/uptime is CLOCK_BOOTTIME, in 10 ms steps,\n"
"and awk's printf %d stops at 2^31 with mawk.)\n";

static const char udp_recv_help[] =
"usage: eqload udp-recv [--port P] [--bind ADDR] [--count N] [--duration SECS]\n"
"                       [--idle-exit SECS] [--edgeq] [--rows] [--out FILE]\n"
"\n"
"Receives eqload udp-send datagrams until --count, --duration, --idle-exit\n"
"or SIGINT/SIGTERM, whichever comes first; exits 0 in every case.\n"
"Arrival times are the kernel's receive timestamps.\n"
"\n"
"  --port P          UDP port (default 5202)\n"
"  --bind ADDR       this address only (default: every IPv4 and IPv6 address)\n"
"  --count N         stop after N datagrams\n"
"  --duration SECS   stop SECS after starting\n"
"  --idle-exit SECS  stop SECS after the last datagram (once one has come)\n"
"  --edgeq           the datagrams have udp-send --edgeq's layout; a bare\n"
"                    edgeq header (type TRIMMED) is a trimmed datagram, its\n"
"                    seq taken from the header\n"
"  --rows            a row per datagram\n"
"  --out FILE        results (default stdout)\n"
"\n"
"Metadata: tool mode port bind count duration_ns idle_ns edgeq start_ns\n"
"Rows:     seq len ecn arrival_ns owd_ns trimmed\n"
"          len: UDP payload bytes; ecn: 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE;\n"
"          owd_ns: one-way delay, arrival - send time (-1: no send time, as\n"
"          in a trimmed datagram); valid because sender and receiver share\n"
"          the machine's monotonic clock\n"
"Summary:  pkts bytes first_ns last_ns rate_bps reordered dups lost ce ect\n"
"          not_ect trimmed bad sock_drops owd_min_ns owd_p50_ns owd_p99_ns\n"
"          owd_max_ns interrupted\n"
"          bytes: frame bytes (as udp-send); rate_bps: bytes after the first\n"
"          datagram over last_ns - first_ns; reordered: arrived after a\n"
"          higher seq; lost: seqs up to the highest seen that never came;\n"
"          ect: ECT(0) or ECT(1); bad: not eqload datagrams; sock_drops:\n"
"          dropped by this socket (receiver too slow), not by the network;\n"
"          owd percentiles within 0.4%\n";

/* ---- checking options ------------------------------------------------------ */

static const char *opt_name(int id)
{
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == id)
			return o->name;
	return "?";
}

__attribute__((format(printf, 2, 3)))
static int usage_error(const struct cli *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "eqload %s: %s (see eqload %s --help)\n", c->sub, msg, c->sub);
	return EXIT_USAGE;
}

static bool has(const struct cli *c, enum opt o)
{
	return c->v[o] != NULL;
}

/* The get_* helpers: 0 and the value (or the default when the option is
 * absent), or EXIT_USAGE after saying what the option expects. */

static int get_u64(const struct cli *c, enum opt o, uint64_t def, uint64_t lo, uint64_t *out)
{
	*out = def;
	if (!has(c, o))
		return 0;
	if (eql_arg_u64(c->v[o], out) || *out < lo)
		return usage_error(c, "--%s '%s': expected a whole number >= %llu", opt_name(o),
				   c->v[o], (unsigned long long)lo);
	return 0;
}

static int get_size(const struct cli *c, enum opt o, uint64_t def, uint64_t lo, uint64_t hi,
		    uint64_t *out)
{
	*out = def;
	if (!has(c, o))
		return 0;
	if (eql_arg_size(c->v[o], out) || *out < lo || *out > hi)
		return usage_error(c, "--%s '%s': expected bytes in [%llu, %llu], e.g. 1500 or 64k "
				   "(k = 1024, m = 1024^2, g = 1024^3)", opt_name(o), c->v[o],
				   (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

static int get_secs(const struct cli *c, enum opt o, uint64_t *ns)
{
	*ns = 0;
	if (!has(c, o))
		return 0;
	if (eql_arg_secs(c->v[o], ns) || *ns == 0)
		return usage_error(c, "--%s '%s': expected seconds > 0, e.g. 10 or 0.5",
				   opt_name(o), c->v[o]);
	return 0;
}

static int get_rate(const struct cli *c, enum opt o, uint64_t *bps)
{
	*bps = 0;
	if (!has(c, o))
		return 0;
	if (eql_arg_rate(c->v[o], bps))
		return usage_error(c, "--%s '%s': expected bits per second, e.g. 10000000, 200m or "
				   "2.5g (k, m, g, t = 10^3 .. 10^12)", opt_name(o), c->v[o]);
	return 0;
}

static int get_port(const struct cli *c, uint16_t def, uint16_t *port)
{
	*port = def;
	if (has(c, O_PORT) && eql_arg_port(c->v[O_PORT], port))
		return usage_error(c, "--port '%s': expected a port number, 1 .. 65535", c->v[O_PORT]);
	return 0;
}

static int one_of(const struct cli *c, enum opt a, enum opt b)
{
	if (has(c, a) == has(c, b))
		return usage_error(c, has(c, a) ? "--%s and --%s exclude each other"
					       : "one of --%s and --%s is required",
				   opt_name(a), opt_name(b));
	return 0;
}

/* --dst and --port into ep. */
static int get_dst(const struct cli *c, uint16_t def_port, struct eql_endpoint *ep)
{
	uint16_t port;

	if (!has(c, O_DST))
		return usage_error(c, "--dst ADDR is required: the server's IPv4 or IPv6 address");
	if (get_port(c, def_port, &port))
		return EXIT_USAGE;
	if (eql_resolve(c->v[O_DST], port, ep))
		return EXIT_USAGE;
	return 0;
}

/* Common to the TCP clients: --cc tried now (fails before the run, with the
 * list of what exists), the name the sockets get, --start-at, --out. */
static int tcp_client_common(const struct cli *c, const struct eql_endpoint *ep, char *cc_name,
			     size_t len, uint64_t *start_at, struct eql_out *out)
{
	int rc = get_u64(c, O_START_AT, 0, 0, start_at);

	if (rc)
		return rc;
	if (eql_cc_check(ep->family, c->v[O_CC], cc_name, len))
		return 1;
	return eql_out_open(out, c->v[O_OUT]) ? 1 : 0;
}

static int finish(struct eql_out *out, int rc)
{
	return eql_out_close(out) && rc == 0 ? 1 : rc;
}

/* ---- subcommands ---------------------------------------------------------------- */

static int run_serve(const struct cli *c)
{
	struct eql_serve_cfg cfg = { .bind = c->v[O_BIND], .cc = c->v[O_CC] };

	if (get_port(c, EQL_PORT_TCP, &cfg.port))
		return EXIT_USAGE;
	return eql_serve(&cfg);
}

static int run_flows(const struct cli *c)
{
	struct eql_flows_cfg cfg = { .seed = DEFAULT_SEED };
	struct eql_dist dist = { 0 };
	struct eql_out out;
	char cc[EQL_CC_MAX + 1], err[512];
	uint64_t v;
	int rc;

	if ((rc = get_dst(c, EQL_PORT_TCP, &cfg.dst)) || (rc = one_of(c, O_SIZE, O_DIST)) ||
	    (rc = one_of(c, O_COUNT, O_DURATION)) ||
	    (rc = get_u64(c, O_COUNT, 0, 1, &cfg.count)) ||
	    (rc = get_secs(c, O_DURATION, &cfg.duration_ns)) ||
	    (rc = get_u64(c, O_SEED, DEFAULT_SEED, 0, &cfg.seed)) ||
	    (rc = get_rate(c, O_LINK_RATE, &cfg.link_bps)))
		return rc;
	if (has(c, O_LOAD) != has(c, O_LINK_RATE))
		return usage_error(c, "--load and --link-rate go together: the load is a fraction "
				   "of the link rate");
	if (has(c, O_LOAD) && eql_arg_double(c->v[O_LOAD], 1e-9, 10, &cfg.load))
		return usage_error(c, "--load '%s': expected a fraction of --link-rate in (0, 10], "
				   "e.g. 0.5", c->v[O_LOAD]);
	if ((rc = get_u64(c, O_CONCURRENCY, has(c, O_LOAD) ? DEFAULT_CONC_OPEN : 1, 1, &v)))
		return rc;
	if (v > 1000000)
		return usage_error(c, "--concurrency %llu: at most 1000000", (unsigned long long)v);
	cfg.concurrency = (unsigned int)v;

	if (has(c, O_SIZE)) {
		if ((rc = get_size(c, O_SIZE, 0, 1, EQL_DIST_MAX_SIZE, &v)))
			return rc;
		if (eql_dist_fixed(&dist, v)) {
			eql_warn("out of memory");
			return 1;
		}
		cfg.dist_name = "fixed";
	} else {
		if (eql_dist_load(&dist, c->v[O_DIST], err, sizeof(err))) {
			eql_warn("--dist %s", err);
			return 1;
		}
		cfg.dist_name = c->v[O_DIST];
	}
	cfg.dist = &dist;
	rc = tcp_client_common(c, &cfg.dst, cc, sizeof(cc), &cfg.start_at, &out);
	if (!rc) {
		cfg.cc = c->v[O_CC];
		cfg.cc_name = cc;
		cfg.out = &out;
		rc = finish(&out, eql_flows(&cfg));
	}
	eql_dist_free(&dist);
	return rc;
}

static int run_bulk(const struct cli *c)
{
	struct eql_bulk_cfg cfg = { 0 };
	struct eql_out out;
	char cc[EQL_CC_MAX + 1];
	uint64_t ms;
	int rc;

	if ((rc = get_dst(c, EQL_PORT_TCP, &cfg.dst)) || (rc = one_of(c, O_DURATION, O_BYTES)) ||
	    (rc = get_secs(c, O_DURATION, &cfg.duration_ns)) ||
	    (rc = get_size(c, O_BYTES, 0, 1, EQL_MSG_REQ_MAX, &cfg.bytes)) ||
	    (rc = get_u64(c, O_INTERVAL, DEFAULT_INTERVAL_MS, 1, &ms)))
		return rc;
	if (ms > 3600 * 1000)
		return usage_error(c, "--interval %llu: at most an hour", (unsigned long long)ms);
	cfg.interval_ns = ms * 1000000;
	if ((rc = tcp_client_common(c, &cfg.dst, cc, sizeof(cc), &cfg.start_at, &out)))
		return rc;
	cfg.cc = c->v[O_CC];
	cfg.cc_name = cc;
	cfg.out = &out;
	return finish(&out, eql_bulk(&cfg));
}

static int run_rpc(const struct cli *c)
{
	struct eql_rpc_cfg cfg = { 0 };
	struct eql_out out;
	char cc[EQL_CC_MAX + 1];
	uint64_t resp;
	int rc;

	if ((rc = get_dst(c, EQL_PORT_TCP, &cfg.dst)) || (rc = one_of(c, O_COUNT, O_DURATION)) ||
	    (rc = get_u64(c, O_COUNT, 0, 1, &cfg.count)) ||
	    (rc = get_secs(c, O_DURATION, &cfg.duration_ns)) ||
	    (rc = get_size(c, O_REQ, DEFAULT_RPC_LEN, 0, EQL_MSG_REQ_MAX, &cfg.req)) ||
	    (rc = get_size(c, O_RESP, DEFAULT_RPC_LEN, 1, EQL_MSG_RESP_MAX, &resp)) ||
	    (rc = get_u64(c, O_SEED, DEFAULT_SEED, 0, &cfg.seed)))
		return rc;
	cfg.resp = (uint32_t)resp;
	if (has(c, O_RATE) && eql_arg_double(c->v[O_RATE], 1e-6, 1e7, &cfg.rate))
		return usage_error(c, "--rate '%s': expected RPCs per second in (0, 10^7], e.g. 1000",
				   c->v[O_RATE]);
	if ((rc = tcp_client_common(c, &cfg.dst, cc, sizeof(cc), &cfg.start_at, &out)))
		return rc;
	cfg.cc = c->v[O_CC];
	cfg.cc_name = cc;
	cfg.out = &out;
	return finish(&out, eql_rpc(&cfg));
}

static int run_udp_send(const struct cli *c)
{
	struct eql_udp_send_cfg cfg = { .tos = -1, .edgeq = has(c, O_EDGEQ) };
	struct eql_out out;
	uint64_t size, min;
	uint8_t tos;
	int rc;

	if ((rc = get_dst(c, EQL_PORT_UDP, &cfg.dst)) || (rc = one_of(c, O_RATE, O_BURST)) ||
	    (rc = get_rate(c, O_RATE, &cfg.rate_bps)) ||
	    (rc = get_u64(c, O_BURST, 0, 1, &cfg.burst)) ||
	    (rc = get_u64(c, O_COUNT, 0, 1, &cfg.count)) ||
	    (rc = get_secs(c, O_DURATION, &cfg.duration_ns)) ||
	    (rc = get_u64(c, O_START_AT, 0, 0, &cfg.start_at)))
		return rc;
	if (has(c, O_SPORT) && eql_arg_port(c->v[O_SPORT], &cfg.sport))
		return usage_error(c, "--sport '%s': expected a port number, 1 .. 65535",
				   c->v[O_SPORT]);
	if (has(c, O_COUNT) && has(c, O_DURATION))
		return usage_error(c, "--count and --duration exclude each other");
	if (has(c, O_BURST) && (has(c, O_COUNT) || has(c, O_DURATION)))
		return usage_error(c, "--burst N is its own count: no --count or --duration with it");
	if (!has(c, O_SIZE))
		return usage_error(c, "--size PAYLOAD_BYTES is required");
	min = cfg.edgeq ? EQL_DG_EDGEQ_MIN : EQL_DG_PLAIN_MIN;
	if ((rc = get_size(c, O_SIZE, 0, min, eql_dg_max_payload(cfg.dst.family), &size)))
		return rc;
	cfg.size = (uint32_t)size;
	if (has(c, O_TOS)) {
		if (eql_arg_tos(c->v[O_TOS], &tos))
			return usage_error(c, "--tos '%s': expected ect0, ect1, ce, not-ect, 0xNN "
					   "or 0 .. 255", c->v[O_TOS]);
		cfg.tos = tos;
	}
	if (eql_out_open(&out, c->v[O_OUT]))
		return 1;
	cfg.out = &out;
	return finish(&out, eql_udp_send(&cfg));
}

static int run_now(const struct cli *c)
{
	printf("%llu\n", (unsigned long long)eql_now_ns());
	return fflush(stdout) ? 1 : 0;
}

static int run_udp_recv(const struct cli *c)
{
	struct eql_udp_recv_cfg cfg = {
		.bind = c->v[O_BIND], .rows = has(c, O_ROWS), .edgeq = has(c, O_EDGEQ),
	};
	struct eql_out out;
	int rc;

	if ((rc = get_port(c, EQL_PORT_UDP, &cfg.port)) ||
	    (rc = get_u64(c, O_COUNT, 0, 1, &cfg.count)) ||
	    (rc = get_secs(c, O_DURATION, &cfg.duration_ns)) ||
	    (rc = get_secs(c, O_IDLE_EXIT, &cfg.idle_ns)))
		return rc;
	if (eql_out_open(&out, c->v[O_OUT]))
		return 1;
	cfg.out = &out;
	return finish(&out, eql_udp_recv(&cfg));
}

static const enum opt serve_opts[] = { O_PORT, O_BIND, O_CC, 0 };
static const enum opt flows_opts[] = {
	O_DST, O_PORT, O_SIZE, O_DIST, O_COUNT, O_DURATION, O_LOAD, O_LINK_RATE, O_CONCURRENCY,
	O_SEED, O_CC, O_START_AT, O_OUT, 0 };
static const enum opt bulk_opts[] = {
	O_DST, O_PORT, O_DURATION, O_BYTES, O_INTERVAL, O_CC, O_START_AT, O_OUT, 0 };
static const enum opt rpc_opts[] = {
	O_DST, O_PORT, O_REQ, O_RESP, O_COUNT, O_DURATION, O_RATE, O_SEED, O_CC, O_START_AT,
	O_OUT, 0 };
static const enum opt udp_send_opts[] = {
	O_DST, O_PORT, O_SPORT, O_SIZE, O_RATE, O_BURST, O_COUNT, O_DURATION, O_TOS, O_EDGEQ, O_START_AT,
	O_OUT, 0 };
static const enum opt udp_recv_opts[] = {
	O_PORT, O_BIND, O_COUNT, O_DURATION, O_IDLE_EXIT, O_EDGEQ, O_ROWS, O_OUT, 0 };
static const enum opt now_opts[] = { 0 };

static const struct subcmd subcmds[] = {
	{ "serve",    serve_help,    serve_opts,    run_serve },
	{ "flows",    flows_help,    flows_opts,    run_flows },
	{ "bulk",     bulk_help,     bulk_opts,     run_bulk },
	{ "rpc",      rpc_help,      rpc_opts,      run_rpc },
	{ "udp-send", udp_send_help, udp_send_opts, run_udp_send },
	{ "udp-recv", udp_recv_help, udp_recv_opts, run_udp_recv },
	{ "now",      now_help,      now_opts,      run_now },
};

static bool takes(const struct subcmd *s, int o)
{
	for (const enum opt *p = s->opts; *p; p++)
		if ((int)*p == o)
			return true;
	return false;
}

/* Options into c; 0, 1 for --help (printed), or EXIT_USAGE (said). */
static int parse(const struct subcmd *s, struct cli *c, int argc, char **argv)
{
	int o;

	opterr = 0;	/* our own messages, naming the subcommand */
	optind = 1;
	while ((o = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
		const char *arg = argv[optind - 1];

		if (o == 'h') {
			fputs(s->help, stdout);
			return 1;
		}
		if (o == ':')
			return usage_error(c, "%s needs a value", arg);
		if (o == '?')
			return usage_error(c, "unknown option '%s'", arg);
		if (!takes(s, o))
			return usage_error(c, "--%s does not apply to %s", opt_name(o), s->name);
		c->v[o] = optarg ? optarg : "1";
	}
	if (optind < argc)
		return usage_error(c, "unexpected argument '%s'", argv[optind]);
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	int rc;

	if (argc < 2) {
		fputs(main_help, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(main_help, stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof(subcmds) / sizeof(subcmds[0]); i++) {
		const struct subcmd *s = &subcmds[i];

		if (strcmp(argv[1], s->name))
			continue;
		c.sub = s->name;
		rc = parse(s, &c, argc - 1, argv + 1);
		if (rc)
			return rc == 1 ? 0 : rc;
		eql_stop_install();
		eql_raise_nofile();
		/* Sleeps end when asked, not up to 50 us later (the default
		 * slack): pacing and Poisson issue times depend on it. */
		prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
		return s->run(&c);
	}
	fprintf(stderr, "eqload: unknown subcommand '%s': one of serve, flows, bulk, rpc, "
		"udp-send, udp-recv, now (see eqload --help)\n", argv[1]);
	return EXIT_USAGE;
}
