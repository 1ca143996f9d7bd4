#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench, section 5: the agent (docs/agent.md).  On the two-host veth
# testbed, both hosts attached with `scheme eqds`, three configurations
# interleaved round by round:
#   kernel  scheme none: TC encapsulates, XDP decapsulates, no agent;
#   xsk_fwd the agent's two AF_XDP sockets and heartbeat with no transport
#           (bench/xsk_fwd.c, started by the loader in edgeqd's place):
#           the minimal forwarder on the same veth, the baseline;
#   edgeqd  the agent, EQDS in RTS mode (the veth never trims), with
#           `fast_path off`: every datagram crosses both agents, so this
#           is the agent's own rate, the figure compared with xsk_fwd;
#   fastrts the same with the fast path (the default): TC sends what the
#           lease covers and XDP delivers in order without the agents, so
#           the sending CPU does that work (and the copies, and the
#           doorbell's self-interrupts) in the agents' place;
#   for the idle RTT, trimming mode with the fast path (the default,
#   `fast`) and without it (`nofast`).
# Packets per second: 64-byte UDP datagrams from A to B as fast as one
# sender goes (eqload udp-send, CPU 0; receiver on CPU 0); both hosts'
# agents (or forwarders) on CPU 1, so "through the agent on one core" is
# both ends of the tunnel on that core.  Each configuration runs in two
# placements of the interfaces' receive work:
#   veth    where a veth puts it: in the softirq of the CPU that sent the
#           frame, so B's XDP and B's stack run on A's sending CPU, which
#           no two hosts share;
#   napi1   in a NAPI thread per interface (`threaded` in sysfs) pinned to
#           CPU 1, where a receiving host's NIC interrupt would put it on
#           the agents' core: a host's receive work off its sender's CPU.
# Then the idle RTT (ping) of each and of the plain veth, in the veth
# placement.  Each figure is the median of the rounds; ratios are against
# xsk_fwd of the same run and placement.
# BENCH_ROUNDS (3) and BENCH_SECS (5) set the effort.
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/netns.sh
ROUNDS=${BENCH_ROUNDS:-3}
SECS=${BENCH_SECS:-5}
EQLOAD=build/fabric/eqload
FWD=$PWD/build/bench/xsk_fwd
export TB_OFFLOADS=default

[ "$(id -u)" = 0 ] || { echo "bench agent: needs root"; exit 1; }
[ -x "$FWD" ] && [ -x "$EQLOAD" ] || { echo "bench agent: build first (make)"; exit 1; }
tb_up >/dev/null || { echo "bench agent: testbed setup failed"; exit 1; }
for s in a b; do
	cp "$TB_TMP/$s.conf" "$TB_TMP/$s.none.conf"
	# RTS: the unscheduled first BDP waits for a pull instead of being sent
	# (no switch here to trim it); a BDP large enough that credit is never
	# what limits a flood on a veth.
	printf 'scheme eqds\neqds.mode rts\nbdp 262144\nfast_path off\n' | cat "$TB_TMP/$s.conf" - >"$TB_TMP/$s.eqds.conf"
	printf 'scheme eqds\neqds.mode rts\nbdp 262144\n' | cat "$TB_TMP/$s.conf" - >"$TB_TMP/$s.fastrts.conf"
	# Idle RTT: the defaults (trimming mode, fast path on), and without it.
	printf 'scheme eqds\n' | cat "$TB_TMP/$s.conf" - >"$TB_TMP/$s.fast.conf"
	printf 'scheme eqds\nfast_path off\n' | cat "$TB_TMP/$s.conf" - >"$TB_TMP/$s.nofast.conf"
done

detach() {
	eq_a detach "$TB_IFA" >/dev/null 2>&1
	eq_b detach "$TB_IFB" >/dev/null 2>&1
}

set_config() {	# plain | kernel | xsk_fwd | edgeqd | fastrts | fast | nofast
	local conf=eqds agent=
	detach
	case $1 in
	plain) return 0 ;;
	kernel) conf=none ;;
	xsk_fwd) agent=$FWD ;;
	fastrts|fast|nofast) conf=$1 ;;
	esac
	# The loader forks the agent: it inherits the CPU of `edgeq attach`.
	EDGEQD=${agent:-${EDGEQD:-}} taskset -c 1 "$EDGEQ" --netns "$TB_A" attach "$TB_IFA" \
		--config "$TB_TMP/a.$conf.conf" >/dev/null &&
	EDGEQD=${agent:-${EDGEQD:-}} taskset -c 1 "$EDGEQ" --netns "$TB_B" attach "$TB_IFB" \
		--config "$TB_TMP/b.$conf.conf" >/dev/null || { echo "bench agent: cannot set up $1"; return 1; }
	in_a ping -c 2 -i 0.2 -W 1 10.77.0.2 >/dev/null 2>&1	# routes and the agents' first contact
	return 0
}

placement() {	# veth | napi1: where both interfaces' receive work runs
	local on=0 ns dev pid
	[ "$1" = napi1 ] && on=1
	for ns in "$TB_A:$TB_IFA" "$TB_B:$TB_IFB"; do
		dev=${ns#*:} ns=${ns%%:*}
		# A veth has NAPI only with XDP attached (or GRO): without, it has
		# no receive thread to turn off.
		ip netns exec "$ns" sh -c "echo $on >/sys/class/net/$dev/threaded" 2>/dev/null || [ $on = 0 ] ||
			{ echo "bench agent: $dev: no threaded NAPI (placement $1 not measured)" >&2; return 1; }
	done
	[ $on = 1 ] || return 0
	# A thread's name, "napi/<dev>-<id>", is cut at 15 characters.
	for pid in $(pgrep "^napi/(${TB_IFA:0:10}|${TB_IFB:0:10})"); do
		taskset -pc 1 "$pid" >/dev/null || return 1
	done
}

pps() {		# datagrams per second delivered to B
	local out=$TB_TMP/recv.out t0
	in_b taskset -c 0 "$EQLOAD" udp-recv --port 5302 --idle-exit 1 --duration $((SECS + 5)) \
		--out "$out" 2>/dev/null &
	local rpid=$!
	sleep 0.3
	t0=$(( $("$EQLOAD" now) + 200000000 ))
	in_a taskset -c 0 "$EQLOAD" udp-send --dst 10.77.0.2 --port 5302 --size 64 --rate 10g \
		--duration "$SECS" --start-at "$t0" --out /dev/null 2>/dev/null
	wait "$rpid"
	awk '/^# summary/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); s[kv[1]] = kv[2] }
		d = (s["last_ns"] - s["first_ns"]) / 1e9
		if (d > 0) printf "%.0f\n", s["pkts"] / d; else print 0 }' "$out"
}

rtt() {		# idle ping: "p50 p99" in µs
	in_a ping -n -c 300 -i 0.005 10.77.0.2 2>/dev/null | sed -n 's/.*time=\([0-9.]*\) ms/\1/p' |
		awk '{ printf "%.1f\n", $1 * 1000 }' | sort -n |
		awk '{ v[NR] = $1 } END { printf "%s %s\n", v[int(NR * 0.5)], v[int(NR * 0.99)] }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }

echo "== 5. the agent: 64-byte UDP datagrams A -> B, ${SECS} s x ${ROUNDS} rounds" \
	"(sender and receiver on CPU 0, both agents on CPU 1)"
declare -A P R50 R99
PLACES="veth napi1"
for r in $(seq "$ROUNDS"); do
	for pl in $PLACES; do
		for c in kernel xsk_fwd edgeqd fastrts; do
			set_config "$c" && placement "$pl" || continue
			p=$(pps)
			P[$c.$pl]+="${p:-0} "
			printf '  round %d  %-6s %-8s %9s datagrams/s\n' "$r" "$pl" "$c" "${p:-?}"
		done
	done
done
for r in $(seq "$ROUNDS"); do
	for c in plain kernel xsk_fwd fast nofast; do
		set_config "$c" && placement veth || continue
		read -r a b < <(rtt)
		R50[$c]+="$a " R99[$c]+="$b "
	done
done
detach
placement veth 2>/dev/null

echo
printf '  %-8s %12s  %-16s %12s  %-16s %10s %10s\n' config "datagrams/s" "(veth)" "datagrams/s" "(napi1)" \
	"RTT p50" "p99 (µs)"
declare -A FWD
for pl in $PLACES; do FWD[$pl]=$(tr ' ' '\n' <<<"${P[xsk_fwd.$pl]:-}" | grep . | median); done
for c in plain kernel xsk_fwd edgeqd fastrts fast nofast; do
	declare -A M=() RAT=()
	for pl in $PLACES; do
		M[$pl]=; RAT[$pl]=
		case $c in plain | fast | nofast) continue ;; esac
		M[$pl]=$(tr ' ' '\n' <<<"${P[$c.$pl]:-}" | grep . | median)
		RAT[$pl]=$(awk -v a="${M[$pl]}" -v b="${FWD[$pl]}" 'BEGIN { if (b > 0) printf "%.2fx xsk_fwd", a / b }')
	done
	r50=$(tr ' ' '\n' <<<"${R50[$c]:-}" | grep . | median)
	r99=$(tr ' ' '\n' <<<"${R99[$c]:-}" | grep . | median)
	eval "rtt_$c=$r50"
	[ "$r50" = nan ] && r50=– r99=–
	printf '  %-8s %12s  %-16s %12s  %-16s %10s %10s\n' "$c" "${M[veth]:-–}" "${RAT[veth]}" \
		"${M[napi1]:-–}" "${RAT[napi1]}" "$r50" "$r99"
	echo "bench agent_$c pps=${M[veth]:-0} pps_napi1=${M[napi1]:-0} rtt_p50_us=$r50 rtt_p99_us=$r99"
done
# shellcheck disable=SC2154 # rtt_* set by the eval above
awk -v e="$rtt_fast" -v n="$rtt_nofast" -v f="$rtt_xsk_fwd" -v k="$rtt_kernel" -v p="$rtt_plain" 'BEGIN {
	printf "  (edgeqd: RTS mode, fast_path off, every datagram through both agents; fastrts: the same with the fast path, the default)\n"
	printf "  (fast: edgeqd in trimming mode with the fast path, the default; nofast: fast_path off)\n"
	printf "  (veth: receive work on the sending CPU, as a veth does it; napi1: in NAPI threads on CPU 1, as a NIC interrupt on the agents\047 core)\n"
	printf "  added idle RTT: edgeqd %.1f µs over the plain veth, %.1f µs over xsk_fwd, %.1f µs over the kernel tunnel\n", e - p, e - f, e - k
	if (n > 0) printf "  the fast path: idle RTT %.2fx of edgeqd without it (%.1f vs %.1f µs)\n", e / n, e, n }'
echo "  (veth only does AF_XDP copy mode; zero copy needs a NIC driver that has it: not measurable here)"
