#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `edgeq metrics`: what `status --json` shows, in Prometheus's text
# format, on the two-host testbed with scheme eqds.
#  1. after a TCP transfer, the exposition passes `promtool check metrics`
#     (the format and Prometheus's naming rules), and each family is
#     declared once, before its samples;
#  2. its figures are status's: a BPF counter, a per-peer counter, an
#     agent field per underlay peer (not per prefix), the agent alive;
#  3. one interface (`metrics IFACE`), an interface not attached (exit 1,
#     says so), and a stopped agent (edgeq_agent_up 0);
#  4. an interface whose name has a quote and a backslash: the label
#     value is escaped and the exposition still parses, and status --json
#     (written through jansson) gives the name back as it is.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

command -v promtool >/dev/null || { not_ok "promtool is installed (make deps: Debian's prometheus)"; tap_done; exit 1; }

tb_start
for s in a b; do printf 'scheme eqds\n' >>"$TB_TMP/$s.conf"; done
check "attach scheme eqds on both hosts" tb_attach

port=$((20000 + RANDOM % 10000)); TB_PORTS+=("$port")
head -c 1048576 /dev/urandom >"$TB_TMP/x.send"
ip netns exec "$TB_B" timeout 30 socat -u TCP4-LISTEN:$port,reuseaddr OPEN:"$TB_TMP/x.recv",creat,trunc &
lpid=$!
for i in $(seq 50); do in_b ss -ltn | grep -q ":$port " && break; sleep 0.1; done
in_a timeout 30 socat -u OPEN:"$TB_TMP/x.send" TCP:10.77.0.2:$port
wait "$lpid"
check "a 1 MB transfer through the tunnel" cmp -s "$TB_TMP/x.send" "$TB_TMP/x.recv"
sleep 0.3	# the agent publishes every 100 ms

# A sample's value: metric NAME with every label in LABELS (k="v",...).
value() {	# TEXT NAME LABELS
	awk -v n="$2" -v l="$3" '
		$1 ~ /^#/ { next }
		{ split($1, a, "{"); if (a[1] != n) next
		  k = split(l, want, ","); ok = 1
		  for (i = 1; i <= k; i++) if (index($1, want[i]) == 0) ok = 0
		  if (ok) { print $2; exit } }' <<<"$1"
}

M=$(eq_a metrics); rc=$?
js=$(eq_a status --json)
n=$(grep -c "interface=\"$TB_IFA\"" <<<"$M")
check "metrics exits 0 ($rc) and prints samples of A ($n)" [ "$rc" -eq 0 -a "$n" -gt 100 ]
lint=$(promtool check metrics <<<"$M" 2>&1); lrc=$?
echo "$lint" | as_comment
check "promtool check metrics accepts it ($lrc)" [ "$lrc" -eq 0 ]
# Every family once: its TYPE line appears once, and before its samples.
dup=$(awk '/^# TYPE/ { if (seen[$3]++) print $3 }' <<<"$M")
late=$(awk '/^# TYPE/ { t[$3] = 1; next } /^#/ { next }
	{ split($1, a, "{"); n = a[1]; if (!(n in t)) print n }' <<<"$M" | sort -u)
check "each family declared once, before its samples (twice: '${dup}'; undeclared: '${late}')" \
	[ -z "$dup$late" ]

a_if="interface=\"$TB_IFA\""
want=$(jq -r --arg i "$TB_IFA" '.interfaces[] | select(.ifname == $i) | .stats.tx_encap' <<<"$js")
got=$(value "$M" edgeq_tx_encap_total "$a_if")
check "a BPF counter: edgeq_tx_encap_total on A is status's tx_encap ($got = $want)" \
	[ -n "$got" ] && [ "$got" = "$want" ]
want=$(jq -r --arg i "$TB_IFA" '.interfaces[] | select(.ifname == $i) | .peers[] |
	select(.prefix == "10.77.0.2/32") | .agent.tx_data' <<<"$js")
got=$(value "$M" edgeq_peer_tx_data_packets_total "$a_if,peer=\"10.77.0.2\"")
check "an agent field: edgeq_peer_tx_data_packets_total for peer 10.77.0.2 is status's tx_data ($got = $want, > 500)" \
	bash -c "[ -n '$got' ] && [ '$got' = '$want' ] && [ '$got' -gt 500 ]"
# A scheme's own state, from its map's BTF (no metrics code per scheme):
# every field status shows under "eqds" has its family, and B's pulls
# for A's data are status's figure (0 where a 1 MB transfer needed no
# pull: the VM's round trip makes the BDP that large).
fields=$(jq -r --arg i "$TB_IFB" '[.interfaces[] | select(.ifname == $i) | .peers[] |
	select(.prefix == "10.77.0.1/32") | .eqds | keys[]] | join(" ")' <<<"$js")
missing=""
for k in $fields; do
	grep -q "^# TYPE edgeq_peer_eqds_$k untyped" <<<"$M" || missing="$missing $k"
done
want=$(jq -r --arg i "$TB_IFB" '.interfaces[] | select(.ifname == $i) | .peers[] |
	select(.prefix == "10.77.0.1/32") | .eqds.pulls_sent' <<<"$js")
got=$(value "$M" edgeq_peer_eqds_pulls_sent "interface=\"$TB_IFB\",peer=\"10.77.0.1\"")
check "EQDS's own fields by their BTF names: a family each ($(wc -w <<<"$fields") fields; missing:${missing:- none}), B's pulls_sent is status's ($got = $want)" \
	bash -c "[ -n '$fields' ] && [ -z '$missing' ] && [ -n '$got' ] && [ '$got' = '$want' ]"
want=$(jq -r --arg i "$TB_IFA" '.interfaces[] | select(.ifname == $i) | .peers[] |
	select(.prefix == "10.77.0.2/32") | .tx_packets' <<<"$js")
got=$(value "$M" edgeq_peer_tx_packets_total "$a_if,peer=\"10.77.0.2\"")
check "a per-peer BPF counter: edgeq_peer_tx_packets_total is status's tx_packets ($got = $want)" \
	bash -c "[ -n '$got' ] && [ '$got' = '$want' ]"
n=$(grep -c "^edgeq_peer_srtt_seconds{$a_if," <<<"$M")
check "per underlay peer, not per prefix: A has 2 peers, 2 srtt samples ($n)" [ "$n" = 2 ]
got=$(value "$M" edgeq_agent_up "$a_if")
check "edgeq_agent_up on A is 1 ($got)" [ "$got" = 1 ]
want=$(jq -r --arg i "$TB_IFA" '.interfaces[] | select(.ifname == $i) | .agent_pid' <<<"$js")
got=$(value "$M" edgeq_agent_pid "$a_if")
check "edgeq_agent_pid is status's agent_pid ($got = $want), and agent_up has no pid label (a restart keeps its series)" \
	bash -c "[ -n '$got' ] && [ '$got' = '$want' ] && ! grep -q '^edgeq_agent_up{.*pid=' <<<\"\$1\"" _ "$M"
check "edgeq_prefix_info maps 10.77.0.2/32 to its peer" \
	has "$M" "^edgeq_prefix_info\\{$a_if,prefix=\"10.77.0.2/32\",peer=\"10.77.0.2\",route=\"added\"\\} 1$"

run() { OUT=$(timeout 20 "$@" 2>&1); RC=$?; }
run "$EDGEQ" --netns "$TB_A" metrics "$TB_IFA"
only_a() { [ "$RC" -eq 0 ] && has "$OUT" "interface=\"$TB_IFA\"" && ! has "$OUT" "interface=\"$TB_IFB\""; }
check "metrics IFACE shows that interface only (exit $RC)" only_a
run "$EDGEQ" --netns "$TB_A" metrics nosuch0
check "metrics of an interface not attached: exit 1, says so ($RC: $OUT)" \
	bash -c "[ $RC -eq 1 ] && grep -q 'is not attached to nosuch0' <<<\"\$1\"" _ "$OUT"
eq_a agent stop "$TB_IFA" >/dev/null 2>&1
M=$(eq_a metrics "$TB_IFA")
got=$(value "$M" edgeq_agent_up "$a_if")
check "after 'agent stop', edgeq_agent_up is 0 ($got)" [ "$got" = 0 ]
check "detach both" bash -c "'$EDGEQ' --netns '$TB_A' detach '$TB_IFA' >/dev/null && '$EDGEQ' --netns '$TB_B' detach '$TB_IFB' >/dev/null"
run "$EDGEQ" --netns "$TB_A" metrics "$TB_IFA"
check "detached: metrics of A's interface says it is not attached ($RC)" [ "$RC" -eq 1 ]

# Linux allows a quote and a backslash in an interface name; Prometheus's
# label values escape both.
ODD='q"x\7'
if in_a ip link add "$ODD" type veth peer name "${TB_IFA}o" 2>/dev/null; then
	in_a ip addr add 10.79.0.1/24 dev "$ODD"
	in_a ip link set "${TB_IFA}o" up
	in_a ip link set "$ODD" up
	# A peer of scheme sird, whose instance the agent starts at once
	# (a scheme's first peer's; the others' with their first packet):
	# its families (edgeq_peer_sird_<field>) are in the exposition
	# promtool checks below (bucket_b once failed its lint, "abbreviated
	# units"; test_smartt.sh checks SMaRTT's).
	printf 'local 10.79.0.1\npeer 10.79.0.2/32 via 10.79.0.2 scheme sird\n' >"$TB_TMP/odd.conf"
	run "$EDGEQ" --netns "$TB_A" attach "$ODD" --config "$TB_TMP/odd.conf"
	check "attach to an interface named $ODD (exit $RC)" [ "$RC" = 0 ]
	# The agent makes the map as it starts: wait for it.
	for i in $(seq 30); do
		M=$(eq_a metrics "$ODD")
		grep -q '^# TYPE edgeq_peer_sird_' <<<"$M" && break
		sleep 0.1
	done
	check "its label value is escaped" has "$M" '^edgeq_mtu_bytes\{interface="q\\"x\\\\7"\} '
	fam=$(grep -cE '^# TYPE edgeq_peer_sird_' <<<"$M")
	check "SIRD's own families are in it ($fam, bucket_out among them)" \
		bash -c 'grep -q "^# TYPE edgeq_peer_sird_bucket_out " <<<"$1"' _ "$M"
	lint=$(promtool check metrics <<<"$M" 2>&1); lrc=$?
	check "... and the exposition parses, and passes promtool's lint ($lrc: $lint)" [ "$lrc" -eq 0 ]
	# status --json and peer list --json, written through jansson: the
	# name comes back as it is (printf wrote it unescaped: invalid JSON).
	js=$(eq_a status "$ODD" --json)
	check "status --json names it as it is, and parses" \
		bash -c "[ \"\$(jq -r '.interfaces[0].ifname' <<<\"\$1\")\" = '$ODD' ]" _ "$js"
	check "peer list --json parses" \
		bash -c "[ \"\$(jq -r '.[0].prefix' <<<\"\$1\")\" = 10.79.0.2/32 ]" _ "$(eq_a peer list dev "$ODD" --json)"
	eq_a detach "$ODD" >/dev/null 2>&1
	in_a ip link del "$ODD" 2>/dev/null
else
	skip "this kernel refuses the interface name $ODD"
fi
tap_done
