#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test fabric: hosts and switches as network namespaces, joined by
# veths, with build/fabric/eqswitch forwarding between them.
#
#   fabric.sh up TOPO NAME [--set KEY=VALUE]...   build it and start the switch
#   fabric.sh down NAME                           stop the switch, delete everything
#   fabric.sh exec NAME HOST CMD...               run CMD on a host (nsenter --net)
#   fabric.sh ctl NAME COMMAND...                 a switch command (docs/fabric.md)
#   fabric.sh link NAME A B down|up|rate R|loss PCT  change a link, both directions
#   fabric.sh stats NAME                          write DIR/ports.tsv, print it
#   fabric.sh hosts NAME                          NAME IPV4 IPV6 per host
#
# NAME prefixes every namespace (NAME-h0, NAME-tor0, ...); the switch's
# files (telemetry, control socket, log) are in $FABRIC_RUN/NAME, by
# default /run/edgeq-fabric/NAME.  `down` deletes them unless FABRIC_KEEP=1.
# Sourced (by tests and scenarios), it defines the fab_* functions only.
# FABRIC_CPU=N pins the switch to CPU N.  FABRIC_RT=N runs it under
# SCHED_FIFO at priority N (docs/fabric.md, "Waiting for events"; 0, the
# default: under the default scheduler).

FABRIC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FABRIC_RUN=${FABRIC_RUN:-/run/edgeq-fabric}
EQSWITCH=${EQSWITCH:-$FABRIC_ROOT/build/fabric/eqswitch}

fab_dir() { echo "$FABRIC_RUN/$1"; }

fab_log() { echo "fabric: $*" >&2; }

# Host-side link shaping: the host's NIC sends at the link rate, and the
# kernel qdisc pushes back on TCP (TSQ) the way a real NIC queue does.
# burst: 10 frames, or 100 us at the rate when that is more; limit (the
# NIC queue): 2 ms at the rate, at least 64 kB, so a slow link does not
# hide 80 ms of queue in its host.
fab_shape() {	# NS RATE_BPS
	local burst=$(($2 / 8 / 10000)) limit=$(($2 / 8 / 500))
	[ "$burst" -lt 15140 ] && burst=15140
	[ "$limit" -lt 65536 ] && limit=65536
	ip -n "$1" link set eth0 up 2>/dev/null
	tc -n "$1" qdisc replace dev eth0 root tbf rate "$2"bit burst "$burst" limit "$limit"
}

fab_down() {	# NAME
	local name=$1 dir pid ns
	dir=$(fab_dir "$name")
	if [ -f "$dir/eqswitch.pid" ]; then
		pid=$(cat "$dir/eqswitch.pid")
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -KILL "$pid" 2>/dev/null
		fi
	fi
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(h|tor|leaf|spine)[0-9]+$"); do
		ip netns del "$ns" 2>/dev/null
	done
	[ -n "${FABRIC_KEEP:-}" ] || rm -rf "$dir"
	return 0
}

fab_up() {	# TOPO NAME [--set KEY=VALUE]...
	local topo=$1 name=$2; shift 2
	local dir plan kind n nsname mac ip4 ip6 sw swns swif swmac rate delay
	dir=$(fab_dir "$name")
	if [ ! -x "$EQSWITCH" ]; then fab_log "$EQSWITCH missing: run make"; return 1; fi
	if [ -e "$dir" ] || ip netns list | grep -qE "^$name-"; then
		fab_log "a fabric named '$name' exists: fabric.sh down $name"; return 1
	fi
	mkdir -p "$dir" || return 1
	plan=$("$EQSWITCH" plan "$topo" --name "$name" "$@") || { rm -rf "$dir"; return 1; }
	echo "$plan" >"$dir/plan"
	cp "$topo" "$dir/topo"
	printf '%s\n' "$@" >"$dir/settings"
	# From here on a failure or an interrupt leaves nothing behind.
	trap 'fab_down "'"$name"'"; trap - INT TERM; exit 130' INT TERM
	if ! fab_build "$name" "$plan"; then
		fab_log "building '$name' failed; cleaning up"
		fab_down "$name"; trap - INT TERM; return 1
	fi
	if ! fab_start "$topo" "$name" "$@"; then
		fab_down "$name"; trap - INT TERM; return 1
	fi
	trap - INT TERM
}

fab_build() {	# NAME PLAN
	local name=$1 plan=$2 kind a b c d e f g h i j k
	while read -r kind a b c d e f g h i j k; do
		case $kind in
		switch)
			ip netns add "$b" || return 1
			ip -n "$b" link set lo up ;;
		host)	# a=name b=ns c=mac d=ip4 e=ip6 f=switch g=swns h=swif i=swmac j=rate k=delay
			ip netns add "$b" || return 1
			ip netns exec "$b" sysctl -qw net.ipv6.conf.default.accept_dad=0 \
				net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.router_solicitations=0
			ip link add eth0 netns "$b" address "$c" type veth \
				peer name "$h" netns "$g" address "$i" || return 1
			ip -n "$b" link set lo up
			ip -n "$b" addr add "$d/32" dev eth0
			ip -n "$b" addr add "$e/128" dev eth0 nodad
			# veth would hand partial checksums to the switch's AF_XDP copy
			ip netns exec "$b" ethtool -K eth0 tx off >/dev/null 2>&1
			ip -n "$g" link set "$h" up || return 1
			fab_shape "$b" "$j" || return 1
			# Every other host is behind one next hop: the switch port.
			ip -n "$b" neigh replace 169.254.0.1 lladdr "$i" dev eth0 nud permanent
			ip -n "$b" route add 10.250.0.0/16 via 169.254.0.1 dev eth0 onlink src "$d" || return 1
			ip -n "$b" -6 neigh replace fe80::1 lladdr "$i" dev eth0 nud permanent
			ip -n "$b" -6 route add fdee:250::/32 via fe80::1 dev eth0 src "$e" || return 1
			;;
		esac
	done < <(grep -v '^#' <<<"$plan")
}

fab_start() {	# TOPO NAME [--set ...]
	local topo=$1 name=$2; shift 2
	local dir pid pin=()
	dir=$(fab_dir "$name")
	[ -n "${FABRIC_CPU:-}" ] && pin=(taskset -c "$FABRIC_CPU")
	[ "${FABRIC_RT:-0}" != 0 ] && set -- "$@" --rt "$FABRIC_RT"
	setsid "${pin[@]}" "$EQSWITCH" run "$topo" --name "$name" --dir "$dir" "$@" \
		>"$dir/eqswitch.log" 2>&1 </dev/null &
	pid=$!
	echo "$pid" >"$dir/eqswitch.pid"
	for _ in $(seq 100); do
		[ -S "$dir/ctl.sock" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	fab_log "the switch did not start:"; sed 's/^/  /' "$dir/eqswitch.log" >&2
	return 1
}

fab_exec() {	# NAME HOST CMD...
	local name=$1 host=$2; shift 2
	nsenter --net="/run/netns/$name-$host" "$@"
}

fab_ctl() {	# NAME COMMAND...
	local name=$1; shift
	"$EQSWITCH" ctl "$(fab_dir "$name")" "$@"
}

fab_hosts() {	# NAME: "host ipv4 ipv6" lines
	awk '$1 == "host" { print $2, $5, $6 }' "$(fab_dir "$1")/plan"
}

fab_host_ip() {	# NAME HOST [6]
	awk -v h="$2" -v f="${3:-4}" '$1 == "host" && $2 == h { print (f == 6 ? $6 : $5) }' \
		"$(fab_dir "$1")/plan"
}

# A link change applies to both directions.  The switch side is the
# switch's business; the host side of a host link is the host's qdisc.
fab_link() {	# NAME A B down|up|rate R|loss PCT
	local name=$1 a=$2 b=$3 what=$4 val=${5:-} h="" rate
	case $a in h[0-9]*) h=$a ;; esac
	case $b in h[0-9]*) h=$b ;; esac
	case $what in
	down|up) fab_ctl "$name" link "$a" "$b" "$what" ;;
	rate|loss)
		if [ -n "$h" ]; then
			local sw=$a; [ "$h" = "$a" ] && sw=$b
			fab_ctl "$name" port "$sw-$h" "$what" "$val" || return 1
			if [ "$what" = rate ]; then
				fab_ctl "$name" port "$h-$sw" rate "$val" || return 1
				rate=$(numfmt --from=si "$(tr a-z A-Z <<<"${val%bit}")" 2>/dev/null) || { fab_log "rate '$val'?"; return 1; }
				fab_shape "$name-$h" "$rate"
			else
				fab_log "loss on a host link applies to the switch-to-host direction"
			fi
		else
			fab_ctl "$name" port "$a-$b" "$what" "$val" && fab_ctl "$name" port "$b-$a" "$what" "$val"
		fi ;;
	*) fab_log "link NAME A B down|up|rate R|loss PCT"; return 2 ;;
	esac
}

fab_stats() {	# NAME: writes DIR/ports.tsv and DIR/switches.tsv
	fab_ctl "$1" stats >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	cmd=${1:-}; shift || true
	case $cmd in
	up) [ $# -ge 2 ] || { sed -n '5,12p' "$0"; exit 2; }; fab_up "$@" ;;
	down) [ $# -eq 1 ] || exit 2; fab_down "$1" ;;
	exec) fab_exec "$@" ;;
	ctl) fab_ctl "$@" ;;
	link) fab_link "$@" ;;
	stats) fab_stats "$1" && column -t "$(fab_dir "$1")/ports.tsv" ;;
	hosts) fab_hosts "$1" ;;
	*) sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
	esac
fi
