#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Ten thousand peers (issue "Operating edgeq", item 7): host A attaches
# scheme eqds with `max_peers 16384` and N_PEERS (10,000) underlay peers
# besides B, each with its own /32 prefix and so its own route.
#  1. attach succeeds, every prefix is in the map and has its route (MTU);
#     status (text and JSON) lists them all; the agent runs and reads them;
#  2. traffic to B among them, in the last slots: ping, ping6 and a TCP
#     transfer (SHA-256 checked);
#  3. `peer add` of one more and `peer del` of one, with the agent running;
#  4. a config with more underlay peers than max_peers, or more prefixes
#     than max_prefixes, is refused before anything is hooked;
#  5. detach removes every route and pin;
#  6. route MTUs in batches, as many prefixes go: a prefix with a route of
#     the user's own among them gets the MTU on that route, and has it
#     taken off at detach; a bad prefix among them (a local address) fails
#     attach with the message one prefix at a time gives, leaving no route.
# The times of attach, status, peer add/del and detach, the agent's memory
# and the maps' are printed as comments (figures for docs/operations.md,
# not timed checks: the machines are shared).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

N=${N_PEERS:-10000}

tb_start
# The fake peers' prefixes, 172.16.0.0/12, leave through B (their next hop);
# their underlay addresses are 10.78.x.y, nowhere: nothing is sent to them.
in_a ip route add 172.16.0.0/12 via 10.77.0.2 dev "$TB_IFA"
# B's own peer lines last: its slots are the last ones (10,000 and on),
# past the first 1024 that the maps held before and past the agent's
# first batch read of the peer table.
{
	grep -v '^peer' "$TB_TMP/a.conf"
	printf 'scheme eqds\nmax_peers 16384\n'
	awk -v n="$N" 'BEGIN { for (i = 1; i <= n; i++)
		printf "peer 172.16.%d.%d/32 via 10.78.%d.%d\n", int(i / 256), i % 256,
			int(i / 256), i % 256 }'
	grep '^peer' "$TB_TMP/a.conf"
} >"$TB_TMP/many.conf"
mv "$TB_TMP/many.conf" "$TB_TMP/a.conf"
printf 'scheme eqds\n' >>"$TB_TMP/b.conf"

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

t0=$(date +%s%N)
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1); rc=$?
t_attach=$(ms "$t0")
echo "$out" | tail -3 | as_comment
check "attach with $((N + 2)) peer prefixes, max_peers 16384 (rc $rc, ${t_attach} ms)" [ "$rc" -eq 0 ]
check "B attaches" eq_b attach "$TB_IFB" --config "$TB_TMP/b.conf"

routes=$(in_a ip -4 route show proto 233 | grep -c '^172\.16\..* mtu ')
check "each fake peer's prefix has its own route with the tunnel's MTU ($routes of $N)" [ "$routes" -eq "$N" ]

t0=$(date +%s%N)
js=$(eq_a status --json "$TB_IFA"); rc=$?
t_json=$(ms "$t0")
n=$(jq '.interfaces[0].peers | length' <<<"$js" 2>/dev/null)
check "status --json lists every prefix ($n of $((N + 2)), ${t_json} ms)" [ "$rc" -eq 0 ] && [ "$n" = $((N + 2)) ]
t0=$(date +%s%N)
txt=$(eq_a status "$TB_IFA"); rc=$?
t_status=$(ms "$t0")
n=$(grep -c '172\.16\.' <<<"$txt")
check "status lists them too ($n, ${t_status} ms)" [ "$rc" -eq 0 ] && [ "$n" -ge "$N" ]
slots=$(jq '.interfaces[0].max_peers' <<<"$js")
check "status shows the attachment's peer slots ($slots)" [ "$slots" = 16384 ]

# Traffic to B, the peer among ten thousand.
check "ping B through the tunnel" in_a ping -c 3 -i 0.2 -W 2 10.77.0.2
check "ping6 B through the tunnel" in_a ping -6 -c 3 -i 0.2 -W 2 fd77::2
check "a 4 MB TCP transfer to B, SHA-256 equal" tcp_transfer_ok 10.77.0.2 4
sleep 0.3	# the agent publishes every 100 ms
js=$(eq_a status --json "$TB_IFA")
tx=$(jq '[.interfaces[0].peers[] | select(.prefix == "10.77.0.2/32") | .agent.tx_data][0]' <<<"$js")
check "the agent carried it as B's tunnel (tx_data $tx > 100)" [ "${tx:-0}" -gt 100 ] 2>/dev/null
alive=$(jq '.interfaces[0].agent_alive' <<<"$js")
check "the agent is alive with $((N + 2)) peers ($alive)" [ "$alive" = true ]

# peer add / del while the agent runs.
t0=$(date +%s%N)
out=$(eq_a peer add 172.31.0.1/32 via 10.79.0.1 dev "$TB_IFA" 2>&1); rc=$?
t_add=$(ms "$t0")
check "peer add one more ($rc, ${t_add} ms)" [ "$rc" -eq 0 ]
has "$(in_a ip route show 172.31.0.1/32)" 'mtu' ; check "... with its route" [ $? -eq 0 ]
t0=$(date +%s%N)
out=$(eq_a peer del 172.16.0.7/32 dev "$TB_IFA" 2>&1); rc=$?
t_del=$(ms "$t0")
check "peer del one ($rc, ${t_del} ms)" [ "$rc" -eq 0 ]
n=$(eq_a status --json "$TB_IFA" | jq '.interfaces[0].peers | length')
check "status shows the add and the del ($n = $((N + 2)))" [ "$n" = $((N + 2)) ]
check "the agent still carries B's traffic" in_a ping -c 2 -i 0.2 -W 2 10.77.0.2

# Memory: the agent's, and the maps' (bpftool's memlock of each pinned map).
pid=$(jq '.interfaces[0].agent_pid' <<<"$js")
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
# The agent's CPU over 2 s with B's tunnel idle: it rereads the peer table
# every second (one batch read of eq_peers).
cpu0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)
sleep 2
cpu1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null)
idle_ms=$(( (${cpu1:-0} - ${cpu0:-0}) * 1000 / $(getconf CLK_TCK) / 2 ))
maps=0
for f in "$TB_PIN_A"/eq_*; do
	b=$(bpftool -j map show pinned "$f" 2>/dev/null | jq '.bytes_memlock // 0')
	maps=$((maps + ${b:-0}))
done
echo "# $((N + 2)) peers, max_peers 16384: attach ${t_attach} ms, status ${t_status} ms," \
	"status --json ${t_json} ms, peer add ${t_add} ms, peer del ${t_del} ms;" \
	"agent RSS ${rss:-?} KiB, agent CPU idle ${idle_ms} ms/s, maps $((maps / 1024)) KiB"
check "the agent's memory was read (${rss:-none} KiB)" [ -n "$rss" ]

t0=$(date +%s%N)
check "detach" eq_a detach "$TB_IFA"
t_detach=$(ms "$t0")
left=$(in_a ip route show proto 233 | wc -l)
check "detach removed every route it added ($left left, ${t_detach} ms)" [ "$left" -eq 0 ]
check "and its pins" [ ! -e "$TB_PIN_A" ]

# Batches with a user's own route among them, then with a bad prefix.
in_a ip route add 172.30.0.0/24 via 10.77.0.2 dev "$TB_IFA"
{
	grep -v '^peer\|^max_peers' "$TB_TMP/a.conf"
	awk 'BEGIN { for (i = 1; i <= 40; i++) printf "peer 172.17.0.%d/32 via 10.78.0.1\n", i }'
	echo "peer 172.30.0.0/24 via 10.78.0.1"
} >"$TB_TMP/own.conf"
check "attach with 41 prefixes, one with a route of the user's own" \
	eq_a attach "$TB_IFA" --config "$TB_TMP/own.conf"
r=$(in_a ip -4 route show 172.30.0.0/24)
added=$(in_a ip -4 route show proto 233 | grep -c '^172\.17\.0\..* mtu ')
check "the user's route got the MTU ('$r'), the 40 others a route each ($added)" \
	bash -c "grep -q ' mtu ' <<<'$r' && ! grep -q 'proto 233' <<<'$r' && [ $added -eq 40 ]"
check "detach" eq_a detach "$TB_IFA"
r=$(in_a ip -4 route show 172.30.0.0/24)
check "detach took the MTU off the user's route and left it ('$r'), and removed ours" \
	bash -c "[ -n '$r' ] && ! grep -q ' mtu ' <<<'$r' && [ -z \"\$(ip -n $TB_A route show proto 233)\" ]"
sed -i 's|^peer 172.17.0.20/32 via 10.78.0.1$|peer 10.77.0.1/32 via 10.78.0.1|' "$TB_TMP/own.conf"
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/own.conf" 2>&1); rc=$?
echo "$out" | as_comment
left=$(in_a ip route show proto 233 | wc -l)
check "a local address among 41 prefixes: refused, named as one at a time names it, no route left ($left)" \
	bash -c "[ $rc -ne 0 ] && grep -q 'peer prefix 10.77.0.1/32 is a local address of this host' <<<\"\$1\" && [ $left -eq 0 ]" _ "$out"
r=$(in_a ip -4 route show 172.30.0.0/24)
check "... and the user's route as it was ('$r')" bash -c "[ -n '$r' ] && ! grep -q ' mtu ' <<<'$r'"

# Beyond the maps: refused before anything is hooked.
cp "$TB_TMP/a.conf" "$TB_TMP/over.conf"
half=$((N / 2))
sed -i "s/^max_peers 16384\$/max_peers $half/" "$TB_TMP/over.conf"
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/over.conf" 2>&1); rc=$?
echo "$out" | as_comment
check "more underlay peers than max_peers: refused, says to raise it" \
	bash -c "[ $rc -ne 0 ] && grep -q 'more than max_peers $half: raise max_peers' <<<\"\$1\"" _ "$out"
sed -i "s/^max_peers $half\$/max_peers 16384\nmax_prefixes $half/" "$TB_TMP/over.conf"
out=$(eq_a attach "$TB_IFA" --config "$TB_TMP/over.conf" 2>&1); rc=$?
check "more prefixes than max_prefixes: refused" \
	bash -c "[ $rc -ne 0 ] && grep -q 'more than max_prefixes $half' <<<\"\$1\"" _ "$out"
check "nothing hooked or pinned after the refusals" \
	bash -c "[ ! -e '$TB_PIN_A' ] && ! ip -n '$TB_A' link show '$TB_IFA' | grep -q xdp"

tap_done
