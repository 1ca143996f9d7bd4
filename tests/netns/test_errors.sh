#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Errors of the `edgeq` command, on host A of the two-host testbed
# (tests/lib/netns.sh).  Each must give a clear message and exit status 1
# (2 for usage errors), leave nothing behind (no pin directory, no XDP, no
# clsact, no proto 233 route) and never hang or crash: every command runs
# under `timeout 20`.
#  - config files: missing; unknown directive, bad address, bad prefix,
#    'peer' without 'via', port 0 (messages name the file and the line);
#    no 'local', a peer via IPv6 without a local IPv6 address (whole-file
#    checks: messages name the file);
#  - interface not found; network namespace not found; MTU too small for
#    an IPv6 prefix (and big enough for IPv4 only: attaches); an MTU above
#    the interface's; a 'local' address (IPv4 or IPv6) that is not the
#    host's; an interface name with a dot (a VLAN device: bpffs refuses
#    dots, so the pin directory spells it %2e): attaches, status and
#    detach find it; attach under 'ip netns exec' (a mount namespace whose
#    /sys/fs/bpf is not the host's: the pins would vanish), refused;
#  - detach and status of an interface edgeq is not attached to;
#  - usage errors (exit 2): unknown command, unknown option, missing
#    arguments (with the command's own usage), bad --xdp-mode, bad peer
#    arguments, help of an unknown command;
#  - help (exit 0, stdout): `edgeq help`, `--help`, `help CMD`, `CMD --help`;
#  - a peer prefix routed out of another interface (covered by a wider
#    route, or a route for exactly that prefix): refused naming both
#    devices, and the attach, half done by then, is rolled back whole.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

tb_start

IFC=eqc$TB_ID		# a second veth pair, both ends in A
IFD=eqd$TB_ID

# ---- helpers (more in tests/lib/netns.sh) ----

# run CMD...: run the edgeq command line under timeout 20; sets OUT
# (stdout and stderr) and RC, and shows the output as TAP comments.
run() {
	OUT=$(timeout 20 "$@" 2>&1)
	RC=$?
	echo "$OUT" | as_comment
}

# fails RC REGEX DESC: the last run exited RC, and its output matches
# REGEX (an extended regular expression).
fails() {
	local want=$1 re=$2 desc=$3
	if [ "$RC" -eq "$want" ] && has "$OUT" "$re"; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "# exit $RC (want $want); output does$(has "$OUT" "$re" || echo " not") match: $re"
	fi
}

# Nothing of edgeq's on A's interface nor in bpffs.
check_clean() { check "... and nothing is left behind" nothing_left "$TB_A" "$TB_IFA"; }

attach_a() {		# attach_a CONFIG [options]
	local cfg=$1
	shift
	run "$EDGEQ" --netns "$TB_A" attach "$TB_IFA" --config "$cfg" "$@"
}

# conf NAME: a config from stdin, as $TB_TMP/NAME.conf.
conf() { cat >"$TB_TMP/$1.conf"; }

# ---- config files ----

attach_a "$TB_TMP/missing.conf"
fails 1 "cannot open config '$TB_TMP/missing\.conf': No such file or directory" \
	"missing config file: exit 1, names the file and the reason"
check_clean

# Errors sit on line 5, after a comment and a blank line, so that line
# numbers are seen to count every line.
err_conf() {		# err_conf NAME LINE5
	printf '# host A\nlocal 10.77.0.1\n\nlink_rate 10gbit\n%s\npeer 10.77.0.2 via 10.77.0.2\n' "$2" \
		>"$TB_TMP/$1.conf"
}
config_error() {	# config_error NAME LINE5 REGEX DESC
	err_conf "$1" "$2"
	attach_a "$TB_TMP/$1.conf"
	fails 1 "^edgeq: $TB_TMP/$1\.conf:5: $3" "config with $4: exit 1, 'FILE:5: ...'"
}
config_error unknown 'bogus 1' "unknown directive 'bogus'" "an unknown directive"
config_error badaddr 'local fd77::zz' "'fd77::zz' is not an IPv4 or IPv6 address" "a bad address"
config_error toomany 'node_id 1 2' "usage: node_id 0-65535" "a directive with too many words"
config_error badprefix 'peer 10.88.0.0/33 via 10.77.0.2' "'10\.88\.0\.0/33' is not a prefix" "a bad prefix"
config_error novia 'peer 10.88.0.0/24 10.77.0.2' "usage: peer PREFIX via ADDRESS" "'peer' without 'via'"
config_error notvia 'peer 10.88.0.0/24 to 10.77.0.2' "usage: peer PREFIX via ADDRESS" "'peer PREFIX to ADDR'"
config_error badvia 'peer 10.88.0.0/24 via 10.77.0' "'10\.77\.0' is not an IPv4 or IPv6 address" "a bad via address"
config_error port0 'port 0' "port '0' is not in 1-65535" "port 0"
config_error port65536 'port 65536' "port '65536' is not in 1-65535" "port 65536"
check_clean

conf nolocal <<EOF
# no local address
port 7446
peer 10.77.0.2/32 via 10.77.0.2
EOF
attach_a "$TB_TMP/nolocal.conf"
fails 1 "^edgeq: $TB_TMP/nolocal\.conf: no 'local' address" "config without 'local': exit 1, names the file"
check_clean

conf nolocal6 <<EOF
local 10.77.0.1
peer 10.77.0.2/32 via 10.77.0.2
peer fd77::2/128 via fd77::2
EOF
attach_a "$TB_TMP/nolocal6.conf"
fails 1 "^edgeq: $TB_TMP/nolocal6\.conf: peer via fd77::2 needs a local IPv6 address" \
	"peer via IPv6 without a local IPv6 address: exit 1, names the file and the via"
check_clean

# ---- interface, namespace, MTU ----

run "$EDGEQ" --netns "$TB_A" attach nosuch0 --config "$TB_TMP/a.conf"
fails 1 "interface 'nosuch0' not found in netns $TB_A" "interface not found: exit 1, names it and the netns"
check_clean
check "... and no pin directory for it" test ! -e "$(tb_pin_dir "$TB_A" nosuch0)"

run "$EDGEQ" --netns "nosuchns$TB_ID" attach "$TB_IFA" --config "$TB_TMP/a.conf"
fails 1 "network namespace 'nosuchns$TB_ID' not found .*ip netns" "netns not found: exit 1, names it"
check_clean
run "$EDGEQ" --netns "nosuchns$TB_ID" status
fails 1 "network namespace 'nosuchns$TB_ID' not found" "netns not found (status): exit 1"

conf mtu6 <<EOF
local 10.77.0.1
local fd77::1
mtu 1300
peer 10.77.0.2/32 via 10.77.0.2
peer fd77::2/128 via fd77::2
EOF
attach_a "$TB_TMP/mtu6.conf"
fails 1 "$TB_IFA: MTU 1300 leaves 1224 bytes for traffic to fd77::2/128, below the 1280 it needs" \
	"mtu 1300 with an IPv6 prefix over IPv6: exit 1, says what is left and needed"
check_clean
conf mtu6v4 <<EOF
local 10.77.0.1
mtu 1300
peer fd77::2/128 via 10.77.0.2
EOF
attach_a "$TB_TMP/mtu6v4.conf"
fails 1 "MTU 1300 leaves 1252 bytes for traffic to fd77::2/128, below the 1280 it needs" \
	"mtu 1300 with an IPv6 prefix over IPv4: exit 1"
check_clean
conf mtu4 <<EOF
local 10.77.0.1
mtu 1300
peer 10.77.0.2/32 via 10.77.0.2
EOF
attach_a "$TB_TMP/mtu4.conf"
fails 0 "attached to $TB_IFA" "mtu 1300 with IPv4 prefixes only: attaches"
check "... with route mtu 1252" has "$(in_a ip -4 route show 10.77.0.2)" 'proto 233 .*mtu 1252'
run "$EDGEQ" --netns "$TB_A" detach "$TB_IFA"
fails 0 "detached from $TB_IFA" "... and detaches"
check_clean
conf mtubig <<EOF
local 10.77.0.1
mtu 1600
peer 10.77.0.2/32 via 10.77.0.2
EOF
attach_a "$TB_TMP/mtubig.conf"
fails 1 "$TB_IFA: config mtu 1600 is above the interface's 1500: .*set 'mtu 1500' or lower" \
	"mtu 1600 on an interface of MTU 1500: exit 1, says what to set"
check_clean

# 'local' must be one of the host's addresses (of any interface in the
# namespace): the tunnel sends from it and the peers answer to it.
conf notours4 <<EOF
local 10.77.9.9
peer 10.77.0.2/32 via 10.77.0.2
EOF
attach_a "$TB_TMP/notours4.conf"
fails 1 "$TB_IFA: 'local 10\.77\.9\.9' is not an address of this host \(netns $TB_A\)" \
	"a local IPv4 address the host does not have: exit 1, names it and the netns"
check_clean
conf notours6 <<EOF
local 10.77.0.1
local fd77::99
peer 10.77.0.2/32 via 10.77.0.2
EOF
attach_a "$TB_TMP/notours6.conf"
fails 1 "'local fd77::99' is not an address of this host" "a local IPv6 address the host does not have: exit 1"
check_clean
in_a ip addr add 10.77.9.9/32 dev lo
attach_a "$TB_TMP/notours4.conf"
fails 0 "attached to $TB_IFA" "the same config once the address is on the host (on lo): attaches"
run "$EDGEQ" --netns "$TB_A" detach "$TB_IFA"
fails 0 "detached from $TB_IFA" "... and detaches"
in_a ip addr del 10.77.9.9/32 dev lo
check_clean

# A VLAN device's name has a dot (eth0.100), which bpffs refuses in a
# name: the pin directory spells it %2e, and status shows the name as it
# is.  A veth named so stands in for the VLAN device (this kernel may lack
# the 8021q module): the name is what is tested.
VLAN=$TB_IFA.7
in_a ip link add "$VLAN" type veth peer name "${TB_IFA}v7"
in_a ip addr add 10.78.0.1/24 dev "$VLAN"
in_a ip link set "${TB_IFA}v7" up
in_a ip link set "$VLAN" up
conf vlan <<EOF
local 10.78.0.1
peer 10.78.0.2/32 via 10.78.0.2
EOF
run "$EDGEQ" --netns "$TB_A" attach "$VLAN" --config "$TB_TMP/vlan.conf"
fails 0 "attached to $VLAN" "an interface named with a dot ($VLAN): attaches"
check "... its state is pinned under ${TB_IFA}%2e7@ns..." test -d "$(tb_pin_dir "$TB_A" "${TB_IFA}%2e7")"
run "$EDGEQ" --netns "$TB_A" status --json
check "... status names it as it is" jq_ok "$OUT" "[.interfaces[].ifname] | index(\"$VLAN\") != null"
run "$EDGEQ" --netns "$TB_A" detach "$VLAN"
fails 0 "detached from $VLAN" "... and detaches"
check "... and leaves no pin directory" test ! -e "$(tb_pin_dir "$TB_A" "${TB_IFA}%2e7")"
in_a ip link del "$VLAN"
check_clean

# Under 'ip netns exec' the pins would land in a bpffs of the command's own
# mount namespace, gone when it exits, with the hooks left on the
# interface: refused, pointing at --netns.
run ip netns exec "$TB_A" "$EDGEQ" attach "$TB_IFA" --config "$TB_TMP/a.conf"
fails 1 "mount namespace of its own .*'edgeq --netns NAME" \
	"attach under 'ip netns exec': exit 1, says why and what to run instead"
check_clean

# ---- not attached ----

run "$EDGEQ" --netns "$TB_A" detach "$TB_IFA"
fails 1 "edgeq is not attached to $TB_IFA \(nothing at $TB_PIN_A\)" "detach when not attached: exit 1"
check_clean
run "$EDGEQ" --netns "$TB_A" status "$TB_IFA"
fails 1 "edgeq is not attached to $TB_IFA \(nothing at $TB_PIN_A\)" "status of a non-attached interface: exit 1"
OUT=$(timeout 20 "$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json 2>/dev/null)
RC=$?
check "status --json of a non-attached interface: exit 1, valid JSON with no interface" \
	test "$RC" -eq 1 -a "$(jq '.interfaces | length' <<<"$OUT" 2>/dev/null)" = 0
run "$EDGEQ" --netns "$TB_A" peer list dev "$TB_IFA"
fails 1 "edgeq is not attached to $TB_IFA" "peer list of a non-attached interface: exit 1"
run "$EDGEQ" --netns "$TB_A" peer add 10.88.0.0/24 via 10.77.0.2 dev "$TB_IFA"
fails 1 "edgeq is not attached to $TB_IFA" "peer add on a non-attached interface: exit 1"
check_clean

# ---- usage errors: exit 2 ----

usage_error() {		# usage_error REGEX DESC ARGS...
	local re=$1 desc=$2
	shift 2
	run "$EDGEQ" "$@"
	fails 2 "$re" "$desc: exit 2"
}
usage_error "unknown command 'frobnicate'" "unknown command" \
	--netns "$TB_A" frobnicate "$TB_IFA"
usage_error "unknown or incomplete option '--bogus'" "unknown option" --netns "$TB_A" --bogus status
usage_error "unknown or incomplete option '--netns'" "--netns without a name" status --netns
usage_error "unknown or incomplete option '--config'" "--config without a file" \
	--netns "$TB_A" attach "$TB_IFA" --config
usage_error "usage: edgeq" "no command at all"
usage_error "usage: edgeq .*attach IFACE --config FILE" \
	"attach without an interface (its own usage)" \
	--netns "$TB_A" attach --config "$TB_TMP/a.conf"
usage_error "attach needs --config FILE" "attach without --config" --netns "$TB_A" attach "$TB_IFA"
usage_error "--xdp-mode must be auto, native or generic" "attach with --xdp-mode bad" \
	--netns "$TB_A" attach "$TB_IFA" --config "$TB_TMP/a.conf" --xdp-mode bad
usage_error "usage: edgeq .*detach IFACE\$" "detach with two interfaces (its own usage)" \
	--netns "$TB_A" detach "$TB_IFA" "$TB_IFA"
usage_error "peer commands need 'dev IFACE'" "peer list without dev" --netns "$TB_A" peer list
usage_error "usage: edgeq peer add" "peer frob" --netns "$TB_A" peer frob dev "$TB_IFA"
usage_error "'10\.88\.0\.0/33' is not a prefix" "peer add of a bad prefix" \
	--netns "$TB_A" peer add 10.88.0.0/33 via 10.77.0.2 dev "$TB_IFA"
usage_error "'10\.77\.0' is not an IPv4 or IPv6 address" "peer add via a bad address" \
	--netns "$TB_A" peer add 10.88.0.0/24 via 10.77.0 dev "$TB_IFA"
usage_error "no command 'frob'" "help of an unknown command" help frob
check_clean

# ---- help: exit 0, on stdout ----

helps() {		# helps REGEX DESC ARGS...: exit 0, REGEX on stdout
	local re=$1 desc=$2 out rc
	shift 2
	out=$("$EDGEQ" "$@" 2>/dev/null); rc=$?
	out=$(tr '\n' ' ' <<<"$out")	# one line: the regexes span lines
	if [ "$rc" -eq 0 ] && has "$out" "$re"; then
		ok "$desc"
	else
		not_ok "$desc"
		echo "# exit $rc (want 0); stdout does$(has "$out" "$re" || echo " not") match: $re"
	fi
}
helps "usage: edgeq .*  attach IFACE.*  peer add.*Exit status: 0 done, 1 failed, 2 usage error" \
	"edgeq help: every command and the exit statuses" help
helps "usage: edgeq" "edgeq --help" --help
helps "attach IFACE --config FILE.*example:.*edgeq attach eth0 --config" "edgeq help attach: usage and example" \
	help attach
helps "attach IFACE --config FILE.*example:" "edgeq attach --help: the same" attach --help
helps "peer add PREFIX via ADDR \\[scheme none\\|eqds\\].*example:.*edgeq peer add" \
	"edgeq peer -h: the peer commands" --netns "$TB_A" peer -h
helps "status \\[IFACE\\] \\[--json\\]" "edgeq help status" help status
helps "scheme none\\|eqds.*The tunnel's settings:.* rto_us +10-10000000 microseconds +default 10000 .*Scheme eqds's settings.* eqds.mode +trim\\|rts +default trim, also read as eqds_mode" \
	"edgeq help config: every setting, its values and default" help config

# ---- a prefix routed out of another interface ----

ip link add "$IFC" netns "$TB_A" type veth peer name "$IFD" netns "$TB_A"
ip -n "$TB_A" addr add 10.55.0.1/24 dev "$IFC"
ip -n "$TB_A" link set "$IFC" up
ip -n "$TB_A" link set "$IFD" up
in_a ip route add 10.56.0.0/16 via 10.55.0.2 dev "$IFC"
in_a ip route add 10.57.0.0/24 via 10.55.0.2 dev "$IFC"
routes_before=$({ in_a ip -4 route; in_a ip -6 route; } | sed 's/ *$//')

# The first peer gets its route (and the hooks are up) before the second
# is found wanting: all of it must be undone.
conf other <<EOF
local 10.77.0.1
local fd77::1
peer 10.77.0.2/32 via 10.77.0.2
peer fd77::2/128 via fd77::2
peer 10.56.1.0/24 via 10.77.0.2
EOF
attach_a "$TB_TMP/other.conf"
fails 1 "$TB_IFA: traffic to peer prefix 10\.56\.1\.0/24 leaves through $IFC, not $TB_IFA" \
	"prefix under another interface's route: exit 1, names both devices"
check_clean
check "... and A's routes are as before" \
	test "$({ in_a ip -4 route; in_a ip -6 route; } | sed 's/ *$//')" = "$routes_before"

conf other_exact <<EOF
local 10.77.0.1
peer 10.77.0.2/32 via 10.77.0.2
peer 10.57.0.0/24 via 10.77.0.2
EOF
attach_a "$TB_TMP/other_exact.conf"
fails 1 "$TB_IFA: traffic to peer prefix 10\.57\.0\.0/24 leaves through $IFC, not $TB_IFA" \
	"prefix with its own route out of another interface: exit 1, names both devices"
check_clean
check "... and that route is untouched (no mtu)" \
	test "$(in_a ip -4 route show 10.57.0.0/24 | sed 's/ *$//')" = "10.57.0.0/24 via 10.55.0.2 dev $IFC"

# At run time, the same checks: a good attach, then bad peers refused.
attach_a "$TB_TMP/a.conf"
check "attach A (peers 10.77.0.2, fd77::2)" test "$RC" -eq 0
run "$EDGEQ" --netns "$TB_A" peer add 10.56.1.0/24 via 10.77.0.2 dev "$TB_IFA"
fails 1 "traffic to peer prefix 10\.56\.1\.0/24 leaves through $IFC, not $TB_IFA" \
	"peer add of a prefix routed out of $IFC: exit 1, names both devices"
run "$EDGEQ" --netns "$TB_A" peer add 10.57.0.0/24 via 10.77.0.2 dev "$TB_IFA"
fails 1 "traffic to peer prefix 10\.57\.0\.0/24 leaves through $IFC, not $TB_IFA" \
	"peer add of a prefix with its own route out of $IFC: exit 1"
check "... neither was added to the peer table" \
	test "$(timeout 20 "$EDGEQ" --netns "$TB_A" peer list dev "$TB_IFA" | sort | tr '\n' ' ')" = \
	"10.77.0.2/32 via 10.77.0.2 fd77::2/128 via fd77::2 "
check "... and the route to 10.57.0.0/24 is untouched" \
	test "$(in_a ip -4 route show 10.57.0.0/24 | sed 's/ *$//')" = "10.57.0.0/24 via 10.55.0.2 dev $IFC"
run "$EDGEQ" --netns "$TB_A" detach "$TB_IFA"
fails 0 "detached from $TB_IFA" "detach"
check_clean

tap_done
