#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Marks and trims happen exactly at their thresholds, checked from the
# receiving host (the ECN bits and lengths of what arrives), not from the
# switch's own counters alone.
#
# The port to the receiver is slowed to 1 Mbit/s, so one 1514-byte frame
# takes 12.1 ms to serialise, and a burst of 40 frames from a host on a
# 1 Gbit/s link arrives within a few ms: every frame of the burst finds the
# frames before it still queued (the first one in service), so frame k
# finds exactly k x 1514 bytes.
#  1. ECN, K = 10 frames: CE iff the occupancy found is > K, i.e. frames
#     0..10 arrive ECT(0) and 11..39 CE; the switch counted 29 marks.
#  2. Not-ECT traffic over K is never marked (and not dropped).
#  3. Trimming at T = 8 frames: edgeq DATA frame k is trimmed iff
#     k x 1514 + 1514 > T, i.e. 0..7 arrive whole, 8..39 as 20-byte edgeq
#     headers (type TRIMMED), with valid checksums (the receiving socket
#     accepts them), and ahead of the queued whole ones (priority).
#  4. Drop-tail at the buffer (20 frames): exactly the first 20 of a burst
#     of 40 arrive.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

F=1514			# frame of a 1472-byte UDP payload over IPv4
N=40
if ! ft_up "$(ft_topo star)" --set hosts=2 --set ecn_k=$((10 * F)) --set trim=$((8 * F)) \
	--set buffer=$((100 * F)); then
	not_ok "fabric up"; tap_done; exit 1
fi
ft_ctl port tor0-h1 rate 1mbit
DST=$(ft_ip h1)

# burst TOS [--edgeq]: sends N frames back to back from h0 to h1 and
# receives them on h1 into $FT_TMP/rx (one row per datagram).
burst() {
	local tos=$1 port=7446; shift
	ft_ctl reset
	ft_bg h1 "$EQLOAD" udp-recv --port $port --count $N --idle-exit 2 --rows "$@" --out "$FT_TMP/rx"
	sleep 0.3
	ft_on h0 "$EQLOAD" udp-send --dst "$DST" --port $port --size 1472 --burst $N --tos "$tos" "$@" \
		--out "$FT_TMP/tx" >/dev/null
	ft_wait
	ft_stats
}

# rows: seq len ecn arrival_ns owd_ns trimmed
seqs_where() { awk -v cond="$1" '!/^#/ { if ((cond == "ce" && $3 == 3) || (cond == "ect" && $3 == 2) ||
	(cond == "trim" && $6 == 1) || (cond == "whole" && $6 == 0) || cond == "all") printf "%s ", $1 }' "$FT_TMP/rx"; }
range() { seq -s ' ' "$1" "$2" | sed 's/$/ /'; }

# 1. ECN
burst ect0
got_ect=$(seqs_where ect | tr ' ' '\n' | sort -n | tr '\n' ' ')
got_ce=$(seqs_where ce | tr ' ' '\n' | sort -n | tr '\n' ' ')
check "ECN K=10 frames: frames 0..10 arrive ECT(0)" [ "$got_ect" = "$(range 0 10)" ]
check "ECN K=10 frames: frames 11..39 arrive CE" [ "$got_ce" = "$(range 11 39)" ]
check "switch counted 29 marks (got $(ft_port tor0-h1 marks))" [ "$(ft_port tor0-h1 marks)" = 29 ]

# 2. Not-ECT is never marked
burst not-ect
check "Not-ECT: all $N arrive" [ "$(seqs_where all | wc -w)" = $N ]
check "Not-ECT: none arrives CE" [ -z "$(seqs_where ce)" ]
check "Not-ECT: no marks counted" [ "$(ft_port tor0-h1 marks)" = 0 ]

# 3. Trimming (edgeq DATA to the tunnel port)
burst not-ect --edgeq
whole=$(seqs_where whole | tr ' ' '\n' | sort -n | tr '\n' ' ')
trimmed=$(seqs_where trim | tr ' ' '\n' | sort -n | tr '\n' ' ')
check "trim T=8 frames: frames 0..7 arrive whole" [ "$whole" = "$(range 0 7)" ]
check "trim T=8 frames: frames 8..39 arrive trimmed" [ "$trimmed" = "$(range 8 39)" ]
check "trimmed datagrams are edgeq headers (20 bytes), all $((N - 8)) of them ($(seqs_where trim | wc -w))" \
	awk -v want=$((N - 8)) '!/^#/ && $6 == 1 { n++; if ($2 != 20) bad = 1 } END { exit bad || n != want }' "$FT_TMP/rx"
check "switch counted 32 trims (got $(ft_port tor0-h1 trims))" [ "$(ft_port tor0-h1 trims)" = 32 ]
# Priority: every trimmed header overtakes the whole frames queued behind
# the one in service (frames 1..7), so it arrives before frame 1.  (With
# no trimmed header, or no frame 1, there is nothing to compare: fail.)
t1=$(awk '!/^#/ && $1 == 1 && $6 == 0 { print $4 }' "$FT_TMP/rx")
tlast=$(awk '!/^#/ && $6 == 1 { if ($4 > m) m = $4 } END { print m }' "$FT_TMP/rx")
check "trimmed headers arrive ahead of queued data (the last at ${tlast:-none}, frame 1 at ${t1:-none})" \
	[ -n "$tlast" -a -n "$t1" -a "${tlast:-0}" -lt "${t1:-0}" ]

# 4. Drop-tail at the buffer
ft_ctl port tor0-h1 buffer $((20 * F)) trim off ecn_k off
burst not-ect
check "buffer 20 frames: frames 0..19 arrive, the rest is dropped" \
	[ "$(seqs_where all | tr ' ' '\n' | sort -n | tr '\n' ' ')" = "$(range 0 19)" ]
check "switch counted 20 drops (got $(ft_port tor0-h1 drop_full))" [ "$(ft_port tor0-h1 drop_full)" = 20 ]

tap_done
