# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the fabric's own tests (tests/fabric/test_*.sh) and for the
# scenarios: a fabric with a unique name torn down on every exit path,
# background workload processes, and readers for the switch's files and
# eqload's summaries.  Source tests/lib/tap.sh first when writing TAP.

. "$(dirname "${BASH_SOURCE[0]}")/fabric.sh"
EQLOAD=${EQLOAD:-$FABRIC_ROOT/build/fabric/eqload}
FT_NAME=ft$(printf '%x%03x' $$ $((RANDOM % 4096)))
FT_TMP=
FT_PIDS=()

ft_stop_bg() {	# ends the background processes
	local p
	for p in "${FT_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${FT_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	FT_PIDS=()
}

ft_down() {
	ft_stop_bg
	ft_edgeq_down
	fab_down "$FT_NAME"
	if [ -n "$FT_TMP" ]; then
		if [ -n "${FT_KEEP:-}" ]; then echo "# kept $FT_TMP"; else rm -rf "$FT_TMP"; fi
	fi
	FT_TMP=
}

# ft_up TOPO [--set KEY=VALUE]...: the fabric, named $FT_NAME.
ft_up() {
	trap ft_down EXIT
	trap 'ft_down; exit 130' INT TERM
	[ -n "$FT_TMP" ] || FT_TMP=$(mktemp -d /tmp/edgeq-fabric.XXXXXX)
	fab_up "$1" "$FT_NAME" "${@:2}" 2>&1 | sed 's/^/# /'
	[ -S "$(fab_dir "$FT_NAME")/ctl.sock" ]
}

# ft_edgeq_up [KEY VALUE]...: edgeq attached to eth0 of every host, with
# every other host as a peer (its /32 through its own address) and the
# config directives given (e.g. "scheme eqds" "link_rate 1gbit").  Hosts
# are detached again by ft_down, before their namespaces go.
EDGEQ=${EDGEQ:-$FABRIC_ROOT/build/edgeq}
FT_EDGEQ_HOSTS=()
ft_edgeq_up() {
	local h ip4 ip6 o p cfg
	while read -r h ip4 ip6; do
		cfg=$FT_TMP/edgeq-$h.conf
		{
			echo "local $ip4"
			[ $# -eq 0 ] || printf '%s %s\n' "$@"
			while read -r o p _; do
				[ "$o" = "$h" ] || echo "peer $p/32 via $p"
			done < <(fab_hosts "$FT_NAME")
		} >"$cfg"
		if ! nsenter --net="/run/netns/$FT_NAME-$h" "$EDGEQ" attach eth0 --config "$cfg" >"$cfg.log" 2>&1; then
			echo "# edgeq attach on $h failed:"; sed 's/^/#   /' "$cfg.log"
			return 1
		fi
		FT_EDGEQ_HOSTS+=("$h")
	done < <(fab_hosts "$FT_NAME")
}

# ft_agent_sum FIELD...: fields of the agents' per-peer state
# (eq_agent_peers and eq_eqds_peers, docs/agent.md), each summed over every peer of every
# attached host, on one line.  One dump per host (a dump of the whole
# array is 1.5 MB of JSON).  The agents publish every 100 ms: wait that
# long after the traffic.
ft_agent_sum() {
	local h f m q=""
	for f in "$@"; do q="$q${q:+, }(map(.$f // 0) | add // 0)"; done
	for h in "${FT_EDGEQ_HOSTS[@]}"; do
		local pins
		pins="/sys/fs/bpf/edgeq/eth0@ns$(stat -Lc %i "/run/netns/$FT_NAME-$h")"
		# The tunnel's state and each scheme's own (their fields differ).
		for m in eq_agent_peers eq_eqds_peers eq_smartt_peers eq_sird_peers; do
			nsenter --net="/run/netns/$FT_NAME-$h" bpftool map dump pinned "$pins/$m" -j 2>/dev/null
		done | jq -rs "[.[] | arrays | .[] | .formatted.value] | [$q] | @tsv" 2>/dev/null
	done | awk -v n=$# '{ for (i = 1; i <= n; i++) s[i] += $i }
		END { for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? " " : ""), s[i] + 0; print "" }'
}

# ft_edgeq_stat_sum FIELD...: counters of eq_stats (TC's and XDP's, `edgeq
# status`, summed over CPUs), each summed over every attached host, on one
# line.
ft_edgeq_stat_sum() {
	local h f q=""
	for f in "$@"; do q="$q${q:+, }(.interfaces[0].stats.$f // 0)"; done
	for h in "${FT_EDGEQ_HOSTS[@]}"; do
		nsenter --net="/run/netns/$FT_NAME-$h" "$EDGEQ" status eth0 --json 2>/dev/null |
			jq -r "[$q] | @tsv" 2>/dev/null
	done | awk -v n=$# '{ for (i = 1; i <= n; i++) s[i] += $i }
		END { for (i = 1; i <= n; i++) printf "%s%.0f", (i > 1 ? " " : ""), s[i] + 0; print "" }'
}

ft_edgeq_down() {
	local h
	for h in "${FT_EDGEQ_HOSTS[@]}"; do
		nsenter --net="/run/netns/$FT_NAME-$h" "$EDGEQ" detach eth0 >/dev/null 2>&1 ||
			echo "# edgeq detach on $h failed"
	done
	FT_EDGEQ_HOSTS=()
}

# Topologies by name: tests/fabric/topos/NAME.topo.
ft_topo() { echo "$FABRIC_ROOT/tests/fabric/topos/$1.topo"; }

# ft_bg HOST CMD...: a background process on a host (its pid is $!).
ft_bg() {
	local h=$1; shift
	nsenter --net="/run/netns/$FT_NAME-$h" "$@" &
	FT_PIDS+=($!)
}

ft_wait() {	# waits for every background process
	local p rc=0
	for p in "${FT_PIDS[@]}"; do wait "$p" || rc=1; done
	FT_PIDS=()
	return $rc
}

ft_on() { local h=$1; shift; fab_exec "$FT_NAME" "$h" "$@"; }
ft_ip() { fab_host_ip "$FT_NAME" "$@"; }
ft_ctl() { fab_ctl "$FT_NAME" "$@" >/dev/null; }

# Monotonic clock in ns, the clock of eqload and the switch.
ft_now() { "$EQLOAD" now; }

# ft_port PORT COLUMN: a figure of ports.tsv (after ft_stats).
ft_stats() { fab_stats "$FT_NAME"; }
ft_port() {
	awk -F'\t' -v p="$1" -v c="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p { print $(col[c]); found = 1 }
		END { if (!found) exit 1 }' "$(fab_dir "$FT_NAME")/ports.tsv"
}

# ft_incast N RAW: h0 .. h(N-1) each send 1 MB of TCP (eqload bulk, cubic)
# to hN, all starting at one instant; then the fabric's stats (ft_stats).
# Sets FT_INCAST_T0 (that instant, ns), FT_INCAST_OK (transfers that
# completed) and FT_INCAST_LAST (ns from it to the last completion);
# eqload's outputs are RAW/h<i>.tsv.
# shellcheck disable=SC2034  # FT_INCAST_*: for the test scripts
ft_incast() {
	local n=$1 raw=$2 i p
	mkdir -p "$raw"
	ft_bg "h$n" "$EQLOAD" serve --port 5201
	sleep 0.3
	ft_ctl reset
	FT_INCAST_T0=$(( $(ft_now) + 1000000000 ))
	for i in $(seq 0 $((n - 1))); do
		ft_bg "h$i" "$EQLOAD" bulk --dst "$(ft_ip "h$n")" --port 5201 --bytes 1m \
			--cc cubic --start-at "$FT_INCAST_T0" --out "$raw/h$i.tsv"
	done
	for p in "${FT_PIDS[@]:1}"; do wait "$p"; done
	kill "${FT_PIDS[0]}" 2>/dev/null; wait "${FT_PIDS[0]}" 2>/dev/null
	FT_PIDS=()
	sleep 0.2	# the agents publish every 100 ms
	ft_stats
	FT_INCAST_OK=0
	for i in $(seq 0 $((n - 1))); do
		[ "$(ft_sum "$raw/h$i.tsv" complete)" = 1 ] && FT_INCAST_OK=$((FT_INCAST_OK + 1))
	done
	FT_INCAST_LAST=$(for i in $(seq 0 $((n - 1))); do
		echo $(( $(ft_sum "$raw/h$i.tsv" end_ns) - FT_INCAST_T0 )); done | sort -n | tail -1)
}

# ft_sum FILE KEY: a key of eqload's "# summary k=v ..." line.
ft_sum() {
	awk -v k="$2" '/^# summary/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] } }' "$1"
}

# ft_within A B PCT: |A - B| <= PCT% of B.
ft_within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; }
