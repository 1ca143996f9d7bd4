#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The soak (issue 16 item 7): SC_SOAK_SECS (1800) of mixed traffic through
# `scheme eqds` on the two-host testbed (tests/lib/netns.sh: two
# namespaces, one veth pair, the kernel's default offloads), with random
# loss of 0.5 % on both hosts' egress (SC_SOAK_LOSS=off: none), while
#   - TCP transfers of 1-16 MB (random sizes, IPv4 and IPv6 in turn) run
#     both ways, one after the other in each direction, every one's
#     SHA-256 checked;
#   - ping runs both ways (IPv4 from A, IPv6 from B);
#   - peers come and go: every 2 s each host adds a peer prefix via an
#     underlay address that answers nothing and deletes the one before
#     (slots and routes allocated and freed all along);
#   - the agents restart: every SC_SOAK_RESTART_S (30) s one of them, in
#     turn, is stopped for 1 s and started again (`on_agent_down tunnel`);
#   - every 10 s the agents' resident memory, open files and the pinned
#     maps' memory are sampled.
# Writes docs/results/soak.md (SC_RESULTS: elsewhere) and exits non-zero
# on a SHA-256 mismatch, a transfer that did not finish, an agent whose
# memory grew within its life by more than 4 MiB, maps whose memory
# changed, or anything left after detach.  Needs root.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

SECS=${SC_SOAK_SECS:-1800}
LOSS=${SC_SOAK_LOSS:-on}
LOSS_BPF=${LOSS_BPF:-build/tests/lib/loss.bpf.o}
RESTART=${SC_SOAK_RESTART_S:-30}
RESULTS=${SC_RESULTS:-docs/results}
MD=$RESULTS/soak.md
CMD="SC_SOAK_SECS=$SECS SC_SOAK_LOSS=$LOSS SC_SOAK_RESTART_S=$RESTART tests/scenarios/run.sh soak"
TB_OFFLOADS=default	# as a user's interfaces are
MAX_MB=16
GROW_KB=4096		# an agent's memory may grow this much within its life

[ "$(id -u)" = 0 ] || { echo "soak: needs root (namespaces, bpffs)" >&2; exit 1; }
tb_start
for s in a b; do
	sed -i '/^link_rate 10gbit$/d' "$TB_TMP/$s.conf"
	printf 'scheme eqds\nlink_rate 1gbit\non_agent_down tunnel\n' >>"$TB_TMP/$s.conf"
done
# B's second addresses are B's too (its IPv6 traffic to A may take
# fd77::3 as its source, which A would otherwise drop: rx_drop_src).
printf 'peer 10.77.0.3/32 via 10.77.0.2\npeer fd77::3/128 via fd77::2\n' >>"$TB_TMP/a.conf"
tb_attach || { echo "soak: attach failed" >&2; exit 1; }
# Loss after edgeq's TC program, on what leaves each host: a classifier
# that drops 0.5 % (tests/lib/loss.bpf.c) under a root htb that shapes
# nothing (netem is not in every kernel; this one's lacks it).  What the
# agents send through AF_XDP passes the qdisc by: the fast path's data,
# bare ACKs and every packet of an agent that is down see the loss.
loss_on() {	# NS IFACE
	ip netns exec "$1" tc qdisc add dev "$2" root handle 1: htb default 10 &&
	ip netns exec "$1" tc class add dev "$2" parent 1: classid 1:10 htb rate 100gbit quantum 60000 &&
	ip netns exec "$1" tc filter add dev "$2" parent 1: prio 1 bpf da obj "$LOSS_BPF" sec tc
}
if [ "$LOSS" = on ]; then
	loss_on "$TB_A" "$TB_IFA" && loss_on "$TB_B" "$TB_IFB" ||
		{ echo "soak: cannot set up the loss (htb, cls_bpf, $LOSS_BPF)" >&2; exit 1; }
fi
# The churned peers' prefixes are routed out of the attached interface,
# as `peer add` wants them.
in_a ip route add 10.200.0.0/16 dev "$TB_IFA"
in_b ip route add 10.201.0.0/16 dev "$TB_IFB"
head -c $((MAX_MB * 1048576)) /dev/urandom >"$TB_TMP/data"
T0=$(date +%s)
END=$((T0 + SECS))
LOG=$TB_TMP/log
mkdir -p "$LOG"

# One transfer: SRC DST_NS ADDR PORT BYTES -> "rc seconds" (rc 0: the
# SHA-256 of what arrived is the sender's).
xfer() {
	local src=$1 dns=$2 addr=$3 port=$4 bytes=$5 host listen=TCP4-LISTEN t0 rc lpid
	host=$addr
	case $addr in *:*) host="[$addr]" listen=TCP6-LISTEN ;; esac
	rm -f "$TB_TMP/recv.$port"
	ip netns exec "$dns" timeout 200 socat -u "$listen:$port,reuseaddr" \
		OPEN:"$TB_TMP/recv.$port",creat,trunc &
	lpid=$!
	local up=0
	for _ in $(seq 50); do
		ip netns exec "$dns" ss -ltn | grep -q ":$port " && { up=1; break; }
		sleep 0.1
	done
	if [ "$up" = 0 ]; then	# not the tunnel's doing: the listener never came
		kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null
		echo "77 0"
		return
	fi
	t0=$(date +%s.%N)
	head -c "$bytes" "$TB_TMP/data" |
		ip netns exec "$src" timeout 180 socat -u STDIN "TCP:$host:$port" 2>>"$LOG/socat.err"
	rc=$?
	wait "$lpid" || { [ "$rc" = 0 ] && rc=9; }	# the receiving end failed
	if [ "$rc" = 0 ] && [ "$(head -c "$bytes" "$TB_TMP/data" | sha256sum)" != \
				"$(sha256sum <"$TB_TMP/recv.$port")" ]; then
		rc=99	# bytes changed on the way
	fi
	rm -f "$TB_TMP/recv.$port"
	echo "$rc $(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')"
}

# Transfers one way until the end: DIR SRC_NS DST_NS ADDR4 ADDR6 BASE_PORT
xfer_loop() {
	local dir=$1 src=$2 dns=$3 a4=$4 a6=$5 port=$6 i=0 bytes addr out
	while [ "$(date +%s)" -lt "$END" ]; do
		i=$((i + 1))
		bytes=$(((RANDOM % MAX_MB + 1) * 1048576))
		addr=$a4; [ $((i % 2)) = 0 ] && addr=$a6
		out=$(xfer "$src" "$dns" "$addr" $((port + i % 1000)) "$bytes")
		echo "$(($(date +%s) - T0)) $dir $addr $bytes $out" >>"$LOG/xfers"
		if [ "${out%% *}" != 0 ] && [ ! -e "$LOG/first-failure" ]; then
			# The state of both ends when a transfer failed, for the report.
			{ echo "$(($(date +%s) - T0)) s: $dir to $addr, $bytes bytes: rc ${out%% *}"
			  eq_a status "$TB_IFA"; eq_b status "$TB_IFB"; } >"$LOG/first-failure" 2>&1
		fi
	done
}

# Peers that come and go on one host: NAME PREFIX16 (10.200 or 10.201)
churn_loop() {
	local h=$1 p=$2 k=0 prev=""
	while [ "$(date +%s)" -lt "$END" ]; do
		k=$((k + 1))
		local cur="$p.$((k % 250)).0/24" via="10.77.0.$((100 + k % 50))"
		if "$EDGEQ" --netns "$(ns_of "$h")" peer add "$cur" via "$via" dev "$(if_of "$h")" \
			>/dev/null 2>>"$LOG/churn.err"; then
			echo add >>"$LOG/churn.$h"
		else
			echo fail >>"$LOG/churn.$h"
		fi
		if [ -n "$prev" ]; then
			"$EDGEQ" --netns "$(ns_of "$h")" peer del "$prev" dev "$(if_of "$h")" \
				>/dev/null 2>>"$LOG/churn.err" && echo del >>"$LOG/churn.$h"
		fi
		prev=$cur
		sleep 2
	done
}
ns_of() { [ "$1" = a ] && echo "$TB_A" || echo "$TB_B"; }
if_of() { [ "$1" = a ] && echo "$TB_IFA" || echo "$TB_IFB"; }

# An agent down for 1 s every RESTART s, A and B in turn.
restart_loop() {
	local n=0 h
	while [ $(($(date +%s) + RESTART)) -lt "$END" ]; do
		sleep "$RESTART"
		n=$((n + 1))
		h=a; [ $((n % 2)) = 0 ] && h=b
		"$EDGEQ" --netns "$(ns_of "$h")" agent stop "$(if_of "$h")" >/dev/null 2>>"$LOG/restart.err"
		sleep 1
		if "$EDGEQ" --netns "$(ns_of "$h")" agent start "$(if_of "$h")" >/dev/null 2>>"$LOG/restart.err"; then
			echo "$(($(date +%s) - T0)) $h ok" >>"$LOG/restarts"
		else
			echo "$(($(date +%s) - T0)) $h fail" >>"$LOG/restarts"
		fi
	done
}

# Every 10 s, per host: agent pid, its resident memory (KiB) and open
# files; the pinned maps' memory (bytes), and the pins.
memlock() {	# PIN_DIR
	local f s=0 b
	for f in "$1"/*; do
		b=$(bpftool -j map show pinned "$f" 2>/dev/null | jq -r '.bytes_memlock // 0' 2>/dev/null)
		s=$((s + ${b:-0}))
	done
	echo "$s"
}
# A stalled tunnel: a backlog at two samples of one agent life and not a
# DATA packet sent between them (the agent's own count).  Both ends'
# state then goes to the log (stall.N.json), for the report: a transfer
# that fails only after its 200 s timeout has long lost the moment.
stall_check() {	# HOST PID JSON
	local h=$1 pid=$2 js=$3 now key
	now=$(jq -r --arg pid "$pid" '.interfaces[0].peers[] | select(.agent) |
		"\($pid)/\(.slot) \(.agent.backlog_pkts) \(.agent.tx_data)"' <<<"$js" 2>/dev/null | sort -u)
	while read -r key bl txd; do
		[ -n "$key" ] && [ "${bl:-0}" -gt 0 ] || continue
		if awk -v k="$key" -v t="$txd" '$1 == k && $3 == t { f = 1 } END { exit !f }' \
			"$LOG/stall-prev.$h" 2>/dev/null; then
			local n=$(($(ls "$LOG"/stall.*.json 2>/dev/null | wc -l) + 1))
			echo "$(($(date +%s) - T0)) $h $key backlog $bl tx_data $txd" >>"$LOG/stalls"
			[ "$n" -le 3 ] && { "$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json
					   "$EDGEQ" --netns "$TB_B" status "$TB_IFB" --json; } \
				>"$LOG/stall.$n.json" 2>/dev/null
		fi
	done <<<"$now"
	echo "$now" >"$LOG/stall-prev.$h"
}
sample_loop() {
	local h pid rss fds pins ml js
	while [ "$(date +%s)" -lt "$END" ]; do
		for h in a b; do
			js=$("$EDGEQ" --netns "$(ns_of "$h")" status "$(if_of "$h")" --json 2>/dev/null)
			pid=$(jq -r '.interfaces[0].agent_pid // 0' <<<"$js" 2>/dev/null)
			stall_check "$h" "${pid:-0}" "$js"
			rss=$(awk '/^VmRSS/ { print $2 }' "/proc/${pid:-0}/status" 2>/dev/null)
			fds=$(ls "/proc/${pid:-0}/fd" 2>/dev/null | wc -l)
			local pd=$TB_PIN_A; [ "$h" = b ] && pd=$TB_PIN_B
			pins=$(ls "$pd" | wc -l)
			ml=$(memlock "$pd")
			echo "$(($(date +%s) - T0)) $h ${pid:-0} ${rss:-0} $fds $pins $ml" >>"$LOG/samples"
		done
		sleep 10
	done
}

in_a ping -q -i 0.5 -w "$SECS" 10.77.0.2 >"$LOG/ping4" 2>&1 &
P4=$!
in_b ping -6 -q -i 0.5 -w "$SECS" fd77::1 >"$LOG/ping6" 2>&1 &
P6=$!
# Listening ports below the ephemeral range (32768-60999): a client
# socket of the other direction's transfers could hold one above.
xfer_loop ab "$TB_A" "$TB_B" 10.77.0.2 fd77::2 20000 &
X1=$!
xfer_loop ba "$TB_B" "$TB_A" 10.77.0.1 fd77::1 22000 &
X2=$!
churn_loop a 10.200 &
C1=$!
churn_loop b 10.201 &
C2=$!
restart_loop &
R=$!
sample_loop &
S=$!
TB_PIDS+=("$X1" "$X2" "$C1" "$C2" "$R" "$S")	# tb_down ends them on any exit
echo "soak: running for $SECS s (loss $LOSS, an agent restart every $RESTART s)" >&2
# The loss the classifiers made, read at the end (htb's drop counters).
wait "$X1" "$X2" "$C1" "$C2" "$R" "$S" "$P4" "$P6"

# ---- what happened ----
touch "$LOG/xfers" "$LOG/restarts" "$LOG/samples" "$LOG/churn.a" "$LOG/churn.b"
n_x=$(wc -l <"$LOG/xfers")
n_ok=$(awk '$5 == 0' "$LOG/xfers" | wc -l)
n_bad=$(awk '$5 == 99' "$LOG/xfers" | wc -l)
n_nolisten=$(awk '$5 == 77' "$LOG/xfers" | wc -l)	# the harness's, not the tunnel's
n_fail=$((n_x - n_ok - n_nolisten))
mb=$(awk '$5 == 0 { s += $4 } END { printf "%.0f", s / 1048576 }' "$LOG/xfers")
gp() {	# DIR: the median goodput of its transfers, Mbit/s
	awk -v d="$1" '$2 == d && $5 == 0 && $6 > 0 { print $4 * 8 / $6 / 1e6 }' "$LOG/xfers" | sort -g |
		awk '{ v[NR] = $1 } END { if (NR) printf "%.0f", v[int((NR + 1) / 2)]; else print "–" }'
}
n_rs=$(wc -l <"$LOG/restarts")
n_rs_fail=$(grep -c fail "$LOG/restarts")
churn_ok=$(($(grep -c add "$LOG/churn.a") + $(grep -c add "$LOG/churn.b")))
churn_del=$(($(grep -c del "$LOG/churn.a") + $(grep -c del "$LOG/churn.b")))
churn_fail=$(($(grep -c fail "$LOG/churn.a") + $(grep -c fail "$LOG/churn.b")))
loss4=$(grep -oE '[0-9.]+% packet loss' "$LOG/ping4" | cut -d% -f1)
loss6=$(grep -oE '[0-9.]+% packet loss' "$LOG/ping6" | cut -d% -f1)
# Per agent life (host and pid): its first and last sample, and the most
# it grew by in between.
lives=$(awk '$3 > 0 && $4 > 0 { k = $2 " " $3; if (!(k in f)) { f[k] = $4; o[++n] = k }; l[k] = $4; c[k]++ }
	END { for (i = 1; i <= n; i++) print o[i], f[o[i]], l[o[i]], l[o[i]] - f[o[i]], c[o[i]] }' "$LOG/samples")
grow=$(awk '$6 >= 2 { if ($5 > m) m = $5 } END { print m + 0 }' <<<"$lives")
ml_span=$(awk '{ k = $2; if (!(k in lo) || $7 < lo[k]) lo[k] = $7; if ($7 > hi[k]) hi[k] = $7 }
	END { m = 0; for (k in lo) if (hi[k] - lo[k] > m) m = hi[k] - lo[k]; print m }' "$LOG/samples")
# What the maps grew by from the first sample to the last, per host: the
# churned prefixes come and go (a trie node each), a leak would stay.
ml_grew=$(awk '{ if (!($2 in f)) f[$2] = $7; l[$2] = $7 }
	END { m = 0; for (k in f) if (l[k] - f[k] > m) m = l[k] - f[k]; print m }' "$LOG/samples")
fd_span=$(awk '$3 > 0 { k = $2 " " $3; if (!(k in lo) || $5 < lo[k]) lo[k] = $5; if ($5 > hi[k]) hi[k] = $5 }
	END { m = 0; for (k in lo) if (hi[k] - lo[k] > m) m = hi[k] - lo[k]; print m }' "$LOG/samples")
agent_a=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json 2>/dev/null | jq -c '.interfaces[0].agent_counters')
qdrops() { ip netns exec "$1" tc -s qdisc show dev "$2" 2>/dev/null | awk '/^qdisc htb/ { f = 1 } f && /dropped/ { gsub(/[(,]/, ""); for (i = 1; i <= NF; i++) if ($i == "dropped") { print $(i + 1); exit } }'; }
qsent() { ip netns exec "$1" tc -s qdisc show dev "$2" 2>/dev/null | awk '/^qdisc htb/ { f = 1 } f && /Sent/ { print $4; exit }'; }
loss_made="A $(qdrops "$TB_A" "$TB_IFA") of $(qsent "$TB_A" "$TB_IFA"), B $(qdrops "$TB_B" "$TB_IFB") of $(qsent "$TB_B" "$TB_IFB") packets"

eq_a detach "$TB_IFA" >/dev/null 2>&1
eq_b detach "$TB_IFB" >/dev/null 2>&1
left=0
[ -e "$TB_PIN_A" ] && left=$((left + 1))
[ -e "$TB_PIN_B" ] && left=$((left + 1))
left=$((left + $(pgrep -f "edgeqd.*($TB_IFA|$TB_IFB)" | wc -l)))

verdict=ok
[ "$n_bad" = 0 ] || verdict="FAILED: $n_bad transfers arrived changed"
[ "$n_fail" = "$n_bad" ] || verdict="FAILED: $((n_fail - n_bad)) transfers did not finish"
touch "$LOG/stalls"
n_stall=$(wc -l <"$LOG/stalls")
[ "$n_stall" = 0 ] || verdict="FAILED: $n_stall samples found a stalled tunnel"
[ "$grow" -le "$GROW_KB" ] || verdict="FAILED: an agent grew by $grow KiB within its life"
[ "$ml_grew" -le 4096 ] || verdict="FAILED: the maps' memory grew by $ml_grew bytes"
[ "$left" = 0 ] || verdict="FAILED: $left things left after detach"
[ "$n_ok" -gt 0 ] || verdict="FAILED: no transfer finished"

mkdir -p "$RESULTS"
{
	echo "# Soak: mixed traffic, peer churn, agent restarts and loss"
	echo
	echo "\`$CMD\`, $(date -u +%Y-%m-%d), $(nproc) CPUs, $(uname -r)."
	echo
	echo "Two namespaces joined by a veth pair with the kernel's default offloads, \`scheme eqds\`,"
	echo "\`link_rate 1gbit\`, \`on_agent_down tunnel\`, random loss $([ "$LOSS" = on ] && echo "of 0.5 %" || echo off) on both hosts' egress"
	echo "(tests/lib/loss.bpf.c under a root qdisc: it sees what TC sends; the agents' AF_XDP sends pass it by). For $SECS s: TCP"
	echo "transfers of 1-$MAX_MB MB both ways (IPv4 and IPv6 in turn, SHA-256 checked), ping both"
	echo "ways, a peer added and one deleted on each host every 2 s, one agent stopped for 1 s"
	echo "every $RESTART s (A and B in turn), and every 10 s the agents' memory sampled."
	echo
	echo "**Verdict: $verdict.**"
	echo
	echo "| what | figure |"
	echo "|---|---|"
	echo "| transfers finished, bytes intact | $n_ok of $n_x ($mb MB) |"
	echo "| ... arrived changed (SHA-256) | $n_bad |"
	echo "| ... did not finish (timeout or error) | $((n_fail - n_bad)) |"
	echo "| ... not run: the receiving socat never listened (the harness's) | $n_nolisten |"
	echo "| samples with a stalled tunnel (a backlog, no DATA sent for 10 s) | $n_stall |"
	echo "| median goodput A→B, B→A (Mbit/s, a transfer's bytes over its time) | $(gp ab), $(gp ba) |"
	echo "| ping loss IPv4 A→B, IPv6 B→A | ${loss4:-?} %, ${loss6:-?} % |"
	echo "| packets the loss dropped (of those through the qdisc) | $loss_made |"
	echo "| agent restarts (failed to start) | $n_rs ($n_rs_fail) |"
	echo "| peers added, deleted (refused) | $churn_ok, $churn_del ($churn_fail) |"
	echo "| most an agent's resident memory grew within its life | $grow KiB |"
	echo "| the pinned maps' memory: most it moved, what it grew from first to last sample | $ml_span, $ml_grew bytes |"
	echo "| most an agent's open files moved within its life | $fd_span |"
	echo "| left after detach (pins, agents) | $left |"
	echo
	echo "Agent lives (host, pid, resident memory at its first and last sample, KiB; growth; samples):"
	echo
	echo '```'
	echo "$lives"
	echo '```'
	echo
	echo "A's agent counters at the end: \`$agent_a\`."
	if [ "$n_stall" != 0 ]; then
		echo
		echo "Stalls (seconds from start, host, agent pid/peer slot, backlog, DATA sent):"
		echo
		echo '```'
		head -20 "$LOG/stalls"
		echo '```'
		echo
		echo "Both ends at the first stall, per peer slot (edgeq status --json):"
		echo
		echo '```'
		jq -r '.interfaces[0] as $i | $i.peers[] | select(.agent) |
			"\($i.ifname // "?") slot \(.slot) via \(.via): " +
			(.agent | to_entries | map("\(.key) \(.value)") | join(", ")) +
			"; eqds: " + ((.eqds // {}) | to_entries | map("\(.key) \(.value)") | join(", "))' \
			"$LOG/stall.1.json" 2>/dev/null | sort -u
		echo '```'
	fi
	if [ "$n_fail" != 0 ]; then
		echo
		echo "Transfers that did not finish (seconds from start, direction, address, bytes, rc, seconds):"
		echo
		echo '```'
		awk '$5 != 0 && $5 != 77' "$LOG/xfers" | head -20
		echo '```'
		echo
		echo "What socat said:"
		echo
		echo '```'
		head -10 "$LOG/socat.err" 2>/dev/null
		echo '```'
		echo
		echo "Both ends when the first of them ended (edgeq status):"
		echo
		echo '```'
		cut -c1-400 "$LOG/first-failure" 2>/dev/null | head -80
		echo '```'
	fi
} >"$MD"
echo "soak: $verdict; wrote $MD" >&2
[ "$verdict" = ok ]
