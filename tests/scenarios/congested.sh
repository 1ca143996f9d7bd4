#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A congested sender and a free one (SIRD §4.2 Eq. 2 and Fig. 9; notes
# §6 item 7): the receiver R (h2) takes one long flow from S1 (h0) and
# one from S2 (h1).  S1 also sends one long flow to each of F - 1 other
# receivers (h3 ...), so its own link is its bottleneck: it can send R
# about 1/F of the line.  S2 sends to R alone and can fill what S1 leaves.
# All flows run D seconds from one instant.  What a receiver-driven design
# must not do here is leave credit stranded at S1, which cannot spend it,
# while S2 waits for credit: R's downlink would then go partly unused.
# SIRD's answer is the sender's csn bit: S1 says it holds more credit than
# SThr, and every receiver shrinks S1's bucket.  Per transport: R's
# downlink (the goodput of its two flows, and the switch port's bytes, in
# % of the line), each flow's goodput, S1's uplink, the credit S1 holds
# (unspent, from all its receivers; sampled every 200 ms: mean and max),
# the csn marks it sent, R's downlink queue, drops and retransmissions.
#
# SC_FANOUT (F, default 3), SC_SECS (10), SC_RATE (50mbit, as the incast:
# the five hosts' agents and the switch share two CPUs here), SC_SET
# (fabric settings, default "trim=8p").  The transports to compare are
# "sird" (SThr 0.5 BDP, the default) and "sird-nocsn" (SThr 10 BDPs, more
# than S1 can ever hold: SThr = infinity, no csn).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

F=${SC_FANOUT:-3}
SECS=${SC_SECS:-10}
RATE=${SC_RATE:-50mbit}
RATE_BPS=$(numfmt --from=si "$(tr a-z A-Z <<<"${RATE%bit}")")
SETS=(); for s in ${SC_SET-trim=8p}; do SETS+=(--set "$s"); done
: "${SC_TRANSPORTS:=cubic edgeq sird sird-nocsn}"
TRANSPORTS=$(sc_transports)
SC_STEPS=$(wc -w <<<"$TRANSPORTS")
[ "$F" -ge 2 ] || sc_die "SC_FANOUT must be at least 2 (S1 must be congested)"
sc_init

# The hosts: h0 = S1, h1 = S2, h2 = R, h3 .. h(F) = S1's other receivers.
NH=$((F + 2))

# credit_sampler HOST OUT MAP FIELD: in the background, every 200 ms, the
# credit HOST holds as a sender, unspent, summed over its receivers:
# "t_ns bytes" (SIRD's in eq_sird_peers' credit_held, EQDS's in
# eq_agent_peers' credit, where positive).  sc_down ends it.
credit_sampler() {
	local pins
	pins="/sys/fs/bpf/edgeq/eth0@ns$(stat -Lc %i "/run/netns/$FT_NAME-$1")"
	ft_bg "$1" bash -c 'while :; do t=$("$0" now) || exit
		bpftool map dump pinned "$1/$2" -j 2>/dev/null |
			jq -r --arg t "$t" --arg f "$3" "[.[] | .formatted.value[\$f] // 0 |
				if . > 0 then . else 0 end] | \"\(\$t) \(add // 0)\""
		sleep 0.2; done' "$EQLOAD" "$pins" "$3" "$4" >"$2"
}

# sird_field HOST FIELD: FIELD of eq_sird_peers, summed over HOST's peers.
sird_field() {
	local pins
	pins="/sys/fs/bpf/edgeq/eth0@ns$(stat -Lc %i "/run/netns/$FT_NAME-$1")"
	bpftool map dump pinned "$pins/eq_sird_peers" -j 2>/dev/null |
		jq -r "[.[] | .formatted.value.$2 // 0] | add // 0" 2>/dev/null || echo 0
}

# sird_max HOST FIELD: its largest value over HOST's peers.
sird_max() {
	local pins
	pins="/sys/fs/bpf/edgeq/eth0@ns$(stat -Lc %i "/run/netns/$FT_NAME-$1")"
	bpftool map dump pinned "$pins/eq_sird_peers" -j 2>/dev/null |
		jq -r "[.[] | .formatted.value.$2 // 0] | max // 0" 2>/dev/null || echo 0
}

run_one() {	# TRANSPORT
	local tr=$1 raw="$FT_TMP/$1" t0 t1 i pids=()
	mkdir -p "$raw"
	sc_progress "F=$F $tr"
	sc_up_tr "$tr" star --set hosts="$NH" --set rate="$RATE" "${SETS[@]}"
	for i in $(seq 2 $((NH - 1))); do ft_bg "h$i" "$EQLOAD" serve --port 5201 2>>"$raw/serve.log"; done
	sleep 0.3
	case $tr in
	sird*) credit_sampler h0 "$raw/credit" eq_sird_peers credit_held ;;
	edgeq*) credit_sampler h0 "$raw/credit" eq_agent_peers credit ;;
	esac
	ft_ctl reset
	t0=$(( $(sc_now) + 1000000000 ))
	t1=$((t0 + SECS * 1000000000))
	# S1 to R and to every other receiver; S2 to R.
	for i in $(seq 2 $((NH - 1))); do
		ft_bg h0 "$EQLOAD" bulk --dst "$(ft_ip "h$i")" --port 5201 --duration "$SECS" \
			--cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/s1-h$i.tsv"
		pids+=($!)
	done
	ft_bg h1 "$EQLOAD" bulk --dst "$(ft_ip h2)" --port 5201 --duration "$SECS" \
		--cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/s2-h2.tsv"
	pids+=($!)
	sc_wait "${pids[@]}"
	local csn=– bdp=– limit_max=–
	if [ "${tr%%-*}" = sird ]; then
		csn=$(sird_field h0 csn_sent)
		bdp=$(sird_max h2 bdp)
		limit_max=$(sird_max h2 limit)
	fi
	sc_agent_counters "$raw/agent"
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	sc_queue tor0-h2 "$raw/queue.tsv" "$t0"
	local q
	read -r -a q < <(sc_qstats tor0-h2 "$t0" "$t1")
	sc_down
	local g1 g2 others=() rx wire up drops rtx held_mean held_max
	g1=$(ft_sum "$raw/s1-h2.tsv" goodput_bps)
	g2=$(ft_sum "$raw/s2-h2.tsv" goodput_bps)
	for i in $(seq 3 $((NH - 1))); do others+=("$(ft_sum "$raw/s1-h$i.tsv" goodput_bps)"); done
	rx=$(awk -v a="$g1" -v b="$g2" 'BEGIN { print a + b }')
	up=$(printf '%s\n' "$g1" "${others[@]}" | sc_sum)
	# R's port: every byte it carried during the run (headers, control
	# frames and the tunnel's own included), against the line.
	wire=$(sc_ports "$raw/ports.tsv" '^tor0-h2$' tx_bytes | sc_sum)
	drops=$(sc_ports "$raw/ports.tsv" . drop_full | sc_sum)
	rtx=$(for f in "$raw"/s*.tsv; do ft_sum "$f" retrans; done | sc_sum)
	held_mean=– held_max=–
	if [ -s "$raw/credit" ]; then
		awk -v a="$t0" -v b="$t1" '$1 >= a && $1 <= b { print $2 }' "$raw/credit" >"$raw/credit.run"
		held_mean=$(sc_fmt "$(sc_mean <"$raw/credit.run")" 1 0)
		held_max=$(sc_max <"$raw/credit.run")
		awk -v t0="$t0" '{ printf "%.3f\t%.0f\n", ($1 - t0) / 1e9, $2 }' "$raw/credit" >"$raw/credit.series"
	fi
	sc_md "| $tr | $(sc_fmt "$rx" "$((RATE_BPS / 100))" 1) |" \
		"$(awk -v w="$wire" -v r="$RATE_BPS" -v s="$SECS" 'BEGIN { printf "%.1f", w * 8 / (r * s) * 100 }') |" \
		"$(sc_fmt "$g1" 1e6 1) | $(sc_fmt "$g2" 1e6 1) |" \
		"$(sc_fmt "$(printf '%s\n' "${others[@]}" | sc_mean)" 1e6 1) |" \
		"$(sc_fmt "$up" "$((RATE_BPS / 100))" 1) | $held_mean | $held_max | $bdp | $limit_max | $csn |" \
		"${q[0]} | ${q[1]} | $drops | $rtx |"
}

sc_md_begin "A congested sender and a free one" "$(sed -n '3,/^set -u/{/^set -u/d;p}' "$0" | sed 's/^# \{0,1\}//')

Fabric: one ToR, $RATE links, 10 µs per link each way, 200-packet buffers$(
	[ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET-trim=8p}"); F = $F, D = $SECS s.
Goodput is what each flow's receiver acknowledged over the whole flow (handshake and
slow start included); a TCP payload fills at most 1448/1514 = 95.6 % of the line,
and through edgeq's tunnel less (its headers). *R's port* is every byte the
switch sent R over the run. S1's credit is in bytes, its BDP what R's SIRD
agent sizes B and the limits on (the largest its senders measured); *R's
largest limit* is the largest per-sender bucket R held at the end."
sc_md ""
sc_md "| transport | R's goodput (% of line) | R's port (% of line) | S1 → R (Mbit/s) | S2 → R | S1 → each other (mean) | S1's uplink goodput (% of line) | S1's credit held, mean (B) | max | R's BDP (B) | R's largest limit (B) | csn sent by S1 | R's queue max (pkts) | mean | switch drops | TCP retrans |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for tr in $TRANSPORTS; do run_one "$tr"; done
sc_md ""
f=()
for tr in $TRANSPORTS; do [ -s "$FT_TMP/$tr/credit.series" ] && f+=("$FT_TMP/$tr/credit.series:$tr"); done
if [ ${#f[@]} -gt 0 ]; then
	sc_plot_ext "set yrange [0:*]" "$SC_PNG/credit.png" "credit S1 holds, unspent (every 200 ms)" \
		"s from start" "bytes" "lines" "${f[@]}"
	sc_md "![credit held by S1]($SC_NAME/credit.png)"
	sc_md ""
fi
sc_md_end
