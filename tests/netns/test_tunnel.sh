#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two hosts with edgeq on both ends of a veth pair: peer traffic (ping, a
# TCP bulk transfer checked by SHA-256, IPv4 and IPv6) goes through the
# tunnel and arrives intact; traffic to a non-peer address is untouched (and
# its answers, which come back through the tunnel from outside the peer's
# prefixes, are dropped: rx_drop_src); a
# capture of what each host sends shows only tunnel packets for peer
# traffic, and tshark with our dissector finds them well-formed.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

DISSECTOR=tools/wireshark/edgeq.lua
# Bulk size: 16 MB here, 2 MB in the VM (TCG emulation is ~50x slower).
MB=${EDGEQ_IN_VM:+2}
MB=${MB:-16}

tb_up || { not_ok "testbed setup"; tap_done; exit 1; }
check "attach on both hosts" tb_attach

# Capture what each host puts on the wire (egress: after TC encap; ingress
# would show packets already decapsulated by XDP).
for side in a b; do
	ifc=$TB_IFA; [ $side = b ] && ifc=$TB_IFB
	ns=$TB_A; [ $side = b ] && ns=$TB_B
	tb_bg ip netns exec "$ns" tcpdump --immediate-mode -Q out -i "$ifc" -s 0 -B 32768 -U -w "$TB_TMP/$side.pcap" 2>/dev/null
done
sleep 1

check "ping IPv4 peer through the tunnel" in_a ping -c 5 -i 0.1 -W 2 10.77.0.2
check "ping IPv6 peer through the tunnel" in_a ping -6 -c 5 -i 0.1 -W 2 fd77::2
enc=$(eq_stat a tx_encap); dec=$(eq_stat b rx_decap)
check "A encapsulated and B decapsulated the pings ($enc, $dec)" test "${enc:-0}" -ge 10 -a "${dec:-0}" -ge 10

# B's other addresses are none of A's peer prefixes: A pings them plainly.
# B answers from them to A, a peer of its own, so through the tunnel; A
# drops the answers, whose source lies in none of B's prefixes (what may
# come through B's tunnel, as WireGuard's allowed IPs: docs/wire.md §3).
# (At least the three IPv4 answers: B's neighbour advertisement for
# fd77::3 comes from it too, so the IPv6 pings may never leave A.)
miss_before=$(eq_stat a tx_miss) src_before=$(eq_stat a rx_drop_src)
in_a ping -c 3 -i 0.1 -W 1 10.77.0.3 >/dev/null 2>&1
in_a ping -6 -c 3 -i 0.1 -W 1 fd77::3 >/dev/null 2>&1
miss_after=$(eq_stat a tx_miss) src_after=$(eq_stat a rx_drop_src)
check "pings to non-peer addresses left A untouched, tx_miss ($miss_before -> $miss_after)" \
	test "${miss_after:-0}" -ge $((${miss_before:-0} + 3))
check "... and their answers, from outside B's prefixes, were dropped: rx_drop_src ($src_before -> $src_after)" \
	test "${src_after:-0}" -ge $((${src_before:-0} + 3))

check "TCP $MB MB to IPv4 peer, SHA-256 matches" tcp_transfer_ok 10.77.0.2 "$MB"
check "TCP $MB MB to IPv6 peer, SHA-256 matches" tcp_transfer_ok fd77::2 "$MB"

check "no other drops counted on either host" \
	bash -c "! { $EDGEQ --netns $TB_A status $TB_IFA --json; $EDGEQ --netns $TB_B status $TB_IFB --json; } | grep -oE '\"(rx_drop|tx_err)[a-z_]*\":[1-9]' | grep -v rx_drop_src"

sleep 0.5
tb_stop

# On the wire: every IP packet between the peer addresses is UDP to the
# tunnel port; the non-peer pings are plain ICMP.
for side in a b; do
	pcap=$TB_TMP/$side.pcap
	peer_plain=$(tcpdump -nr "$pcap" '(ip or ip6) and ((host 10.77.0.1 and host 10.77.0.2) or (host fd77::1 and host fd77::2))' \
		and not udp port 7446 and not icmp6 2>/dev/null | wc -l)
	tunnel=$(tcpdump -nr "$pcap" udp port 7446 2>/dev/null | wc -l)
	check "$side: peer traffic on the wire is tunnelled only ($tunnel tunnel, $peer_plain plain)" \
		test "$tunnel" -gt 50 -a "$peer_plain" -eq 0
	[ "$peer_plain" -eq 0 ] || tcpdump -nr "$pcap" '(ip or ip6) and ((host 10.77.0.1 and host 10.77.0.2) or (host fd77::1 and host fd77::2))' \
		and not udp port 7446 and not icmp6 2>/dev/null | head -3 | sed 's/^/# plain: /'
done
plain_icmp=$(tcpdump -nr "$TB_TMP/a.pcap" 'icmp and host 10.77.0.3' 2>/dev/null | wc -l)
check "non-peer pings left A as plain ICMP ($plain_icmp)" test "$plain_icmp" -ge 3

if ! command -v tshark >/dev/null; then
	not_ok "tshark is missing: 'make deps' installs it"
else
	# Judge the layers we produce (outer IP, UDP, edgeq, inner IP/TCP/ICMP),
	# not Wireshark's guesses at what random payload might be.
	# Decode-as by port beats TCP's heuristics (tried only when no port matches).
	tsopts=(-o udp.ignore_ipv6_zero_checksum:TRUE)
	for p in "${TB_PORTS[@]}"; do tsopts+=(-d "tcp.port==$p,data"); done
	for side in a b; do
		pcap=$TB_TMP/$side.pcap
		# A zero UDP checksum over IPv6 is allowed for tunnels (RFC 6935/6936,
		# docs/wire.md); Wireshark must be told so (in tsopts).
		ts() { tshark -n -r "$pcap" -X lua_script:"$DISSECTOR" "${tsopts[@]}" "$@" 2>/dev/null; }
		nedgeq=$(ts -Y edgeq | wc -l)
		nbad=$(ts -Y '_ws.malformed or _ws.expert.severity >= error' | wc -l)
		ninner=$(ts -Y 'edgeq and (tcp or icmp or icmpv6)' | wc -l)
		check "$side: tshark decodes $nedgeq edgeq packets, $ninner with inner TCP/ICMP" \
			test "$nedgeq" -gt 50 -a "$ninner" -gt 50
		check "$side: tshark finds no malformed packet ($nbad)" test "$nbad" -eq 0
	done
fi

tap_done
