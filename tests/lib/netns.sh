# SPDX-License-Identifier: GPL-2.0-only
#
# A two-host testbed for netns tests: namespaces A and B joined by one veth
# pair, IPv4 and IPv6 addresses, edgeq configs for both.  Names are unique
# per run, and tb_down (installed as an EXIT/INT/TERM trap by tb_up) removes
# namespaces, pins, background processes and temporary files on every exit
# path.  Source tests/lib/tap.sh first.
#
#   A: $TB_IFA  10.77.0.1/24  fd77::1/64      B: $TB_IFB  10.77.0.2/24  fd77::2/64
#   B also has 10.77.0.3 and fd77::3, which are not peer addresses.
#
# TB_DEVS="DEV_A DEV_B": two existing interfaces on one link (the VM's
# virtio-net NICs) instead of a veth pair: moved into A and B under the
# testbed's names, and given back under their own when it goes down.  Set
# it as a variable of the script, not for the tb_start call alone: tb_down
# needs it too.

EDGEQ=${EDGEQ:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/edgeq}
TB_ID=$(printf '%x%04x' $$ $((RANDOM)))
TB_A=eqtA$TB_ID
TB_B=eqtB$TB_ID
TB_IFA=eqa$TB_ID
TB_IFB=eqb$TB_ID
TB_TMP=
TB_PIDS=()
TB_PORTS=()		# TCP ports the transfers used (tshark decodes them as data)

# Run a command in A or B (applications: not edgeq, which takes --netns).
in_a() { ip netns exec "$TB_A" "$@"; }
in_b() { ip netns exec "$TB_B" "$@"; }
eq_a() { "$EDGEQ" --netns "$TB_A" "$@"; }
eq_b() { "$EDGEQ" --netns "$TB_B" "$@"; }

# Start a background process (an external command, so that $! is its own
# pid: bash makes background jobs ignore SIGINT); tb_stop/tb_down end it.
tb_bg() {
	"$@" &
	TB_PIDS+=($!)
}

tb_stop() {
	local p
	for p in "${TB_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${TB_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	TB_PIDS=()
}

tb_down() {
	tb_stop
	if ip netns list | grep -qw "$TB_A"; then eq_a detach "$TB_IFA" >/dev/null 2>&1; fi
	if ip netns list | grep -qw "$TB_B"; then eq_b detach "$TB_IFB" >/dev/null 2>&1; fi
	# Whatever still runs in them (an agent a failed detach left) would
	# keep the namespaces alive.
	local ns
	for ns in "$TB_A" "$TB_B"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	done
	tb_devs_back
	ip netns del "$TB_A" 2>/dev/null
	ip netns del "$TB_B" 2>/dev/null
	tb_devs_back	# what the deletion gave back, still under our names
	# Pins outlive a namespace: remove ours whatever happened above.
	rm -rf /sys/fs/bpf/edgeq/"$TB_IFA"@* /sys/fs/bpf/edgeq/"$TB_IFB"@* 2>/dev/null
	rmdir /sys/fs/bpf/edgeq 2>/dev/null
	rm -f /run/edgeq/"$TB_IFA"@*.log /run/edgeq/"$TB_IFB"@*.log
	if [ -n "${TB_KEEP:-}" ] && [ -n "$TB_TMP" ]; then echo "# kept $TB_TMP"; TB_TMP=; fi
	[ -n "$TB_TMP" ] && rm -rf "$TB_TMP"
	TB_TMP=
}

# TB_DEVS back in the initial namespace under their own names.
tb_devs_back() {
	local da db
	[ -n "${TB_DEVS:-}" ] || return 0
	read -r da db <<<"$TB_DEVS"
	# In this namespace under our names (tb_up failed half way, or a
	# deleted namespace gave them back): the names only.
	ip link set dev "$TB_IFA" name "$da" 2>/dev/null
	ip link set dev "$TB_IFB" name "$db" 2>/dev/null
	ip -n "$TB_A" link set dev "$TB_IFA" down 2>/dev/null &&
		ip -n "$TB_A" link set dev "$TB_IFA" name "$da" &&
		ip -n "$TB_A" link set dev "$da" netns 1
	ip -n "$TB_B" link set dev "$TB_IFB" down 2>/dev/null &&
		ip -n "$TB_B" link set dev "$TB_IFB" name "$db" &&
		ip -n "$TB_B" link set dev "$db" netns 1
	return 0
}

tb_up() {
	trap tb_down EXIT
	trap 'tb_down; exit 130' INT TERM
	TB_TMP=$(mktemp -d /tmp/edgeq-test.XXXXXX)
	ip netns add "$TB_A" && ip netns add "$TB_B" || return 1
	# TB_QUEUES: receive and transmit queues on each end (multi-queue).
	local qs=()
	[ -n "${TB_QUEUES:-}" ] && qs=(numtxqueues "$TB_QUEUES" numrxqueues "$TB_QUEUES")
	if [ -n "${TB_DEVS:-}" ]; then
		local da db
		read -r da db <<<"$TB_DEVS"
		ip link set dev "$da" down && ip link set dev "$da" name "$TB_IFA" &&
			ip link set dev "$TB_IFA" netns "$TB_A" || return 1
		ip link set dev "$db" down && ip link set dev "$db" name "$TB_IFB" &&
			ip link set dev "$TB_IFB" netns "$TB_B" || return 1
	else
		ip link add "$TB_IFA" netns "$TB_A" "${qs[@]}" type veth peer name "$TB_IFB" \
			netns "$TB_B" "${qs[@]}" || return 1
	fi
	ip -n "$TB_A" addr add 10.77.0.1/24 dev "$TB_IFA"
	ip -n "$TB_B" addr add 10.77.0.2/24 dev "$TB_IFB"
	ip -n "$TB_B" addr add 10.77.0.3/24 dev "$TB_IFB"
	ip -n "$TB_A" addr add fd77::1/64 dev "$TB_IFA" nodad
	ip -n "$TB_B" addr add fd77::2/64 dev "$TB_IFB" nodad
	ip -n "$TB_B" addr add fd77::3/64 dev "$TB_IFB" nodad
	local n
	for n in "$TB_A" "$TB_B"; do ip -n "$n" link set lo up; done
	ip -n "$TB_A" link set "$TB_IFA" up
	ip -n "$TB_B" link set "$TB_IFB" up
	# veth leaves L4 checksums partial (CHECKSUM_PARTIAL) for the peer to
	# trust; a capture would show them as wrong.  Have them computed,
	# unless TB_OFFLOADS=default (benchmarks: offloads as a user has them).
	if [ "${TB_OFFLOADS:-}" != default ]; then
		in_a ethtool -K "$TB_IFA" tx off >/dev/null
		in_b ethtool -K "$TB_IFB" tx off >/dev/null
	fi
	cat >"$TB_TMP/a.conf" <<-EOF
	# host A
	local 10.77.0.1
	local fd77::1
	link_rate 10gbit
	peer 10.77.0.2/32 via 10.77.0.2
	peer fd77::2/128 via fd77::2
	EOF
	cat >"$TB_TMP/b.conf" <<-EOF
	# host B
	local 10.77.0.2
	local fd77::2
	link_rate 10gbit
	peer 10.77.0.1/32 via 10.77.0.1
	peer fd77::1/128 via fd77::1
	EOF
	# Let IPv6 neighbours and routes settle.
	in_a ping -c 1 -W 2 10.77.0.2 >/dev/null 2>&1
	in_a ping -6 -c 1 -W 2 fd77::2 >/dev/null 2>&1
	return 0
}

tb_attach() {		# attach edgeq on both hosts
	eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" >/dev/null &&
	eq_b attach "$TB_IFB" --config "$TB_TMP/b.conf" >/dev/null
}

# Value of a counter from `edgeq status --json` (global stats).
eq_stat() {		# eq_stat a|b NAME
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	# The interface's counter, not a per-peer field of the same name.
	"$EDGEQ" --netns "$ns" status "$ifc" --json | jq -r ".interfaces[0].stats.$2 // empty"
}

# tb_check_agent_sockets: on A and B, some edgeq packets went to the agent
# and none was lost for want of a socket on its receive queue
# (rx_agent_err).  Those that came while the agent's heartbeat said it was
# down (on_agent_down, e.g. an agent starved under TCG) are counted apart
# (rx_agent_down) and shown.
tb_check_agent_sockets() {
	local s ns ifc js err down toa dir
	for s in a b; do
		ns=$TB_A ifc=$TB_IFA; [ $s = b ] && ns=$TB_B ifc=$TB_IFB
		js=$("$EDGEQ" --netns "$ns" status "$ifc" --json)
		err=$(jq '.interfaces[0].stats.rx_agent_err // 0' <<<"$js")
		down=$(jq '.interfaces[0].stats.rx_agent_down // 0' <<<"$js")
		toa=$(jq '.interfaces[0].stats.rx_to_agent // 0' <<<"$js")
		dir=$(jq '.interfaces[0].stats.rx_direct // 0' <<<"$js")
		check "$s: no edgeq packet lost for want of a socket (rx_agent_err $err; to the agent $toa, delivered by XDP $dir)" \
			test "$err" = 0 -a "$toa" -gt 0
		[ "$down" = 0 ] ||
			echo "# $s: $down packets came while the agent's heartbeat said it was down (rx_agent_down)"
	done
}

# tb_parallel_transfers FLOWS MB DST: FLOWS TCP transfers of MB each to DST
# at once (each its own port, so its own flow hash), every SHA-256 checked.
tb_parallel_transfers() {
	local i pids=() rc=0
	for i in $(seq "$1"); do
		( TB_TMP=$TB_TMP/f$i; mkdir -p "$TB_TMP"; tcp_transfer_ok "$3" "$2" ) &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	return $rc
}

# TCP transfer of SIZE random bytes from A to DST:PORT in B; ok when the
# SHA-256 at the far end matches.  LABEL names its files, so that several
# can run at once.
tcp_transfer_ok() {	# DST SIZE_MB [LABEL]
	local dst=$1 mb=$2 port=$((20000 + RANDOM % 10000)) lpid f=$TB_TMP/${3:+x$3.}
	TB_PORTS+=("$port")
	head -c "$((mb * 1048576))" /dev/urandom >"${f}send"
	rm -f "${f}recv"
	local listen=TCP4-LISTEN
	case $dst in *:*) listen=TCP6-LISTEN ;; esac
	ip netns exec "$TB_B" timeout 60 socat -u $listen:$port,reuseaddr \
		OPEN:"${f}recv",creat,trunc &
	lpid=$!
	local host=$dst
	case $dst in *:*) host="[$dst]" ;; esac
	local i
	for i in $(seq 50); do	# wait for the listener
		in_b ss -ltn | grep -q ":$port " && break
		sleep 0.1
	done
	local t0=$SECONDS rc
	in_a timeout 60 socat -u OPEN:"${f}send" TCP:"$host":$port 2>"${f}err"; rc=$?
	# A failure says which step and when, as TAP comments: a CI log's
	# tail is often all there is to go on.
	if [ "$rc" != 0 ]; then
		{ echo "transfer to $host:$port: the sender exited $rc after $((SECONDS - t0)) s," \
			"$(stat -c %s "${f}recv" 2>/dev/null || echo 0) bytes received"; cat "${f}err"; } | as_comment
		return 1
	fi
	wait "$lpid" || { echo "transfer to $host:$port: the receiver failed" | as_comment; return 1; }
	[ "$(sha256sum <"${f}send")" = "$(sha256sum <"${f}recv")" ] ||
		{ echo "transfer to $host:$port: the bytes differ" | as_comment; return 1; }
}

# ---- helpers for the test scripts ----

# tb_start: tb_up, or a failed "testbed setup" result and exit 1.  Sets
# TB_PIN_A and TB_PIN_B, the pin directories of $TB_IFA and $TB_IFB.
# shellcheck disable=SC2034  # TB_PIN_*: for the test scripts
tb_start() {
	tb_up || { not_ok "testbed setup"; tap_done; exit 1; }
	TB_PIN_A=$(tb_pin_dir "$TB_A" "$TB_IFA")
	TB_PIN_B=$(tb_pin_dir "$TB_B" "$TB_IFB")
}

# tb_pin_dir NS IFACE: the directory edgeq pins IFACE's state in (in bpffs,
# named by the interface and the inode of the namespace).
tb_pin_dir() {
	local ino
	ino=$(stat -L -c %i "/run/netns/$1") || return 1
	echo "/sys/fs/bpf/edgeq/$2@ns$ino"
}

# as_comment: stdin as TAP comments.
as_comment() { sed 's/^/# /'; }

# has TEXT REGEX: extended grep in a string.
has() { grep -qE -- "$2" <<<"$1"; }

# jq_ok JSON FILTER: the JSON text passes the jq filter.
jq_ok() { jq -e "$2" <<<"$1" >/dev/null 2>&1 || { echo "# jq '$2' fails on: $1"; return 1; }; }

# quiet CMD...: run it; its output only as TAP comments, and only on failure.
quiet() {
	local out rc
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] || echo "$out" | as_comment
	return "$rc"
}

# cap_start NS IFACE NAME [TCPDUMP_OPTION...]: capture on IFACE in NS (both
# directions unless an option such as "-Q out" says otherwise) into
# $TB_TMP/NAME.pcap, tcpdump's messages into $TB_TMP/NAME.err; returns once
# tcpdump is listening (1 if it is not within 5 s).  tb_stop ends it.
cap_start() {
	local ns=$1 ifc=$2 name=$3
	shift 3
	tb_bg ip netns exec "$ns" tcpdump -n "$@" -i "$ifc" -s 128 --immediate-mode -U \
		-w "$TB_TMP/$name.pcap" 2>"$TB_TMP/$name.err"
	for _ in $(seq 100); do
		grep -q 'listening on' "$TB_TMP/$name.err" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# cap_count NAME FILTER...: how many packets of $TB_TMP/NAME.pcap match the
# tcpdump filter.
cap_count() {
	local n=$1
	shift
	tcpdump -n -r "$TB_TMP/$n.pcap" "$@" 2>/dev/null | wc -l
}

# What edgeq leaves on an interface and in a namespace, to check that
# detach and failed commands leave nothing behind.
xdp_on() { ip netns exec "$1" ip link show dev "$2" | grep -q 'prog/xdp'; }		# xdp_on NS IFACE
clsact_on() { ip netns exec "$1" tc qdisc show dev "$2" | grep -q 'qdisc clsact'; }	# clsact_on NS IFACE
our_routes() {		# our_routes NS: NS's IPv4 and IPv6 routes with proto 233 (edgeq's)
	{ ip netns exec "$1" ip -4 route; ip netns exec "$1" ip -6 route; } | grep 'proto 233'
}

# nothing_left NS IFACE: nothing of edgeq's on IFACE in NS nor in bpffs (no
# pin directory, XDP program, clsact qdisc nor proto 233 route); what is
# left is named in a TAP comment.
nothing_left() {
	local pin bad=
	pin=$(tb_pin_dir "$1" "$2") || { echo "# no netns $1"; return 1; }
	[ -e "$pin" ] && bad="$bad pins"
	xdp_on "$1" "$2" && bad="$bad xdp"
	clsact_on "$1" "$2" && bad="$bad clsact"
	our_routes "$1" >/dev/null && bad="$bad routes"
	[ -z "$bad" ] || { echo "# left behind:$bad"; return 1; }
}
