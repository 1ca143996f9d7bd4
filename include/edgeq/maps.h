/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Map keys and values shared by the BPF programs, the `edgeq` command and
 * the agent.  Every map is BTF-typed and pinned under
 * /sys/fs/bpf/edgeq/<ifname>/ (see docs/architecture.md), so
 * `bpftool map dump pinned ...` prints these structs with named fields.
 */
#ifndef EDGEQ_MAPS_H
#define EDGEQ_MAPS_H

#include <linux/types.h>

/* Peer slots (underlay endpoints) and overlay prefixes routed into the
 * tunnel: `max_peers` and `max_prefixes` in the config size the maps at
 * attach (eq_config.max_peers/max_prefixes; docs/config.md gives the
 * memory per peer).  These are the defaults and the bounds; the maps'
 * max_entries in the BPF objects are the defaults, replaced at load. */
#define EQ_MAX_PEERS		1024	/* default peer slots */
#define EQ_PEERS_MIN		16
#define EQ_PEERS_LIMIT		65536
#define EQ_MAX_PREFIXES		4096	/* default prefixes: 4 per default slot */
#define EQ_PREFIXES_PER_PEER	4	/* max_prefixes when not given */
#define EQ_PREFIXES_LIMIT	(4 * EQ_PEERS_LIMIT)
/* "No peer slot": beyond any max_peers, and "every peer" where a command
 * names one (flush). */
#define EQ_NO_PEER		0xffffffffu

/* Map names: the pin file names, shared so that both sides agree. */
#define EQ_MAP_CONFIG		"eq_config"
#define EQ_MAP_PREFIXES		"eq_prefixes"
#define EQ_MAP_PEERS		"eq_peers"
#define EQ_MAP_PEER_STATS	"eq_peer_stats"
#define EQ_MAP_UNDERLAY		"eq_underlay"
#define EQ_MAP_STATS		"eq_stats"
#define EQ_MAP_XSKS		"eq_xsks"
#define EQ_MAP_AGENT		"eq_agent"
#define EQ_MAP_SCHEME_PEERS	"eq_%s_peers"	/* a scheme's own, by its name */
#define EQ_MAP_AGENT_PEERS	"eq_agent_peers"
#define EQ_PIN_PROG_TC		"prog_tc_egress"
#define EQ_PIN_PROG_AGENT	"prog_xdp_agent"
#define EQ_PIN_PROG_XDP		"prog_xdp_ingress"
#define EQ_PIN_PROG_DELIVER	"prog_tc_deliver"

/* An IPv4 or IPv6 address.  IPv4 is stored IPv4-mapped (::ffff:a.b.c.d),
 * so one LPM trie and one hash serve both families. */
struct eq_addr {
	__u8	a[16];
};

/* eq_prefixes (LPM trie): overlay destination prefix -> peer slot. */
struct eq_prefix_key {
	__u32		prefixlen;	/* over the 128-bit (mapped) address */
	struct eq_addr	addr;
};

/* What `edgeq attach`/`peer add` did to the route of a prefix, so that
 * detach can undo exactly that. */
#define EQ_PFX_ROUTE_ADDED	0x1	/* added a route for the prefix */
#define EQ_PFX_ROUTE_MTU	0x2	/* set an MTU on the user's own route */

struct eq_prefix_val {
	__u32	peer;		/* index into eq_peers */
	__u32	flags;		/* EQ_PFX_* */
	__u32	prefixlen;	/* the key's own: an LPM lookup answers with
				 * the longest match, and this tells the
				 * loader whether that is the exact prefix
				 * without walking the whole trie */
};

/* Peer slot flags. */
#define EQ_PEER_USED	0x1
#define EQ_PEER_V6	0x2	/* underlay is IPv6 */
#define EQ_PEER_PLAIN	0x4	/* scheme none in an attachment whose agent
				 * runs another: TC tunnels it as scheme none
				 * does, the agent never sees it */
#define EQ_PEER_KEYED	0x8	/* its headers are signed and checked with
				 * the keys of its eq_keys entry (auth.h) */

/* eq_peers (array, one slot per underlay endpoint): the peer's addresses
 * and sequence numbers, shared by every CPU.  What TC egress writes and what XDP ingress writes
 * are 64 bytes apart (on different cache lines where the array's values
 * start on a line boundary): sending to a peer and receiving from it run
 * on different CPUs, and a shared line would bounce between them on every
 * packet.  Counters live in eq_peer_stats (per CPU), with no sharing. */
struct eq_peer {
	/* line 0: configuration, and the sending side */
	struct eq_addr	underlay;	/* the peer's underlay (outer) address */
	__u32	flags;			/* EQ_PEER_* */
	__u32	tx_seq;			/* next DATA seq to stamp (atomic add) */
	__u8	scheme;			/* enum eq_scheme: the control loop that
					 * carries this peer's tunnel (the agent
					 * runs one instance per scheme in use) */
	__u8	opt_words;		/* option room TC leaves in every DATA
					 * header for the scheme (4-byte words,
					 * at most EQ_PEER_OPT_MAX bytes) */
	__u8	tc_opts;		/* 1 << EQ_OPT_x: of those, the ones TC
					 * fills itself (TSTAMP), the rest PAD
					 * until the agent stamps them */
	__u8	pad0b;
	__u32	pad0[3];		/* (a scheme's per-peer state the kernel
					 * shares is in maps of its own: eq_credit,
					 * lease.h; the loader never writes it) */
	__u64	pad1[3];
	/* line 1: the receiving side */
	__u32	rx_seq_next;		/* one past the highest DATA seq received */
	__u16	rx_sender_id;		/* sender id the peer stamps */
	__u16	pad2;
	__u8	pad3[56];
};

/* eq_peer_stats (per-CPU array, same index as eq_peers): counters, summed
 * over CPUs by readers.  Per CPU so that the fast path needs no atomics. */
struct eq_peer_stats {
	__u64	tx_packets;		/* counted per GSO segment */
	__u64	tx_bytes;		/* inner bytes */
	__u64	rx_packets;
	__u64	rx_bytes;		/* inner bytes */
	__u64	rx_ce;			/* DATA the fabric marked CE (outer CE over a
					 * non-CE inner: RFC 6040's congestion signal) */
};

/* eq_underlay (hash): outer source address -> peer slot, for ingress. */
struct eq_underlay_val {
	__u32	peer;
};

/* Entropy for the UDP source port / path id. */
enum eq_entropy {
	EQ_ENTROPY_FLOW		= 0,	/* hash of the inner flow: no reordering */
	EQ_ENTROPY_PACKET	= 1,	/* random per packet: spraying */
};

/* How the XDP program was attached (for `edgeq status`). */
enum eq_xdp_attach {
	EQ_XDP_NONE		= 0,
	EQ_XDP_NATIVE		= 1,
	EQ_XDP_GENERIC		= 2,
};

#define EQ_CFG_HAS_V4		0x1	/* local4 is set: IPv4 peers allowed */
#define EQ_CFG_HAS_V6		0x8	/* local6 is set: IPv6 peers allowed */
#define EQ_CFG_CREATED_CLSACT	0x2	/* attach created the clsact qdisc */
#define EQ_CFG_XDP_MULTIPROG	0x4	/* XDP went through libxdp's dispatcher */
#define EQ_CFG_COMPLETE		0x10	/* attach finished; without it, an attach was
					 * killed half-way, and the next one rolls
					 * back what it left */

/* The control scheme that owns the tunnel's data. */
enum eq_scheme {
	EQ_SCHEME_NONE		= 0,	/* plain tunnel: TC encapsulates, XDP decapsulates */
	EQ_SCHEME_EQDS		= 1,	/* edge queues in the agent, receiver-paced pulls */
	EQ_SCHEME_SMARTT	= 2,	/* a sender window from ECN, delay and trims */
	EQ_SCHEME_SIRD		= 3,	/* receiver credit, informed overcommitment */
};

/* Every scheme but none runs in the agent: eq_config.scheme is one of
 * them when any peer's is (TC and XDP hand it the tunnel's packets). */
static inline int eq_scheme_has_agent(__u32 scheme)
{
	return scheme != EQ_SCHEME_NONE;
}

/* What TC egress does with peer traffic when the agent is not alive
 * (its heartbeat in eq_agent is older than agent_dead_ns). */
enum eq_agent_down {
	EQ_DOWN_TUNNEL		= 0,	/* encapsulate straight to the wire, no credit */
	EQ_DOWN_PASS		= 1,	/* send unencapsulated, as if edgeq were not there */
	EQ_DOWN_DROP		= 2,	/* drop, counted in eq_stats.tx_agent_down */
};

/* The tunnel's settings (docs/config.md), whatever scheme carries it: the
 * agent reads them from the pinned eq_config, so a restarted agent resumes
 * with the same settings; TC and XDP read the few they act on. */
struct eq_tunnel_config {
	__u32	bdp_bytes;		/* 1 BDP: first-RTT burst and pull target cap */
	__u32	unused0;		/* was EQDS's mode (now eq_scheme_settings),
					 * kept so that older pins read the same */
	__u32	edge_limit;		/* per-destination edge queue, packets */
	__u32	edge_ecn;		/* CE-mark ECT traffic above this many packets */
	__u32	reorder_limit;		/* reorder queue per tunnel, packets; 0: what
					 * the link delivers in 2 ms (128-4096) */
	__u32	rx_poll_ns;		/* a receiving agent polls a bulk flow XDP
					 * delivers this often, instead of being
					 * woken for it (rx.h); 0: woken */
	__u64	reorder_ns;		/* give up on a gap after this long */
	__u64	rto_ns;			/* retransmission timeout */
	__u32	drr_quantum;		/* bytes per class per DRR round */
	__u32	fast_path;		/* 1: the agent lends credit to TC (lease.h) */
	__u32	direct_rx;		/* 1: XDP delivers in-order DATA itself (rx.h) */
	__u32	hold_tcp;		/* 1: TC holds back TCP packets the lease does not
					 * cover while their flow has data in flight */
	__u32	ack_delay_ns;		/* XDP's deliveries wake the agent after this
					 * long, or at once from rx wake_bytes (rx.h) */
	__u64	loss_ns;		/* a seq missing this long after a later one
					 * came is NACKed as lost; 0: off */
	__u64	burst_ns;		/* the pacers' bucket, in time at the link
					 * rate (0: 150 us), at least 4 MTUs */
};

/* Each scheme's own settings (`SCHEME.KEY VALUE` in the config), one
 * member per scheme with settings, read by that scheme's module only; the
 * config parser fills them from a table (user/common/settings.c), so BPF
 * and the loader never look inside.  A new scheme appends its struct. */
struct eq_scheme_settings {
	struct {
		__u32	mode;		/* eqds.mode: 0 trim, 1 rts (no unscheduled burst) */
		__u32	asl;		/* eqds.asl: 0 fifo, 1 weighted */
	} eqds;
	struct {
		__u32	trimming;	/* smartt.trimming: 1 the fabric trims (NACKs
					 * of trimmed headers), 0 losses are found
					 * by timeouts and count double */
		__u32	trtt_pct;	/* smartt.target_rtt: percent of the base RTT */
		__u32	max_wnd_pct;	/* smartt.max_window: percent of a BDP */
		__u32	base_rtt_ns;	/* smartt.base_rtt_us: 0, the lowest measured */
		__u32	variant;	/* smartt.variant: 0 smartt (the paper's
					 * rules), 1 nscc (UEC's) */
		__u32	reps;		/* smartt.reps: 1 REPS picks each DATA
					 * packet's path, 0 TC's entropy does */
		__u32	entropies;	/* smartt.entropies: REPS's set */
		__u32	paths_kept;	/* smartt.paths_kept: REPS's working set,
					 * 0 none */
	} smartt;
	struct {
		__u32	b_pct;		/* sird.b: the receiver's credit bucket B,
					 * percent of a BDP */
		__u32	sthr_pct;	/* sird.sthr: csn above this much credit
					 * held, percent of a BDP */
		__u32	unsch_pct;	/* sird.unsch: UnschT, percent of a BDP */
		__u32	rho_pct;	/* sird.rho: credit paced at this percent
					 * of link_rate */
		__u32	policy;		/* sird.policy: 0 srpt (least backlog
					 * first), 1 rr (in turn) */
		__u32	base_rtt_ns;	/* sird.base_rtt_us: 0, as the senders
					 * measure it */
	} sird;
};

/* hold_tcp auto, until attach resolves it by the link rate: on from
 * EQ_HOLD_AUTO_BPS, where the agent could not carry a bulk flow's packets
 * (docs/eqds.md, "Holding back instead"). */
#define EQ_HOLD_AUTO		2
#define EQ_HOLD_AUTO_BPS	1000000000ULL

/* eq_config (array of one): what the programs need and what attach did. */
struct eq_config {
	struct eq_addr	local4;		/* this host's IPv4 underlay address (mapped) */
	struct eq_addr	local6;		/* this host's IPv6 underlay address */
	__u32	flags;			/* EQ_CFG_* */
	__u16	port;			/* UDP port, host order */
	__u16	node_id;		/* sender_id this host stamps */
	__u32	mtu;			/* wire MTU (IP packet size) */
	__u32	entropy;		/* enum eq_entropy */
	__u64	link_rate_bps;		/* access link rate, bits per second */
	__u32	ifindex;		/* the interface attached to */
	__u32	xdp_mode;		/* enum eq_xdp_attach */
	__u32	tc_handle;		/* our TC filter, for detach */
	__u32	tc_priority;
	__u64	netns_ino;		/* network namespace attached in */
	__u32	scheme;			/* enum eq_scheme */
	__u32	on_agent_down;		/* enum eq_agent_down */
	__u64	agent_dead_ns;		/* heartbeat older than this: agent down */
	__u32	agent_ifindex;		/* eqa<ifindex>: TC redirects agent traffic here */
	__u32	agent_peer_ifindex;	/* eqb<ifindex>: the agent's end (XDP -> eq_xsks[1]) */
	__u32	copy_ifindex;		/* eqc<ifindex>: TC clones fast sends here */
	__u32	copy_peer_ifindex;	/* eqd<ifindex>: the agent's end (XDP -> eq_xsks[2]) */
	struct eq_tunnel_config tunnel;
	__u32	agent_frame_max;	/* largest frame the agent's sockets take */
	__u32	peer_scheme;		/* enum eq_scheme: a peer's unless it names
					 * one (`scheme`); `scheme` above is eqds
					 * when any peer is (the agent runs) */
	__u32	link_framing;		/* bytes a frame takes on the link beyond
					 * its Ethernet header and payload: 24 on
					 * Ethernet (EQ_ETH_FRAMING), 0 on a veth */
	__u32	max_peers;		/* peer slots the maps were sized for at
					 * attach (0: an older attach, EQ_MAX_PEERS) */
	__u32	max_prefixes;		/* likewise for eq_prefixes */
	__u32	agent_priority;		/* the agent's SCHED_FIFO priority; 0: the
					 * default scheduler (docs/agent.md) */
	struct eq_scheme_settings schemes;
};

/* The peer slots of an attachment: every per-peer map has this many. */
static inline __u32 eq_max_peers(const struct eq_config *c)
{
	return c->max_peers ? c->max_peers : EQ_MAX_PEERS;
}

static inline __u32 eq_max_prefixes(const struct eq_config *c)
{
	return c->max_prefixes ? c->max_prefixes : EQ_MAX_PREFIXES;
}

/* The largest tunnel MTU of scheme eqds, whose every packet crosses an
 * internal veth pair into the agent's AF_XDP sockets: XDP on those pairs
 * must run natively (generic XDP skips packets TC redirected there), and
 * veth runs a single-buffer program natively up to an MTU of 3504 with
 * 4 KiB pages; the sockets then take the frame in one buffer of 4096
 * bytes less 256 of headroom.  A frame for the agent above this is
 * dropped and counted (rx_agent_too_big), never lost silently. */
#define EQ_AGENT_MTU_MAX	3500
#define EQ_AGENT_FRAME_MAX	(EQ_AGENT_MTU_MAX + 14)

/* eq_xsks (XSKMAP): the agent's AF_XDP sockets.  An AF_XDP socket takes
 * only the packets of the receive queue it is bound to, so the agent binds
 * one to every receive queue of the attached interface. */
#define EQ_XSK_WIRE		0	/* on the attached interface, queue 0 */
#define EQ_XSK_AGENT		1	/* on eqb<ifindex>, queue 0 */
#define EQ_XSK_COPY		2	/* on eqd<ifindex>, queue 0: copies of fast
					 * sends, read without waking the agent */
#define EQ_XSK_MAX		3	/* the agent's sockets shown by status */
#define EQ_MAX_RXQ		64	/* receive queues of the attached interface */
#define EQ_XSK_SLOTS		(EQ_XSK_MAX + EQ_MAX_RXQ - 1)

/* The eq_xsks key of the socket on receive queue q of the attached
 * interface: 0 for queue 0, after the fixed ones for the others. */
static inline __u32 eq_xsk_wire_key(__u32 q)
{
	return q ? EQ_XSK_MAX + q - 1 : EQ_XSK_WIRE;
}

/* One AF_XDP socket of the agent: what the kernel could not hand it (its
 * XDP_STATISTICS) and what it moved. */
struct eq_xsk_stats {
	__u64	rx_pkts, tx_pkts;
	__u64	rx_dropped;		/* no room, or larger than a frame */
	__u64	rx_ring_full;		/* the agent fell behind */
	__u64	rx_fill_empty;		/* no free frame to receive into */
	__u64	rx_invalid, tx_invalid;	/* bad descriptors */
	__u64	tx_no_room;		/* the agent found its TX ring full */
};

/* The agent's own counters, published with its heartbeat. */
struct eq_agent_counters {
	__u64	frames_bad;		/* did not parse as edgeq */
	__u64	no_peer;		/* from / to no configured peer */
	__u64	pool_empty;		/* no packet buffer left */
	__u64	ctl_noroute;		/* control packet to a peer not yet addressable */
	__u64	ecn_drops;		/* CE outer over Not-ECT inner (RFC 6040) */
	__u64	edge_drops;		/* edge queue full */
	__u64	csum_completed;		/* inner checksums of fast sends left to offload */
	__u64	seg_unnumbered;		/* trimmed segments of a GSO packet over IPv6:
					 * no inner TCP seq to number them (wire.h) */
	__u64	auth_missing;		/* from a keyed peer without an AUTH option,
					 * or naming none of its keys: dropped */
	__u64	auth_bad;		/* ... with a tag its key did not make: dropped */
	__u64	auth_unsigned;		/* to a keyed peer, sent unsigned: no room */
	__u64	copies_stale;		/* fast sends' copies left in eq_copies by an
					 * agent before this one: dropped, not sent
					 * again as new data */
};

/* eq_agent (array of one): written by the agent, read by TC/XDP and the
 * `edgeq` command; the command fields are written by `edgeq flush`. */
struct eq_agent {
	__u64	heartbeat_ns;		/* CLOCK_MONOTONIC (= bpf_ktime_get_ns) */
	__u32	pid;
	__u32	flags;			/* EQ_AGENT_* */
	__u64	started_ns;
	__u32	flush_seq;		/* bumped by `edgeq flush` ... */
	__u32	flush_peer;		/* ... for this peer slot, or ~0 for all */
	__u32	flush_done;		/* the agent copies flush_seq here when done */
	__u32	xsk_mode;		/* 1 copy, 2 zero-copy (the wire socket) */
	struct eq_agent_counters cnt;
	struct eq_xsk_stats xsk[EQ_XSK_MAX];	/* wire (every queue), host, copy */
	__u32	wire_queues;		/* sockets on the attached interface */
	__u32	pad;
};

#define EQ_AGENT_READY		0x1
#define EQ_AGENT_SHOWS_QUEUE	0x2	/* it keeps eq_credit's taken and queued
					 * up to date: TC may apply backpressure */
#define EQ_AGENT_READS_COPIES	0x4	/* it reads eq_copies (lease.h): TC may
					 * put its copies there */

/* eq_agent_peers (array, same index as eq_peers): the agent's per-peer
 * state of the tunnel, whatever its scheme, for `bpftool map dump` and
 * `edgeq status`.  What a scheme keeps of its own is in eq_<scheme>_peers
 * (EQ_MAP_SCHEME_PEERS), a map the agent makes with its BTF. */
struct eq_agent_peer {
	__s64	credit;			/* bytes the sender may send now */
	__u32	tx_state;		/* 0 closed, 1 SYN sent, 2 established */
	__u32	tx_epoch;		/* first seq of the sending tunnel */
	__u32	backlog_pkts;		/* edge queue + retransmissions waiting */
	__u64	backlog_bytes;
	__u64	inflight_bytes;
	__u64	tx_data, tx_rtx, rx_nacks, rto_fired, edge_drops, edge_marks;
	__u64	tx_fast;		/* of tx_data: sent by TC on leased credit */
	__u64	lease_bytes;		/* of credit: on lease to TC now */
	__u32	rx_expected;
	__u32	reorder_pkts;
	__u64	rx_data, rx_trimmed, rx_dup, rx_ooo, reorder_gaps;
	__u64	rx_direct;		/* of rx_data: delivered by XDP itself (rx.h) */
	__u64	infl_given_up;		/* in flight, dropped unACKed (ring at its cap) */
	__u32	bdp;			/* the tunnel's BDP, bytes (follows srtt unless
					 * `bdp` is configured) */
	__u32	srtt_us;		/* its smoothed RTT, agents included */
	__u64	rx_lost;		/* seqs NACKed as lost: missing while later
					 * ones came (no trimming switch said so) */
	__u64	rx_late;		/* ... of which the first send came after all */
	__u64	rx_relost;		/* NACKs of those sent again: still missing a
					 * re-report interval later (the NACK or the
					 * resend was lost too) */
	/* Refused, changing nothing (docs/eqds.md, "What a packet may
	 * change"): control packets whose ack lies past what was sent or far
	 * behind, RSTs echoing no seq of this epoch; DATA outside the window,
	 * SYNs too far ahead.  (A scheme's own refusals, e.g. EQDS's pulls
	 * beyond what was asked, are in its map, eq_<scheme>_peers.) */
	__u64	bad_ack, bad_rst, rx_bad_seq, rx_bad_epoch;
	__u64	peer_silent;		/* times the receiver fell silent for an RTO
					 * (its agent down or starved): the tunnel
					 * ran without credit until it spoke */
	__u64	rsts;			/* RSTs taken: the receiver had no state for
					 * the epoch (restarted, or idle-freed) */
	__u32	tx_next_seq;		/* the seq after the last one sent (TC's
					 * fast sends included) */
	__u32	tx_cum_ack;		/* cumulative ack: every seq before it arrived */
};

/* eq_stats (per-CPU array of one): counters by name, summed by readers. */
struct eq_stats {
	/* TC egress */
	__u64	tx_encap;		/* packets (skbs) encapsulated */
	__u64	tx_miss;		/* IP packets to no peer prefix: untouched */
	__u64	tx_non_ip;		/* not IPv4/IPv6: untouched */
	__u64	tx_err_too_big;		/* would exceed the MTU once encapsulated */
	__u64	tx_err_peer;		/* prefix points at an unused peer slot */
	__u64	tx_err_adjust;		/* the kernel refused to grow the packet */
	__u64	tx_err_malformed;	/* truncated inner IP header */
	/* XDP ingress */
	__u64	rx_decap;		/* DATA decapsulated and passed up */
	__u64	rx_pass;		/* not edgeq: passed up untouched */
	__u64	rx_drop_short;		/* truncated outer or edgeq header */
	__u64	rx_drop_version;	/* unknown edgeq version */
	__u64	rx_drop_type;		/* unknown packet type */
	__u64	rx_drop_peer;		/* outer source is not a configured peer */
	__u64	rx_drop_len;		/* IP/UDP/edgeq/inner lengths disagree */
	__u64	rx_drop_inner;		/* inner protocol bad or not matching */
	__u64	rx_drop_ecn;		/* CE outer over a Not-ECT inner (RFC 6040) */
	__u64	rx_drop_frag;		/* fragmented outer packet */
	__u64	rx_drop_csum;		/* bad outer IPv4 header checksum */
	__u64	rx_ctrl;		/* control packets (no agent yet: dropped) */
	__u64	rx_trimmed;		/* trimmed DATA (no agent: dropped) */
	/* the agent path (scheme eqds) */
	__u64	tx_to_agent;		/* encapsulated and handed to the agent */
	__u64	tx_agent_down;		/* agent not alive: on_agent_down applied */
	__u64	rx_to_agent;		/* edgeq packets handed to the agent */
	__u64	rx_agent_err;		/* agent alive, but no socket on that queue */
	__u64	agent_rx;		/* eqb: frames redirected to the agent */
	__u64	agent_rx_err;		/* eqb: no agent socket to take them */
	/* the fast path (scheme eqds, lease.h) */
	__u64	tx_fast;		/* sent to the wire on leased credit (segments) */
	__u64	tx_fast_noclone;	/* ... but the agent's copy could not be made */
	__u64	tx_lease_shut;		/* leases shut: a packet went to the agent past one */
	__u64	agent_deliver;		/* eqa: the agent's deliveries, into the stack on
					 * the attached interface (tc_deliver) */
	__u64	rx_agent_too_big;	/* for the agent but larger than its frames */
	__u64	rx_direct;		/* scheme eqds: in-order DATA XDP delivered itself
					 * (rx.h), the agent told through eq_rx */
	__u64	tx_backpressure;	/* refused to the stack: the peer's edge queue
					 * was full (TCP sends it again later) */
	__u64	tx_credit_wait;		/* refused to TCP with data in flight while the
					 * lease was short: it comes back on the fast path */
	__u64	rx_agent_down;		/* for the agent, which its heartbeat says is
					 * down: DATA delivered, the rest dropped */
	__u64	rx_drop_seg;		/* DATA with a segment option its inner TCP
					 * segment does not fit (wire.h) */
	__u64	rx_drop_src;		/* DATA whose inner source lies in none of
					 * the sending peer's prefixes */
	__u64	tx_bare_ack;		/* scheme eqds: bare TCP ACKs sent outside
					 * credit, as without an agent (tc_egress) */
	/* scheme eqds: the agent's doorbell (rx.h), each ring a wake-up of
	 * the agent and, in the kernel, a self-IPI on the ringing CPU */
	__u64	bell_rx_now;		/* XDP rang it at once (enough unread) */
	__u64	bell_rx_timer;		/* an ACK timer XDP armed rang it */
	__u64	bell_tx_held;		/* TC rang it: it held TCP back for credit */
	__u64	rx_ack_timers;		/* ACK timers XDP armed */
	__u64	bell_rx_polled;		/* XDP did not ring for enough unread: the
					 * agent looks within its poll_ns (rx.h) */
	/* authenticated headers (auth.h) */
	__u64	tx_err_auth;		/* TC could not sign for a keyed peer */
	__u64	rx_drop_auth;		/* DATA of a keyed peer without a tag one of
					 * its keys made: dropped before anything */
	__u64	tx_fast_ring;		/* fast sends whose copy went through
					 * eq_copies (lease.h), not the eqc veth */
};

#endif /* EDGEQ_MAPS_H */
