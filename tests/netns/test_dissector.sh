#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Wireshark dissector (tools/wireshark/edgeq.lua) against hand-made
# edgeq packets.  Needs tshark, not the edgeq datapath: the packets are
# built byte by byte here (pure bash, no python) into a pcap, then read back
# with the dissector.  Valid packets must decode to the values put in and
# raise no expert error; each malformed one must raise the expert error
# the receiver's drop reason corresponds to.
#   EDGEQ_LUA=FILE  test another copy of the dissector
#   KEEP=FILE       keep the pcap there
set -u
cd "$(dirname "$0")/../.." || exit 2
. tests/lib/tap.sh
. tests/lib/hexpkt.sh

LUA=${EDGEQ_LUA:-tools/wireshark/edgeq.lua}	# EDGEQ_LUA: try another copy

if ! command -v tshark >/dev/null 2>&1; then
	not_ok "tshark is not installed: 'make deps' installs it (Debian package tshark)"
	tap_done
	exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/edgeq-dissector.XXXXXX") || exit 2
trap '[ -n "${KEEP:-}" ] && cp "$PCAP" "$KEEP"; rm -rf "$dir"' EXIT
trap 'exit 130' INT TERM HUP
PCAP=$dir/edgeq.pcap

# --- packet building (tests/lib/hexpkt.sh) --------------------------------

eth() { printf '020000000002020000000001%s%s' "$1" "$2"; }

O4S=192.0.2.1 O4D=192.0.2.2
O6S=20010db8000000000000000000000001 O6D=20010db8000000000000000000000002
PORT=7446

out4() { eth 0800 "$(ip4 "$1" "$2" 17 $O4S $O4D "$(udp "$3" $PORT "$4")")"; }	# TOS ID SPORT EDGEQ
out6() { eth 86dd "$(ip6 "$1" 17 $O6S $O6D "$(udp "$2" $PORT "$3")")"; }	# TC SPORT EDGEQ

# --- the packets (frame number = position) --------------------------------

# Inner packets.
IN_TCP4=$(ip4 2 0x1111 6 10.1.0.1 10.2.0.1 "$(tcp4 10.1.0.1 10.2.0.1 40000 5201)")
I6S=fd000001000000000000000000000001 I6D=fd000002000000000000000000000001
IN_UDP6=$(ip6 1 17 $I6S $I6D "$(udp6 $I6S $I6D 5000 9000 6564676571210a00)")
IN_ICMP4=$(ip4 0 7 1 10.1.0.1 10.2.0.1 "$(icmp_echo 0x4242 1 0102030405060708)")

frames=()
# 1: IPv4 outer, DATA with SYN, inner IPv4 TCP.  path 0x1234 -> sport 0xd234.
frames+=("$(out4 2 0 $((0xd234)) "$(eqh 1 0 0x01 5 4 7 0x1234 1024 30 0)$IN_TCP4")")
# 2: IPv6 outer, DATA sent on the fast path (FAST), inner IPv6 UDP.
frames+=("$(out6 1 $((0xc000 | 77)) "$(eqh 1 0 0x20 5 41 8 77 5000 5010 1400)$IN_UDP6")")
# 3: PULL.
frames+=("$(out4 0 0 $((0xc042)) "$(eqh 1 2 0 5 0 9 0x42 1023 17 250000)")")
# 4: DATA with options (TSTAMP, CREDIT, QID, 4 x PAD: 24 bytes, hdr_len 11), SYN|RTX,
#    second segment of a GSO packet: outer IPv4 ID 5.
OPTS=010a000003e8000003840206000100000404000300000000
frames+=("$(out4 0 5 $((0xc000 | 3)) "$(eqh 1 0 0x11 11 4 7 3 2000 40 0 $OPTS)$IN_ICMP4")")
# 5: TRIMMED over IPv6: header only.
frames+=("$(out6 0 $((0xc000 | 5)) "$(eqh 1 1 0x02 5 41 8 5 6000 6010 0)")")
# 6: RTS with a limit (7040), a SRC option (queue 15000 B, 100000 Mb/s) and
#    2 x PAD: hdr_len 8.
frames+=("$(out4 0 0 $((0xc000 | 6)) "$(eqh 1 5 0 8 0 7 6 7000 7030 7040 030a00003a98000186a00000)")")
# 7: IPv6 outer, FAST DATA with a SEG option (segment size 1000, inner TCP seq
#    of segment 0 = 1000 - 2000 mod 2^32), inner TCP seq 1000: segment 2.
frames+=("$(out6 0 $((0xc000 | 7)) "$(eqh 1 0 0x20 7 4 7 7 3000 3010 0 050803e8fffffc18)$IN_TCP4")")
NVALID=${#frames[@]}
# 8: version 2.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 2 0 0 5 4 7 1 1 0 0)$IN_TCP4")")
# 9: 12 bytes of UDP payload: short header.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 5 4 7 1 1 0 0 | cut -c1-24)")")
# 10: hdr_len 40 (160 bytes) in a 60-byte UDP payload.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 40 4 7 1 1 0 0)$IN_TCP4")")
# 11: hdr_len 3 < 5.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 3 4 7 1 1 0 0)$IN_TCP4")")
# 12: type 9 (reserved).
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 9 0 5 0 7 1 1 0 0)")")
# 13: proto 41 (IPv6) over an inner IPv4 packet.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 5 41 7 1 1 0 0)$IN_TCP4")")
# 14: proto 17: neither IPv4 nor IPv6.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 5 17 7 1 1 0 0)$IN_TCP4")")
# 15: hdr_len 6 (24 bytes) but a 10-byte TSTAMP option at byte 20.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 6 4 7 1 1 0 0 010a0000)$IN_TCP4")")
# 16: inner IPv4 total length 100, 40 bytes carried.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0 5 4 7 1 1 0 0)$(ip4 0 1 6 10.1.0.1 10.2.0.1 \
	"$(tcp4 10.1.0.1 10.2.0.1 40000 5201)" 100)")")
NMAL=${#frames[@]}	# the malformed ones end here; valid ones again after
# 17: a PULL from a keyed peer: the AUTH option (key id 3, a tag), hdr_len 8.
frames+=("$(out4 0 0 $((0xc042)) "$(eqh 1 2 0 8 0 9 0x42 1023 17 0 060c03000011223344556677)")")
# 18: a cumulative ACK the receiver held for its ACK delay (CUM|HELD: 0x50).
frames+=("$(out4 0 0 $((0xc042)) "$(eqh 1 3 0x50 5 0 9 0x42 2048 18 0)")")
# 19: SMaRTT's ACK of seq 4096 that came by path 300 (the PATH option).
frames+=("$(out4 0 0 $((0xc042)) "$(eqh 1 3 0 6 0 9 0x42 4096 4090 0 0704012c)")")
# 20: SIRD's unscheduled DATA from a congested sender (UNSCHED|CSN: 0x44;
#     0x40 is CUM on control packets), asking for 9000 bytes of credit.
frames+=("$(out4 0 0 $((0xc000 | 1)) "$(eqh 1 0 0x44 5 4 7 1 2048 9000 1514)$IN_TCP4")")
NFRAMES=${#frames[@]}

# --- the pcap (big-endian: magic a1b2c3d4, Ethernet) ----------------------

{
	tobin "$(printf 'a1b2c3d4%04x%04x%08x%08x%08x%08x' 2 4 0 0 65535 1)"
	n=0
	for f in "${frames[@]}"; do
		n=$((n + 1))
		tobin "$(printf '%08x%08x%08x%08x' $((1700000000 + n)) 0 $((${#f} / 2)) $((${#f} / 2)))"
		tobin "$f"
	done
} >"$PCAP"

# --- read it back ---------------------------------------------------------

# Checksums are validated too, so that "valid" includes the ones built here.
TS=(tshark -n -X "lua_script:$LUA" -o udp.ignore_ipv6_zero_checksum:TRUE
	-o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE)

# -G must come first; the Lua script still loads after it.  A tshark whose
# init.lua sets run_user_scripts_when_superuser = false ignores -X as root
# without a word (Debian 12 sets it true): docs/wire.md has the way round.
if tshark -G protocols -X "lua_script:$LUA" 2>"$dir/stderr" | grep -q '	edgeq$'; then
	ok "tshark loads the edgeq dissector"
else
	not_ok "tshark does not load $LUA: $(grep -v '^Running as user' "$dir/stderr" | head -c 300)" \
		"(Lua disabled for root? see docs/wire.md, Reading captures)"
	tap_done
	exit 1
fi

FIELDS=(frame.number frame.protocols edgeq.version edgeq.type edgeq.flags edgeq.flags.syn
	edgeq.flags.rtx edgeq.flags.held edgeq.flags.fast edgeq.flags.trimmed edgeq.flags.csn edgeq.flags.unsched edgeq.flags.cum edgeq.hdr_len edgeq.hdr_len.bytes edgeq.proto
	edgeq.sender_id edgeq.path_id udp.srcport edgeq.seq edgeq.seq.rx edgeq.pull_target
	edgeq.frame_len edgeq.limit edgeq.ack edgeq.pull_no edgeq.busy_ns ip.src ip.dst ipv6.src tcp.dstport
	udp.dstport icmp.type edgeq.opt.kind edgeq.opt.len edgeq.opt.tstamp.tx
	edgeq.opt.tstamp.echo edgeq.opt.credit edgeq.opt.qid edgeq.opt.src.queue_bytes
	edgeq.opt.src.rate_mbps edgeq.opt.seg.size edgeq.opt.seg.tcp_seq0 edgeq.opt.auth.key_id
	edgeq.opt.auth.tag edgeq.opt.path)
args=()
for f in "${FIELDS[@]}"; do args+=(-e "$f"); done
"${TS[@]}" -r "$PCAP" -T fields -E separator='|' -E occurrence=a -E aggregator=, "${args[@]}" \
	>"$dir/fields" 2>"$dir/stderr"
grep -v '^Running as user' "$dir/stderr" >"$dir/complaints"
check "tshark reads the pcap without complaint$(head -c 300 "$dir/complaints" | tr '\n' ' ')" \
	test ! -s "$dir/complaints"
check "tshark decodes all $NFRAMES frames" test "$(wc -l <"$dir/fields")" = "$NFRAMES"

# get FRAME FIELD: the value tshark printed.
get() {
	local col i
	for i in "${!FIELDS[@]}"; do [ "${FIELDS[$i]}" = "$2" ] && col=$((i + 1)); done
	awk -F'|' -v n="$1" -v c="$col" '$1 == n { print $c }' "$dir/fields"
}
# expect FRAME WHAT FIELD=VALUE...: one TAP line for all the fields.
expect() {
	local n=$1 what=$2 fv bad=""; shift 2
	for fv in "$@"; do
		local v; v=$(get "$n" "${fv%%=*}")
		[ "$v" = "${fv#*=}" ] || bad+=" ${fv%%=*}='$v' (want '${fv#*=}')"
	done
	if [ -z "$bad" ]; then ok "frame $n ($what) decodes"; else not_ok "frame $n ($what):$bad"; fi
}

expect 1 "IPv4 DATA, inner IPv4 TCP" \
	frame.protocols=eth:ethertype:ip:udp:edgeq:ip:tcp \
	edgeq.version=1 edgeq.type=0 edgeq.flags=0x01 edgeq.flags.syn=1 edgeq.flags.rtx=0 \
	edgeq.flags.held= edgeq.flags.fast=0 \
	edgeq.hdr_len=5 edgeq.hdr_len.bytes=20 edgeq.proto=4 edgeq.sender_id=7 \
	edgeq.path_id=4660 udp.srcport=53812 edgeq.seq=1024 edgeq.seq.rx=1024 \
	edgeq.pull_target=30 edgeq.frame_len=0 edgeq.limit= edgeq.ack= \
	ip.src=192.0.2.1,10.1.0.1 ip.dst=192.0.2.2,10.2.0.1 tcp.dstport=5201
expect 2 "IPv6 DATA on the fast path, inner IPv6 UDP" \
	frame.protocols=eth:ethertype:ipv6:udp:edgeq:ipv6:udp:data \
	edgeq.version=1 edgeq.type=0 edgeq.flags=0x20 edgeq.flags.fast=1 edgeq.proto=41 edgeq.sender_id=8 \
	edgeq.path_id=77 udp.srcport=$((0xc000 | 77)),5000 udp.dstport=7446,9000 \
	edgeq.seq=5000 edgeq.seq.rx=5000 edgeq.pull_target=5010 edgeq.frame_len=1400 \
	ipv6.src=2001:db8::1,fd00:1::1 ip.src=
expect 3 "PULL" \
	frame.protocols=eth:ethertype:ip:udp:edgeq \
	edgeq.type=2 edgeq.proto=0 edgeq.sender_id=9 edgeq.path_id=66 edgeq.ack=1023 \
	edgeq.pull_no=17 edgeq.busy_ns=250000 edgeq.seq= edgeq.pull_target=
expect 4 "DATA with options, GSO segment" \
	frame.protocols=eth:ethertype:ip:udp:edgeq:ip:icmp:data \
	edgeq.flags=0x11 edgeq.flags.syn=1 edgeq.flags.rtx=1 edgeq.hdr_len=11 \
	edgeq.hdr_len.bytes=44 edgeq.seq=2000 edgeq.seq.rx=2005 \
	edgeq.opt.kind=1,2,4,0,0,0,0 edgeq.opt.len=10,6,4 edgeq.opt.tstamp.tx=1000 \
	edgeq.opt.tstamp.echo=900 edgeq.opt.credit=65536 edgeq.opt.qid=3 icmp.type=8
expect 5 "TRIMMED" \
	frame.protocols=eth:ethertype:ipv6:udp:edgeq \
	edgeq.type=1 edgeq.flags.trimmed=1 edgeq.seq=6000 edgeq.proto=41
expect 6 "RTS with SRC option" \
	edgeq.type=5 edgeq.hdr_len=8 edgeq.seq=7000 edgeq.pull_target=7030 edgeq.limit=7040 \
	edgeq.frame_len= \
	edgeq.opt.kind=3,0,0 edgeq.opt.src.queue_bytes=15000 edgeq.opt.src.rate_mbps=100000
expect 7 "IPv6 DATA, segment 2 of a GSO packet (SEG option)" \
	frame.protocols=eth:ethertype:ipv6:udp:edgeq:ip:tcp \
	edgeq.hdr_len=7 edgeq.seq=3000 edgeq.seq.rx=3002 edgeq.opt.kind=5 edgeq.opt.len=8 \
	edgeq.opt.seg.size=1000 edgeq.opt.seg.tcp_seq0=4294966296 tcp.dstport=5201
expect 17 "PULL with the AUTH option" \
	frame.protocols=eth:ethertype:ip:udp:edgeq edgeq.type=2 edgeq.hdr_len=8 \
	edgeq.opt.kind=6 edgeq.opt.len=12 edgeq.opt.auth.key_id=3 \
	edgeq.opt.auth.tag=0011223344556677
expect 18 "cumulative ACK, held (0x10 is HELD on control packets, not RTX)" \
	edgeq.type=3 edgeq.flags=0x50 edgeq.flags.held=1 edgeq.flags.rtx= edgeq.ack=2048 \
	edgeq.pull_no=18
expect 19 "ACK with the PATH option (REPS's echo)" \
	edgeq.type=3 edgeq.hdr_len=6 edgeq.ack=4096 edgeq.opt.kind=7 edgeq.opt.len=4 \
	edgeq.opt.path=300
expect 20 "SIRD's unscheduled DATA with csn (0x40 is UNSCHED on DATA, not CUM)" \
	edgeq.type=0 edgeq.flags=0x44 edgeq.flags.unsched=1 edgeq.flags.csn=1 edgeq.flags.cum= \
	edgeq.seq=2048 edgeq.pull_target=9000

# Expert errors: exactly the malformed frames, by either filter.
errs() { "${TS[@]}" -r "$PCAP" -Y "$1" -T fields -e frame.number 2>/dev/null | tr '\n' ' '; }
want=""
for ((n = NVALID + 1; n <= NMAL; n++)); do want+="$n "; done
got=$(errs '_ws.expert.severity >= "Error"')
check "expert errors on frames $want(got: $got)" test "$got" = "$want"
got=$(errs '_ws.malformed')
check "_ws.malformed on frames $want(got: $got)" test "$got" = "$want"
got=$(errs 'edgeq && _ws.expert.severity >= "Warning"')
check "no expert warning on a valid frame (frames: $got)" test "$got" = "$want"
# Bytes 16-19 of a data body are not reserved: a DATA's frame length and
# an RTS's limit raise nothing (the dissector once noted "rsvd is not
# zero" on every DATA an agent sent).
got=$(errs '(frame.number == 2 || frame.number == 6) && _ws.expert')
check "a DATA's frame_len and an RTS's limit raise no expert item (frames: $got)" test -z "$got"

# Each malformed frame raises the error that names its drop reason.
expect_err() {	# FRAME EXPERT WHAT
	local got; got=$(errs "$2")
	check "frame $1 ($3): $2 (on frames: $got)" test "$got" = "$1 "
}
expect_err 8 edgeq.bad_version "version 2"
expect_err 9 edgeq.short "12-byte header"
expect_err 10 'edgeq.bad_hdr_len && frame.number == 10' "hdr_len past the packet"
expect_err 11 'edgeq.bad_hdr_len && frame.number == 11' "hdr_len < 5"
expect_err 12 edgeq.bad_type "type 9"
expect_err 13 'edgeq.bad_inner_proto && frame.number == 13' "proto 41 over IPv4"
expect_err 14 'edgeq.bad_inner_proto && frame.number == 14' "proto 17"
expect_err 15 edgeq.bad_option "option past hdr_len"
expect_err 16 edgeq.bad_inner_len "inner length"
got=$(errs edgeq.bad_hdr_len); check "hdr_len errors only on 10 11 (got: $got)" test "$got" = "10 11 "
got=$(errs edgeq.bad_inner_proto); check "inner proto errors only on 13 14 (got: $got)" test "$got" = "13 14 "

# The port preference moves the dissector.
got=$("${TS[@]}" -o edgeq.port:7447 -r "$PCAP" -Y edgeq -T fields -e frame.number 2>/dev/null | wc -l)
check "with -o edgeq.port:7447 nothing on 7446 is edgeq (got $got frames)" test "$got" = 0

tap_done
