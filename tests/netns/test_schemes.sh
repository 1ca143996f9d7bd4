#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Two schemes on one host at once (per-peer `scheme`, docs/config.md), on
# the two-host testbed: each host's IPv4 peer is `scheme eqds` (the
# attachment's default), its IPv6 peer `scheme none`.
#  1. both attach, an agent runs on each; `status` says each peer's scheme,
#     shows agent state for the EQDS peer only;
#  2. a TCP transfer over each at once arrives intact (SHA-256); the IPv4
#     one went through the EQDS tunnel (its agent counted its data), the
#     IPv6 one through the plain tunnel (TC encapsulated it, the agent
#     never saw it: frame_len 0, delivered by XDP);
#  3. `edgeq peer add ... scheme none` adds a plain peer at run time (and
#     one with no scheme takes the config's default, below);
#     adding a prefix via an existing peer with the other scheme is
#     refused; a config that gives one underlay peer two schemes is
#     refused before anything is hooked;
#     a peer deleted at run time is forgotten by the agent (its slot's
#     state flushed and cleared), and carries traffic once added back;
#  4. with `scheme none` everywhere and one peer `scheme eqds`, the agent
#     runs (the attachment's scheme is eqds, its default none).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

MB=${EDGEQ_IN_VM:+2}
MB=${MB:-4}

tb_start
for s in a b; do
	sed -i 's/^peer \(fd77::[12]\/128 via fd77::[12]\)$/peer \1 scheme none/' "$TB_TMP/$s.conf"
	printf 'scheme eqds\nlink_rate 1gbit\n' >>"$TB_TMP/$s.conf"
	sed -i '/^link_rate 10gbit$/d' "$TB_TMP/$s.conf"
done
as_comment <"$TB_TMP/a.conf"
check "attach with an eqds and a none peer on both hosts" tb_attach

js=$(eq_a status "$TB_IFA" --json)
sc=$(jq -r '[.interfaces[0].scheme, (.interfaces[0].peers[] | "\(.prefix)=\(.scheme):\(has("agent"))")] | join(" ")' <<<"$js" 2>/dev/null)
check "status: the attachment runs eqds; the IPv4 peer is eqds with agent state, the IPv6 one none without ($sc)" \
	[ "$sc" = "eqds 10.77.0.2/32=eqds:true fd77::2/128=none:false" ]
txt=$(eq_a status "$TB_IFA")
check "status text says the IPv6 peer is on the plain tunnel" has "$txt" "scheme none: the plain tunnel"
check "an agent runs on each host" \
	bash -c "[ \"\$(jq -r '.interfaces[0].agent_alive' <<<\"\$1\")\" = true ] &&
		 [ \"\$(\"\$2\" --netns \"\$3\" status \"\$4\" --json | jq -r '.interfaces[0].agent_alive')\" = true ]" \
	_ "$js" "$EDGEQ" "$TB_B" "$TB_IFB"

# Both transfers at once, each checked by SHA-256.
xfer() { tcp_transfer_ok "$1" "$MB" "$2"; }	# DST LABEL
peer_agent() {	# PREFIX FIELD: the agent's per-peer field on A
	eq_a status "$TB_IFA" --json | jq -r ".interfaces[0].peers[] | select(.prefix == \"$1\") | .agent.$2 // \"none\""
}
peer_stat() {	# PREFIX FIELD: the BPF per-peer counter on A
	eq_a status "$TB_IFA" --json | jq -r ".interfaces[0].peers[] | select(.prefix == \"$1\") | .$2"
}
plain_decap() { echo $(( $(eq_stat b rx_decap) - $(eq_stat b rx_direct) )); }	# not EQDS's direct delivery
d4=$(peer_agent 10.77.0.2/32 tx_data); rx6=$(plain_decap)
xfer 10.77.0.2 4 & p4=$!
xfer fd77::2 6 & p6=$!
wait "$p4"; r4=$?
wait "$p6"; r6=$?
check "TCP over the eqds peer (IPv4, $MB MB): identical bytes" [ "$r4" = 0 ]
check "TCP over the none peer (IPv6, $MB MB) at the same time: identical bytes" [ "$r6" = 0 ]
sleep 0.3	# the agent publishes every 100 ms
d4b=$(peer_agent 10.77.0.2/32 tx_data); t6=$(peer_stat fd77::2/128 tx_packets)
check "the IPv4 data went through the EQDS tunnel (agent tx_data $d4 -> $d4b)" \
	[ "$((d4b - d4))" -gt $((MB * 500)) ]
check "the IPv6 data went through the plain tunnel ($t6 packets tunnelled, agent state none)" \
	bash -c "[ \"\$1\" -gt $((MB * 500)) ] && [ \"\$2\" = none ]" _ "$t6" "$(peer_agent fd77::2/128 tx_data)"
# README's way to read one peer: its slot from `peer list`, then one lookup.
slot=$(eq_a peer list dev "$TB_IFA" --json | jq -r '.[] | select(.prefix == "10.77.0.2/32") | .slot' 2>/dev/null)
one=$(bpftool -j map lookup pinned "$TB_PIN_A/eq_agent_peers" key "${slot:-9999}" 0 0 0 2>&1 |
	jq -r '.formatted.value.tx_data // empty' 2>/dev/null)
check "one peer's agent state by bpftool map lookup of its slot ($slot: tx_data $one)" \
	[ "${one:-0}" -ge "$d4b" ]
# The doorbell (edgeq/rx.h): XDP delivered the bulk itself and woke B's
# agent once per batch, not per packet, and counted each ring.
rings=$(eq_stat b bell_rx_now); direct=$(eq_stat b rx_direct)
check "B's doorbell rang for the bulk flow, at most once per packet XDP delivered ($rings rings, $direct delivered)" \
	bash -c "[ \"\$1\" -gt 0 ] && [ \"\$1\" -le \"\$2\" ]" _ "$rings" "$direct"
rx6b=$(plain_decap)
check "B's XDP decapsulated the plain tunnel's packets itself, not as EQDS's direct delivery ($rx6 -> $rx6b)" \
	[ "$((rx6b - rx6))" -gt $((MB * 500)) ]

check "peer add ... scheme none at run time" eq_a peer add fd77::3/128 via fd77::3 scheme none dev "$TB_IFA"
sc=$(eq_a status "$TB_IFA" --json | jq -r '.interfaces[0].peers[] | select(.prefix == "fd77::3/128") | .scheme')
check "status shows it as scheme none ($sc)" [ "$sc" = none ]
out=$(eq_a peer add 10.98.0.0/24 via fd77::2 scheme eqds dev "$TB_IFA" 2>&1); rc=$?
check "a prefix via the none peer with scheme eqds is refused ($rc): $out" \
	bash -c "[ $rc -ne 0 ] && grep -q 'one underlay peer has one scheme' <<<\"\$1\"" _ "$out"
out=$(eq_a peer add 10.97.0.0/24 via 10.77.0.3 scheme bolt dev "$TB_IFA" 2>&1); rc=$?
check "an unknown scheme is refused ($rc): $out" \
	bash -c "[ $rc -ne 0 ] && grep -q \"scheme 'bolt'\" <<<\"\$1\"" _ "$out"
# A peer removed at run time: within the agent's reload (1 s) its slot's
# tunnel is flushed and its published state cleared, so that a peer that
# takes the slot later inherits nothing; added back, it carries traffic.
check "peer del of the eqds peer" eq_a peer del 10.77.0.2/32 dev "$TB_IFA"
left=
for i in $(seq 30); do
	sleep 0.1
	left=$(bpftool -j map lookup pinned "$TB_PIN_A/eq_agent_peers" key "${slot:-9999}" 0 0 0 2>/dev/null |
		jq -r '.formatted.value.tx_data // empty' 2>/dev/null)
	[ "$left" = 0 ] && break
done
check "the agent forgot the deleted peer's slot $slot (its tx_data ${d4b} -> $left)" [ "$left" = 0 ]
check "added back (scheme eqds)" eq_a peer add 10.77.0.2/32 via 10.77.0.2 dev "$TB_IFA"
MB=1 xfer 10.77.0.2 4b; r=$?
check "TCP over it again: identical bytes" [ "$r" = 0 ] || { eq_a status "$TB_IFA"; eq_a peer list dev "$TB_IFA"; tail -3 /run/edgeq/*"$TB_IFA"*.log; } | as_comment
check "detach both" bash -c "'$EDGEQ' --netns '$TB_A' detach '$TB_IFA' && '$EDGEQ' --netns '$TB_B' detach '$TB_IFB'"

printf 'local 10.77.0.1\npeer 10.77.0.2/32 via 10.77.0.2 scheme eqds\npeer 10.88.0.0/24 via 10.77.0.2\n' >"$TB_TMP/bad.conf"
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/bad.conf" 2>&1); rc=$?
hooked=no; xdp_on "$TB_A" "$TB_IFA" && hooked=yes
check "one underlay peer with two schemes: attach refuses ($rc) and hooks nothing (XDP: $hooked): $out" \
	bash -c "[ $rc -ne 0 ] && [ $hooked = no ] && grep -q 'one underlay peer has one scheme' <<<\"\$1\"" _ "$out"

printf 'local 10.77.0.1\nlink_rate 1gbit\npeer 10.77.0.2/32 via 10.77.0.2 scheme eqds\npeer fd77::2/128 via fd77::2\nlocal fd77::1\n' >"$TB_TMP/one.conf"
check "scheme none by default, one peer eqds: attach" eq_a attach "$TB_IFA" --config "$TB_TMP/one.conf"
js=$(eq_a status "$TB_IFA" --json)
sc=$(jq -r '[.interfaces[0].scheme, .interfaces[0].agent_alive, (.interfaces[0].peers[] | .scheme)] | join(" ")' <<<"$js")
check "the agent runs, the other peer is none ($sc)" [ "$sc" = "eqds true eqds none" ]
check "peer add with no scheme takes the config's default (none)" \
	bash -c "'$EDGEQ' --netns '$TB_A' peer add 10.77.0.3/32 via 10.77.0.3 dev '$TB_IFA' &&
		 [ \"\$('$EDGEQ' --netns '$TB_A' status '$TB_IFA' --json | jq -r '.interfaces[0].peers[] | select(.prefix == \"10.77.0.3/32\") | .scheme')\" = none ]"
check "detach" eq_a detach "$TB_IFA"

tap_done
