#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The experiment runner: runs scenarios (all, or those named) one after
# the other, each writing docs/results/<name>.md and its plots.
#
#   tests/scenarios/run.sh [SCENARIO]...      (make experiments [SCENARIOS=...])
#
# Scenarios: single incast permutation outcast oversub rpc_load failure soak.  Each
# takes its own SC_* settings (see the top of each script); SC_TRANSPORTS
# limits the transports (default: every congestion control the kernel
# offers), SC_KEEP=1 keeps the raw data.  Needs root (namespaces).
set -u
cd "$(dirname "$0")/../.." || exit 1
ALL="single incast permutation outcast congested oversub rpc_load failure soak"
[ "$(id -u)" = 0 ] || { echo "run.sh: needs root (network namespaces, AF_XDP)" >&2; exit 1; }
list=("$@"); [ ${#list[@]} -eq 0 ] && read -ra list <<<"$ALL"
# The SC_* settings this run was given, as a command line's prefix, so that
# a report's "Made by" line reruns it (where its results go is left out).
settings() {
	local v
	while IFS= read -r v; do
		case ${v%%=*} in SC_RESULTS | SC_COMMAND | SC_KEEP) continue ;; esac
		printf '%s="%s" ' "${v%%=*}" "${v#*=}"
	done < <(env | grep -E '^SC_[A-Z_]+=' | sort)
}
rc=0 t0=$(date +%s)
for s in "${list[@]}"; do
	if [ ! -f "tests/scenarios/$s.sh" ]; then
		echo "run.sh: no scenario '$s' (have: $ALL)" >&2; rc=1; continue
	fi
	echo "=== $s ($(($(date +%s) - t0)) s elapsed)" >&2
	SC_COMMAND="$(settings)tests/scenarios/run.sh $s" bash "tests/scenarios/$s.sh" ||
		{ echo "run.sh: $s failed" >&2; rc=1; }
done
echo "run.sh: done in $(($(date +%s) - t0)) s; results in docs/results/" >&2
exit $rc
