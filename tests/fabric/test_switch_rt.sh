#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The switch under SCHED_FIFO (FABRIC_RT=N, eqswitch run --rt N;
# docs/fabric.md, "Waiting for events"):
#  1. with the capability, it runs under SCHED_FIFO at N, says so in its
#     log, and forwards (ping across the fabric);
#  2. without it (CAP_SYS_NICE dropped from the bounding set), it says it
#     was refused and runs under the default scheduler, forwarding still;
#  3. a priority outside 0-99 is refused at start.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/fabric/testlib.sh

# policy PID: the scheduling policy of a process (field 41 of its stat:
# 0 SCHED_OTHER, 1 SCHED_FIFO) and its real-time priority (field 40).
policy() { awk '{ sub(/.*\) /, ""); print $39, $38 }' "/proc/$1/stat"; }

switch_pid() { cat "$(fab_dir "$FT_NAME")/eqswitch.pid"; }
switch_log() { cat "$(fab_dir "$FT_NAME")/eqswitch.log"; }

FABRIC_RT=20 ft_up "$(ft_topo star)" --set hosts=2 || { not_ok "fabric up"; tap_done; exit 1; }
p=$(policy "$(switch_pid)")
check "FABRIC_RT=20: the switch runs under SCHED_FIFO 20 (policy, priority: $p)" [ "$p" = "1 20" ]
log_says() { switch_log | grep -q "$1"; }
check "... and its log says so" log_says "SCHED_FIFO 20$"
check "... and it forwards" ft_on h0 ping -c 3 -i 0.2 -W 1 -q "$(ft_ip h1)"
ft_down

if command -v setpriv >/dev/null; then
	# Without CAP_SYS_NICE the kernel refuses: the switch goes on under
	# the default scheduler (a fabric that will not start is no use).
	# The fabric is brought up by a shell without the capability and
	# left up (its trap cleared) for this one to read and take down.
	FT_TMP=$(mktemp -d /tmp/edgeq-fabric.XXXXXX)
	setpriv --bounding-set -sys_nice -- env FABRIC_RT=20 FT_TMP="$FT_TMP" bash -c '
		. tests/fabric/testlib.sh; FT_NAME='"$FT_NAME"'
		ft_up "$(ft_topo star)" --set hosts=2 >/dev/null || exit 1
		trap - EXIT; exit 0' || not_ok "fabric up without CAP_SYS_NICE"
	p=$(policy "$(switch_pid)")
	check "without CAP_SYS_NICE: the default scheduler (policy, priority: $p)" [ "$p" = "0 0" ]
	check "... its log says FIFO was refused" log_says "SCHED_FIFO 20 refused"
	check "... and it forwards" ft_on h0 ping -c 3 -i 0.2 -W 1 -q "$(ft_ip h1)"
	ft_down
else
	skip "setpriv missing: the refused case is not run"
fi

out=$("$EQSWITCH" run "$(ft_topo star)" --name "$FT_NAME" --dir /nonexistent --rt 100 2>&1)
rc=$?
good=0; [ "$rc" -ne 0 ] && grep -q "expected 0-99" <<<"$out" && good=1
check "--rt 100: refused at start, saying why (rc $rc: $out)" [ "$good" = 1 ]
tap_done
