#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The settings tables (user/common/settings.c), as `edgeq help config`
# prints them, and docs/config.md say the same: every setting the parser
# takes has a row in the docs, with the same values and default where the
# docs give them; every directive the docs' tables name is one the parser
# takes; and each old name the parser still reads is mentioned.  No root
# needed: it reads the command's help and a file.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh

EDGEQ=${EDGEQ:-build/edgeq}
DOC=docs/config.md
help=$("$EDGEQ" help config) || { not_ok "edgeq help config runs"; tap_done; exit 1; }
ok "edgeq help config runs"

# "  NAME  VALUES  default DEFAULT[, also read as ALIAS]" under a settings header.
rows=$(awk '/settings/ { on = 1; next } on && /^  [a-z]/' <<<"$help")
names=$(awk '{ print $1 }' <<<"$rows")
n=$(wc -w <<<"$names")
check "the tables hold the settings ($n of them)" test "$n" -ge 20

missing=()
for s in $names; do
	grep -qF "| \`$s " "$DOC" || missing+=("$s")
done
check "every setting has a row in $DOC" test ${#missing[@]} -eq 0 || echo "# missing: ${missing[*]}"

# The docs' rows: "| `WORD ..." in a table of directives.
unknown=()
for d in $(grep -oE '^\| `[a-z_.]+' "$DOC" | sed 's/^| `//' | sort -u); do
	case $d in local|node_id|peer|scheme) continue ;; esac
	grep -qx "$d" <<<"$names" || unknown+=("$d")
done
check "every directive $DOC lists is one the parser takes" test ${#unknown[@]} -eq 0 ||
	echo "# not in edgeq help config: ${unknown[*]}"

aliases=$(grep -oE 'also read as [a-z_.]+' <<<"$rows" | awk '{ print $4 }')
undoc=()
for a in $aliases; do
	grep -qF "\`$a\`" "$DOC" || undoc+=("$a")
done
check "each old name still read ($(echo $aliases)) is mentioned in $DOC" test ${#undoc[@]} -eq 0 ||
	echo "# not mentioned: ${undoc[*]}"

# Where a docs row gives a range "N-M", it is the table's.
bad=()
while read -r s values _; do
	[[ $values =~ ^([0-9]+)-([0-9]+)$ ]] || continue
	row=$(grep -F "| \`$s " "$DOC" | head -1)
	doc_range=$(grep -oE '\| [0-9]+–[0-9]+' <<<"$row" | head -1 | tr -d '| ' | sed 's/–/-/')
	[ -z "$doc_range" ] || [ "$doc_range" = "$values" ] || bad+=("$s: docs $doc_range, table $values")
done <<<"$rows"
check "the ranges $DOC gives are the tables'" test ${#bad[@]} -eq 0 || printf '# %s\n' "${bad[@]}"

tap_done
