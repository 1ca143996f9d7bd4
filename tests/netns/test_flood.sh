#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A flood of forged PULLs against a `scheme eqds` sender whose receiver
# paces it (issue 16: "no single packet or flood ... raises a sender above
# the receiver's pacing"; once, a PULL flood had a sender send 119 Mbit/s
# where its receiver paced 46).  B's `link_rate` is 40 Mbit/s, so B's pull
# pacer grants A about that; A sends 4 MB to B while another process
# sends PULLs to A with B's underlay address and port with `eqforge`,
# 50,000 a second (5,000 in the VM layer), over a hundred times B's own
# control frames:
#  1. no key, an attacker off the path: every ack and pull number random.
#     Each PULL is refused and counted (`bad_ack`, `bad_pull`), A takes no
#     pull B did not send, the transfer arrives intact and no faster than
#     B paces it;
#  2. both peers keyed, an attacker who reads the tunnel's numbers (on
#     the path): PULLs just ahead of B's own, acks at A's cumulative ack.
#     Without the key they would be taken; with it each is dropped for its
#     missing tag (`auth_missing`) and the rest holds as in 1.
# The baseline, the same transfer without a flood, runs first in each.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

FORGE=build/tests/netns/eqforge
RATE_MBIT=40
MB=${EDGEQ_IN_VM:+2}
MB=${MB:-4}
# The flood's rate, in PULLs a second, and a round's (0.4 s): what A's
# agent reads here on one core, and in the VM layer's emulated CPU.  A
# flood faster than the agent overflows its socket's ring, and what is
# dropped there (counted, below) never reaches the checks under test.
PPS=${EDGEQ_IN_VM:+5000}
PPS=${PPS:-50000}
ROUND=$((PPS * 2 / 5))
KEY=5a5a5a5a5a5a5a5a0123456789abcdef

tb_start
in_a ip addr add 10.88.0.1/24 dev "$TB_IFA"
in_b ip addr add 10.88.0.2/24 dev "$TB_IFB"

conf() {	# conf KEYED: both hosts' configs, B's link at RATE_MBIT
	local s me them rate key=
	[ "$1" = 1 ] && key=" key $KEY/3"
	for s in a b; do
		me=1 them=2 rate=10gbit
		[ $s = b ] && me=2 them=1 rate=${RATE_MBIT}mbit
		printf 'local 10.88.0.%s\npeer 10.77.0.%s/32 via 10.88.0.%s%s\nscheme eqds\nlink_rate %s\n' \
			"$me" "$them" "$them" "$key" "$rate" >"$TB_TMP/$s.conf"
		# A's BDP fixed at 10 packets: followed from the RTT at A's
		# 10 Gbit/s, its first unscheduled burst would be most of the
		# transfer, and pacing would not show.
		[ $s = a ] && echo "bdp 15000" >>"$TB_TMP/$s.conf"
	done
}

js() {		# js a|b JQ: a field of that host's status
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	"$EDGEQ" --netns "$ns" status "$ifc" --json | jq -r "$2"
}
peer() {	# peer a|b FIELD: the agent's per-peer field (the tunnel's, or EQDS's own)
	js "$1" "[.interfaces[0].peers[] | select(.agent) | (.agent.$2 // .eqds.$2)][0] // 0"
}

# What A's agent's wire socket dropped (no room in its ring).
sock_drops() {
	js a '.interfaces[0].agent_sockets.wire | (.rx_dropped // 0) + (.rx_ring_full // 0)'
}

# timed_transfer LABEL: a transfer of MB from A to B; prints its goodput
# in Mbit/s, or fails.
timed_transfer() {
	local t0 t1
	t0=$(date +%s%N)
	tcp_transfer_ok 10.77.0.2 "$MB" "$1" || return 1
	t1=$(date +%s%N)
	awk -v b="$((MB * 1048576))" -v t="$((t1 - t0))" 'BEGIN { printf "%.1f\n", b * 8 / t * 1e3 }'
}

# flood MODE: forged PULLs to A in rounds of ROUND until $TB_TMP/stop
# exists; then the number sent, in $TB_TMP/flood.MODE.  MODE "random":
# every number random; "near": acks from A's cumulative ack on, pulls just
# past B's pull number, read again before each round (an attacker who sees
# them).
flood() {
	local mode=$1 n=0 args c
	while [ ! -e "$TB_TMP/stop" ]; do
		args=()
		if [ "$mode" = near ]; then
			args=(--ack "$(peer a tx_cum_ack)+64" --pull "$(($(peer b pull_no) + 1))+64")
		fi
		c=$(ip netns exec "$TB_B" "$FORGE" --src 10.88.0.2 --dst 10.88.0.1 --type pull \
			--count "$ROUND" --rate "$PPS" --seed "$RANDOM" "${args[@]}") || c=0
		n=$((n + c))
	done
	echo "$n" >"$TB_TMP/flood.$mode"
}

# round MODE: the transfer with the flood beside it, and every check.
round() {
	local mode=$1 what=$2 base g pid n r0 r1 a0 a1 d0 d1 hp pn
	base=$(timed_transfer "base-$mode")
	check "$what: a transfer without the flood, SHA-256 matches (${base:-failed} Mbit/s)" test -n "$base"
	r0=$(($(peer a bad_ack) + $(peer a bad_pull)))
	a0=$(js a '.interfaces[0].agent_counters.auth_missing // 0')
	d0=$(sock_drops)
	rm -f "$TB_TMP/stop"
	flood "$mode" & pid=$!
	sleep 0.5	# the flood under way first
	g=$(timed_transfer "flood-$mode")
	touch "$TB_TMP/stop"; wait "$pid"
	n=$(cat "$TB_TMP/flood.$mode" 2>/dev/null || echo 0)
	check "$what: the same transfer during a flood of $n forged PULLs, SHA-256 matches (${g:-failed} Mbit/s)" \
		test -n "$g" -a "$n" -gt 0
	# Both agents publish every 100 ms: read once both have published
	# the transfer's end (read at once, A's last pulls can be in and
	# B's not yet).
	sleep 0.3
	hp=$(peer a highest_pull); pn=$(peer b pull_no)
	[ -n "${FLOOD_DEBUG:-}" ] && { js a '.interfaces[0]' >"$FLOOD_DEBUG.a.$mode"; js b '.interfaces[0]' >"$FLOOD_DEBUG.b.$mode"; }
	check "$what: A took no pull B did not send (A's highest pull $hp, B's pull number $pn)" \
		test "$(((pn - hp) & 0xffffffff))" -lt $((1 << 31))
	# At most B's pacing, with 10 % for the first BDP, which goes
	# unscheduled, and the clock's granularity.
	check "$what: no faster than B paces it (${g:-?} Mbit/s during the flood, $base without; B's link $RATE_MBIT Mbit/s)" \
		awk -v g="${g:-0}" -v r="$RATE_MBIT" 'BEGIN { exit !(g > 0 && g <= r * 1.1) }'
	r1=$(($(peer a bad_ack) + $(peer a bad_pull)))
	a1=$(js a '.interfaces[0].agent_counters.auth_missing // 0')
	d1=$(sock_drops)
	# What A's agent read of them: the rest its wire socket dropped,
	# counted there (a slow agent, e.g. the VM layer's emulated CPU, reads
	# fewer than a flood brings).
	n=$((n - (d1 - d0)))
	echo "$what: A refused $((r1 - r0)) (bad_ack + bad_pull), dropped $((a1 - a0)) without a tag, of $n read ($((d1 - d0)) dropped at its socket)" | as_comment
	if [ "$mode" = random ]; then
		check "$what: A refused and counted the forged PULLs it read (bad_ack + bad_pull $r0 -> $r1 of $n)" \
			test $((r1 - r0)) -ge $((n * 9 / 10))
	else
		check "$what: A dropped those it read for their missing tag (auth_missing $a0 -> $a1 of $n), refused none ($r0 -> $r1)" \
			test $((a1 - a0)) -ge $((n * 9 / 10)) -a "$r1" = "$r0"
	fi
}

conf 0
check "attach scheme eqds, B's link at $RATE_MBIT Mbit/s, no key" tb_attach
round random "off the path, no key"
check "detach both" bash -c "'$EDGEQ' --netns '$TB_A' detach '$TB_IFA' && '$EDGEQ' --netns '$TB_B' detach '$TB_IFB'"

conf 1
check "attach again, both peers keyed" tb_attach
round near "on the path, keyed"

tb_stop
check "detach A" eq_a detach "$TB_IFA"
check "detach B" eq_b detach "$TB_IFB"
tap_done
