#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Small-RPC latency under bulk load (EQDS §8.2, memcached: "20 to 30x"
# lower latency than TCP under load; Bolt, SIRD): on one ToR, h0 and h1
# each send a long bulk flow to h3 while h2 issues 64-byte RPCs (64-byte
# responses) to h3 at Poisson times; the RPC requests queue behind the
# bulk data at the switch port towards h3.  The same RPCs on the idle
# fabric are the baseline.  Per transport: RPC latency p50, p99, p99.9
# idle and loaded and their ratios, the bulk goodput, and the bottleneck
# queue (tor0-h3) while loaded.
#
# SC_SECS (default 15 per phase), SC_RPC_RATE (1000 per second), SC_RATE
# (500mbit), SC_SET (extra fabric settings), SC_RPC_FROM (the RPC client,
# default h2; h0: a host that also sends a bulk flow to h3, whose requests
# then share its way out with that flow: its qdisc for TCP, its tunnel's
# edge queue for edgeq).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

SECS=${SC_SECS:-15}
RPS=${SC_RPC_RATE:-1000}
RATE=${SC_RATE:-500mbit}
FROM=${SC_RPC_FROM:-h2}
case $FROM in h0|h1|h2) ;; *) echo "rpc_load: SC_RPC_FROM must be h0, h1 or h2" >&2; exit 2 ;; esac
RATE_BPS=${RATE%bit}; RATE_BPS=$(numfmt --from=si "${RATE_BPS^^}")
SETS=(); for s in ${SC_SET:-}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
SC_STEPS=$(( 2 * $(wc -w <<<"$TRANSPORTS") ))
sc_init

lat() { awk '!/^#/ { print $2 }' "$1"; }	# latencies (ns) of an rpc output

run_one() {	# TRANSPORT
	local tr=$1 raw="$FT_TMP/$1" t0 rx pids=()
	mkdir -p "$raw"
	sc_progress "$tr idle"
	sc_up_tr "$tr" star --set hosts=4 --set rate="$RATE" "${SETS[@]}"
	rx=$(ft_ip h3)
	ft_bg h3 "$EQLOAD" serve --port 5201 --cc "$(sc_cc "$tr")" 2>>"$raw/serve.log"
	sleep 0.3
	t0=$(( $(sc_now) + 500000000 ))
	ft_on "$FROM" "$EQLOAD" rpc --dst "$rx" --port 5201 --req 64 --resp 64 --rate "$RPS" \
		--duration "$SECS" --cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/idle.tsv"
	sc_progress "$tr loaded"
	ft_ctl reset
	t0=$(( $(sc_now) + 1000000000 ))
	for h in h0 h1; do
		ft_bg "$h" "$EQLOAD" bulk --dst "$rx" --port 5201 --duration $((SECS + 2)) \
			--cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/bulk-$h.tsv"
		pids+=($!)
	done
	# RPCs from 1 s after the bulk flows start to 1 s before they end
	ft_bg "$FROM" "$EQLOAD" rpc --dst "$rx" --port 5201 --req 64 --resp 64 --rate "$RPS" \
		--duration "$SECS" --cc "$(sc_cc "$tr")" --start-at $((t0 + 1000000000)) --out "$raw/loaded.tsv"
	pids+=($!)
	sc_wait "${pids[@]}"
	sc_agent_counters "$raw/agent"
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	sc_queue tor0-h3 "$raw/queue.tsv" "$t0"
	local q ring
	read -r -a q < <(sc_qstats tor0-h3 $((t0 + 1000000000)) $((t0 + (SECS + 1) * 1000000000)))
	ring=$(sc_ring_drops)
	sc_down
	local i50 i99 i999 l50 l99 l999 good drops
	i50=$(lat "$raw/idle.tsv" | sc_pct 50); i99=$(lat "$raw/idle.tsv" | sc_pct 99)
	i999=$(lat "$raw/idle.tsv" | sc_pct 99.9)
	l50=$(lat "$raw/loaded.tsv" | sc_pct 50); l99=$(lat "$raw/loaded.tsv" | sc_pct 99)
	l999=$(lat "$raw/loaded.tsv" | sc_pct 99.9)
	good=$(for h in h0 h1; do ft_sum "$raw/bulk-$h.tsv" goodput_bps; done | sc_sum)
	drops=$(sc_ports "$raw/ports.tsv" . drop_full | sc_sum)
	sc_md "| $tr | $(lat "$raw/idle.tsv" | wc -l) / $(lat "$raw/loaded.tsv" | wc -l) |" \
		"$(sc_fmt "$i50" 1e3 0) | $(sc_fmt "$i99" 1e3 0) | $(sc_fmt "$i999" 1e3 0) |" \
		"$(sc_fmt "$l50" 1e3 0) | $(sc_fmt "$l99" 1e3 0) | $(sc_fmt "$l999" 1e3 0) |" \
		"$(sc_fmt "$l50" "$i50" 1) | $(sc_fmt "$l99" "$i99" 1) | $(sc_fmt "$l999" "$i999" 1) |" \
		"$(sc_fmt "$good" 1e6 0) | ${q[1]} | $(sc_fmt "${q[1]}" "$(awk -v r="$RATE_BPS" 'BEGIN { print r / 1514 / 8 / 1e6 }')" 0) |" \
		"${q[0]} | $drops | $ring |"
	lat "$raw/idle.tsv" | awk '{ print $1 / 1e3 }' | sc_cdf >"$raw/idle.cdf"
	lat "$raw/loaded.tsv" | awk '{ print $1 / 1e3 }' | sc_cdf >"$raw/loaded.cdf"
}

sc_md_begin "Small RPCs under bulk load" "$(sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//')

Fabric: one ToR, 4 hosts, $RATE links, 10 µs per link each way, 200-packet buffers$(
	[ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET}"). RPCs: 64-byte request, 64-byte
response, from $FROM$( [ "$FROM" = h2 ] || echo " (which also sends a bulk flow to h3)"), one at a time on one TCP connection (TCP_NODELAY), $RPS per second at Poisson
times, for $SECS s idle and then $SECS s loaded (from 1 s after the two bulk flows start
to 1 s before they end). Latency: from writing the request to the last byte of the
response, in µs. The idle baseline includes the switch waking from its sleep for each
packet (an idle fabric sleeps; a loaded one spins), so idle latencies are somewhat
higher than the fabric's floor. Goodput: the two bulk flows together, over their
$((SECS + 2)) s. Queue: the switch port towards h3 while the loaded RPCs ran, in packets
and as the time full frames take to leave it, for comparison with the latencies. Drops:
every switch port. Ring drops: frames lost before the switch saw them (its AF_XDP
receive ring was full). The rate is 500 Mbit/s because at 1 Gbit/s the machine limited
the fabric: datagrams then took 3–5 ms one way in both directions while the switch's
queues held 0.2–0.3 ms."
sc_md ""
sc_md "| transport | RPCs idle / loaded | idle p50 (µs) | idle p99 | idle p99.9 | loaded p50 (µs) | loaded p99 | loaded p99.9 | ×p50 | ×p99 | ×p99.9 | bulk goodput (Mbit/s) | queue mean (pkts) | queue mean (µs) | queue max (pkts) | drops | ring drops |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for tr in $TRANSPORTS; do run_one "$tr"; done
sc_md ""
c=() q=()
for tr in $TRANSPORTS; do
	c+=("$FT_TMP/$tr/loaded.cdf:$tr loaded" "$FT_TMP/$tr/idle.cdf:$tr idle")
	q+=("$FT_TMP/$tr/queue.tsv:$tr")
done
sc_plot_ext "set logscale x; set yrange [0:1]" "$SC_PNG/latency-cdf.png" \
	"64-byte RPC latency, idle and under load" "µs (log)" "fraction of RPCs" "lines" "${c[@]}"
sc_plot "$SC_PNG/queue.png" "bottleneck queue (tor0-h3) under load" "ms from the bulk start" \
	"packets" "steps" "${q[@]}"
sc_md "![RPC latency CDF]($SC_NAME/latency-cdf.png) ![bottleneck queue]($SC_NAME/queue.png)"
sc_md ""
sc_md_end
ft_down
