#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A report the scenarios write again keeps its hand-written reading: the
# report is tables and plots made by the run, and whatever was said of it
# by hand lives in docs/results/<name>.notes.md, which sc_md_end() adds
# under "## Notes" (tests/scenarios/lib.sh).  Before, regenerating a report
# dropped that text.  No root needed: it writes reports into a temporary
# folder, and checks that every notes file in docs/results belongs to a
# report that has its text.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/scenarios/lib.sh

tmp=$(mktemp -d) || { not_ok "a temporary folder"; tap_done; exit 1; }
trap 'rm -rf "$tmp"' EXIT

report() {	# NAME: a report written as a scenario writes it, into $tmp
	SC_NAME=$1 SC_MD=$tmp/$1.md SC_COMMAND="a test" SC_TRANSPORTS=cubic
	sc_md_begin "A title" "A description."
	sc_md "| a | table |"
	sc_md_end 2>/dev/null
}

report zz-plain
check "a report with no notes: no Notes section" bash -c "! grep -q '^## Notes' '$tmp/zz-plain.md'"
check "... and its table" grep -q '^| a | table |$' "$tmp/zz-plain.md"

printf 'What it shows (a run of a day): a reading.\n\nA second paragraph.\n' >"$tmp/zz-noted.notes.md"
report zz-noted
check "a report with notes beside it gets them under ## Notes" \
	bash -c "sed -n '/^## Notes\$/,\$p' '$tmp/zz-noted.md' | grep -q '^What it shows (a run of a day): a reading.\$'"
check "... every paragraph of them" grep -q '^A second paragraph.$' "$tmp/zz-noted.md"
check "... after the run's table" \
	bash -c "[ \$(grep -n '^| a | table |' '$tmp/zz-noted.md' | cut -d: -f1) -lt \$(grep -n '^## Notes' '$tmp/zz-noted.md' | cut -d: -f1) ]"
report zz-noted
check "written again, the report has its notes once" test "$(grep -c '^## Notes' "$tmp/zz-noted.md")" -eq 1

# The reports in docs/results hold their notes as a run would write them.
n=0 bad=()
for f in docs/results/*.notes.md; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	r=${f%.notes.md}.md
	[ -f "$r" ] && diff -q <(cat "$f") <(sed -n '/^## Notes$/,$p' "$r" | tail -n +3) >/dev/null || bad+=("$f")
done
check "docs/results: each of $n notes files ends its report, as sc_md_end writes it" test ${#bad[@]} -eq 0 ||
	echo "# not matching: ${bad[*]}"
check "docs/results has notes files" test "$n" -ge 1

tap_done
