#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `scheme smartt` beside `scheme eqds` in one agent (docs/smartt.md), on
# the two-host testbed with the kernel's default offloads: each host's
# IPv4 peer is smartt, its IPv6 peer eqds (the attachment's default).
#  1. both attach; `status` says each peer's scheme, and shows the smartt
#     peer's own state (window, base RTT) from its map's BTF, which
#     bpftool reads too;
#  2. a TCP transfer over each at once arrives intact (SHA-256); the IPv4
#     one went through SMaRTT's tunnel (its agent counted its DATA, one ACK
#     per DATA packet came back, nothing went on EQDS's fast path), the
#     IPv6 one through EQDS's;
#  3. the agent's log names both schemes; `peer add ... scheme smartt`
#     adds a smartt peer at run time; on an attachment without an agent
#     it is refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

MB=${EDGEQ_IN_VM:+1}
MB=${MB:-4}

TB_OFFLOADS=default tb_start
for s in a b; do
	sed -i 's/^peer \([0-9.]*\/32 via [0-9.]*\)$/peer \1 scheme smartt/' "$TB_TMP/$s.conf"
	printf 'scheme eqds\n' >>"$TB_TMP/$s.conf"
done
as_comment <"$TB_TMP/a.conf"
check "attach with a smartt and an eqds peer on both hosts" tb_attach

js=$(eq_a status "$TB_IFA" --json)
sc=$(jq -r '[.interfaces[0].scheme, (.interfaces[0].peers[] | "\(.prefix)=\(.scheme):\(has("agent"))")] | join(" ")' <<<"$js" 2>/dev/null)
check "status: the IPv4 peer is smartt, the IPv6 one eqds, both with agent state ($sc)" \
	[ "$sc" = "eqds 10.77.0.2/32=smartt:true fd77::2/128=eqds:true" ]

peer_js() {	# PREFIX: that peer's status on A
	eq_a status "$TB_IFA" --json | jq -c ".interfaces[0].peers[] | select(.prefix == \"$1\")"
}
xfer() { tcp_transfer_ok "$1" "$MB" "$2"; }	# DST LABEL
fast0=$(eq_stat a tx_fast)
xfer 10.77.0.2 4 & p4=$!
xfer fd77::2 6 & p6=$!
wait "$p4"; r4=$?
wait "$p6"; r6=$?
check "TCP over the smartt peer (IPv4, $MB MB): identical bytes" [ "$r4" = 0 ]
check "TCP over the eqds peer (IPv6, $MB MB) at the same time: identical bytes" [ "$r6" = 0 ] ||
	{ peer_js fd77::2/128; eq_a status "$TB_IFA"; "$EDGEQ" --netns "$TB_B" status "$TB_IFB"; } | as_comment
sleep 0.3	# the agent publishes every 100 ms
p=$(peer_js 10.77.0.2/32)
as_comment <<<"$p"
# B's side now too: a tunnel idle for 10 s is freed with its state, and in
# the VM the checks below took longer than that (B's rx_data read after
# them was 0 there on 2026-11-28).
rxd=$("$EDGEQ" --netns "$TB_B" status "$TB_IFB" --json |
	jq -r '.interfaces[0].peers[] | select(.prefix == "10.77.0.1/32") | .agent.rx_data')
data=$(jq -r '.agent.tx_data' <<<"$p"); cwnd=$(jq -r '.smartt.cwnd // 0' <<<"$p")
brtt=$(jq -r '.smartt.base_rtt // 0' <<<"$p"); incr=$(jq -r '.smartt.increases // 0' <<<"$p")
# Read now: a tunnel idle for 10 s is freed with its state (in the VM the
# checks below can take that long).
slot=$(eq_a peer list dev "$TB_IFA" --json | jq -r '.[] | select(.prefix == "10.77.0.2/32") | .slot')
bt=$(bpftool -j map lookup pinned "$TB_PIN_A/eq_smartt_peers" key "${slot:-9999}" 0 0 0 2>&1 |
	jq -r '.formatted.value.cwnd // empty' 2>/dev/null)
check "bpftool reads the smartt peer's window from eq_smartt_peers by its BTF ($bt, status $cwnd)" \
	test "${bt:-0}" = "$cwnd"
# Its fields are metric families too (edgeq_peer_smartt_<field>): names
# promtool's lint takes (base_rtt_ns once failed it, "abbreviated units").
M=$(eq_a metrics "$TB_IFA")
lint=$(promtool check metrics <<<"$M" 2>&1); lrc=$?
check "metrics has SMaRTT's own families, and promtool's lint passes them ($lrc: $lint)" \
	bash -c '[ "$1" = 0 ] && grep -q "^# TYPE edgeq_peer_smartt_base_rtt " <<<"$2"' _ "$lrc" "$M"
check "the IPv4 data went through SMaRTT's tunnel (agent tx_data $data)" test "${data:-0}" -gt $((MB * 500))
check "... its window moved on its ACKs (window $cwnd bytes, $incr increases, base RTT $brtt ns)" \
	bash -c "[ \"\$1\" -gt 1500 ] && [ \"\$2\" -gt 0 ] && [ \"\$3\" -gt 0 ]" _ "$cwnd" "$incr" "$brtt"
check "... and everything it sent was acknowledged (in flight $(jq -r '.agent.inflight_bytes' <<<"$p"))" \
	test "$(jq -r '.agent.inflight_bytes' <<<"$p")" = 0
check "B's agent received SMaRTT's DATA itself (rx_data $rxd: no direct delivery for it)" \
	test "${rxd:-0}" -ge "$data"
ex=$(jq -r '.smartt.explores // 0' <<<"$p")
check "... REPS picked its paths (explorations $ex, paths left $(jq -r '.smartt.repaths' <<<"$p"))" \
	test "${ex:-0}" -ge 1
e=$(peer_js fd77::2/128 | jq -r '.agent.tx_data')
check "the IPv6 data went through EQDS's tunnel (agent tx_data $e, fast path $(( $(eq_stat a tx_fast) - fast0 )))" \
	test $((e + $(eq_stat a tx_fast) - fast0)) -gt $((MB * 500))
log=$(cat /run/edgeq/*"$TB_IFA"*.log 2>/dev/null)
check "the agent's log names both schemes" bash -c "grep -q 'SMaRTT, link' <<<\"\$1\" && grep -q 'EQDS, link' <<<\"\$1\"" _ "$log"

check "peer add ... scheme smartt at run time" eq_a peer add 10.77.0.3/32 via 10.77.0.3 scheme smartt dev "$TB_IFA"
sc=$(peer_js 10.77.0.3/32 | jq -r '.scheme')
check "status shows it as scheme smartt ($sc)" [ "$sc" = smartt ]
check "detach both" bash -c "'$EDGEQ' --netns '$TB_A' detach '$TB_IFA' && '$EDGEQ' --netns '$TB_B' detach '$TB_IFB'"

printf 'local 10.77.0.1\npeer 10.77.0.2/32 via 10.77.0.2\n' >"$TB_TMP/none.conf"
check "scheme none alone: attach (no agent)" eq_a attach "$TB_IFA" --config "$TB_TMP/none.conf"
out=$(eq_a peer add 10.77.0.3/32 via 10.77.0.3 scheme smartt dev "$TB_IFA" 2>&1); rc=$?
check "peer add ... scheme smartt without an agent is refused ($rc): $out" \
	bash -c "[ $rc -ne 0 ] && grep -q 'scheme smartt needs one' <<<\"\$1\"" _ "$out"
check "detach" eq_a detach "$TB_IFA"

tap_done
