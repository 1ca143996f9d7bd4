#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# One flow alone (EQDS §6's premise: a tunnel must fill an idle link by
# itself).  One sender sends S bytes to one receiver across one ToR, for
# each link delay in SC_DELAYS (so for BDPs of about 10 to 50 packets at
# the rate), with every transport in the same run.  Per delay and
# transport: completion against the ideal, goodput and its ratio to
# cubic's in the same run, the bottleneck queue, retransmissions, and for
# edgeq the BDP each sender's agent settled on (it follows the measured
# RTT unless `bdp` is configured).
#
# SC_SIZE (default 2m), SC_RATE (150mbit), SC_DELAYS (default "10us 200us
# 1ms": one way per link; the round trip crosses four links: BDPs of 0.5,
# 10 and 50 packets of the links alone), SC_SET (fabric settings, default
# "trim=8p"), SC_LOSS (percent of the packets towards the receiver lost at
# random on its switch port, default 0: a link that drops rather than a
# switch that trims; the count shows in the "lost" column). SC_LOSS may
# list several, e.g. "0 1": each transport runs at each, and "× loss-free"
# is its goodput against its own at loss 0 in the same run.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/scenarios/lib.sh

SIZE=${SC_SIZE:-2m}
RATE=${SC_RATE:-150mbit}
DELAYS=${SC_DELAYS:-10us 200us 1ms}
LOSSES=${SC_LOSS:-0}
BYTES=$(numfmt --from=iec "${SIZE^^}")
RATE_BPS=$(numfmt --from=si "$(tr a-z A-Z <<<"${RATE%bit}")")
SETS=(); for s in ${SC_SET-trim=8p}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
SC_STEPS=$(( $(wc -w <<<"$LOSSES") * $(wc -w <<<"$DELAYS") * $(wc -w <<<"$TRANSPORTS") ))
sc_init

ideal_ns() { awk -v s="$BYTES" -v r="$RATE_BPS" 'BEGIN { printf "%.0f\n", s * 1514 / 1448 * 8 * 1e9 / r }'; }
# Round trip of the links alone (4 one-way delays) and the BDP in 1514-byte frames.
us_of() { awk -v d="$1" 'BEGIN { v = d + 0; if (d ~ /ms$/) v *= 1000; print v }'; }
bdp_pkts() { awk -v d="$(us_of "$1")" -v r="$RATE_BPS" 'BEGIN { printf "%.1f", 4 * d * 1e-6 * r / 8 / 1514 }'; }

declare -A gput
run_one() {	# LOSS DELAY TRANSPORT
	local loss=$1 d=$2 tr=$3 raw="$FT_TMP/$1-$2-$3" t0 fct rtx q bdp=-
	mkdir -p "$raw"
	sc_progress "loss $loss % delay $d $tr"
	sc_up_tr "$tr" star --set hosts=2 --set rate="$RATE" --set delay="$d" "${SETS[@]}"
	[ "$loss" = 0 ] || ft_ctl port tor0-h1 loss "$loss"
	ft_bg h1 "$EQLOAD" serve --port 5201
	sleep 0.3
	ft_ctl reset
	t0=$(( $(sc_now) + 1000000000 ))
	ft_bg h0 "$EQLOAD" bulk --dst "$(ft_ip h1)" --port 5201 --bytes "$BYTES" \
		--cc "$(sc_cc "$tr")" --start-at "$t0" --out "$raw/h0.tsv"
	sc_wait "${FT_PIDS[@]:1}"
	case $tr in edgeq*)
		sleep 0.2	# the agents publish every 100 ms
		bdp=$(nsenter --net="/run/netns/$FT_NAME-h0" "$EDGEQ" status eth0 --json 2>/dev/null |
			jq '[.interfaces[0].peers[]?.agent.bdp // 0] | max')
		;;
	esac
	ft_stats
	sc_queue "tor0-h1" "$raw/queue.tsv" "$t0"
	fct=$(( $(ft_sum "$raw/h0.tsv" end_ns) - t0 ))
	rtx=$(ft_sum "$raw/h0.tsv" retrans)
	read -r -a q < <(sc_qstats "tor0-h1" "$t0" $((t0 + fct)))
	local g ratio=- free=-
	g=$(awk -v s="$BYTES" -v t="$fct" 'BEGIN { printf "%.1f", s * 8 / t * 1e3 }')
	gput[$loss-$d-$tr]=$g
	[ -n "${gput[$loss-$d-cubic]:-}" ] &&
		ratio=$(awk -v a="$g" -v b="${gput[$loss-$d-cubic]}" 'BEGIN { printf "%.2f", a / b }')
	[ "$loss" != 0 ] && [ -n "${gput[0-$d-$tr]:-}" ] &&
		free=$(awk -v a="$g" -v b="${gput[0-$d-$tr]}" 'BEGIN { printf "%.2f", a / b }')
	sc_md "| $loss | $d | $(bdp_pkts "$d") | $tr | $(sc_fmt "$fct" 1e6 1) | $(sc_fmt "$(ideal_ns)" 1e6 1) |" \
		"$(awk -v a="$fct" -v b="$(ideal_ns)" 'BEGIN { printf "%.2f", a / b }') |" \
		"$g | $ratio | $free | ${q[0]} | ${q[1]} | $(ft_port tor0-h1 drop_loss) | $rtx | $bdp |"
	sc_down
}

sc_md_begin "One flow alone" "$(sed -n '3,/^set -u/{/^set -u/d;p}' "$0" | sed 's/^# \{0,1\}//')

Fabric: one ToR, $RATE links, one sender, one receiver$(
	[ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET-trim=8p}"); S = $SIZE. Ideal = S in
1514-byte frames (1448 payload bytes each) at the line rate$(
	[ "$LOSSES" = 0 ] || echo "; \"loss\": % of the packets to the receiver lost at random"). Goodput = S / completion;
\"× cubic\" is its ratio to cubic's goodput in the same run (target: at least 0.9), \"× loss-free\"
its ratio to the same transport's at loss 0 in the same run."
sc_md ""
sc_md "| loss (%) | delay per link | BDP (pkts) | transport | done (ms) | ideal (ms) | done/ideal | goodput (Mbit/s) | × cubic | × loss-free | queue max (pkts) | queue mean | lost | TCP retrans | edgeq BDP (bytes) |"
sc_md "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for loss in $LOSSES; do
	for d in $DELAYS; do
		for tr in $TRANSPORTS; do run_one "$loss" "$d" "$tr"; done
	done
done
sc_md ""
sc_md_end
