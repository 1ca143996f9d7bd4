#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs the test layers and prints one summary line for all of them:
#   N passed, N failed[, N skipped]
# Every test program (cmocka binary or shell script) speaks TAP: "ok N - x",
# "not ok N - x", "not ok N # SKIP x" (cmocka) or "ok N # SKIP x".  A program
# that exits non-zero without reporting a failure, or reports fewer results
# than its plan, counts as one more failure: a crash is never a pass.
#
# Each test runs in a process group of its own, which dies with it (or at
# TEST_TIMEOUT seconds, default 900); Ctrl-C ends the running test (its
# cleanup runs) and the run.
#
# usage: tests/run.sh [all|unit|fuzz|bpf|netns|fabric|vm|vmonly|FILE]...
#   FILE: one test (a shell script, or a test binary), counted in the layer
#   named by its directory
set -u
CALLER_DIR=$PWD
cd "$(dirname "$0")/.." || exit 2
OUT=${OUT:-build}
export CMOCKA_MESSAGE_OUTPUT=TAP
pass=0 fail=0 skip=0
failed_names=()

# run_group LOG CMD...: CMD's status.  CMD runs with its output into LOG,
# in a process group of its own, under timeout (which makes the group and,
# when TEST_TIMEOUT runs out, sends TERM to all of it, then KILL 10 s later
# if CMD has not ended).  Whatever is left in the group when CMD has ended
# is killed: a test's children (socat, eqload, sleeps, processes in its
# namespaces) die with it.  Processes that left the group on purpose
# (setsid: the agent, the fabric's switch) are for the test's traps to end,
# which TERM runs.  The group is in the background, so the terminal's
# Ctrl-C reaches only us: on_signal passes it on.
RUN_PID='' RUN_LOG=''
run_group() {
	local rc
	RUN_LOG=$1; shift
	timeout -k 10 "${TEST_TIMEOUT:-900}" "$@" </dev/null >"$RUN_LOG" 2>&1 &
	RUN_PID=$!
	wait "$RUN_PID"
	rc=$?
	kill -KILL -- "-$RUN_PID" 2>/dev/null
	RUN_PID='' RUN_LOG=''
	return "$rc"
}

# Ctrl-C or TERM: the running test gets it (timeout passes it to the whole
# group and sends KILL 10 s later if the test has not ended), its cleanup
# runs, and so does no other test.
on_signal() {		# $1 = signal, $2 = our exit status
	trap '' INT TERM
	if [ -n "$RUN_PID" ]; then
		kill -"$1" "$RUN_PID" 2>/dev/null
		wait "$RUN_PID"
		kill -KILL -- "-$RUN_PID" 2>/dev/null
	fi
	if [ -n "$RUN_LOG" ]; then
		sed 's/^/    /' "$RUN_LOG"
		rm -f "$RUN_LOG"
	fi
	echo "run.sh: interrupted (SIG$1): $pass passed, $fail failed before it" >&2
	exit "$2"
}
trap 'on_signal INT 130' INT
trap 'on_signal TERM 143' TERM

run_one() {		# $1 = layer, $2... = command
	local layer=$1; shift
	local name; name=$(basename "$1")
	[ "$name" = bash ] && name=$(basename "$2")	# shell tests: the script's name
	local log; log=$(mktemp)
	local p=0 f=0 s=0 plan=-1 rc line
	echo "# --- $layer/$name"
	run_group "$log" "$@"
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"not ok "*"# SKIP"*|"ok "*"# SKIP"*) s=$((s + 1)); echo "$layer/$name: $line" ;;
		"not ok "*) f=$((f + 1)); echo "$layer/$name: $line"; failed_names+=("$layer/$name: ${line#not ok }") ;;
		"ok "*) p=$((p + 1)); echo "$layer/$name: $line" ;;
		1..*) plan=${line#1..}; plan=${plan%% *} ;;
		*) [ -n "${VERBOSE:-}" ] || [ "$rc" -ne 0 ] && echo "    $line" ;;
		esac
	done <"$log"
	rm -f "$log"
	if [ "$plan" -ge 0 ] && [ $((p + f + s)) -lt "$plan" ]; then
		echo "$layer/$name: not ok - only $((p + f + s)) of $plan results (crashed?)"
		f=$((f + 1)); failed_names+=("$layer/$name: missing results")
	elif [ "$rc" -eq 124 ] && [ "$f" -eq 0 ]; then
		echo "$layer/$name: not ok - timed out after TEST_TIMEOUT=${TEST_TIMEOUT:-900} s"
		f=$((f + 1)); failed_names+=("$layer/$name: timed out")
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$layer/$name: not ok - exited $rc without reporting a failure"
		f=$((f + 1)); failed_names+=("$layer/$name: exit $rc")
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

need_root() {		# $1 = layer
	if [ "$(id -u)" != 0 ]; then
		echo "$1: ok 1 # SKIP needs root (BPF loading, namespaces)"
		skip=$((skip + 1))
		return 1
	fi
	# bpffs, as `edgeq attach` would mount it: tests read pins there
	# before any attach (a fresh machine may not have it mounted).
	if [ "$(stat -fc %T /sys/fs/bpf 2>/dev/null)" != bpf_fs ]; then
		mount -t bpf bpf /sys/fs/bpf && echo "# $1: mounted bpffs at /sys/fs/bpf"
	fi
}

layer_unit() {
	local t
	for t in "$OUT"/tests/unit/test_*; do [ -x "$t" ] && run_one unit "$t"; done
	# Shell tests of the test tools themselves (no root)
	for t in tests/unit/test_*.sh; do [ -f "$t" ] && run_one unit bash "$t"; done
}
# The libFuzzer harnesses (tests/fuzz/): a fixed seed, then a short random
# run (no root).
layer_fuzz() {
	local t
	for t in tests/fuzz/test_*.sh; do [ -f "$t" ] && run_one fuzz bash "$t"; done
}
layer_bpf() {
	need_root bpf || return 0
	local t
	for t in "$OUT"/tests/bpf/test_*; do [ -x "$t" ] && run_one bpf "$t"; done
}
layer_netns() {
	need_root netns || return 0
	local t
	for t in tests/netns/test_*.sh; do [ -f "$t" ] && run_one netns bash "$t"; done
}

# The fabric's own accuracy (tests/fabric/): rate, delay, thresholds, order.
layer_fabric() {
	need_root fabric || return 0
	local t
	for t in tests/fabric/test_*.sh; do [ -f "$t" ] && run_one fabric bash "$t"; done
}

# VM-only suites: run inside the guest (vmtests/guest-setup.sh sets EDGEQ_IN_VM).
layer_vmonly() {
	if [ -z "${EDGEQ_IN_VM:-}" ]; then
		echo "vmonly: runs inside the VM only: make vmtest"; return 0
	fi
	local t
	for t in tests/vm/test_*.sh; do [ -f "$t" ] && run_one vm bash "$t"; done
}
# The BPF, netns and VM-only suites in a VM on a stock distribution kernel
# (vmtests/run-vm.sh); the guest's counts join ours.
layer_vm() {
	need_root vm || return 0
	local log line p f s
	log=$(mktemp)
	echo "# --- vm: vmtests/run-vm.sh -- tests/run.sh bpf netns vmonly"
	vmtests/run-vm.sh -- tests/run.sh bpf netns vmonly 2>&1 | tee "$log" | sed 's/^/vm: /'
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	rm -f "$log"
	if [ -z "$line" ]; then
		echo "vm: not ok - the VM run ended without a summary"
		fail=$((fail + 1)); failed_names+=("vm: no summary (boot failure or timeout)")
		return
	fi
	p=${line%% passed*}; f=${line#*passed, }; f=${f%% failed*}
	s=0; case $line in *skipped*) s=${line##*failed, }; s=${s%% skipped*} ;; esac
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$f" -gt 0 ] && failed_names+=("vm: $f failed inside the VM (lines prefixed 'vm:' above)")
}

# One test named on the command line (its path made absolute below: we
# are no longer where we were called).
run_file() {
	local f=$1 layer
	layer=$(basename "$(dirname "$f")")
	case "$f" in
	*.sh) run_one "$layer" bash "$f" ;;
	*) run_one "$layer" "$f" ;;
	esac
}

layers=("$@"); [ ${#layers[@]} -eq 0 ] && layers=(all)
for l in "${layers[@]}"; do
	case "$l" in
	all) layer_unit; layer_fuzz; layer_bpf; layer_netns; layer_fabric; layer_vm ;;
	unit|fuzz|bpf|netns|fabric|vm|vmonly) "layer_$l" ;;
	*)	f=$l; case "$f" in /*) ;; *) f=$CALLER_DIR/$f ;; esac
		if [ -f "$f" ]; then
			run_file "$f"
		else
			echo "run.sh: unknown layer '$l' (all, unit, fuzz, bpf, netns, fabric, vm, vmonly, or a test file)" >&2
			exit 2
		fi ;;
	esac
done

if [ ${#failed_names[@]} -gt 0 ]; then
	echo "# failures:"; printf '#   %s\n' "${failed_names[@]}"
fi
summary="$pass passed, $fail failed"
[ "$skip" -gt 0 ] && summary="$summary, $skip skipped"
echo "$summary"
[ "$fail" -eq 0 ] && [ $((pass + fail)) -gt 0 ]
