# SPDX-License-Identifier: GPL-2.0-only
#
# The experiment runner's library, sourced by each scenario
# (tests/scenarios/<name>.sh).  A scenario runs one workload over one
# fabric once per transport, in one run, and writes:
#   docs/results/<name>.md        tables (Markdown) and the command that made them
#   docs/results/<name>/*.png     plots (gnuplot)
# Transports: plain Linux TCP with each congestion control the kernel
# offers (tcp_available_congestion_control), and edgeq once its agent
# exists (issue 4); SC_TRANSPORTS overrides the list.
# Raw data (eqload outputs, queue series) stays in a temporary directory,
# kept with SC_KEEP=1.

. "$(dirname "${BASH_SOURCE[0]}")/../fabric/testlib.sh"
SC_ROOT=$FABRIC_ROOT
SC_NAME=${SC_NAME:-$(basename "$0" .sh)}
SC_RESULTS=${SC_RESULTS:-$SC_ROOT/docs/results}
SC_MD=$SC_RESULTS/$SC_NAME.md
SC_PNG=$SC_RESULTS/$SC_NAME
SC_T0=$(date +%s)
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
	echo $out
}

# Progress on stderr: a long run says where it is and how long it has taken.
sc_progress() {
	SC_STEP=$((SC_STEP + 1))
	printf '[%s %d/%d, %ds] %s\n' "$SC_NAME" "$SC_STEP" "$SC_STEPS" $(($(date +%s) - SC_T0)) "$*" >&2
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
# from T0 (ns), occupancy in packets: "ms pkts".
sc_queue() {	# PORT OUT T0
	local f
	f=$(fab_dir "$FT_NAME")/queues/$1.tsv
	if [ -f "$f" ]; then
		awk -v t0="$3" '!/^#/ { printf "%.3f\t%d\n", ($1 - t0) / 1e6, $3 }' "$f" >"$2"
	else
		: >"$2"
	fi
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
			"kernel $(uname -r), $(nproc) CPUs; transports: $(sc_transports)."
		echo "edgeq itself joins these tables when its agent exists (issue 4)."
		echo
	} >"$SC_MD.tmp"
}
sc_md() { echo "$*" >>"$SC_MD.tmp"; }
sc_md_end() { mv "$SC_MD.tmp" "$SC_MD"; echo "$SC_NAME: wrote $SC_MD" >&2; }

# sc_plot OUT.png TITLE XLABEL YLABEL STYLE FILE:TITLE...: one line per file.
sc_plot() {
	local out=$1 title=$2 xl=$3 yl=$4 style=$5; shift 5
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
		plot $plots
	GP
}
