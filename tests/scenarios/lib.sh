# SPDX-License-Identifier: GPL-2.0-only
#
# The experiment runner's library, sourced by each scenario
# (tests/scenarios/<name>.sh).  A scenario runs one workload over one
# fabric once per transport, in one run, and writes:
#   docs/results/<name>.md        tables (Markdown) and the command that made them
#   docs/results/<name>/*.png     plots (gnuplot)
# Transports: plain Linux TCP with each congestion control the kernel
# offers (tcp_available_congestion_control), then edgeq in trimming and
# in RTS mode (below); SC_TRANSPORTS overrides the list.
# Raw data (eqload outputs, queue series) stays in a temporary directory,
# kept with SC_KEEP=1.

. "$(dirname "${BASH_SOURCE[0]}")/../fabric/testlib.sh"
SC_ROOT=$FABRIC_ROOT
SC_NAME=${SC_NAME:-$(basename "$0" .sh)}
SC_RESULTS=${SC_RESULTS:-$SC_ROOT/docs/results}
SC_MD=$SC_RESULTS/$SC_NAME.md
SC_PNG=$SC_RESULTS/$SC_NAME
SC_STARTED=$(date +%s)	# for the progress lines (SC_T0 is a run's start, in ns)
SC_STEP=0
SC_STEPS=${SC_STEPS:-0}
FT_KEEP=${SC_KEEP:-}

sc_transports() {
	if [ -n "${SC_TRANSPORTS:-}" ]; then echo "$SC_TRANSPORTS"; return; fi
	# Fixed order, so that tables line up across runs.
	local cc out=""
	for cc in cubic reno bbr dctcp; do
		grep -qw "$cc" /proc/sys/net/ipv4/tcp_available_congestion_control && out="$out $cc"
	done
	echo $out edgeq edgeq-rts
}

# ---- transports ----
# A transport is either a congestion control of plain Linux TCP (the
# baseline) or edgeq: "edgeq" is scheme eqds in trimming mode on a switch
# that trims edgeq data above SC_EDGEQ_TRIM (8 packets), "edgeq-rts" the
# same in RTS mode on a switch that trims nothing, "edgeq-nofast" (not in
# the default list) "edgeq" with `fast_path off`, every packet through the
# agent (docs/eqds.md, "The fast path"), "edgeq-noloss" (not in the default
# list either) "edgeq" with `loss_window_us 0`: losses wait for the RTO
# (docs/eqds.md, "Losses"), and "smartt" (not in the default list yet)
# scheme smartt on a switch that trims as for "edgeq" and CE-marks ECT
# packets above SC_SMARTT_ECN_K bytes (6000: four full frames), every
# packet through the agents (docs/smartt.md), REPS picking each DATA
# packet's path, "smartt-nscc" the same with `smartt.variant nscc`, and
# "smartt-spray" smartt with `smartt.reps off` and `entropy packet`:
# oblivious spraying, every packet on a random path; "sird" scheme sird
# (docs/sird.md) on a switch that trims as for "edgeq" and CE-marks ECT
# packets above SC_SIRD_ECN_K bytes (6000: NThr, the paper's 1.25 BDPs
# at this fabric's 50 Mbit/s and a round trip of about 1 ms), every
# packet through the agents, its grants to the sender with the least
# backlog first (SRPT's stand-in, the default), "sird-rr" the same with
# `sird.policy rr` (in turn), "sird-nocsn" the same as "sird" with
# `sird.sthr 1000` (10 BDPs: the csn bit never set, SThr = infinity, for
# the congested-sender scenario).  Inside the tunnel the
# applications use SC_EDGEQ_CC (cubic), as an unmodified host would.
# SC_EDGEQ adds config directives (default none: each tunnel's BDP
# follows its measured round trip, which through this fabric and two
# agents on a shared CPU takes 0.5-1 ms; "bdp 24000" fixed it before).
sc_is_edgeq() { case $1 in edgeq | edgeq-rts | edgeq-nofast | edgeq-noloss | smartt | smartt-nscc | smartt-spray | sird | sird-rr | sird-nocsn) return 0 ;; *) return 1 ;; esac; }

# sc_cc TRANSPORT: the congestion control the applications use.
sc_cc() { if sc_is_edgeq "$1"; then echo "${SC_EDGEQ_CC:-cubic}"; else echo "$1"; fi; }

# sc_up_tr TRANSPORT TOPO [--set K=V]...: sc_up, with the switch's trimming
# set for edgeq's mode and edgeq attached on every host (link_rate from
# the rate=... setting, which edgeq transports need).
sc_up_tr() {
	local tr=$1 a rate="" mode=trim trim=${SC_EDGEQ_TRIM:-8p} fast=on loss=(); shift
	if ! sc_is_edgeq "$tr"; then sc_up "$@"; return; fi
	[ "$tr" = edgeq-rts ] && mode=rts trim=off
	[ "$tr" = edgeq-nofast ] && fast=off
	[ "$tr" = edgeq-noloss ] && loss=(loss_window_us 0)
	for a in "$@"; do case $a in rate=*) rate=${a#rate=} ;; esac; done
	[ -n "$rate" ] || sc_die "$tr needs the fabric's rate (--set rate=...)"
	if [ "${tr%%-*}" = smartt ]; then
		local variant=smartt paths=(smartt.reps on)
		[ "$tr" = smartt-nscc ] && variant=nscc
		[ "$tr" = smartt-spray ] && paths=(smartt.reps off entropy packet)
		sc_up "$@" --set trim="$trim" --set ecn_k="${SC_SMARTT_ECN_K:-6000}"
		# shellcheck disable=SC2086 # SC_EDGEQ is a list of "key value" words
		ft_edgeq_up scheme smartt link_rate "$rate" smartt.variant "$variant" "${paths[@]}" \
			${SC_EDGEQ-} >&2 ||
			sc_die "edgeq did not attach ($tr)"
		return
	fi
	if [ "${tr%%-*}" = sird ]; then
		local policy=srpt
		local sthr=()
		[ "$tr" = sird-rr ] && policy=rr
		[ "$tr" = sird-nocsn ] && sthr=(sird.sthr 1000)
		sc_up "$@" --set trim="$trim" --set ecn_k="${SC_SIRD_ECN_K:-6000}"
		# shellcheck disable=SC2086 # SC_EDGEQ is a list of "key value" words
		ft_edgeq_up scheme sird link_rate "$rate" sird.policy "$policy" "${sthr[@]}" ${SC_EDGEQ-} >&2 ||
			sc_die "edgeq did not attach ($tr)"
		return
	fi
	sc_up "$@" --set trim="$trim"
	# shellcheck disable=SC2086 # SC_EDGEQ is a list of "key value" words
	ft_edgeq_up scheme eqds link_rate "$rate" eqds.mode "$mode" fast_path "$fast" "${loss[@]}" \
		${SC_EDGEQ-} >&2 ||
		sc_die "edgeq did not attach ($tr)"
}

# Progress on stderr: a long run says where it is and how long it has taken.
sc_progress() {
	SC_STEP=$((SC_STEP + 1))
	printf '[%s %d/%d, %ds] %s\n' "$SC_NAME" "$SC_STEP" "$SC_STEPS" $(($(date +%s) - SC_STARTED)) "$*" >&2
}

sc_die() { echo "$SC_NAME: $*" >&2; exit 1; }

sc_init() {	# sets FT_TMP, the results paths; call once
	FT_TMP=$(mktemp -d /tmp/edgeq-scenario.XXXXXX)
	trap ft_down EXIT
	trap 'ft_down; exit 130' INT TERM
	mkdir -p "$SC_PNG" || sc_die "cannot create $SC_PNG"
	[ -x "$EQLOAD" ] && [ -x "$EQSWITCH" ] || sc_die "build first: make"
	command -v gnuplot >/dev/null || sc_die "gnuplot missing: make deps"
}

# sc_up TOPO [--set K=V]...: a fresh fabric for one run.
sc_up() {
	fab_down "$FT_NAME"
	ft_up "$(ft_topo "$1")" "${@:2}" >/dev/null || sc_die "fabric $1 did not come up"
}

sc_now() { "$EQLOAD" now; }

# sc_queue PORT OUT: the switch's occupancy series of PORT, time in ms
# from T0 (ns), occupancy in packets, and the bytes the port took in and
# sent since the fabric's last reset: "ms pkts enq_bytes tx_bytes".
sc_queue() {	# PORT OUT T0
	local f
	f=$(fab_dir "$FT_NAME")/queues/$1.tsv
	if [ -f "$f" ]; then
		awk -v t0="$3" '!/^#/ { printf "%.3f\t%d\t%s\t%s\n", ($1 - t0) / 1e6, $3, $5, $6 }' "$f" >"$2"
	else
		: >"$2"
	fi
}

# sc_qstats PORT T0 T1: "max mean p99" of PORT's data queue in packets
# over [T0, T1] (ns), from the switch's series, weighted by time: each
# sample holds until the next (the switch writes one every `sample` while
# the queue is non-empty, one when it empties, and none while its loop
# was stalled); before the first sample the queue was empty.  ports.tsv's
# figures cover everything since the last reset, setup and idle time
# included; these cover the run.
sc_qstats() {
	local f
	f=$(fab_dir "$FT_NAME")/queues/$1.tsv
	[ -f "$f" ] || { echo "0 0 0"; return; }
	awk -v a="$2" -v b="$3" '
		function hold(t) { if (t > a && pt >= 0) { s = (pt > a ? pt : a); w[pv] += t - s; area += pv * (t - s) } }
		BEGIN { pt = -1 }
		!/^#/ { t = $1; if (t > b) t = b; hold(t); if ($1 > b) { done = 1; exit }
			if ($1 > a && pt >= 0 && pv > m) m = pv	# held into the window
			pt = $1; pv = $3; if ($1 >= a && $3 > m) m = $3 }
		END { if (!done) hold(b); if (pt >= 0 && pt < b && pv > m) m = pv; tot = b - a; if (tot <= 0) { print "0 0 0"; exit }
			c = tot; for (v in w) c -= w[v]; acc = c	# time before the first sample: empty
			p = 0; n = 0; for (v in w) vals[++n] = v + 0
			for (i = 2; i <= n; i++) { x = vals[i]; for (j = i - 1; j >= 1 && vals[j] > x; j--) vals[j + 1] = vals[j]; vals[j + 1] = x }
			for (i = 1; i <= n && acc < 0.99 * tot; i++) { acc += w[vals[i]]; p = vals[i] }
			printf "%d %.1f %d\n", m, area / tot, p }' "$f"
}

# sc_agent_counters OUT: for an edgeq run, the agents' counters summed
# over every host (docs/agent.md): "edge_drops edge_marks rx_trimmed
# rx_nacks rto_fired tx_rtx peer_silent credit_reclaimed credit_dropped"
# (the last two SIRD's, 0 for other schemes: docs/sird.md) into OUT;
# nothing for plain TCP.  Call after the traffic and before sc_down.
SC_AGENT_FIELDS=${SC_AGENT_FIELDS:-"edge_drops edge_marks rx_trimmed rx_nacks rto_fired tx_rtx peer_silent credit_reclaimed credit_dropped"}
sc_agent_counters() {
	[ ${#FT_EDGEQ_HOSTS[@]} -gt 0 ] || { rm -f "$1"; return 0; }
	sleep 0.2	# the agents publish every 100 ms
	# shellcheck disable=SC2086 # a list of field names
	ft_agent_sum $SC_AGENT_FIELDS >"$1"
}

# ---- statistics (awk; every function reads numbers, one per line) ----

# sc_pct P: the P-th percentile (nearest rank) of stdin.
sc_pct() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit }
	r = int(p / 100 * NR + 0.999999); if (r < 1) r = 1; if (r > NR) r = NR; print v[r] }'; }
sc_mean() { awk '{ s += $1; n++ } END { if (n) printf "%.6g\n", s / n; else print "nan" }'; }
sc_max() { awk 'NR == 1 || $1 > m { m = $1 } END { if (NR) print m; else print "nan" }'; }
sc_min() { awk 'NR == 1 || $1 < m { m = $1 } END { if (NR) print m; else print "nan" }'; }
# Jain's fairness index: (sum x)^2 / (n sum x^2).
sc_jain() { awk '{ s += $1; q += $1 * $1; n++ } END { if (n && q) printf "%.4f\n", s * s / (n * q); else print "nan" }'; }
# sc_fmt VALUE SCALE DIGITS: VALUE / SCALE, rounded.
sc_fmt() { awk -v v="$1" -v s="$2" -v d="${3:-2}" 'BEGIN { if (v == "nan" || v == "") print "–"; else printf "%.*f\n", d, v / s }'; }

# ---- the report ----

sc_md_begin() {	# TITLE DESCRIPTION-FILE-OR-TEXT
	{
		echo "# $1"
		echo
		echo "$2"
		echo
		echo "Made by \`${SC_COMMAND:-tests/scenarios/run.sh $SC_NAME}\` on $(date -u +%Y-%m-%d)," \
			"commit $(git -C "$SC_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
			"kernel $(uname -r), $(nproc) CPUs; transports: $(sc_transports)$(
			[ "${FABRIC_RT:-0}" != 0 ] &&
				echo "; the switch under SCHED_FIFO $FABRIC_RT (\`FABRIC_RT=$FABRIC_RT\`, docs/fabric.md)")."
		echo
	} >"$SC_MD.tmp"
}
sc_md() { echo "$*" >>"$SC_MD.tmp"; }
# sc_md_end: the report in place, with its hand-written reading, if it has
# one beside it: <name>.notes.md, which no run writes, so that a report
# made again keeps what was said of the runs before (each note dated, its
# figures that run's) instead of losing it.
sc_md_end() {
	local notes=${SC_MD%.md}.notes.md
	if [ -f "$notes" ]; then
		{ echo; echo "## Notes"; echo; cat "$notes"; } >>"$SC_MD.tmp"
	fi
	mv "$SC_MD.tmp" "$SC_MD"; echo "$SC_NAME: wrote $SC_MD" >&2
}

# sc_plot OUT.png TITLE XLABEL YLABEL STYLE FILE:TITLE...: one line per file
# (sc_plot_ext, below, takes gnuplot settings first).
sc_plot() { sc_plot_ext "" "$@"; }

# ---- added for the scenarios ----

# sc_down: ends the run's background processes and its fabric but keeps
# $FT_TMP (ft_down deletes it, and the tables and plots made after the
# last run read every run's raw data from there).
sc_down() {
	ft_stop_bg
	ft_edgeq_down
	fab_down "$FT_NAME"
}

# sc_wait PID...: waits for those background processes (not the servers).
sc_wait() { local p; for p in "$@"; do wait "$p"; done; }

# sc_sleep_until NS: sleeps until CLOCK_MONOTONIC reaches NS.
sc_sleep_until() {
	local d
	d=$(( $1 - $(sc_now) ))
	[ "$d" -gt 0 ] && sleep "$(awk -v d="$d" 'BEGIN { printf "%.6f\n", d / 1e9 }')"
	return 0
}

# sc_netstat HOST KEY: a TCP/IP counter of HOST's namespace, named as
# nstat names it (TcpRetransSegs, TcpExtTCPOFOQueue, ...); 0 if absent.
sc_netstat() {
	ft_on "$1" cat /proc/net/snmp /proc/net/netstat | awk -v k="$2" '
		{ p = $1; sub(/:$/, "", p) }
		!(p in names) { names[p] = $0; next }
		{ n = split(names[p], h); for (i = 2; i <= n; i++) if (p h[i] == k) v = $i; delete names[p] }
		END { print v + 0 }'
}

# sc_cdf: numbers on stdin -> "value fraction" lines, an empirical CDF.
sc_cdf() { sort -g | awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) printf "%s\t%.6f\n", v[i], i / NR }'; }

# sc_plot_ext SETTINGS OUT.png TITLE XLABEL YLABEL STYLE FILE:TITLE...:
# sc_plot with gnuplot commands run before the plot (SETTINGS, lines
# separated by ';': "set logscale x", a marked interval, ...).
sc_plot_ext() {
	local set=$1 out=$2 title=$3 xl=$4 yl=$5 style=$6; shift 6
	local plots="" f
	for f in "$@"; do
		[ -s "${f%%:*}" ] || continue
		plots="$plots${plots:+, }'${f%%:*}' using 1:2 with $style title '${f#*:}'"
	done
	[ -n "$plots" ] || return 0
	gnuplot <<-GP 2>&1 | grep -v '^$' >&2
		set terminal pngcairo size 900,450 noenhanced
		set output '$out'
		set title '$title'
		set xlabel '$xl'
		set ylabel '$yl'
		set key outside right
		set grid
		$set
		plot $plots
	GP
}

# sc_ports FILE REGEX COLUMN: COLUMN of each port of a copy of ports.tsv
# whose name matches REGEX, one a line (pipe into sc_max, sc_sum...).
sc_ports() {
	awk -F'\t' -v re="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 ~ re { print $(col[c]) }' "$1"
}
sc_sum() { awk '{ s += $1 } END { printf "%.15g\n", s }'; }

# sc_ring_drops: frames the switch never saw, summed over the host links:
# the veth's XDP redirect found the AF_XDP ring full because the switch
# fell behind (ethtool -S rx_queue_N_drops on the switch side).  These
# are not in ports.tsv; call before sc_down.
sc_ring_drops() {
	local ns ifc s=0
	while read -r ns ifc; do
		s=$((s + $(nsenter --net="/run/netns/$ns" ethtool -S "$ifc" 2>/dev/null |
			awk '/rx_queue_[0-9]+_drops:/ { s += $2 } END { print s + 0 }')))
	done < <(awk '$1 == "host" { print $8, $9 }' "$(fab_dir "$FT_NAME")/plan")
	echo "$s"
}

# sc_qdisc_sampler HOST OUT: in the background, every 100 ms, the backlog
# of HOST's own link queue, its qdisc (the NIC: a host's flows queue there
# before the fabric sees them; the switch does not): "t_ns bytes packets"
# lines.  sc_down ends it.
sc_qdisc_sampler() {
	ft_bg "$1" bash -c 'while :; do t=$("$0" now) || exit
		tc -s -j qdisc show dev eth0 |
			sed -n "s/.*\"backlog\":\([0-9]*\),\"qlen\":\([0-9]*\).*/$t \1 \2/p"
		sleep 0.1; done' "$EQLOAD" >"$2"
}

# sc_permutation RAW TRANSPORT SECS [bulk options]: on a fabric of NH
# hosts (2 leaves), a server on every host and, after a reset of the
# switch's statistics, host i sending bulk to host i + NH/2 mod NH for SECS
# from SC_T0 (set here, 1 s ahead); the senders' pids are in SC_PIDS.
sc_permutation() {
	local raw=$1 tr=$2 secs=$3 i; shift 3
	for i in $(seq 0 $((NH - 1))); do ft_bg "h$i" "$EQLOAD" serve --port 5201 2>>"$raw/serve.log"; done
	sleep 0.3
	ft_ctl reset
	SC_T0=$(( $(sc_now) + 1000000000 ))
	SC_PIDS=()
	for i in $(seq 0 $((NH - 1))); do
		ft_bg "h$i" "$EQLOAD" bulk --dst "$(ft_ip "h$(( (i + NH / 2) % NH ))")" --port 5201 \
			--duration "$secs" --cc "$(sc_cc "$tr")" --start-at "$SC_T0" --out "$raw/h$i.tsv" "$@"
		SC_PIDS+=($!)
	done
}
