#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The life of an attachment, on the two-host testbed (tests/lib/netns.sh):
#  1. attach sets up XDP, a clsact qdisc with our filter, routes with the
#     tunnel MTU (proto 233) and the pins; bpftool prints eq_config with
#     named fields; detach puts back exactly what was there (ip link, tc
#     qdisc and filters, IPv4/IPv6 routes, ethtool -k) and plain traffic
#     flows again with no tunnel packet on the wire;
#  2. a clsact qdisc the user had, with filters of their own, is shared,
#     and detach leaves it and those filters in place;
#  3. a second attach is refused (exit 1) and the first keeps working;
#     --netns and nsenter find the same pin directory;
#  4. hooks removed behind edgeq's back: status says STALE, a new attach
#     removes the stale pins and works, detach leaves nothing;
#  5. `edgeq attach` killed (SIGKILL) at many points: the next attach
#     succeeds, or says "already attached" only while a hook of ours is
#     live; after detach nothing is left;
#  6. XDP attached in generic mode with the mode not recorded (what a kill
#     right after the XDP attach leaves): detach still removes it;
#  7. the interface deleted while attached: detach removes the pins only.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

CRASH_PID=
cleanup() {
	# An `edgeq attach` the crash test started and did not reap yet.
	if [ -n "$CRASH_PID" ]; then
		kill -KILL "$CRASH_PID" 2>/dev/null
		wait "$CRASH_PID" 2>/dev/null
		CRASH_PID=
	fi
	tb_down
}

tb_start
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

PINS=(prog_tc_egress prog_xdp_ingress eq_config eq_prefixes eq_peers eq_peer_stats eq_underlay eq_stats)

# ---- helpers (more in tests/lib/netns.sh) ----

# What attach may change in A, one file per view.
snapshot() {		# snapshot DIR
	mkdir -p "$1"
	in_a ip -d link show dev "$TB_IFA" >"$1/link"
	in_a tc qdisc show dev "$TB_IFA" >"$1/qdisc"
	in_a tc filter show dev "$TB_IFA" egress >"$1/filter_egress"
	in_a tc filter show dev "$TB_IFA" ingress >"$1/filter_ingress"
	in_a ip -4 route >"$1/route4"
	in_a ip -6 route >"$1/route6"
	in_a ethtool -k "$TB_IFA" >"$1/ethtool"
}

# check_same DESC FILE1 FILE2: ok when equal; the diff as TAP comments.
check_same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | as_comment
	fi
}

hooks_gone() { ! xdp_on "$TB_A" "$TB_IFA" && ! clsact_on "$TB_A" "$TB_IFA"; }
# Alone, the interface runs xdp_ingress itself; where libxdp's dispatcher
# loads (the VM), it runs xdp_dispatcher, and status says multiprog.
xdp_ours() {
	local link; link=$(in_a ip link show dev "$TB_IFA")
	has "$link" ' xdp .*qdisc' || return 1
	if eq_a status "$TB_IFA" --json | grep -q '"xdp_multiprog":true'; then
		has "$link" 'prog/xdp id [0-9]+ name xdp_dispatcher' &&
		has "$(nsenter --net="/run/netns/$TB_A" xdp-loader status "$TB_IFA" 2>/dev/null)" 'xdp_ingress'
	else
		has "$link" 'prog/xdp id [0-9]+ name xdp_ingress'
	fi
}
filter_ours() {
	in_a tc filter show dev "$TB_IFA" egress |
		grep -qE 'pref 233 bpf .*handle 0xe9 tc_egress.*direct-action'
}
route_ok() {		# route_ok -4|-6 DST MTU
	in_a ip "$1" route show "$2" | grep -qE "proto 233 .*mtu $3( |$)"
}

all_pins() {
	local p
	for p in "${PINS[@]}"; do
		[ -e "$TB_PIN_A/$p" ] || { echo "# missing pin $p"; return 1; }
	done
}

status_a_json() { eq_a status "$TB_IFA" --json; }
status_a_jq() { status_a_json | jq -e ".interfaces[0] | $1" >/dev/null; }
attached_a() { eq_a status "$TB_IFA" 2>/dev/null | head -1 | grep -q ': attached$'; }

# Plain `bpftool map dump` (not -j) of eq_config shows fields by name.
cfg_text_ok() {
	local t
	t=$(bpftool map dump pinned "$TB_PIN_A/eq_config" 2>&1)
	if ! has "$t" '"port": 7446,' || ! has "$t" '"node_id": 1,'; then
		echo "$t" | as_comment
		return 1
	fi
}

# Ping from A through the tunnel: A encapsulated and B decapsulated.
tunnel_ping_ok() {	# [ADDR]
	local dst=${1:-10.77.0.2} e0 d0 e1 d1
	e0=$(eq_stat a tx_encap); d0=$(eq_stat b rx_decap)
	in_a ping -c 3 -i 0.1 -W 2 "$dst" >/dev/null || return 1
	e1=$(eq_stat a tx_encap); d1=$(eq_stat b rx_decap)
	if [ "${e1:-0}" -lt $((${e0:-0} + 3)) ] || [ "${d1:-0}" -lt $((${d0:-0} + 3)) ]; then
		echo "# tx_encap $e0 -> $e1, rx_decap $d0 -> $d1"
		return 1
	fi
}

# ---- 1. attach, look, detach: everything as before ----

snapshot "$TB_TMP/before"
check "attach on both hosts" quiet tb_attach
check "A: XDP program on $TB_IFA (xdp_ingress, alone or under libxdp's dispatcher)" xdp_ours
check "A: clsact qdisc created" clsact_on "$TB_A" "$TB_IFA"
check "A: our filter on egress (pref 233, handle 0xe9, tc_egress, direct-action)" filter_ours
check "A: route 10.77.0.2 proto 233 mtu 1452" route_ok -4 10.77.0.2 1452
check "A: route fd77::2 proto 233 mtu 1424" route_ok -6 fd77::2 1424
check "A: pins ${PINS[*]} under $TB_PIN_A" all_pins

# The observability promise: bpftool prints our structs with field names.
cfg_json=$(bpftool -j map dump pinned "$TB_PIN_A/eq_config" 2>&1)
check "bpftool -j map dump eq_config: port 7446, node_id 1, mtu 1500, local4 by name" \
	jq_ok "$cfg_json" '.[0].formatted.value | .port == 7446 and .node_id == 1 and .mtu == 1500
		and (.local4.a | length) == 16'
check "bpftool map dump eq_config prints \"port\": 7446 and \"node_id\": 1" cfg_text_ok
peers_json=$(bpftool -j map dump pinned "$TB_PIN_A/eq_peers" 2>&1)
check "bpftool -j map dump eq_peers: underlay and tx_seq by name" \
	jq_ok "$peers_json" '[.[].formatted.value | has("underlay") and has("tx_seq")] | all'
pstats_json=$(bpftool -j map dump pinned "$TB_PIN_A/eq_peer_stats" 2>&1)
check "bpftool -j map dump eq_peer_stats: per-CPU tx_packets and rx_ce by name" \
	jq_ok "$pstats_json" '[.[].formatted.values[].value | has("tx_packets") and has("rx_ce")] | all'
check "ping IPv4 peer through the tunnel" tunnel_ping_ok 10.77.0.2
check "ping IPv6 peer through the tunnel" tunnel_ping_ok fd77::2
# No agent (scheme none), nobody reads the fast sends' copies: their ring
# stays at its declared page instead of 20 ms of the link (1-16 MiB).
ring=$(bpftool -j map show pinned "$TB_PIN_A/eq_copies" 2>/dev/null | jq -r '.max_entries // 0')
check "scheme none: eq_copies is one page ($ring bytes)" test "${ring:-0}" = 4096

out=$(eq_a detach "$TB_IFA" 2>&1)
rc=$?
check "detach A: exit 0, 'detached from $TB_IFA'" test "$rc" -eq 0 -a -n "$(grep "detached from $TB_IFA" <<<"$out")"
check "detach B" quiet eq_b detach "$TB_IFB"
snapshot "$TB_TMP/after"
for f in link qdisc filter_egress filter_ingress route4 route6 ethtool; do
	check_same "after detach, A's $f is as before attach" "$TB_TMP/before/$f" "$TB_TMP/after/$f"
done
check "pin directory removed" test ! -e "$TB_PIN_A"

# Capture on A's interface, both directions.
if cap_start "$TB_A" "$TB_IFA" plain; then
	in_a ping -c 3 -i 0.1 -W 2 10.77.0.2 >/dev/null
	r4=$?
	in_a ping -6 -c 3 -i 0.1 -W 2 fd77::2 >/dev/null
	r6=$?
	sleep 0.2
	tb_stop
	check "plain ping IPv4 and IPv6 work after detach" test "$r4" -eq 0 -a "$r6" -eq 0
	n_udp=$(cap_count plain udp port 7446)
	n_rep=$(cap_count plain '(icmp and icmp[icmptype] == icmp-echoreply) or (icmp6 and ip6[40] == 129)')
	check "on the wire: $n_rep plain echo replies, $n_udp tunnel packets" \
		test "$n_udp" -eq 0 -a "$n_rep" -ge 6
else
	tb_stop
	not_ok "tcpdump did not start: $(cat "$TB_TMP/plain.err")"
fi

# ---- 2. a clsact the user had stays, with the user's filters ----

# This kernel has u32 and mirred but no gact: filters without actions that
# match nothing edgeq sends (port 9), so that ours still runs after them.
in_a tc qdisc add dev "$TB_IFA" clsact
in_a tc filter add dev "$TB_IFA" egress prio 1 protocol ip u32 match ip dport 9 0xffff classid 1:9
in_a tc filter add dev "$TB_IFA" ingress prio 7 protocol ip u32 match ip sport 9 0xffff classid 1:7
snapshot "$TB_TMP/user"
check "user's clsact with an egress and an ingress filter" \
	test -n "$(grep 'pref 1 u32' "$TB_TMP/user/filter_egress")" -a \
	-n "$(grep 'pref 7 u32' "$TB_TMP/user/filter_ingress")"
check "attach on both hosts (A has a clsact already)" quiet tb_attach
filters=$(in_a tc filter show dev "$TB_IFA" egress)
check "A: our filter next to the user's" has "$filters" 'pref 233 bpf'
check "A: the user's filter still there while attached" has "$filters" 'pref 1 u32'
check "status --json: created_clsact false" status_a_jq '.created_clsact == false'
check "ping through the tunnel with the user's filters there" tunnel_ping_ok
check "detach A" quiet eq_a detach "$TB_IFA"
check "detach B" quiet eq_b detach "$TB_IFB"
snapshot "$TB_TMP/user_after"
for f in qdisc filter_egress filter_ingress link route4 route6; do
	check_same "user's clsact: $f as before attach" "$TB_TMP/user/$f" "$TB_TMP/user_after/$f"
done
in_a tc qdisc del dev "$TB_IFA" clsact

# ---- 3. a second attach is refused; --netns and nsenter agree ----

check "attach on both hosts again" quiet tb_attach
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1)
rc=$?
echo "$out" | as_comment
check "second attach: exit 1" test "$rc" -eq 1
check "second attach: message names $TB_IFA and 'edgeq detach $TB_IFA'" \
	has "$out" "already attached to $TB_IFA .*'edgeq detach $TB_IFA'"
check "the first attachment still works (ping through the tunnel)" tunnel_ping_ok
check "the first attachment is intact (status: attached)" attached_a

s1=$(eq_a status "$TB_IFA" 2>&1)
s2=$(nsenter --net="/run/netns/$TB_A" "$EDGEQ" status "$TB_IFA" 2>&1)
p1=$(grep -m1 '^  pins' <<<"$s1")
p2=$(grep -m1 '^  pins' <<<"$s2")
check "status with --netns says attached" has "$(head -1 <<<"$s1")" ': attached$'
check "status under nsenter --net says attached" has "$(head -1 <<<"$s2")" ': attached$'
check "--netns and nsenter: the same pin dir ($TB_PIN_A)" \
	test "$p1" = "  pins     $TB_PIN_A" -a "$p2" = "$p1"
check "nsenter: peer list shows A's peers" \
	has "$(nsenter --net="/run/netns/$TB_A" "$EDGEQ" peer list dev "$TB_IFA")" '^10\.77\.0\.2/32 via 10\.77\.0\.2$'

# ---- 4. hooks removed behind edgeq's back: stale pins ----

mode=$(status_a_json | jq -r '.interfaces[0].xdp_mode')
xdpoff=xdpdrv
[ "$mode" = generic ] && xdpoff=xdpgeneric
in_a ip link set dev "$TB_IFA" "$xdpoff" off
in_a tc qdisc del dev "$TB_IFA" clsact
check "hooks removed by hand ($xdpoff off, clsact deleted)" hooks_gone
st=$(eq_a status "$TB_IFA" 2>&1)
echo "$st" | head -3 | as_comment
check "status says STALE" has "$(head -1 <<<"$st")" "^$TB_IFA: STALE"
check "status --json: tc_attached and xdp_attached false" \
	status_a_jq '.tc_attached == false and .xdp_attached == false'
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1)
rc=$?
echo "$out" | as_comment
check "attach over stale pins: exit 0" test "$rc" -eq 0
check "attach over stale pins: says 'removing stale pins'" has "$out" "$TB_IFA: removing stale pins at $TB_PIN_A"
check "status: attached" attached_a
check "traffic through the tunnel again" tunnel_ping_ok
check "detach" quiet eq_a detach "$TB_IFA"
check "nothing left after detach (pins, XDP, clsact, proto 233 routes)" nothing_left "$TB_A" "$TB_IFA"

# ---- 5. attach killed (SIGKILL) at many points ----

# The kills land before, during and after an attach.  Whatever was left,
# the next attach must clean it up (stale pins) or roll it back (a half
# attachment) and succeed; only an attachment that got to its end may be
# "already attached".  Meanwhile `status` of a half attachment advises no
# command that cannot work, and `agent start` refuses it.  Detach then
# leaves nothing.  Each case checks these invariants, not where the kill
# landed.

# `ip route` commands a killed attach started run on: wait for them.
orphans_gone() {
	for _ in $(seq 100); do
		pgrep -f -- "dev $TB_IFA( |$)" >/dev/null || return 0
		sleep 0.05
	done
	return 1
}

crash_case() {		# crash_case DELAY
	local out rc krc why=
	"$EDGEQ" --netns "$TB_A" attach "$TB_IFA" --config "$TB_TMP/a.conf" >/dev/null 2>&1 &
	CRASH_PID=$!
	sleep "$1"
	kill -KILL "$CRASH_PID" 2>/dev/null
	wait "$CRASH_PID" 2>/dev/null
	krc=$?			# 137: killed; 0: it had finished
	CRASH_PID=
	orphans_gone || { echo "# ip commands of the killed attach still running"; return 1; }
	# Half attached (killed before it finished): status must not send the
	# user to a command that cannot work, and agent start refuses.
	out=$(eq_a status "$TB_IFA" 2>&1)
	if has "$out" 'HALF ATTACHED'; then
		has "$out" 'agent start' && { echo "# a half attachment's status advises agent start"; return 1; }
		eq_a agent start "$TB_IFA" >/dev/null 2>&1 &&
			{ echo "# agent start ran on a half attachment"; return 1; }
		why=" (half attached: rolled back)"
	fi
	out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ]; then
		# Only a finished attachment (the kill came after its last
		# step) may refuse; a half one is rolled back.
		has "$out" 'already attached' || { echo "# attach after the kill: exit $rc: $out"; return 1; }
		status_a_jq '.complete and (.tc_attached or .xdp_attached)' ||
			{ echo "# 'already attached' but the attachment is not complete and live"; return 1; }
		eq_a detach "$TB_IFA" >/dev/null 2>&1 || { echo "# detach of the live attachment failed"; return 1; }
		nothing_left "$TB_A" "$TB_IFA" || return 1
		out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1) ||
			{ echo "# attach after detach: $out"; return 1; }
		why=" (was live: detached first)"
	fi
	has "$out" 'removing stale pins' && why=" (stale pins removed)"
	has "$out" 'rolling back a half attachment' && why=" (half attachment rolled back)"
	attached_a || { echo "# not attached after the re-attach"; eq_a status "$TB_IFA" | as_comment; return 1; }
	eq_a detach "$TB_IFA" >/dev/null 2>&1 || { echo "# detach failed"; return 1; }
	nothing_left "$TB_A" "$TB_IFA" || return 1
	if [ "$krc" -eq 137 ]; then
		echo "# killed after ${1}s: re-attach ok$why"
	else
		echo "# after ${1}s the attach had finished (exit $krc): re-attach ok$why"
	fi
}

# Spread the kills over the time an attach takes here (T): 40 points from
# 0 to T, each round shifted by T/40.  In the VM (TCG: an attach takes
# seconds) the first two rounds, 20 points.
t0=$(date +%s%N)
quiet eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf"
t1=$(date +%s%N)
quiet eq_a detach "$TB_IFA"
attach_ms=$(((t1 - t0) / 1000000))
echo "# one attach takes ${attach_ms} ms here"
ROUNDS="1 2 3 4"
[ -n "${EDGEQ_IN_VM:-}" ] && ROUNDS="1 2"
for round in $ROUNDS; do
	for k in 0 1 2 3 4 5 6 7 8 9; do
		ms=$((attach_ms * (4 * k + round - 1) / 40))
		delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
		check "attach killed after ${delay}s (round $round): re-attach, detach leaves nothing" \
			crash_case "$delay"
	done
done

# ---- 6. XDP attached, its mode not recorded (a kill right after it) ----

# --xdp-mode generic, then eq_config.xdp_mode (bytes 60-63) set back to
# 0 (none) as a kill between the XDP attach and its record leaves it:
# detach must find the mode from the kernel and remove the program.
check "attach with --xdp-mode generic" quiet eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" --xdp-mode generic
check "ip link shows xdpgeneric" has "$(in_a ip link show dev "$TB_IFA")" ' xdpgeneric .*qdisc'
val=$(bpftool -j map dump pinned "$TB_PIN_A/eq_config" | jq -r '.[0].value | .[:60] + ["0x00"] + .[61:] | .[]')
# shellcheck disable=SC2086  # one word per byte
bpftool map update pinned "$TB_PIN_A/eq_config" key 0 0 0 0 value $val
check "eq_config.xdp_mode is now 0, as if unrecorded" \
	jq_ok "$(bpftool -j map dump pinned "$TB_PIN_A/eq_config")" '.[0].formatted.value | .xdp_mode == 0 and .ifindex > 0'
check "detach" quiet eq_a detach "$TB_IFA"
check "nothing left: the generic XDP program is gone too" nothing_left "$TB_A" "$TB_IFA"

check "after all this: attach works" quiet eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf"
check "and carries traffic through the tunnel" tunnel_ping_ok

# ---- 7. the interface deleted while attached ----

ip -n "$TB_A" link del "$TB_IFA"	# takes B's end with it
out=$(eq_a detach "$TB_IFA" 2>&1)
rc=$?
echo "$out" | as_comment
check "detach of a deleted interface: exit 0" test "$rc" -eq 0
check "detach of a deleted interface: '$TB_IFA is gone: removing its pins only'" \
	has "$out" "$TB_IFA is gone: removing its pins only"
check "its pin directory is gone" test ! -e "$TB_PIN_A"
check "B's end went too: its detach succeeds" quiet eq_b detach "$TB_IFB"
check "B's pin directory is gone" test ! -e "$TB_PIN_B"

tap_done
