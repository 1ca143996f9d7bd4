#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The agent end to end, on two hosts joined by a veth pair, both attached
# with `scheme eqds`: tunnel traffic goes through edgeqd on both sides
# (TC -> eqa -> agent -> wire; wire -> agent -> eqa -> stack), arrives
# intact (ping, TCP checked by SHA-256, IPv4 and IPv6), and the agent's
# state is in the pinned maps.  Then the failures of docs/agent.md: a
# killed agent (the on_agent_down policy, counted, never a silent black
# hole; a restarted agent carries on), a second agent refused, and a
# tunnel flushed on either side in the middle of a transfer (the transfer
# completes with identical bytes).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

# In the VM 4 MB, not 8 (its TCG is slow), and not 2: its round trips of
# milliseconds make the automatic BDP reach its cap, 16 ms at link_rate
# (2 MB at 1 Gbit/s), and a 2 MB transfer then went without a pull,
# which check 16 below counts (it failed so on 2026-11-28).
MB=${EDGEQ_IN_VM:+4}
MB=${MB:-8}

tb_start
for s in a b; do
	cat >>"$TB_TMP/$s.conf" <<-EOF
	scheme eqds
	on_agent_down tunnel
	agent_dead_ms 100
	EOF
	sed -i 's/^link_rate .*/link_rate 1gbit/' "$TB_TMP/$s.conf"
done
check "attach with scheme eqds on both hosts (agents start)" tb_attach
idx=$(ip -n "$TB_A" -o link show "$TB_IFA" | cut -d: -f1)
veth_a=eqa$idx veth_b=eqb$idx veth_c=eqc$idx veth_d=eqd$idx
check "attach made the internal veths $veth_a/$veth_b and $veth_c/$veth_d, up, with xdp_agent on $veth_b and $veth_d" \
	bash -c "ip -n $TB_A link show $veth_a | grep -q 'state UP' &&
		 ip -n $TB_A link show $veth_b | grep -q 'prog/xdp' &&
		 ip -n $TB_A link show $veth_c | grep -q 'state UP' &&
		 ip -n $TB_A link show $veth_d | grep -q 'prog/xdp'"
offl=$(ip netns exec "$TB_A" ethtool -k "$veth_a" 2>/dev/null | grep -E '^(tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload):')
as_comment <<<"$offl"
check "$veth_a has no checksum, SG, TSO or GSO offload (the kernel segments there)" \
	bash -c "[ -n \"\$1\" ] && ! grep -q ': on' <<<\"\$1\"" _ "$offl"
offl=$(ip netns exec "$TB_A" ethtool -k "$veth_c" 2>/dev/null | grep -E '^(tx-checksumming|scatter-gather|tcp-segmentation-offload|generic-segmentation-offload):')
check "$veth_c neither (the copies the agent keeps have complete checksums)" \
	bash -c "[ -n \"\$1\" ] && ! grep -q ': on' <<<\"\$1\"" _ "$offl"
# A queue on each, so that a full veth ring holds packets back (Linux
# 6.16 and later) instead of dropping copies and handed packets.
qd=$(for v in "$veth_a" "$veth_c"; do ip netns exec "$TB_A" tc qdisc show dev "$v" root; done)
as_comment <<<"$qd"
check "$veth_a and $veth_c have a pfifo queue of 1000 packets" \
	test "$(grep -c '^qdisc pfifo .* root .*limit 1000p' <<<"$qd")" = 2

agent_pid() {	# a|b
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	"$EDGEQ" --netns "$ns" status "$ifc" --json | grep -o '"agent_pid":[0-9]*' | cut -d: -f2
}
js=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json)
alive=$(jq -r '.interfaces[0].agent_alive, .interfaces[0].scheme, (.interfaces[0].peers[0].agent | has("credit"))' <<<"$js" 2>/dev/null | paste -sd' ')
check "status --json parses and shows the agent (alive, scheme, per-peer: $alive)" [ "$alive" = "true eqds true" ]
pa=$(agent_pid a); pb=$(agent_pid b)
# After a failed check: both hosts' status and the ends of their agents'
# logs, as TAP comments.
show_state() {
	local s ns ifc
	for s in a b; do
		ns=$TB_A ifc=$TB_IFA
		[ $s = b ] && ns=$TB_B ifc=$TB_IFB
		{ echo "host $s:"; "$EDGEQ" --netns "$ns" status "$ifc" 2>&1
		  tail -n 15 /run/edgeq/"$ifc"@*.log 2>/dev/null; } | as_comment
	done
}
check "an edgeqd runs for each host (pids ${pa:-none}, ${pb:-none})" \
	bash -c "[ -n '$pa' ] && [ -n '$pb' ] && [ \"\$(cat /proc/$pa/comm)\" = edgeqd ] && [ \"\$(cat /proc/$pb/comm)\" = edgeqd ]"

check "ping IPv4 peer through the agents" in_a ping -c 5 -i 0.1 -W 2 10.77.0.2
check "ping IPv6 peer through the agents" in_a ping -6 -c 5 -i 0.1 -W 2 fd77::2
ta=$(eq_stat a tx_to_agent); tf=$(eq_stat a tx_fast); rb=$(eq_stat b rx_to_agent)
check "A's TC handed the pings to its agent or sent them itself, B's XDP to its agent ($ta + $tf, $rb)" \
	test "$((${ta:-0} + ${tf:-0}))" -ge 10 -a "${rb:-0}" -ge 10
# The fast path (docs/eqds.md): once the tunnel is up and its queue empty,
# A's agent lends its credit to TC, which sends the pings itself and hands
# the agent a copy of each to keep until B's ACK.
sleep 0.3	# the agent publishes every 100 ms
af=$(nsenter --net="/run/netns/$TB_A" bpftool map dump pinned "$TB_PIN_A/eq_agent_peers" -j 2>/dev/null |
	jq '[.[] | .formatted.value.tx_fast] | add' 2>/dev/null)
nc=$(eq_stat a tx_fast_noclone)
check "the pings after the first went on A's fast path ($tf), each copy reached A's agent ($af, $nc lost)" \
	test "${tf:-0}" -ge 6 -a "${af:-0}" = "${tf:-0}" -a "${nc:-1}" = 0
# Their copies, small frames, went through eq_copies, the ring buffer A's
# agent reads (not the eqc veth), sized by attach for 20 ms of the link.
fr=$(eq_stat a tx_fast_ring)
ringsz=$(nsenter --net="/run/netns/$TB_A" bpftool map show pinned "$TB_PIN_A/eq_copies" -j 2>/dev/null |
	jq -r '.max_entries // 0')
check "the pings' copies went through eq_copies ($fr of $tf), a ring of $ringsz bytes (1-16 MiB, a power of two)" \
	bash -c '[ "${1:-0}" = "${2:-x}" ] && [ "${3:-0}" -ge $((1 << 20)) ] && [ "${3:-0}" -le $((1 << 24)) ] &&
		 [ $(( ${3:-0} & (${3:-0} - 1) )) = 0 ]' _ "$fr" "$tf" "$ringsz"
# The lease can be shut at any one instant (an RTO in the VM, whose
# ACKs can take longer than rto_us, takes it back until the resends are
# out); the agent lends again once its queue is empty: wait for that.
lease_open() {
	lease=$(nsenter --net="/run/netns/$TB_A" bpftool map dump pinned "$TB_PIN_A/eq_credit" -j 2>/dev/null |
		jq "[.[] | .formatted.value.lease.parts.bytes] | max" 2>/dev/null)
	lease=${lease//[!0-9]/}	# "null" when there is no such field
	[ "$(( ${lease:-0} & 0x80000000 ))" -ne 0 ] && [ "$(( ${lease:-0} & 0xffffff ))" -gt 0 ]
}
opened=0
for waited in $(seq 0 30); do lease_open && { opened=1; break; }; sleep 0.1; done
check "bpftool shows the lease in eq_credit, open with credit left ($lease, after $((waited * 100)) ms)" \
	test "$opened" = 1 ||
	# Why not: the tunnel's state (the VM once found it shut after 3 s).
	nsenter --net="/run/netns/$TB_A" bpftool map dump pinned "$TB_PIN_A/eq_agent_peers" -j 2>/dev/null |
	jq -c '.[] | .formatted.value | select(.tx_data > 0) | {credit, tx_state, backlog_pkts,
		inflight_bytes, tx_data, tx_rtx, rx_nacks, rto_fired, peer_silent, lease_bytes, srtt_us}' |
	sed 's/^/#   /'

check "TCP $MB MB to IPv4 peer through the agents, SHA-256 matches" tcp_transfer_ok 10.77.0.2 "$MB"
check "TCP $MB MB to IPv6 peer through the agents, SHA-256 matches" tcp_transfer_ok fd77::2 "$MB"

# The agent's per-peer state is in a pinned, BTF-typed map, published
# every 100 ms: the transfers can take less.
sleep 0.3
dump=$(nsenter --net="/run/netns/$TB_A" bpftool map dump pinned "$TB_PIN_A/eq_agent_peers" -j 2>/dev/null)
txd=$(jq '[.[] | .formatted.value.tx_data] | add' <<<"$dump" 2>/dev/null)
# EQDS's own state is in a map of its own the agent made, typed by the
# BTF it built from EQDS's table of fields: bpftool prints it by name.
pls=$(nsenter --net="/run/netns/$TB_B" bpftool map dump pinned "$TB_PIN_B/eq_eqds_peers" -j 2>/dev/null |
	jq '[.[] | .formatted.value.pulls_sent] | add' 2>/dev/null)
# (Pulls grant a batch, and only what TC and the agent asked for: fewer
# than the packets.)
check "bpftool shows A's agent sent data ($txd) and, in eq_eqds_peers, B's agent pulled for it ($pls)" \
	test "${txd:-0}" -gt 1000 -a "${pls:-0}" -gt 0
# Which peer status lists first is not the check's business: once in the
# VM the first one showed no pull while the peers together had pulled 508
# times (a transfer can go without pulls while B's agent is taken for
# down; not proven to be why).  The peers' largest, the text line that
# says it, and no more than the map has.
st=$(eq_b status "$TB_IFB" --json | jq -c '[.interfaces[0].peers[] | select(.eqds) | .eqds.pulls_sent] | max' 2>/dev/null)
txt=$(eq_b status "$TB_IFB" | grep "^      eqds:.* pulls_sent ${st:-x},")
check "status shows EQDS's own state from that map's BTF (--json .eqds.pulls_sent $st, as eq_eqds_peers' $pls in all; text: $txt)" \
	bash -c '[ "${1:-0}" -gt 0 ] 2>/dev/null && [ "$1" -le "${3:-0}" ] && grep -qE "pulls_sent [1-9][0-9]*" <<<"$2"' _ "$st" "$txt" "$pls"

# A second agent for the same attachment is refused, the first keeps going.
out=$(nsenter --net="/run/netns/$TB_A" "$(dirname "$EDGEQ")/edgeqd" --iface "$TB_IFA" 2>&1)
rc=$?
as_comment <<<"$out"
refused() { [ "$rc" -ne 0 ] && has "$out" 'already runs'; }
check "a second edgeqd is refused with a clear error (rc $rc)" refused
check "... and the first still carries traffic" in_a ping -c 2 -i 0.1 -W 2 10.77.0.2

# Killed agent: after agent_dead_ms the tunnel carries on without credit
# (on_agent_down tunnel), counted.  Stopped first, with its lease open,
# while pings go on it: TC leaves their copies in eq_copies, which the
# next agent finds there and must drop, not send again as new data.
# (The pings run before the stop: starting a process can take longer than
# agent_dead_ms in the VM layer's emulated CPU, and TC lends nothing once
# the agent is taken for dead.)
opened=0
for waited in $(seq 0 30); do lease_open && { opened=1; break; }; sleep 0.1; done
ring0=$(eq_stat a tx_fast_ring)
in_a ping -c 97 -i 0.02 -W 1 10.77.0.2 >/dev/null 2>&1 &
pinger=$!
for waited in $(seq 0 50); do
	[ "$(eq_stat a tx_fast_ring)" -gt "${ring0:-0}" ] 2>/dev/null && break
	sleep 0.1
done
kill -STOP "$pa"
sleep 0.15	# pings on the lease, their copies left in the ring
kill -KILL "$pa"
pkill -f "ping -c 97 -i 0.02 -W 1 10.77.0.2"; wait "$pinger" 2>/dev/null
ring1=$(eq_stat a tx_fast_ring)
sleep 0.3
before=$(eq_stat a tx_agent_down)
check "with A's agent killed, ping still goes through (on_agent_down tunnel)" \
	in_a ping -c 3 -i 0.1 -W 2 10.77.0.2
after=$(eq_stat a tx_agent_down)
check "... counted as tx_agent_down ($before -> $after)" test "${after:-0}" -gt "${before:-0}"
check "edgeq agent start restarts it" eq_a agent start "$TB_IFA"
sleep 0.3
stale=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json | jq -r '.interfaces[0].agent_counters.copies_stale // 0')
check "the new agent dropped the copies the stopped one left in eq_copies ($stale of the $((${ring1:-0} - ${ring0:-0})) the pings put there, lease open: $opened)" \
	test "$opened" = 1 -a "${stale:-0}" -ge 1 -a "${stale:-0}" -le "$(( ${ring1:-0} - ${ring0:-0} ))"
before=$(eq_stat a tx_to_agent)
check "... and traffic goes through the new agent again" in_a ping -c 3 -i 0.1 -W 2 10.77.0.2 ||
	show_state
after=$(eq_stat a tx_to_agent)
check "... (tx_to_agent $before -> $after)" test "${after:-0}" -gt "${before:-0}"
# The stopped agent's socket frees the interface's queue from deferred
# kernel work: a start straight after a stop must wait for it, not fail.
check "edgeq agent stop then start at once: the new agent binds the queue" \
	bash -c "\"\$0\" --netns $TB_A agent stop $TB_IFA >/dev/null && \"\$0\" --netns $TB_A agent start $TB_IFA >/dev/null" "$EDGEQ"
check "... and carries traffic" in_a ping -c 2 -i 0.1 -W 2 10.77.0.2 || show_state

# flush_during SIDE: a transfer of 8 x $MB MB, and that side's tunnels
# flushed 3 times during it: each time a sixteenth of it has arrived since
# the transfer started or the last flush.  Each flush is carried out
# (`edgeq flush` returns once the agent has confirmed it, and its log says
# so) and mid-transfer (bytes are still to come once it is confirmed).
# FLUSH_DONE says what happened.  In the VM (TCG) a flush takes longer
# than most transfers that fit in the transfer's 60 s: there the flushes
# must be carried out and the bytes arrive, mid-transfer or not (the host
# checks that they came mid-transfer).
FLUSH_DONE=
FLUSH_MB=$((MB * 8))
FLUSH_MID=3
FLUSH_WHEN="mid-transfer"
[ -n "${EDGEQ_IN_VM:-}" ] && FLUSH_MB=4 FLUSH_MID=0 FLUSH_WHEN="during or after a transfer"
flush_during() {
	local side=$1 ns=$TB_A ifc=$TB_IFA pin=$TB_PIN_A log n0 n1 mb=$FLUSH_MB total sz from=0
	local confirmed=0 mid=0 t rc
	[ "$side" = b ] && ns=$TB_B ifc=$TB_IFB pin=$TB_PIN_B
	log=/run/edgeq/${pin##*/}.log
	n0=$(grep -c 'flushed every tunnel' "$log")
	total=$((mb * 1048576))
	rm -f "$TB_TMP/recv"
	tcp_transfer_ok 10.77.0.2 "$mb" &
	t=$!
	for _ in 1 2 3; do
		for _ in $(seq 3000); do
			sz=$(stat -c %s "$TB_TMP/recv" 2>/dev/null || echo 0)
			[ "$sz" -ge $((from + total / 16)) ] && break
			kill -0 "$t" 2>/dev/null || break
			sleep 0.01
		done
		"$EDGEQ" --netns "$ns" flush "$ifc" >/dev/null && confirmed=$((confirmed + 1))
		from=$(stat -c %s "$TB_TMP/recv" 2>/dev/null || echo 0)
		[ "$from" -lt "$total" ] && mid=$((mid + 1))
	done
	wait "$t"
	rc=$?
	n1=$(grep -c 'flushed every tunnel' "$log")
	FLUSH_DONE="flushes confirmed $confirmed, in the agent's log $((n1 - n0)), before the last byte $mid; transfer rc $rc"
	[ "$rc" -eq 0 ] && [ "$confirmed" -eq 3 ] && [ "$((n1 - n0))" -eq 3 ] && [ "$mid" -ge "$FLUSH_MID" ]
}
alive_a=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json | jq -r '.interfaces[0].agent_alive')
check "A's restarted agent is still alive a while on ($alive_a)" test "$alive_a" = true || show_state
check "sender's tunnels flushed 3 times $FLUSH_WHEN: $FLUSH_MB MB arrive identical" flush_during a
echo "# ... $FLUSH_DONE"
check "receiver's tunnels flushed 3 times $FLUSH_WHEN: $FLUSH_MB MB arrive identical" flush_during b
echo "# ... $FLUSH_DONE"

# A dead agent degrades the tunnel, never stops it (docs/eqds.md, "A
# silent receiver"): with B's agent stopped, A's tunnel hears nothing for
# an RTO and goes on without waiting for credit, B's XDP delivering what
# comes.  Waiting for credit, it let one BDP through per RTO, the RTO
# doubling: 32 MB would not have arrived in a minute.  With B's agent
# back, the tunnel waits for credit again.
silent() { "$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json |
	jq '[.interfaces[0].peers[] | .agent.peer_silent // 0] | add'; }
s0=$(silent)
check "B's agent stopped" eq_b agent stop "$TB_IFB"
check "... 32 MB A -> B arrive identical all the same" tcp_transfer_ok 10.77.0.2 32
s1=$(silent)
check "... A's tunnel found B silent and ran on without credit (peer_silent $s0 -> $s1)" \
	test "${s1:-0}" -gt "${s0:-0}"
check "B's agent started again" eq_b agent start "$TB_IFB"
check "... 8 MB A -> B arrive identical" tcp_transfer_ok 10.77.0.2 8

# on_agent_down drop: a killed agent's peer traffic is dropped and counted.
eq_a detach "$TB_IFA" >/dev/null
sed -i 's/^on_agent_down .*/on_agent_down drop/' "$TB_TMP/a.conf"
echo "fast_path off" >>"$TB_TMP/a.conf"
check "re-attach A with on_agent_down drop, fast_path off" eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf"
sleep 0.2
before=$(eq_stat a tx_to_agent)
check "... ping goes through" in_a ping -c 3 -i 0.1 -W 2 10.77.0.2 || show_state
after=$(eq_stat a tx_to_agent); tf=$(eq_stat a tx_fast)
check "... every ping through A's agent, none on the fast path ($before -> $after, fast $tf)" \
	test "${after:-0}" -ge $((${before:-0} + 3)) -a "${tf:-1}" = 0
pa=$(agent_pid a)
kill -KILL "${pa:-0}"
sleep 0.3
before=$(eq_stat a tx_agent_down)
check "with A's agent killed, ping to B is dropped" bash -c "! ip netns exec $TB_A ping -c 2 -i 0.1 -W 1 10.77.0.2 >/dev/null"
after=$(eq_stat a tx_agent_down)
check "... and counted as tx_agent_down ($before -> $after)" test "${after:-0}" -ge $((${before:-0} + 2))
st=$(eq_a status "$TB_IFA")
check "status says the agent is down and what happens" has "$st" "agent +DOWN .*on_agent_down drop"

tb_stop
check "detach A (stops its agent)" eq_a detach "$TB_IFA"
check "detach B" eq_b detach "$TB_IFB"
# (the bracket keeps this bash -c's own command line from matching)
check "A's agent is gone" bash -c "! pgrep -f 'edgeqd [-]-iface $TB_IFA' >/dev/null"
check "nothing left on A" nothing_left "$TB_A" "$TB_IFA"
check "nothing left on B" nothing_left "$TB_B" "$TB_IFB"
check "no internal veth left on A ($veth_a, $veth_b, $veth_c, $veth_d)" \
	bash -c "! ip -n $TB_A link show $veth_a 2>/dev/null && ! ip -n $TB_A link show $veth_b 2>/dev/null &&
		 ! ip -n $TB_A link show $veth_c 2>/dev/null && ! ip -n $TB_A link show $veth_d 2>/dev/null"

# An agent from a file of another name ($EDGEQD): status sees it, detach
# stops it.  Its process name is the file's, which alone did not count as
# an agent: detach left it running.
cp "$(dirname "$EDGEQ")/edgeqd" "$TB_TMP/agent-copy"
attach_copy() { (export EDGEQD="$TB_TMP/agent-copy"; eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf"); }
check "attach A with EDGEQD=$TB_TMP/agent-copy" attach_copy
check "... status says its agent is alive" has "$(eq_a status "$TB_IFA")" "agent +edgeqd pid [0-9]+, alive"
check "... detach stops it" eq_a detach "$TB_IFA"
check "... and it is gone" bash -c "! pgrep -f '[a]gent-copy --iface $TB_IFA' >/dev/null"
tap_done
