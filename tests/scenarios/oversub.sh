#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Flow completion times over a 2:1 oversubscribed core (EQDS §8 Fig. 20-21,
# SIRD §6.2 core congestion, BFC §6): leaf-spine, 2 leaves x 4 hosts,
# 2 spines.  Every host opens flows to the host opposite it on the other
# leaf (host i -> host i+4 mod 8), sizes drawn from the seeds' workloads
# (web search, Hadoop, Google RPCs), Poisson arrivals, for D seconds.
# Each host offers a fraction L of its link; 4 hosts share 2 uplinks, so
# the core runs at 2L.  Per workload and transport: flows completed, FCT
# p50 and p99, slowdown (FCT over the ideal) p50 and p99, overall and for
# small (< 100 KB) and large (> 1 MB) flows, the core queue, the hosts'
# own queues and drops.
#
# SC_DISTS (default "websearch hadoop google"; files in SC_DIST_DIR,
# default tests/scenarios/dists), SC_LOAD (0.35 of each host link),
# SC_SECS (10), SC_RATE (100mbit, every link), SC_SET (extra fabric
# settings).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

DISTS=${SC_DISTS:-websearch hadoop google}
DIST_DIR=${SC_DIST_DIR:-tests/scenarios/dists}
LOAD=${SC_LOAD:-0.35}
SECS=${SC_SECS:-10}
RATE=${SC_RATE:-100mbit}
RATE_BPS=${RATE%bit}; RATE_BPS=$(numfmt --from=si "${RATE_BPS^^}")
SETS=(); for s in ${SC_SET:-}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
NH=8
CORE_LOAD=$(awk -v l="$LOAD" 'BEGIN { printf "%.2f", 2 * l }')
SC_STEPS=$(( $(wc -w <<<"$DISTS") * $(wc -w <<<"$TRANSPORTS") ))
for d in $DISTS; do [ -f "$DIST_DIR/$d.cdf" ] || sc_die "no flow-size distribution $DIST_DIR/$d.cdf"; done
sc_init

CORE="leaf0-spine0 leaf0-spine1 leaf1-spine0 leaf1-spine1 spine0-leaf0 spine0-leaf1 spine1-leaf0 spine1-leaf1"

run_one() {	# DIST TRANSPORT
	local dist=$1 tr=$2 raw="$FT_TMP/$1-$2" t0 t1 i p base pids=()
	mkdir -p "$raw"
	sc_progress "$dist $tr"
	sc_up_tr "$tr" leafspine --set rate="$RATE" --set core_rate="$RATE" "${SETS[@]}"
	for i in $(seq 0 $((NH - 1))); do
		ft_bg "h$i" "$EQLOAD" serve --port 5201 --cc "$(sc_cc "$tr")" 2>>"$raw/serve.log"
	done
	sleep 0.3
	# Base RTT across the core on the idle fabric: 1-byte RPCs back to back.
	ft_on h0 "$EQLOAD" rpc --dst "$(ft_ip h4)" --port 5201 --req 1 --resp 1 --count 300 \
		--cc "$(sc_cc "$tr")" --out "$raw/base.tsv"
	base=$(awk '!/^#/ { print $2 }' "$raw/base.tsv" | sc_pct 50)
	sc_qdisc_sampler h0 "$raw/hostq-h0"
	sc_qdisc_sampler h4 "$raw/hostq-h4"
	ft_bg h5 "$EQLOAD" udp-recv --port 5202 --duration $((SECS + 3)) --out "$raw/probe.tsv" \
		2>>"$raw/probe.log"
	ft_ctl reset
	t0=$(( $(sc_now) + 1000000000 ))
	# A probe across the core: 64-byte datagrams h1 -> h5 (~600 a second)
	# during the arrivals; their one-way delay is what the fabric adds.
	ft_bg h1 "$EQLOAD" udp-send --dst "$(ft_ip h5)" --port 5202 --size 64 --rate 400k \
		--duration "$SECS" --start-at "$t0" --out /dev/null 2>>"$raw/probe.log"
	for i in $(seq 0 $((NH - 1))); do
		ft_bg "h$i" "$EQLOAD" flows --dst "$(ft_ip "h$(( (i + 4) % NH ))")" --port 5201 \
			--dist "$DIST_DIR/$dist.cdf" --load "$LOAD" --link-rate "$RATE_BPS" --duration "$SECS" \
			--seed $((i + 1)) --cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/h$i.tsv" 2>>"$raw/flows.log"
		pids+=($!)
	done
	sc_wait "${pids[@]}"
	sleep 1	# the probe's receiver
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	t1=$((t0 + SECS * 1000000000))	# queue figures over the arrivals
	for p in $CORE; do sc_qstats "$p" "$t0" "$t1"; done >"$raw/coreq"	# max mean p99 per port
	local ring; ring=$(sc_ring_drops)
	sc_down
	# per flow: size fct_ns slowdown; ideal = 2 base RTTs + the size at the line rate
	cat "$raw"/h[0-9]*.tsv | awk -v b="$base" -v r="$RATE_BPS" '!/^#/ {
		ideal = 2 * b + $3 * 1514 / 1448 * 8 * 1e9 / r
		printf "%.0f %.0f %.4f\n", $3, $4, $4 / ideal }' >"$raw/fct"
	local n left fp50 fp99 s50 s99 ssmall slarge hq
	n=$(wc -l <"$raw/fct")
	left=$(for i in $(seq 0 $((NH - 1))); do
		echo $(( $(ft_sum "$raw/h$i.tsv" unfinished) + $(ft_sum "$raw/h$i.tsv" errors) ))
	done | sc_sum)
	fp50=$(cut -d' ' -f2 "$raw/fct" | sc_pct 50); fp99=$(cut -d' ' -f2 "$raw/fct" | sc_pct 99)
	s50=$(cut -d' ' -f3 "$raw/fct" | sc_pct 50); s99=$(cut -d' ' -f3 "$raw/fct" | sc_pct 99)
	ssmall=$(awk '$1 < 100000 { print $3 }' "$raw/fct" | sc_pct 99)
	slarge=$(awk '$1 > 1000000 { print $3 }' "$raw/fct" | sc_pct 99)
	hq=$(cat "$raw"/hostq-h* | awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b { print $3 }' | sc_pct 99)
	sc_md "| $dist | $tr | $(sc_fmt "$base" 1e3 0) | $n | $left | $(sc_fmt "$fp50" 1e6 2) | $(sc_fmt "$fp99" 1e6 1) |" \
		"$(sc_fmt "$s50" 1 1) | $(sc_fmt "$s99" 1 1) | $(sc_fmt "$ssmall" 1 1) |" \
		"$(sc_fmt "$slarge" 1 1) | $(awk '$1 > 1000000' "$raw/fct" | wc -l) |" \
		"$(cut -d' ' -f1 "$raw/coreq" | sc_max) | $(cut -d' ' -f3 "$raw/coreq" | sc_max) | $hq |" \
		"$(sc_fmt "$(ft_sum "$raw/probe.tsv" owd_p50_ns)" 1e6 2) | $(sc_fmt "$(ft_sum "$raw/probe.tsv" owd_p99_ns)" 1e6 1) |" \
		"$(sc_ports "$raw/ports.tsv" . drop_full | sc_sum) | $ring |"
	# slowdown by size: 4 bins a decade, p50 and p99 of bins with 10 flows or more
	awk '{ print int(log($1) / log(10) * 4), $3 }' "$raw/fct" | sort -k1,1n -k2,2g | awk '
		function out() { if (n >= 10) printf "%.0f\t%.3f\t%.3f\n", 10 ^ ((bin + 0.5) / 4),
			v[int(0.5 * n + 0.999999)], v[int(0.99 * n + 0.999999)] }
		$1 != bin && NR > 1 { out(); n = 0 }
		{ bin = $1; v[++n] = $2 }
		END { if (NR) out() }' >"$raw/bins"
	cut -f1,2 "$raw/bins" >"$raw/bins50"
	cut -f1,3 "$raw/bins" >"$raw/bins99"
}

sc_md_begin "Flow completion over a 2:1 oversubscribed core" "$(sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//')

Fabric: leaf-spine, 2 leaves × 4 hosts, 2 spines, every link $RATE (4 hosts' links over
2 uplinks: 2:1), 10 µs per link each way, 200-packet buffers$(
	[ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET}"). The rate is low because the switch
forwards every link of the fabric in one thread and the hosts' TCP stacks share the
machine's other core. Each host offers L = $LOAD of its link (eqload counts payload
bytes, so the wire load is 1514/1448 = 4.6 % higher); every flow crosses the core, which
runs at about 2L = $CORE_LOAD. Flows start for $SECS s; those still running then may
finish within 30 s (*unfinished* counts those that did not, and failures).
FCT: from connect() to the 1-byte answer. Ideal FCT = 2 × base RTT (the handshake; then
the request out and the answer back) + size × 8 × 1514/1448 / $RATE; base RTT: the median
of 300 back-to-back 1-byte RPCs from h0 to h4 on the idle fabric, measured at the start
of each run (it includes the switch waking from its idle sleep, so a slowdown slightly
below 1 is possible). Core queue: the largest max and p99 of the leaf→spine and
spine→leaf ports over the $SECS s of arrivals (packets). Host queue: p99 of the
backlog of h0's and h4's own link queue (their qdisc, a FIFO of up to 1 MB shaped at
the link rate: a host's small flows wait there behind its large ones), sampled every
~100 ms (packets). Probe: one-way delay of 64-byte UDP datagrams from h1 to h5 (about
600 a second, during the arrivals), the time the fabric adds to a packet crossing it;
compare it with the queues. Ring drops: frames lost before the switch saw them (its AF_XDP
receive ring was full)."
sc_md ""
sc_md "| workload | transport | base RTT (µs) | flows done | unfinished | FCT p50 (ms) | FCT p99 (ms) | slowdown p50 | slowdown p99 | p99 < 100 KB | p99 > 1 MB | flows > 1 MB | core queue max (pkts) | core queue p99 | host queue p99 (pkts) | probe p50 (ms) | probe p99 (ms) | drops | ring drops |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for d in $DISTS; do
	for tr in $TRANSPORTS; do run_one "$d" "$tr"; done
done
sc_md ""
for d in $DISTS; do
	f=()
	for tr in $TRANSPORTS; do f+=("$FT_TMP/$d-$tr/bins50:$tr p50" "$FT_TMP/$d-$tr/bins99:$tr p99"); done
	sc_plot_ext "set logscale xy" "$SC_PNG/slowdown-$d.png" \
		"$d: FCT slowdown by flow size (core load $CORE_LOAD)" \
		"flow size (bytes, log)" "slowdown (log)" "linespoints" "${f[@]}"
	sc_md "![slowdown $d]($SC_NAME/slowdown-$d.png)"
	sc_md ""
done
sc_md_end
ft_down
