#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A link failure during a permutation (EQDS §8, SMaRTT-REPS §4.3: how
# fast traffic leaves a dead path): the permutation of permutation.sh
# (leaf-spine, 2 leaves x 4 hosts, 4 spines, ECMP, host i -> host i+4
# mod 8) runs for D seconds; at D/3 the link leaf0-spine1 fails (both
# directions: what is queued or on the wire is lost), at 2D/3 it comes
# back.  The switches take the dead spine out of their ECMP groups
# `reroute` (10 ms) after the failure.  Per transport: total goodput
# before, during and after the failure, the worst single flow during it,
# the lowest 100 ms of the total during it and how long the total took
# to settle (stay within 10% of its mean during the failure: three of four
# uplinks of leaf0 are left, so that mean is below the one before), and
# the packets lost on the dead link.  SC_FAIL=blackhole: the link drops
# everything instead of going down, and the switches keep routing to it
# (a silent failure nothing reroutes around; REPS's case, SMaRTT-REPS
# §4.3): only the transports can leave it.  SC_FAIL=halfrate: the link
# runs at half its rate in both directions (an asymmetric fabric,
# SMaRTT-REPS Fig. 7a); "lost on the dead link" is then what its queues
# dropped.
#
# SC_SECS (default 9), SC_RATE (60mbit, every link), SC_SET, SC_FAIL
# (down, the default, blackhole or halfrate).
set -u
cd "$(dirname "$0")/../.." || exit 1
if [ "${SC_FAIL:-down}" != down ]; then
	SC_NAME=${SC_NAME:-failure-$SC_FAIL}
	# run.sh names the SC_* settings it was given; run alone, say this one.
	case ${SC_COMMAND:-} in *SC_FAIL=*) ;; *) SC_COMMAND="SC_FAIL=$SC_FAIL ${SC_COMMAND:-tests/scenarios/run.sh failure}" ;; esac
fi
. tests/scenarios/lib.sh

SECS=${SC_SECS:-9}
RATE=${SC_RATE:-60mbit}
RATE_BPS=${RATE%bit}; RATE_BPS=$(numfmt --from=si "${RATE_BPS^^}")
SETS=(); for s in ${SC_SET:-}; do SETS+=(--set "$s"); done
TRANSPORTS=$(sc_transports)
NH=8
SC_STEPS=$(wc -w <<<"$TRANSPORTS")
sc_init

FAIL=${SC_FAIL:-down}
case $FAIL in down | blackhole | halfrate) ;; *) sc_die "SC_FAIL is down, blackhole or halfrate" ;; esac
fail_link() {	# on | off
	if [ "$FAIL" = down ]; then
		ft_ctl link leaf0 spine1 "$([ "$1" = on ] && echo down || echo up)"
	elif [ "$FAIL" = halfrate ]; then
		local r; r=$([ "$1" = on ] && echo $((RATE_BPS / 2)) || echo "$RATE_BPS")
		ft_ctl port leaf0-spine1 rate "${r}bit"; ft_ctl port spine1-leaf0 rate "${r}bit"
	else
		local pct; pct=$([ "$1" = on ] && echo 100 || echo 0)
		ft_ctl port leaf0-spine1 loss "$pct"; ft_ctl port spine1-leaf0 loss "$pct"
	fi
}

run_one() {	# TRANSPORT
	local tr=$1 raw="$FT_TMP/$1" t0 tf tr_ i pids=()
	mkdir -p "$raw"
	sc_progress "$tr"
	sc_up_tr "$tr" leafspine --set spines=4 --set rate="$RATE" --set core_rate="$RATE" "${SETS[@]}"
	sc_permutation "$raw" "$tr" "$SECS" --interval 100
	t0=$SC_T0 pids=("${SC_PIDS[@]}")
	tf=$((t0 + SECS * 1000000000 / 3)); tr_=$((t0 + 2 * SECS * 1000000000 / 3))
	sc_sleep_until "$tf"; fail_link on
	sc_sleep_until "$tr_"; fail_link off
	sc_wait "${pids[@]}"
	ft_stats
	cp "$(fab_dir "$FT_NAME")/ports.tsv" "$raw/"
	sc_down
	# goodput per 100 ms interval, summed over flows: "s_from_t0 Mbit/s"
	cat "$raw"/h*.tsv | awk -v t0="$t0" '!/^#/ { b[int(($1 - t0) / 1e8)] += $2 }
		END { for (k in b) printf "%.1f\t%.2f\n", k / 10, b[k] * 8 / 0.1 / 1e6 }' | sort -g >"$raw/total"
	# the worst flow during the failure (Mbit/s averaged over the failure)
	local worst before during after rec lost
	worst=$(for i in $(seq 0 $((NH - 1))); do
		awk -v a="$tf" -v b="$tr_" '!/^#/ && $1 > a && $1 <= b { s += $2 }
			END { printf "%.2f\n", s * 8 / ((b - a) / 1e9) / 1e6 }' "$raw/h$i.tsv"
	done | sc_min)
	avg() { awk -v a="$1" -v b="$2" '$1 >= a && $1 < b { s += $2; n++ } END { if (n) printf "%.1f", s / n; else print "nan" }' "$raw/total"; }
	before=$(avg 0.5 "$(awk -v s="$SECS" 'BEGIN { print s / 3 }')")
	during=$(avg "$(awk -v s="$SECS" 'BEGIN { print s / 3 }')" "$(awk -v s="$SECS" 'BEGIN { print 2 * s / 3 }')")
	after=$(avg "$(awk -v s="$SECS" 'BEGIN { print 2 * s / 3 + 0.5 }')" "$SECS")
	# settling: from the failure to the first 100 ms interval after which
	# every interval until the repair is within 10% of the mean during it
	local f3 r3 dip
	f3=$(awk -v s="$SECS" 'BEGIN { print s / 3 }'); r3=$(awk -v s="$SECS" 'BEGIN { print 2 * s / 3 }')
	rec=$(awk -v f="$f3" -v r="$r3" -v m="$during" '
		$1 >= f && $1 < r { t[n] = $1; ok[n] = ($2 >= 0.9 * m && $2 <= 1.1 * m); n++ }
		END { s = n; for (k = n - 1; k >= 0 && ok[k]; k--) s = k
			if (s == n) print "never"; else printf "%.0f", (t[s] - f) * 1000 }' "$raw/total")
	dip=$(awk -v f="$f3" -v r="$r3" '$1 >= f && $1 < r { print $2 }' "$raw/total" | sc_min)
	local col=drop_loss
	[ "$FAIL" = down ] && col=drop_down
	[ "$FAIL" = halfrate ] && col=drop_full
	lost=$(sc_ports "$raw/ports.tsv" '^(leaf0-spine1|spine1-leaf0)$' "$col" | sc_sum)
	if [ "$FAIL" = blackhole ]; then	# what kind of packets the hole took
		local ctl small
		ctl=$(sc_ports "$raw/ports.tsv" '^(leaf0-spine1|spine1-leaf0)$' drop_loss_ctl | sc_sum)
		small=$(sc_ports "$raw/ports.tsv" '^(leaf0-spine1|spine1-leaf0)$' drop_loss_small | sc_sum)
		lost="$lost ($ctl control, $small small DATA)"
	fi
	sc_md "| $tr | $before | $during | $after | $dip | $worst | $rec | $lost | $(sc_ports "$raw/ports.tsv" . drop_full | sc_sum) |"
}

sc_md_begin "Link failure during a permutation$(case $FAIL in blackhole) echo ": a black hole" ;; halfrate) echo ": a link at half rate" ;; esac)" \
	"$(sed -n '3,21p' "$0" | sed 's/^# \{0,1\}//')

Fabric: leaf-spine, 2 leaves × 4 hosts, 4 spines, every link $RATE (1:1), 10 µs per link
each way, 200-packet buffers, ECMP, reroute 10 ms$( [ ${#SETS[@]} -gt 0 ] && echo ", ${SC_SET}").
The rate is low for the reason given in [permutation.md](permutation.md). Goodput is what
the receivers acknowledged, per 100 ms, summed over the 8 flows (Mbit/s; 8 × $RATE of
links carry at most $(awk -v r="$RATE_BPS" 'BEGIN { printf "%.0f", 8 * r * 1448 / 1514 / 1e6 }') Mbit/s of TCP payload). Before: from 0.5 s to the failure;
after: from 0.5 s after the repair. Settled after: from the failure to the first
100 ms interval from which the total stays within 10% of its mean during the failure
(100 ms resolution). Lost on the
dead link: packets queued or propagating on leaf0-spine1 when it failed, and those the
switches still sent there in the 10 ms before they rerouted$([ "$FAIL" = blackhole ] && printf '%s' \
"; here (SC_FAIL=blackhole) the link stays up and drops everything in both directions,
so the switches never reroute: lost on it is every packet the transports sent there, and in brackets how many of them were edgeq control frames (ACKs, NACKs, trimmed headers) and small DATA frames (bare TCP ACKs through the tunnel)")$([ "$FAIL" = halfrate ] && printf '%s' \
"; here (SC_FAIL=halfrate) the link stays up at half its rate in both directions and
nothing reroutes: lost on it is what its two queues dropped")."
sc_md ""
sc_md "| transport | before (Mbit/s) | during | after | lowest 100 ms during | worst flow during (Mbit/s) | settled after (ms) | lost on the dead link | drops (queues) |"
sc_md "|---|---|---|---|---|---|---|---|---|"
for tr in $TRANSPORTS; do run_one "$tr"; done
sc_md ""
f=(); for tr in $TRANSPORTS; do f+=("$FT_TMP/$tr/total:$tr"); done
sc_plot_ext "set yrange [0:*]; set arrow from $(awk -v s="$SECS" 'BEGIN { print s / 3 }'),graph 0 to $(awk -v s="$SECS" 'BEGIN { print s / 3 }'),graph 1 nohead dt 2; set arrow from $(awk -v s="$SECS" 'BEGIN { print 2 * s / 3 }'),graph 0 to $(awk -v s="$SECS" 'BEGIN { print 2 * s / 3 }'),graph 1 nohead dt 2" \
	"$SC_PNG/goodput.png" "permutation with leaf0-spine1 $(case $FAIL in down) echo down ;; blackhole) echo black-holed ;; *) echo at half rate ;; esac) between the dashed lines" \
	"s" "total goodput (Mbit/s)" "lines" "${f[@]}"
sc_md "![total goodput over time]($SC_NAME/goodput.png)"
sc_md ""
sc_md_end
ft_down
