#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `agent_priority` (docs/agent.md, "Scheduling"): with a priority the
# agent runs under SCHED_FIFO at it, without one under the default
# scheduler, and the tunnel carries traffic either way; an agent the
# kernel refuses the priority (no CAP_SYS_NICE) does not start, attach
# says why and leaves nothing behind, and attach without it works again.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

tb_start
for s in a b; do
	printf 'scheme eqds\n' >>"$TB_TMP/$s.conf"
	sed -i 's/^link_rate .*/link_rate 1gbit/' "$TB_TMP/$s.conf"
done
cp "$TB_TMP/a.conf" "$TB_TMP/a.plain.conf"
echo "agent_priority 10" >>"$TB_TMP/a.conf"
check "attach, A with agent_priority 10, B without" tb_attach

agent_pid() {	# a|b
	local ns=$TB_A ifc=$TB_IFA
	[ "$1" = b ] && ns=$TB_B ifc=$TB_IFB
	"$EDGEQ" --netns "$ns" status "$ifc" --json | grep -o '"agent_pid":[0-9]*' | cut -d: -f2
}
# "policy PRIO" of a pid, as the kernel has it (/proc/PID/stat: 41st
# field the policy, 18th the priority as the scheduler counts it).
sched_of() {
	local pol prio
	# (No process substitution: the VM has no /dev/fd.)
	read -r pol prio <<<"$(awk '{ print $41, $18 }' "/proc/$1/stat")" || return 1
	case $pol in 0) echo "other" ;; 1) echo "fifo $((-prio - 1))" ;; *) echo "policy $pol" ;; esac
}
# The agents publish their state every 100 ms: in a slow VM the first
# may not be out right after attach.
for _ in $(seq 50); do
	pa=$(agent_pid a); pb=$(agent_pid b)
	[ -n "$pa" ] && [ -n "$pb" ] && break
	sleep 0.1
done
sa=$(sched_of "${pa:-0}" 2>/dev/null); sb=$(sched_of "${pb:-0}" 2>/dev/null)
check "A's agent (pid ${pa:-none}) runs under SCHED_FIFO at 10 ($sa), B's (pid ${pb:-none}) under the default scheduler ($sb)" \
	[ "$sa" = "fifo 10" ] && [ "$sb" = "other" ] ||
	{ for p in $pa $pb; do echo "/proc/$p/stat: $(cat "/proc/$p/stat" 2>&1)"; done | as_comment; }
check "ping through both agents" in_a ping -c 3 -i 0.1 -W 2 10.77.0.2
check "status says so for A, not for B" \
	bash -c "'$EDGEQ' --netns '$TB_A' status '$TB_IFA' | grep -q 'edgeqd pid [0-9]* (SCHED_FIFO 10), alive' &&
		 '$EDGEQ' --netns '$TB_B' status '$TB_IFB' | grep -q 'edgeqd pid [0-9]*, alive'"
pj=$("$EDGEQ" --netns "$TB_A" status "$TB_IFA" --json | jq '.interfaces[0].agent_priority')
check "... and its JSON (agent_priority $pj)" [ "$pj" = 10 ]

# Refused: without CAP_SYS_NICE (dropped from the bounding set, so the
# agent attach starts has it neither) the kernel refuses SCHED_FIFO.
eq_a detach "$TB_IFA" >/dev/null 2>&1
out=$(setpriv --bounding-set -sys_nice -- \
	"$EDGEQ" --netns "$TB_A" attach "$TB_IFA" --config "$TB_TMP/a.conf" 2>&1)
rc=$?
check "attach fails when the agent cannot have its priority (rc $rc)" [ "$rc" -ne 0 ]
check "... and says why: $(tail -n 1 <<<"$out")" \
	grep -q "agent_priority 10: cannot run under SCHED_FIFO: Operation not permitted" <<<"$out"
left=$(for p in $(ip netns pids "$TB_A"); do cat "/proc/$p/comm" 2>/dev/null; done | grep -c edgeqd)
check "no agent is left running on A ($left)" [ "$left" -eq 0 ]
check "nothing is left attached on A" bash -c "! '$EDGEQ' --netns '$TB_A' status '$TB_IFA' >/dev/null 2>&1"
check "attach without agent_priority works again" \
	eq_a attach "$TB_IFA" --config "$TB_TMP/a.plain.conf"
check "ping through both agents again" in_a ping -c 3 -i 0.1 -W 2 10.77.0.2
tap_done
