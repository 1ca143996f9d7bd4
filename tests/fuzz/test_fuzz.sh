#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The libFuzzer harnesses of tests/fuzz/ (built by make: build/tests/fuzz/),
# each run twice: FUZZ_RUNS inputs (default 100,000) from a fixed seed,
# then FUZZ_SECS seconds (default 5) from a random seed, printed so that a
# failure can be replayed (FUZZ_SEED=N).  A harness fails on a crash, a
# sanitizer report (AddressSanitizer, UBSan) or one of its own checks; the
# input that did it is kept and named, with the command to replay it.
#   fuzz_frame: the agent's frame parser and what it does with a frame;
#   fuzz_eqds:  EQDS's handling of any sequence of packets, forged or not.
#   fuzz_smartt: SMaRTT's, as a scheme on the core's tunnel halves, the same.
#   fuzz_sird:  SIRD's, a receiver and one or two senders, the same, with
#               its credit's invariants and, with no forgery, no stall.
# First, each input a campaign once failed on (tests/fuzz/regress/<harness>/,
# named after what it found) runs again, and must pass.
# Longer campaigns: FUZZ_RUNS=10000000 FUZZ_SECS=0 tests/fuzz/test_fuzz.sh
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

OUT=${OUT:-build}
RUNS=${FUZZ_RUNS:-100000}
SECS=${FUZZ_SECS:-5}
SEED=${FUZZ_SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
KEEP=${FUZZ_KEEP:-/tmp/edgeq-fuzz}
TMP=$(mktemp -d /tmp/edgeq-fuzz.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$KEEP"

# campaign NAME BIN SEED OPTION...: one libFuzzer run over a corpus that
# starts empty and grows in $TMP; ok when it ends with no failure.
campaign() {
	local name=$1 bin=$2 seed=$3 log rc art; shift 3
	log=$TMP/$name.$seed.log
	mkdir -p "$TMP/corpus-$name"
	"$bin" -seed="$seed" -max_len=4096 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$KEEP/$name-" "$@" "$TMP/corpus-$name" >"$log" 2>&1
	rc=$?
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | as_comment
	if [ "$rc" -ne 0 ]; then
		grep -E 'ERROR|SUMMARY|fuzz_[a-z]+:|runtime error' "$log" | head -20 | as_comment
		art=$(grep -oE "$KEEP/$name-[a-z-]+[0-9a-f]+" "$log" | head -1)
		[ -n "$art" ] && echo "# input kept: $art (replay: $bin $art)"
	fi
	return "$rc"
}

as_comment() { sed 's/^/# /'; }

for bin in "$OUT"/tests/fuzz/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	regress=(tests/fuzz/regress/"$name"/*)
	if [ -e "${regress[0]}" ]; then
		"$bin" "${regress[@]}" >"$TMP/$name.regress.log" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || grep -E 'ERROR|SUMMARY|fuzz_[a-z]+:|Running' "$TMP/$name.regress.log" |
			head -20 | as_comment
		check "$name: the ${#regress[@]} input(s) that once failed pass (tests/fuzz/regress/$name)" \
			[ "$rc" -eq 0 ]
	fi
	campaign "$name" "$bin" 1 -runs="$RUNS"
	check "$name: $RUNS inputs from seed 1, no crash, no sanitizer report, every check held" [ $? -eq 0 ]
	if [ "$SECS" -gt 0 ]; then
		campaign "$name" "$bin" "$SEED" -max_total_time="$SECS" -runs=-1
		check "$name: $SECS s from seed $SEED (FUZZ_SEED=$SEED to replay), no failure" [ $? -eq 0 ]
	fi
done
[ -n "$(ls "$OUT"/tests/fuzz/fuzz_* 2>/dev/null)" ] ||
	not_ok "harnesses built ($OUT/tests/fuzz/fuzz_*: make)"
tap_done
