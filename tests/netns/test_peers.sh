#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The peer table of a live attachment, on the two-host testbed
# (tests/lib/netns.sh), with an overlay prefix behind B:
#  1. a prefix routed by the user (10.88.0.0/24 via 10.77.0.2): attach sets
#     "mtu 1452" on the user's route (status: mtu-set); ping and a TCP
#     transfer to 10.88.0.2 (on B's lo) go through the tunnel;
#  2. `edgeq peer add` at runtime of a prefix the config does not have
#     (fd77::2/128): its traffic becomes tunnelled (counters, and on the
#     wire), a route with the tunnel MTU appears, `peer list` (text and
#     --json) shows it; adding it again to another via is refused; `peer
#     del` makes its traffic plain again and removes the route; deleting an
#     unknown prefix fails;
#  3. prefixes to one via share one peer slot; deleting one keeps the
#     other working; deleting both frees the slot (and eq_underlay); a
#     route edgeq added (proto 233) goes with its prefix, the user's route
#     gets its MTU back; detach restores the user's route exactly;
#  4. with no local IPv6 address, `peer add` of an IPv6 via is refused.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

tb_start

# A tunnels only the overlay prefix behind B; B tunnels back to A.
cat >"$TB_TMP/pa.conf" <<EOF
local 10.77.0.1
local fd77::1
peer 10.88.0.0/24 via 10.77.0.2
EOF
cat >"$TB_TMP/pb.conf" <<EOF
local 10.77.0.2
local fd77::2
peer 10.77.0.1 via 10.77.0.1
EOF
cat >"$TB_TMP/pa4.conf" <<EOF
local 10.77.0.1
peer 10.88.0.0/24 via 10.77.0.2
EOF
ip -n "$TB_B" addr add 10.88.0.2/32 dev lo
ip -n "$TB_B" addr add 10.99.0.2/32 dev lo
ip -n "$TB_B" addr add 10.66.0.2/32 dev lo
in_a ip route add 10.88.0.0/24 via 10.77.0.2
in_a ip route add default via 10.77.0.2	# 10.99.0.0/24, 10.66.0.0/24: edgeq adds routes

# ---- helpers (more in tests/lib/netns.sh) ----

# peer_field PREFIX FIELD: a field of A's peer entry in `status --json`.
peer_field() {
	eq_a status "$TB_IFA" --json |
		jq -r --arg p "$1" ".interfaces[0].peers[] | select(.prefix == \$p) | .$2"
}

# ping_tunnel PREFIX ADDR [ping options]: the ping works, A's entry for
# PREFIX counted it (tx_packets) and B decapsulated it.
ping_tunnel() {
	local pfx=$1 dst=$2 t0 d0 t1 d1
	shift 2
	t0=$(peer_field "$pfx" tx_packets); d0=$(eq_stat b rx_decap)
	in_a ping "$@" -c 3 -i 0.1 -W 2 "$dst" >/dev/null || { echo "# ping $dst failed"; return 1; }
	t1=$(peer_field "$pfx" tx_packets); d1=$(eq_stat b rx_decap)
	if [ "${t1:-0}" -lt $((${t0:-0} + 3)) ] || [ "${d1:-0}" -lt $((${d0:-0} + 3)) ]; then
		echo "# $pfx tx_packets '$t0' -> '$t1', B rx_decap $d0 -> $d1"
		return 1
	fi
}

# ping_plain ADDR [ping options]: the ping works and A counted it as
# tx_miss (no peer prefix), not as tx_encap.
ping_plain() {
	local dst=$1 m0 e0 m1 e1
	shift
	m0=$(eq_stat a tx_miss); e0=$(eq_stat a tx_encap)
	in_a ping "$@" -c 3 -i 0.1 -W 2 "$dst" >/dev/null || { echo "# ping $dst failed"; return 1; }
	m1=$(eq_stat a tx_miss); e1=$(eq_stat a tx_encap)
	if [ "${m1:-0}" -lt $((${m0:-0} + 3)) ] || [ "${e1:-0}" -ne "${e0:-0}" ]; then
		echo "# tx_miss $m0 -> $m1, tx_encap $e0 -> $e1"
		return 1
	fi
}

# The route of a prefix in A (trailing blanks cut), or nothing.
route_of() { in_a ip "$1" route show "$2" | sed 's/ *$//'; }
no_our_routes() { [ -z "$(our_routes "$TB_A")" ] || { our_routes "$TB_A" | sed 's/^/# left: /'; return 1; }; }
listed() { eq_a peer list dev "$TB_IFA" | grep -qE -- "$1"; }
not_listed() { ! listed "$1"; }
route_has() {		# route_has -4|-6 PREFIX REGEX
	local r
	r=$(route_of "$1" "$2")
	has "$r" "$3" || { echo "# route $2: '$r'"; return 1; }
}
route_none() { [ -z "$(route_of "$1" "$2")" ] || { echo "# route $2: $(route_of "$1" "$2")"; return 1; }; }

# run_out CMD...: sets OUT (stdout+stderr) and RC.
run_out() {
	OUT=$("$@" 2>&1)
	RC=$?
	[ -z "$OUT" ] || echo "$OUT" | as_comment
}

user_route=$(route_of -4 10.88.0.0/24)

# ---- 1. a prefix behind a user route ----

check "attach A" quiet eq_a attach "$TB_IFA" --config "$TB_TMP/pa.conf"
check "attach B" quiet eq_b attach "$TB_IFB" --config "$TB_TMP/pb.conf"
check "the user's route to 10.88.0.0/24 got mtu 1452" \
	test "$(route_of -4 10.88.0.0/24)" = "$user_route mtu 1452"
check "status: route of 10.88.0.0/24 is mtu-set" test "$(peer_field 10.88.0.0/24 route)" = mtu-set
check "ping 10.88.0.2 (B's lo) through the tunnel" ping_tunnel 10.88.0.0/24 10.88.0.2
check "TCP 4 MB to 10.88.0.2 through the tunnel, SHA-256 matches" tcp_transfer_ok 10.88.0.2 4
check "the transfer went through the tunnel (tx_packets of 10.88.0.0/24 > 1000)" \
	test "$(peer_field 10.88.0.0/24 tx_packets)" -gt 1000

# ---- 2. an IPv6 peer added and deleted at runtime ----

# Capture what A sends.
cap_ok=0
cap_start "$TB_A" "$TB_IFA" v6 -Q out && cap_ok=1
check "before peer add: ping fd77::2 is plain (tx_miss, no tx_encap)" \
	ping_plain fd77::2 -6 -s 111
check "before peer add: no route fd77::2" route_none -6 fd77::2
run_out eq_a peer add fd77::2/128 via fd77::2 dev "$TB_IFA"
check "peer add fd77::2/128 via fd77::2 on A: exit 0" test "$RC" -eq 0
check "peer add fd77::1/128 via fd77::1 on B" quiet eq_b peer add fd77::1/128 via fd77::1 dev "$TB_IFB"
check "route fd77::2 with mtu 1424 and proto 233" route_has -6 fd77::2 'proto 233 .*mtu 1424'
check "status: route of fd77::2/128 is added" test "$(peer_field fd77::2/128 route)" = added
list=$(eq_a peer list dev "$TB_IFA")
check "peer list shows 'fd77::2/128 via fd77::2'" has "$list" '^fd77::2/128 via fd77::2$'
check "peer list still shows '10.88.0.0/24 via 10.77.0.2'" has "$list" '^10\.88\.0\.0/24 via 10\.77\.0\.2$'
jlist=$(eq_a peer list dev "$TB_IFA" --json)
check "peer list --json has {prefix: fd77::2/128, via: fd77::2, slot}" \
	jq_ok "$jlist" 'any(.[]; .prefix == "fd77::2/128" and .via == "fd77::2" and (.slot | type) == "number")'
check "ping fd77::2 through the tunnel" ping_tunnel fd77::2/128 fd77::2 -6 -s 222

run_out eq_a peer add fd77::2/128 via 10.77.0.3 dev "$TB_IFA"
check "peer add of the same prefix via another address: exit 1" test "$RC" -eq 1
check "... says it already goes to another peer" \
	has "$OUT" "$TB_IFA: prefix fd77::2/128 already goes to another peer; delete it first"
check "... and the prefix still goes via fd77::2" test "$(peer_field fd77::2/128 via)" = fd77::2
run_out eq_a peer add fd77::2/128 via fd77::2 dev "$TB_IFA"
check "peer add of the same prefix and via again: exit 0 (no change)" \
	test "$RC" -eq 0 -a "$(eq_a peer list dev "$TB_IFA" | grep -c '^fd77::2/128 ')" -eq 1

run_out eq_a peer del fd77::2/128 dev "$TB_IFA"
check "peer del fd77::2/128 on A: exit 0" test "$RC" -eq 0
check "peer del fd77::1/128 on B" quiet eq_b peer del fd77::1/128 dev "$TB_IFB"
check "route fd77::2 removed" route_none -6 fd77::2
check "peer list no longer shows fd77::2/128" not_listed '^fd77::2/128 '
check "after peer del: ping fd77::2 is plain again" ping_plain fd77::2 -6 -s 333
sleep 0.2
tb_stop
if [ "$cap_ok" = 1 ]; then
	# Echo requests by size: ICMPv6 payload = 8 + ping -s.
	p111=$(cap_count v6 'icmp6 and ip6[40] == 128 and ip6[4:2] == 119')
	p222=$(cap_count v6 'icmp6 and ip6[40] == 128 and ip6[4:2] == 230')
	p333=$(cap_count v6 'icmp6 and ip6[40] == 128 and ip6[4:2] == 341')
	tun6=$(cap_count v6 'ip6 and udp dst port 7446')
	check "on the wire: plain before add ($p111), tunnelled after ($tun6 tunnel, $p222 plain), plain after del ($p333)" \
		test "$p111" -eq 3 -a "$p222" -eq 0 -a "$tun6" -ge 3 -a "$p333" -eq 3
else
	not_ok "tcpdump did not start: $(cat "$TB_TMP/v6.err")"
fi

run_out eq_a peer del 10.123.0.0/16 dev "$TB_IFA"
check "peer del of an unknown prefix: exit 1, 'no peer prefix 10.123.0.0/16'" \
	test "$RC" -eq 1 -a -n "$(grep "$TB_IFA: no peer prefix 10.123.0.0/16" <<<"$OUT")"

# ---- 3. two prefixes, one via: one slot ----

slot=$(peer_field 10.88.0.0/24 slot)
check "peer add 10.99.0.0/24 via 10.77.0.2 (no route of its own)" \
	quiet eq_a peer add 10.99.0.0/24 via 10.77.0.2 dev "$TB_IFA"
check "10.99.0.0/24 shares the slot of 10.88.0.0/24 ($slot)" \
	test -n "$slot" -a "$(peer_field 10.99.0.0/24 slot)" = "$slot"
check "edgeq added a route for 10.99.0.0/24: via 10.77.0.2, proto 233, mtu 1452" \
	route_has -4 10.99.0.0/24 '^10\.99\.0\.0/24 via 10\.77\.0\.2 dev .* proto 233 .*mtu 1452'
check "status: route of 10.99.0.0/24 is added" test "$(peer_field 10.99.0.0/24 route)" = added
check "ping 10.99.0.2 through the tunnel" ping_tunnel 10.99.0.0/24 10.99.0.2
check "ping 10.88.0.2 through the tunnel" ping_tunnel 10.88.0.0/24 10.88.0.2

check "peer del 10.88.0.0/24" quiet eq_a peer del 10.88.0.0/24 dev "$TB_IFA"
check "the user's route to 10.88.0.0/24 is back as it was (no mtu)" \
	test "$(route_of -4 10.88.0.0/24)" = "$user_route"
check "10.99.0.0/24 keeps its slot" test "$(peer_field 10.99.0.0/24 slot)" = "$slot"
check "ping 10.99.0.2 still through the tunnel" ping_tunnel 10.99.0.0/24 10.99.0.2

check "peer del 10.99.0.0/24" quiet eq_a peer del 10.99.0.0/24 dev "$TB_IFA"
check "the route edgeq added for 10.99.0.0/24 is gone" route_none -4 10.99.0.0/24
check "no peer prefix left" test "$(eq_a status "$TB_IFA" --json | jq '.interfaces[0].peers | length')" -eq 0
check "eq_underlay is empty (the slot's underlay address was freed)" \
	test "$(bpftool -j map dump pinned "$TB_PIN_A/eq_underlay" | jq length)" -eq 0
check "eq_peers slot $slot is unused" \
	test "$(bpftool -j map dump pinned "$TB_PIN_A/eq_peers" | jq ".[] | select(.formatted.key == ${slot:-0}) | .formatted.value.flags")" -eq 0
check "peer add 10.66.0.0/24 via another address (10.77.0.3)" \
	quiet eq_a peer add 10.66.0.0/24 via 10.77.0.3 dev "$TB_IFA"
check "it gets the freed slot $slot" test "$(peer_field 10.66.0.0/24 slot)" = "$slot"
check "the reused slot's counters start from zero (it carried pings before)" \
	test "$(peer_field 10.66.0.0/24 tx_packets)" = 0 -a "$(peer_field 10.66.0.0/24 rx_packets)" = 0
check "peer del 10.66.0.0/24" quiet eq_a peer del 10.66.0.0/24 dev "$TB_IFA"
check "its route is gone" route_none -4 10.66.0.0/24

check "peer add 10.88.0.0/24 via 10.77.0.2 again" quiet eq_a peer add 10.88.0.0/24 via 10.77.0.2 dev "$TB_IFA"
check "the user's route got mtu 1452 again" test "$(route_of -4 10.88.0.0/24)" = "$user_route mtu 1452"
check "ping 10.88.0.2 through the tunnel" ping_tunnel 10.88.0.0/24 10.88.0.2
check "detach A" quiet eq_a detach "$TB_IFA"
check "after detach, the user's route is exactly as before attach" \
	test "$(route_of -4 10.88.0.0/24)" = "$user_route"
check "after detach, no route with proto 233 in A" no_our_routes

# ---- 4. no local IPv6 address: IPv6 via refused ----

check "attach A with an IPv4-only config" quiet eq_a attach "$TB_IFA" --config "$TB_TMP/pa4.conf"
run_out eq_a peer add fd77::2/128 via fd77::2 dev "$TB_IFA"
check "peer add via fd77::2: exit 1" test "$RC" -eq 1
check "... says the config has no local IPv6 address" \
	has "$OUT" "$TB_IFA: peer via fd77::2 needs a local IPv6 address in the config"
check "... and changed nothing (peer list, routes)" \
	test "$(eq_a peer list dev "$TB_IFA")" = "10.88.0.0/24 via 10.77.0.2" -a -z "$(route_of -6 fd77::2)"
check "detach A" quiet eq_a detach "$TB_IFA"
check "detach B" quiet eq_b detach "$TB_IFB"
check "nothing left: no pins" test ! -e "$TB_PIN_A"
check "nothing left: the user's route as before attach" test "$(route_of -4 10.88.0.0/24)" = "$user_route"
check "nothing left: no proto 233 route" no_our_routes

tap_done
