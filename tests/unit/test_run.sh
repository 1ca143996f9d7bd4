#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tests/run.sh itself (no root needed): it adds TAP up into its summary; a
# test that runs past TEST_TIMEOUT dies with every process it started (a
# child, a grandchild, one that ignores TERM), and the run goes on; Ctrl-C
# ends the running test, lets its cleanup run, kills what it left and ends
# the run.  The tests it runs are scripts written here; the processes they
# start are sleeps of a duration no other process has, so that what is left
# can be found.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

TMP=$(mktemp -d /tmp/edgeq-runsh.XXXXXX)
MARK="1000.$$$RANDOM"		# sleep $MARK: ours alone
left() { pgrep -f "^sleep $MARK\$"; }
cleanup() {
	local p
	for p in $(left); do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT

# 1. TAP parsing and the summary.
cat >"$TMP/test_tap.sh" <<EOF
echo "ok 1 - one"
echo "ok 2 # SKIP two"
echo "not ok 3 # SKIP three"
echo "ok 4 - four"
echo "1..4"
EOF
out=$(tests/run.sh "$TMP/test_tap.sh" 2>&1); rc=$?
echo "$out" | sed 's/^/# /'
check "a passing test: summary '2 passed, 0 failed, 2 skipped', status 0 (rc $rc)" \
	[ "$(tail -1 <<<"$out")" = "2 passed, 0 failed, 2 skipped" -a "$rc" -eq 0 ]
check "its results are shown under its directory's name" grep -q "^${TMP##*/}/test_tap.sh: ok 4 - four\$" <<<"$out"

cat >"$TMP/test_short.sh" <<EOF
echo "ok 1 - one"
echo "1..3"
EOF
out=$(tests/run.sh "$TMP/test_short.sh" 2>&1); rc=$?
check "fewer results than the plan count as a failure (rc $rc)" \
	[ "$(tail -1 <<<"$out")" = "1 passed, 1 failed" -a "$rc" -ne 0 ]

# 2. A test that hangs past TEST_TIMEOUT=2 with children of all kinds.
cat >"$TMP/test_hang.sh" <<EOF
echo "ok 1 - started"
sleep $MARK &				# a child
( sleep $MARK & wait ) &		# a grandchild
bash -c "trap '' TERM; exec sleep $MARK" &	# a child that ignores TERM
sleep 60				# past the timeout
echo "1..1"
EOF
cat >"$TMP/test_after.sh" <<EOF
echo "ok 1 - after"
echo "1..1"
EOF
t0=$SECONDS
out=$(TEST_TIMEOUT=2 tests/run.sh "$TMP/test_hang.sh" "$TMP/test_after.sh" 2>&1); rc=$?
took=$((SECONDS - t0))
echo "$out" | sed 's/^/# /'
check "a test past TEST_TIMEOUT fails as timed out, the next one runs (rc $rc, ${took} s)" \
	[ "$(tail -1 <<<"$out")" = "2 passed, 1 failed" -a "$rc" -ne 0 -a "$took" -lt 20 ]
check "... reported as timed out" grep -q "test_hang.sh: not ok - timed out" <<<"$out"
sleep 0.2
check "... and nothing it started is left: child, grandchild, TERM-ignoring child ($(left | wc -l) left)" \
	[ -z "$(left)" ]

# 3. Ctrl-C: the terminal sends SIGINT to run.sh's process group (here a
# session of its own; env undoes the SIGINT a background job ignores).
cat >"$TMP/test_int.sh" <<EOF
trap 'echo cleaned >"$TMP/cleaned"; exit 130' INT TERM
sleep $MARK &				# ignores SIGINT (a background job)
echo "ok 1 - started"
touch "$TMP/started"
sleep 60
echo "1..1"
EOF
rm -f "$TMP/cleaned" "$TMP/started"
env --default-signal=INT setsid bash tests/run.sh "$TMP/test_int.sh" "$TMP/test_after.sh" \
	>"$TMP/int.out" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -e "$TMP/started" ] && break; sleep 0.05; done
kill -INT -- "-$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
if kill -0 "$pid" 2>/dev/null; then
	rc=stuck
	kill -KILL -- "-$pid" 2>/dev/null
else
	wait "$pid"; rc=$?
fi
sed 's/^/# /' "$TMP/int.out"
check "Ctrl-C ends the run with status 130 within 5 s (rc $rc)" [ "$rc" = 130 ]
check "... the running test's cleanup ran" [ -e "$TMP/cleaned" ]
check "... no further test ran, and it says so" \
	bash -c "! grep -q 'ok 1 - after' '$TMP/int.out' && grep -q '^run.sh: interrupted (SIGINT)' '$TMP/int.out'"
sleep 0.2
check "... and nothing it started is left ($(left | wc -l) left)" [ -z "$(left)" ]
tap_done
