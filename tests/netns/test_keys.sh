#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Authenticated headers (issue 16 item 2; edgeq/auth.h, docs/security.md):
# two hosts with a pre-shared key per peer (one given in the config, the
# other read from a file), `scheme eqds`, the kernel's default offloads.
#   - transfers both ways, bytes intact, and nothing dropped for its tag;
#   - packets forged with a peer's address and no key (a PULL, an RST,
#     DATA for the agent and DATA XDP would deliver itself), and one with
#     an AUTH option whose tag is wrong: each dropped before any state,
#     counted (control by the agent: auth_missing, auth_bad; all DATA by
#     XDP: rx_drop_auth); the tunnel goes on;
#   - the key replaced while a transfer runs (accept on both, sign with
#     the new one on both, drop the old), without a restart: the transfer
#     intact, nothing dropped;
#   - a host that signs with a key its peer does not have: its packets are
#     dropped, and the transfer goes when it signs with the shared one again;
#   - `peer add` with keys: a prefix of a keyed peer with no key or the
#     same, not another; a malformed key refused; a new keyed peer;
#   - the same keys under `scheme none` (no agent: TC signs, XDP checks):
#     transfers both ways and over IPv6, an unsigned DATA dropped.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh
. tests/lib/hexpkt.sh

KEY1=00112233445566778899aabbccddeeff
KEY2=0f1e2d3c4b5a69788796a5b4c3d2e1f0
KEY3=deadbeefdeadbeefdeadbeefdeadbeef
TB_OFFLOADS=default tb_start
KEY6=6666666666666666aaaaaaaaaaaaaaaa
in_a ip addr add 10.88.0.1/24 dev "$TB_IFA"
in_b ip addr add 10.88.0.2/24 dev "$TB_IFB"
in_a ip addr add fd88::1/64 dev "$TB_IFA" nodad
in_b ip addr add fd88::2/64 dev "$TB_IFB" nodad
echo "$KEY1/1" >"$TB_TMP/b.key"
chmod 600 "$TB_TMP/b.key"
# A second peer over an IPv6 underlay, keyed too: its TCP GSO packets
# carry the segment option first and the AUTH option last.
printf 'local 10.88.0.1\nlocal fd88::1\npeer 10.77.0.2/32 via 10.88.0.2 key %s/1\npeer fd77::2/128 via fd88::2 key %s/6\nscheme eqds\nlink_rate 10gbit\n' \
	"$KEY1" "$KEY6" >"$TB_TMP/a.conf"
printf 'local 10.88.0.2\nlocal fd88::2\npeer 10.77.0.1/32 via 10.88.0.1 key @%s\npeer fd77::1/128 via fd88::1 key %s/6\nscheme eqds\nlink_rate 10gbit\n' \
	"$TB_TMP/b.key" "$KEY6" >"$TB_TMP/b.conf"
check "attach scheme eqds on both with keys (B's IPv4 peer's from a file), IPv4 and IPv6 underlays" tb_attach

# auth a|b: the agent's auth_missing + auth_bad and XDP's rx_drop_auth.
auth() {
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	"$EDGEQ" --netns "$ns" status "$ifc" --json |
		jq -r '.interfaces[0] | "\(.agent_counters.auth_missing // 0) \(.agent_counters.auth_bad // 0) \(.stats.rx_drop_auth // 0) \(.agent_counters.auth_unsigned // 0)"'
}
agent() {	# agent a|b FIELD
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	"$EDGEQ" --netns "$ns" status "$ifc" --json |
		jq -r "[.interfaces[0].peers[] | select(.agent and (.via | startswith(\"10.88.\"))) |
			(.agent.$2 // .eqds.$2)][0] // empty"
}
rev_transfer_ok() {	# B -> A, SIZE_MB
	local port=$((30000 + RANDOM % 2000)) lpid
	head -c "$(($1 * 1048576))" /dev/urandom >"$TB_TMP/rsend"
	in_a timeout 60 socat -u TCP4-LISTEN:$port,reuseaddr OPEN:"$TB_TMP/rrecv",creat,trunc &
	lpid=$!
	for _ in $(seq 50); do in_a ss -ltn | grep -q ":$port " && break; sleep 0.1; done
	in_b timeout 60 socat -u OPEN:"$TB_TMP/rsend" TCP:10.77.0.1:$port || return 1
	wait "$lpid" || return 1
	[ "$(sha256sum <"$TB_TMP/rsend")" = "$(sha256sum <"$TB_TMP/rrecv")" ]
}

check "A -> B, 8 MB, SHA-256 matches" tcp_transfer_ok 10.77.0.2 8
check "B -> A, 8 MB, SHA-256 matches" rev_transfer_ok 8
check "A -> B over the IPv6 underlay (inner IPv6, GSO: segment option and AUTH), 8 MB, SHA-256 matches" \
	tcp_transfer_ok fd77::2 8
a0=$(auth a) b0=$(auth b)
check "nothing dropped for its tag, nothing sent unsigned (A: $a0, B: $b0)" \
	test "$a0" = "0 0 0 0" -a "$b0" = "0 0 0 0"
st=$(eq_a status "$TB_IFA")
check "status names the key that signs, not the key" \
	bash -c "grep -q 'key 1 signs' <<<\"\$1\" && ! grep -qi '$KEY1' <<<\"\$1\"" _ "$st"

# Forged with B's address, to A (control) and to B as if from A (DATA).
spoof() {	# spoof a|b HEX
	local to=1 from=2 ns=$TB_B
	[ "$1" = b ] && to=2 from=1 ns=$TB_A
	tobin "$2" >"$TB_TMP/spoof"
	ip netns exec "$ns" socat -u OPEN:"$TB_TMP/spoof" \
		UDP4-SENDTO:10.88.0.$to:7446,bind=10.88.0.$from:$((0xc000 | 7))
}
for _ in $(seq 50); do [ "$(agent b rx_data)" -gt 0 ] 2>/dev/null && break; sleep 0.1; done
E=$(agent b rx_expected) P=$(agent b pull_no) R=$(agent a rsts)
inner=$(ip4 0 1 17 10.77.0.1 10.77.0.2 "$(udp 40000 9 0102030405060708)")
spoof a "$(eqh 1 2 0 5 0 0 7 "$E" $(((P + 50) & 0xffffffff)) 0)"		# PULL: 50 pulls
spoof a "$(eqh 1 6 0 5 0 0 7 0 "$E" 0)"					# RST
spoof b "$(eqh 1 0 0 5 4 0 7 "$E" 0 100)$inner"				# DATA, for the agent
spoof b "$(eqh 1 0 0 5 4 0 7 "$E" 0 0)$inner"				# DATA, for XDP
# A PULL with an AUTH option (key id 1), its tag made up.
spoof a "$(eqh 1 2 0 8 0 0 7 "$E" $(((P + 50) & 0xffffffff)) 0 060c01000123456789abcdef)"
sleep 0.5
read -r am ab _ _ <<<"$(auth a)"
read -r _ _ bx _ <<<"$(auth b)"
bm=$(auth b | cut -d' ' -f1)
check "A's agent dropped the unsigned PULL and RST (auth_missing $am) and the bad tag (auth_bad $ab)" \
	test "$am" -ge 2 -a "$ab" -ge 1
check "B's XDP dropped both unsigned DATA, the one for the agent too (rx_drop_auth $bx; the agent checks no DATA: auth_missing $bm)" \
	test "$bx" -ge 2 -a "$bm" = 0
check "A took no RST: its epoch did not end (rsts $R -> $(agent a rsts))" test "$(agent a rsts)" = "$R"
check "bad_pull stayed 0: the forged pulls never reached the scheme ($(agent a bad_pull))" \
	test "$(agent a bad_pull)" = 0
check "a transfer after them, SHA-256 matches" tcp_transfer_ok 10.77.0.2 4

# The key replaced while a transfer runs: accept on both, sign on both,
# drop the old.  Nothing may be dropped on the way.
base_a=$(auth a) base_b=$(auth b)
( tcp_transfer_ok 10.77.0.2 40 ) &
X=$!
sleep 0.3
check "A accepts key 2" eq_a peer key 10.88.0.2 accept "$KEY2/2" dev "$TB_IFA"
check "B accepts key 2 (from the command line too)" eq_b peer key 10.88.0.1 accept "$KEY2/2" dev "$TB_IFB"
sleep 0.2
check "A signs with key 2" eq_a peer key 10.88.0.2 sign 2 dev "$TB_IFA"
sleep 0.2
check "B signs with key 2" eq_b peer key 10.88.0.1 sign 2 dev "$TB_IFB"
sleep 0.2
check "A drops key 1" eq_a peer key 10.88.0.2 drop 1 dev "$TB_IFA"
check "B drops key 1" eq_b peer key 10.88.0.1 drop 1 dev "$TB_IFB"
check "the 40 MB transfer that ran through it, SHA-256 matches" wait "$X"
check "nothing dropped for its tag through the rotation (A: $base_a -> $(auth a), B: $base_b -> $(auth b))" \
	test "$(auth a)" = "$base_a" -a "$(auth b)" = "$base_b"
check "a key that signs cannot be dropped" bash -c "! $EDGEQ --netns $TB_A peer key 10.88.0.2 drop 2 dev $TB_IFA 2>/dev/null"
check "... nor a second key taken for an id in use" \
	bash -c "! $EDGEQ --netns $TB_A peer key 10.88.0.2 accept $KEY3/2 dev $TB_IFA 2>/dev/null"
check "B -> A after the rotation, SHA-256 matches" rev_transfer_ok 4

# A signs with a key B does not have: B drops what A sends.
eq_a peer key 10.88.0.2 accept "$KEY3/3" dev "$TB_IFA" >/dev/null
eq_a peer key 10.88.0.2 sign 3 dev "$TB_IFA" >/dev/null
x0=$(auth b)
check "with a key B lacks, A's pings to B go unanswered" bash -c "! ip netns exec $TB_A ping -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null"
x1=$(auth b)
check "... B dropped A's packets for their tag ($x0 -> $x1)" test "$x1" != "$x0"
eq_a peer key 10.88.0.2 sign 2 dev "$TB_IFA" >/dev/null
check "signing with the shared key again, A -> B, SHA-256 matches" tcp_transfer_ok 10.77.0.2 4

# peer add with keys: a prefix of a keyed peer may name none (it goes
# with the peer's) or the same, not another; a new peer takes its key.
check "peer add of a prefix via the keyed peer, no key given: taken" \
	eq_a peer add 10.77.0.5/32 via 10.88.0.2 dev "$TB_IFA"
check "... with another key: refused, saying why" \
	bash -c "! $EDGEQ --netns $TB_A peer add 10.77.0.6/32 via 10.88.0.2 key $KEY3/9 dev $TB_IFA 2>$TB_TMP/err &&
		 grep -q 'one underlay peer has one key' $TB_TMP/err"
check "... a malformed key: refused, saying what a key is" \
	bash -c "! $EDGEQ --netns $TB_A peer add 10.77.0.7/32 via 10.88.0.9 key 1234 dev $TB_IFA 2>$TB_TMP/err &&
		 grep -q '32 hex digits' $TB_TMP/err"
check "a new peer added with a key: status says key 4 signs for it" \
	bash -c "$EDGEQ --netns $TB_A peer add 10.77.0.8/32 via 10.88.0.9 key $KEY3/4 dev $TB_IFA >/dev/null &&
		 $EDGEQ --netns $TB_A status $TB_IFA --json |
		 jq -e '[.interfaces[0].peers[] | select(.via == \"10.88.0.9\") | .keys.signs] == [4]' >/dev/null"

# scheme none with the same keys: no agent; TC signs every packet, XDP
# checks every one, the kernel's default offloads (GSO packets signed
# whole, their segments each).
check "detach both, to attach scheme none" bash -c "$EDGEQ --netns $TB_A detach $TB_IFA >/dev/null &&
	$EDGEQ --netns $TB_B detach $TB_IFB >/dev/null"
sed -i 's/^scheme eqds$/scheme none/' "$TB_TMP/a.conf" "$TB_TMP/b.conf"
check "attach scheme none on both with the keys of the config" tb_attach
read -r _ _ ax0 _ <<<"$(auth a)"
read -r _ _ bx0 _ <<<"$(auth b)"
check "scheme none, keyed: A -> B, 8 MB, SHA-256 matches" tcp_transfer_ok 10.77.0.2 8
check "scheme none, keyed: B -> A, 8 MB, SHA-256 matches" rev_transfer_ok 8
check "scheme none, keyed: A -> B over the IPv6 underlay, 8 MB, SHA-256 matches" \
	tcp_transfer_ok fd77::2 8
read -r _ _ ax1 _ <<<"$(auth a)"
read -r _ _ bx1 _ <<<"$(auth b)"
check "scheme none, keyed: nothing dropped for its tag (rx_drop_auth A $ax0 -> $ax1, B $bx0 -> $bx1)" \
	test "$ax1" = "$ax0" -a "$bx1" = "$bx0"
spoof b "$(eqh 1 0 0 5 4 0 7 0 0 0)$inner"				# DATA, unsigned
sleep 0.3
read -r _ _ bx2 _ <<<"$(auth b)"
check "scheme none, keyed: B's XDP dropped an unsigned DATA from A's address (rx_drop_auth $bx1 -> $bx2)" \
	test "$bx2" -gt "$bx1"
check "scheme none, keyed: a transfer after it, SHA-256 matches" tcp_transfer_ok 10.77.0.2 4

tb_stop
check "detach A" eq_a detach "$TB_IFA"
check "detach B" eq_b detach "$TB_IFB"
tap_done
