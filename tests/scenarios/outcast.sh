#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# 1 -> N outcast (SIRD §5 Fig. 4, the sender-congestion case): one sender
# on a ToR sends one long flow to each of N receivers on the same ToR,
# all for D seconds.  The bottleneck is the sender's own link: its NIC
# (the host's qdisc, shaped at the line rate) and its port into the
# switch.  Per N and transport: per-flow goodput (min, mean, max),
# Jain's index, the total against the line rate, the sender's uplink
# queue (h0-tor0) and its qdisc drops, drops in the switch and the
# sender's TCP retransmissions.
#
# SC_N (default "4 8"), SC_SECS (10), SC_RATE (500mbit), SC_SET (extra
# fabric settings).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

NS=${SC_N:-4 8}
SECS=${SC_SECS:-10}
RATE=${SC_RATE:-500mbit}
RATE_BPS=${RATE%bit}; RATE_BPS=$(numfmt --from=si "${RATE_BPS^^}")
SETS=(); for s in ${SC_SET:-}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
SC_STEPS=$(( $(wc -w <<<"$NS") * $(wc -w <<<"$TRANSPORTS") ))
sc_init

# goodput per interval of a bulk output: "s_from_T0 Mbit/s"
series() {	# FILE T0
	awk -v t0="$2" '/^# summary/ { next } /^#/ { next }
		{ if (prev) printf "%.3f\t%.2f\n", ($1 - t0) / 1e9, $2 * 8 / (($1 - prev) / 1e9) / 1e6; prev = $1 }
		' "$1"
}

run_one() {	# N TRANSPORT
	local n=$1 tr=$2 raw="$FT_TMP/n$1-$2" t0 i pids=()
	mkdir -p "$raw"
	sc_progress "N=$n $tr"
	sc_up_tr "$tr" star --set hosts=$((n + 1)) --set rate="$RATE" "${SETS[@]}"
	for i in $(seq 1 "$n"); do ft_bg "h$i" "$EQLOAD" serve --port 5201 2>>"$raw/serve.log"; done
	sleep 0.3
	sc_qdisc_sampler h0 "$raw/hostq"
	ft_ctl reset
	t0=$(( $(sc_now) + 1000000000 ))
	for i in $(seq 1 "$n"); do
		ft_bg h0 "$EQLOAD" bulk --dst "$(ft_ip "h$i")" --port 5201 --duration "$SECS" \
			--cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/f$i.tsv"
		pids+=($!)
	done
	sc_wait "${pids[@]}"
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	sc_queue h0-tor0 "$raw/queue.tsv" "$t0"
	local q t1=$((t0 + SECS * 1000000000))
	read -r -a q < <(sc_qstats h0-tor0 "$t0" "$t1")
	ft_on h0 tc -s qdisc show dev eth0 >"$raw/qdisc.txt"
	local ring; ring=$(sc_ring_drops)
	sc_down
	awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b { print $3 }' "$raw/hostq" >"$raw/hostq.pkts"
	for i in $(seq 1 "$n"); do
		echo "$(ft_sum "$raw/f$i.tsv" goodput_bps) $(ft_sum "$raw/f$i.tsv" retrans)"
		series "$raw/f$i.tsv" "$t0" >"$raw/series$i"
	done >"$raw/flows"	# per flow: goodput (bit/s), retransmissions
	local total jain drops rtx qdrops
	total=$(cut -d' ' -f1 "$raw/flows" | sc_sum)
	jain=$(cut -d' ' -f1 "$raw/flows" | sc_jain)
	drops=$(sc_ports "$raw/ports.tsv" . drop_full | sc_sum)
	rtx=$(cut -d' ' -f2 "$raw/flows" | sc_sum)
	qdrops=$(awk '/dropped/ { sub(/,/, "", $7); print $7; exit }' "$raw/qdisc.txt")
	sc_md "| $n | $tr | $(sc_fmt "$(cut -d' ' -f1 "$raw/flows" | sc_min)" 1e6 0) |" \
		"$(sc_fmt "$(cut -d' ' -f1 "$raw/flows" | sc_mean)" 1e6 0) |" \
		"$(sc_fmt "$(cut -d' ' -f1 "$raw/flows" | sc_max)" 1e6 0) |" \
		"$(sc_fmt "$total" 1e6 0) | $(sc_fmt "$total" "$((RATE_BPS / 100))" 1) | $jain |" \
		"$(sc_fmt "$(sc_mean <"$raw/hostq.pkts")" 1 0) | $(sc_max <"$raw/hostq.pkts") |" \
		"${qdrops:-–} | ${q[0]} | ${q[1]} | $drops | $ring | $rtx |"
	awk '{ print $1 / 1e6 }' "$raw/flows" | sort -g | awk '{ printf "%d\t%.1f\n", NR, $1 }' >"$raw/sorted"
}

sc_md_begin "1→N outcast" "$(sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//')

Fabric: one ToR, $RATE links, 10 µs per link each way, 200-packet buffers$(
	[ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET}"). Each flow runs $SECS s; goodput is what
the receiver acknowledged over the whole flow (handshake and slow start included).
A TCP payload fills at most 1448/1514 = 95.6 % of the line rate. The sender's link is
shaped twice: by its own qdisc (tbf at the line rate, 1 MB limit), where its flows queue
(*sender queue*: its backlog sampled every ~100 ms, and its drops), and by the switch's
h0-tor0 port, which serialises what it takes from the host at the line rate again: a
queue there beyond the host's 10-frame burst means the switch fell behind. The rate is
500 Mbit/s because at 1 Gbit/s the machine, not the link, limited the total. Ring
drops: frames lost before the switch saw them (its AF_XDP receive ring was full)."
sc_md ""
sc_md "| N | transport | flow min (Mbit/s) | flow mean | flow max | total (Mbit/s) | total (% of line) | Jain | sender queue mean (pkts) | sender queue max | sender queue drops | h0-tor0 queue max (pkts) | h0-tor0 queue mean | switch drops | ring drops | TCP retrans |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in $NS; do
	for tr in $TRANSPORTS; do run_one "$n" "$tr"; done
done
sc_md ""
for n in $NS; do
	f=()
	for tr in $TRANSPORTS; do f+=("$FT_TMP/n$n-$tr/sorted:$tr"); done
	sc_plot_ext "set yrange [0:*]" "$SC_PNG/goodput-n$n.png" "outcast N=$n: goodput of each flow" \
		"flow (sorted)" "Mbit/s" "linespoints" "${f[@]}"
	sc_md "![goodput per flow N=$n]($SC_NAME/goodput-n$n.png)"
	sc_md ""
done
n=${NS##* }	# the largest N: each flow over time
for tr in $TRANSPORTS; do
	f=()
	for i in $(seq 1 "$n"); do f+=("$FT_TMP/n$n-$tr/series$i:h$i"); done
	sc_plot_ext "set yrange [0:*]" "$SC_PNG/time-n$n-$tr.png" "outcast N=$n, $tr: goodput per 100 ms" \
		"s from start" "Mbit/s" "lines" "${f[@]}"
	sc_md "![flows over time N=$n $tr]($SC_NAME/time-n$n-$tr.png)"
done
sc_md ""
sc_md_end
ft_down
