# SPDX-License-Identifier: GPL-2.0-only
#
# Packets built byte by byte in bash, for tests that need packets no tool
# sends: hand-made captures (test_dissector.sh) and spoofed edgeq packets
# (test_spoof.sh).  Everything is a string of hex digits, which tobin turns
# into bytes.  No python, no scapy.

a4() { local a b c d; IFS=. read -r a b c d <<<"$1"; printf '%02x%02x%02x%02x' "$a" "$b" "$c" "$d"; }

# Internet checksum of a hex string, as 4 hex digits.
csum() {
	local h=$1 s=0 i
	(( ${#h} % 4 )) && h+=00
	for ((i = 0; i < ${#h}; i += 4)); do s=$((s + 16#${h:i:4})); done
	while ((s >> 16)); do s=$(((s & 0xffff) + (s >> 16))); done
	printf '%04x' $((~s & 0xffff))
}

# ip4 TOS ID PROTO SRC DST PAYLOAD [TOT_LEN]: IPv4 header (DF, TTL 64) + payload.
ip4() {
	local len=${7:-$((20 + ${#6} / 2))} h
	h=$(printf '45%02x%04x%04x4000%02x%02x0000%s%s' "$1" "$len" "$2" 64 "$3" "$(a4 "$4")" "$(a4 "$5")")
	printf '%s%s%s%s' "${h:0:20}" "$(csum "$h")" "${h:24}" "$6"
}

# ip6 TC NEXTHDR SRC DST PAYLOAD (addresses as 32 hex digits).
ip6() {
	printf '%08x%04x%02x%02x%s%s%s' $(((6 << 28) | ($1 << 20))) $((${#5} / 2)) "$2" 64 "$3" "$4" "$5"
}

# tcp4 SRC DST SPORT DPORT: a TCP SYN with its checksum, for IPv4.
tcp4() {
	local t; t=$(printf '%04x%04x%08x%08x5002ffff00000000' "$3" "$4" 1000 0)
	local c; c=$(csum "$(a4 "$1")$(a4 "$2")0006$(printf '%04x' $((${#t} / 2)))$t")
	printf '%s%s%s' "${t:0:32}" "$c" "${t:36}"
}

# udp6 SRC DST SPORT DPORT PAYLOAD: UDP with its checksum, for IPv6.
udp6() {
	local len=$((8 + ${#5} / 2)) u c
	u=$(printf '%04x%04x%04x0000%s' "$3" "$4" "$len" "$5")
	c=$(csum "$1$2$(printf '%08x' "$len")00000011$u")
	printf '%s%s%s' "${u:0:12}" "$c" "${u:16}"
}

# icmp_echo ID SEQ DATA
icmp_echo() {
	local m; m=$(printf '08000000%04x%04x%s' "$1" "$2" "$3")
	printf '%s%s%s' "${m:0:4}" "$(csum "$m")" "${m:8}"
}

# eqh VER TYPE FLAGS HDR_LEN PROTO SENDER PATH W1 W2 W3 [OPTIONS]
eqh() {
	printf '%02x%02x%02x%02x%04x%04x%08x%08x%08x%s' $((($1 << 4) | $2)) "$3" "$4" "$5" \
		"$6" "$7" "$8" "$9" "${10}" "${11:-}"
}

# udp SPORT DPORT PAYLOAD: outer UDP, checksum 0 as the encapsulator sends it.
udp() { printf '%04x%04x%04x0000%s' "$1" "$2" $((8 + ${#3} / 2)) "$3"; }

# tobin HEX: the bytes.
tobin() {
	local h=$1 e="" i
	for ((i = 0; i < ${#h}; i += 2)); do e+="\\x${h:i:2}"; done
	printf '%b' "$e"
}
