// SPDX-License-Identifier: GPL-2.0-only
/*
 * struct eq_agent_peer, field by field (agent_fields.h).  The metric
 * names follow Prometheus's conventions: base units (bytes, seconds),
 * `_total` on counters; the JSON names are status's, unchanged.
 */
#include <string.h>
#include "agent_fields.h"

#define F(j, m, k, t, scale, help) \
	{ #j, m, EQ_FIELD_##k, EQ_FIELD_##t, offsetof(struct eq_agent_peer, j), scale, help }

const struct eq_agent_field eq_agent_fields[] = {
	F(credit, "credit_bytes", GAUGE, S64, 1, "Bytes the sending tunnel may send now."),
	F(tx_state, "tx_state", GAUGE, U32, 1,
	  "The sending tunnel: 0 closed, 1 SYN sent, 2 established."),
	F(backlog_pkts, "backlog_packets", GAUGE, U32, 1,
	  "Packets in the edge queue and waiting to be resent."),
	F(inflight_bytes, "inflight_bytes", GAUGE, U64, 1, "Bytes sent and not yet acknowledged."),
	F(tx_data, "tx_data_packets_total", COUNTER, U64, 1,
	  "DATA packets sent, the fast path's included."),
	F(tx_rtx, "tx_retransmits_total", COUNTER, U64, 1, "DATA packets sent again."),
	F(rx_nacks, "rx_nacks_total", COUNTER, U64, 1, "NACKs received."),
	F(rto_fired, "rto_fired_total", COUNTER, U64, 1, "Retransmission timeouts."),
	F(edge_drops, "edge_drops_total", COUNTER, U64, 1, "Packets dropped at the edge queue."),
	F(edge_marks, "edge_marks_total", COUNTER, U64, 1, "Packets CE-marked at the edge queue."),
	F(rx_data, "rx_data_packets_total", COUNTER, U64, 1,
	  "DATA packets received, XDP's direct deliveries included."),
	F(rx_trimmed, "rx_trimmed_total", COUNTER, U64, 1, "Trimmed DATA headers received."),
	F(rx_dup, "rx_duplicates_total", COUNTER, U64, 1, "Duplicate DATA packets received."),
	F(rx_ooo, "rx_out_of_order_total", COUNTER, U64, 1, "DATA packets received out of order."),
	F(reorder_gaps, "reorder_gaps_total", COUNTER, U64, 1,
	  "Gaps the reorder queue gave up at their timeout."),
	F(rx_expected, "rx_expected_seq", GAUGE, U32, 1, "The next sequence number in order."),
	F(tx_fast, "tx_fast_packets_total", COUNTER, U64, 1,
	  "Of the DATA packets sent, those TC sent on leased credit."),
	F(lease_bytes, "lease_bytes", GAUGE, U64, 1, "Of the credit, bytes on lease to TC."),
	F(rx_direct, "rx_direct_packets_total", COUNTER, U64, 1,
	  "Of the DATA packets received, those XDP delivered itself."),
	F(infl_given_up, "inflight_given_up_total", COUNTER, U64, 1,
	  "Packets in flight dropped unacknowledged (the ring at its cap)."),
	F(bdp, "bdp_bytes", GAUGE, U32, 1, "The tunnel's bandwidth-delay product."),
	F(srtt_us, "srtt_seconds", GAUGE, U32, 1e-6, "The tunnel's smoothed round-trip time."),
	F(rx_lost, "rx_lost_total", COUNTER, U64, 1, "Sequence numbers NACKed as lost."),
	F(rx_late, "rx_late_total", COUNTER, U64, 1,
	  "Of those NACKed as lost, those whose first send came after all."),
	F(rx_relost, "rx_relost_total", COUNTER, U64, 1, "NACKs sent again for a resend still missing."),
	F(bad_ack, "refused_acks_total", COUNTER, U64, 1,
	  "Control packets refused: an ack past what was sent, or far behind."),
	F(bad_rst, "refused_rsts_total", COUNTER, U64, 1, "RSTs refused: no seq of this epoch echoed."),
	F(rx_bad_seq, "refused_data_total", COUNTER, U64, 1, "DATA refused: outside the window."),
	F(rx_bad_epoch, "refused_syns_total", COUNTER, U64, 1, "SYN packets refused: too far ahead."),
	F(peer_silent, "peer_silent_total", COUNTER, U64, 1,
	  "Times the receiver fell silent for an RTO."),
	F(rsts, "rsts_taken_total", COUNTER, U64, 1, "RSTs taken: the receiver had no state for the epoch."),
	F(tx_epoch, "tx_epoch", GAUGE, U32, 1, "The first sequence number of the sending tunnel."),
	F(tx_next_seq, "tx_next_seq", GAUGE, U32, 1,
	  "The sequence number after the last one sent, the fast path's included."),
	F(tx_cum_ack, "tx_cum_ack", GAUGE, U32, 1,
	  "The cumulative acknowledgement: every sequence number before it arrived."),
};
const size_t eq_agent_field_count = sizeof(eq_agent_fields) / sizeof(eq_agent_fields[0]);

const char *const eq_agent_counter_names[EQ_AGENT_COUNTERS] = {
	"frames_bad", "no_peer", "pool_empty", "ctl_noroute", "ecn_drops", "edge_drops",
	"csum_completed", "seg_unnumbered", "auth_missing", "auth_bad", "auth_unsigned",
	"copies_stale",
};
const char *const eq_agent_socket_counter_names[EQ_AGENT_SOCKET_COUNTERS] = {
	"rx_pkts", "tx_pkts", "rx_dropped", "rx_ring_full", "rx_fill_empty", "rx_invalid",
	"tx_invalid", "tx_no_room",
};
const char *const eq_agent_socket_names[EQ_XSK_MAX] = { "wire", "host", "copy" };

_Static_assert(EQ_AGENT_COUNTERS * 8 == sizeof(((struct eq_agent *)0)->cnt), "a name a counter");
_Static_assert(EQ_AGENT_SOCKET_COUNTERS * 8 == sizeof(((struct eq_agent *)0)->xsk[0]),
	       "a name a counter");

long long eq_agent_field_get(const struct eq_agent_peer *p, const struct eq_agent_field *f)
{
	const char *b = (const char *)p + f->off;
	__u32 u32;
	__u64 u64;
	__s64 s64;

	switch (f->type) {
	case EQ_FIELD_U32:
		memcpy(&u32, b, sizeof(u32));
		return u32;
	case EQ_FIELD_S64:
		memcpy(&s64, b, sizeof(s64));
		return s64;
	default:
		memcpy(&u64, b, sizeof(u64));
		return (long long)u64;
	}
}
