#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Spoofed packets against an established `scheme eqds` tunnel (issue 16,
# "bounded state changes"): an attacker who puts packets on the wire with
# a peer's source address.  Each packet below once stalled a tunnel for
# tens of seconds; now each is refused, counted by reason, changes
# nothing, and the tunnel carries the next transfer intact:
#   to A, the sender (as if from B): a PULL whose ack lies 2^30 past what
#     A sent; a PULL granting 2^30 pulls; an RST echoing no seq of A's;
#   to B, the receiver (as if from A): DATA 2^30 seqs past the next in
#     order; a SYN of an epoch 2^30 ahead (answered with an RST, which A
#     then refuses: it echoes no seq A sent); DATA that XDP would deliver
#     itself (frame_len 0) from an inner source outside A's prefixes.
# The numbers are taken from the tunnel's own state, so that every packet
# is exactly as far out as said (an attacker off the path guesses, and
# lands further out still).  The tunnel runs over underlay addresses of
# their own (10.88.0.x), so that the forged packets leave the other host
# untunnelled.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh
. tests/lib/hexpkt.sh

tb_start
in_a ip addr add 10.88.0.1/24 dev "$TB_IFA"
in_b ip addr add 10.88.0.2/24 dev "$TB_IFB"
for s in a b; do
	me=1 them=2
	[ $s = b ] && me=2 them=1
	printf 'local 10.88.0.%s\npeer 10.77.0.%s/32 via 10.88.0.%s\nscheme eqds\nlink_rate 10gbit\n' \
		"$me" "$them" "$them" >"$TB_TMP/$s.conf"
done
check "attach scheme eqds on both, underlay 10.88.0.0/24" tb_attach
check "a first transfer A -> B, SHA-256 matches" tcp_transfer_ok 10.77.0.2 2

agent() {	# agent a|b FIELD: the agent's per-peer field
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	"$EDGEQ" --netns "$ns" status "$ifc" --json |
		jq -r "[.interfaces[0].peers[] | select(.agent) | (.agent.$2 // .eqds.$2)][0] // empty"
}

# spoof a|b HEX: the edgeq header (and payload) HEX, to a's or b's tunnel
# port, from the other host's underlay address, as one UDP datagram.
spoof() {
	local to=1 from=2 ns=$TB_B
	[ "$1" = b ] && to=2 from=1 ns=$TB_A
	tobin "$2" >"$TB_TMP/spoof"
	ip netns exec "$ns" socat -u OPEN:"$TB_TMP/spoof" \
		UDP4-SENDTO:10.88.0.$to:7446,bind=10.88.0.$from:$((0xc000 | 7))
}

# The agents publish their state every 100 ms: on a fast machine the
# attach and the transfer above take less, and a read at once found every
# field 0 (E = 0 made the spoofed numbers meaningless).
for i in $(seq 50); do
	[ "$(agent b rx_data)" -gt 0 ] 2>/dev/null && [ "$(agent a tx_data)" -gt 0 ] 2>/dev/null && break
	sleep 0.1
done
# Pings keep the tunnel in use from here on (tb_stop ends them):
# a tunnel idle for 10 s is freed with its state.  In the VM layer's
# emulated CPU B once (2026-11-28) refused none of the spoofed DATA and
# its next seq jumped 2^30: most likely its state had been freed before
# they came, and DATA to a receiver without state starts the tunnel
# (docs/eqds.md, "What a packet may change"), which is not the refusal
# this test is about.  Each ping moves B's next seq by one.
tb_bg ip netns exec "$TB_A" ping -q -i 0.2 10.77.0.2 >/dev/null 2>&1
R=$(agent a rsts)		# RSTs A took so far (none, unless the first transfer drew one)
E=$(agent b rx_expected)	# the next seq of A's tunnel, in order at B
P=$(agent b pull_no)		# B's pull number: A's highest pull
far=$(((E + 0x40000000) & 0xffffffff))
as_comment <<<"B expects seq $E next; pull number $P; 2^30 on: $far"
check "the tunnel is established and published (B expects seq $E, pulled $P)" \
	test -n "$E" -a -n "$P" -a "$(agent b rx_data)" -gt 0

# Control packets: type, ack, pull number (RST: the echoed seq), busy 0.
spoof a "$(eqh 1 2 0 5 0 0 7 "$far" $((P + 1)) 0)"		# PULL, ack 2^30 ahead
spoof a "$(eqh 1 2 0 5 0 0 7 "$E" $(((P + 0x40000000) & 0xffffffff)) 0)"	# 2^30 pulls
spoof a "$(eqh 1 6 0 5 0 0 7 0 "$far" 0)"			# RST echoing no seq of A's
# DATA of a small inner UDP datagram, frame_len set (for the agent).
inner=$(ip4 0 1 17 10.77.0.1 10.77.0.2 "$(udp 40000 9 0102030405060708)")
spoof b "$(eqh 1 0 0 5 4 0 7 "$far" 0 100)$inner"		# DATA 2^30 ahead
spoof b "$(eqh 1 0 1 5 4 0 7 $((far & ~1023)) 0 100)$inner"	# SYN, epoch 2^30 ahead
# DATA with frame_len 0, which XDP delivers itself (a sender without an
# agent), from an inner source none of A's prefixes covers.
src0=$(eq_stat b rx_drop_src)
spoof b "$(eqh 1 0 0 5 4 0 7 "$E" 0 0)$(ip4 0 1 17 10.99.0.9 10.77.0.2 "$(udp 40000 9 0102030405060708)")"
sleep 0.5
src1=$(eq_stat b rx_drop_src)
check "B's XDP dropped DATA from an inner source outside A's prefixes (rx_drop_src $src0 -> $src1)" \
	test "${src1:-0}" -eq $((${src0:-0} + 1))

for f in bad_ack bad_pull bad_rst; do
	v=$(agent a "$f")
	check "A refused the spoofed control packet ($f $v)" test "${v:-0}" -ge 1
done
for f in rx_bad_seq rx_bad_epoch; do
	v=$(agent b "$f")
	check "B refused the spoofed DATA ($f $v)" test "${v:-0}" -ge 1
done
e2=$(agent b rx_expected)
check "B's next seq in order did not jump ($E -> $e2)" \
	test $(((e2 - E) & 0xffffffff)) -lt $((1 << 20))
# Not its state: an idle tunnel is freed after 10 s, which a slow machine
# (the VM layer) reaches by now.  RSTs taken are counted across that.
r2=$(agent a rsts)
check "A's tunnel took none of the RSTs: its epoch did not end (rsts $R -> $r2)" \
	test -n "$R" -a "$r2" = "$R"
check "a transfer after them, SHA-256 matches" tcp_transfer_ok 10.77.0.2 4

tb_stop
check "detach A" eq_a detach "$TB_IFA"
check "detach B" eq_b detach "$TB_IFB"
tap_done
