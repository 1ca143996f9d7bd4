#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What an agent's outage costs a transfer (issue 16 item 4; docs/eqds.md,
# "A silent receiver"; not part of make bench).  On the two-host veth
# testbed with the kernel's default offloads, both hosts attached with
# `scheme eqds`: iperf3 from A to B for 7 s, one agent stopped at 2 s
# (`edgeq agent stop`) and started again at 4 s.  Per run: the 0.1 s
# intervals at 0 Gbit/s between 1.8 and 5.5 s (a stall), the goodput over
# the 7 s, how long `agent start` took, and the sender tunnel's count of
# spells it took the receiver for silent; the mean goodput before the
# outage, during it (and its ratio to before) and after the restart.
#   OUTAGE_WHO=b (default: the receiving agent) or a (the sending one);
#   OUTAGE_RUNS (default 5).
set -u
cd "$(dirname "$0")/.." || exit 1
. tests/lib/netns.sh

WHO=${OUTAGE_WHO:-b}
RUNS=${OUTAGE_RUNS:-5}
TB_OFFLOADS=default
command -v iperf3 >/dev/null || { echo "iperf3 missing: make deps" >&2; exit 1; }

one_run() {
	local ns ifc t0 t1 ip zeros at phases
	tb_up >/dev/null || return 1
	for s in a b; do printf 'scheme eqds\n' >>"$TB_TMP/$s.conf"; done
	tb_attach || return 1
	if [ "$WHO" = a ]; then ns=$TB_A ifc=$TB_IFA; else ns=$TB_B ifc=$TB_IFB; fi
	in_b iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
	sleep 0.5
	in_a iperf3 -c 10.77.0.2 -p 5301 -t 7 -i 0.1 -f m >"$TB_TMP/ip.log" 2>&1 &
	ip=$!
	sleep 2
	"$EDGEQ" --netns "$ns" agent stop "$ifc" >/dev/null
	sleep 2
	t0=$(date +%s%N)
	"$EDGEQ" --netns "$ns" agent start "$ifc" >/dev/null
	t1=$(date +%s%N)
	wait "$ip"
	zeros=$(awk '/sec/ && $3 ~ /-/ { split($3, t, "-"); if (t[1] >= 1.8 && t[1] <= 5.5 &&
		$7 + 0 == 0) n++ } END { print n + 0 }' "$TB_TMP/ip.log")
	# Which: the 0.1 s intervals at 0 (their start, s).
	at=$(awk '/sec/ && $3 ~ /-/ { split($3, t, "-"); if (t[1] >= 1.8 && t[1] <= 5.5 &&
		$7 + 0 == 0) printf "%s%s", n++ ? "," : "", t[1] } END { print "" }' "$TB_TMP/ip.log")
	# Mean goodput before the outage (0.5-2 s), during it (2-4 s) and
	# after the restart (4.5-7 s): issue 16 asks at least 0.5x of before
	# during it.
	phases=$(awk '/sec/ && $3 ~ /-/ && !/sender|receiver/ { split($3, t, "-"); v = $7 + 0
		if (t[1] >= 0.5 && t[1] < 2) { b += v; nb++ } else if (t[1] >= 2 && t[1] < 4) { d += v; nd++ }
		else if (t[1] >= 4.5 && t[1] < 7) { a += v; na++ } }
		END { if (!nb || !nd || !na) { print "phases -"; exit }
		      printf "before %.0f, during %.0f (%.2fx), after %.0f Mbit/s", b / nb, d / nd, d / nd / (b / nb), a / na }' \
		"$TB_TMP/ip.log")
	printf 'agent %s: %s; stalled 0.1 s intervals %2d (at %s s), goodput %s Mbit/s, agent start %d ms, %s, pulls refused %s\n' \
		"$WHO" "$phases" "$zeros" "${at:--}" "$(awk '/sender/ { print $7 }' "$TB_TMP/ip.log")" \
		$(( (t1 - t0) / 1000000 )) \
		"$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" | grep -o 'receiver silent [0-9]* times' | head -1)" \
		"$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json |
		   jq '[.interfaces[0].peers[] | .eqds.bad_pull // 0] | add')"
	tb_down
}

for r in $(seq "$RUNS"); do one_run || echo "run $r: testbed did not come up"; done
