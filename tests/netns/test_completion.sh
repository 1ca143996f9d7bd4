#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bash completion (tools/completion/edgeq.bash), on host A of the
# two-host testbed: the script is sourced and its function called as bash
# calls it (COMP_WORDS, COMP_CWORD), and COMPREPLY checked:
#  - the first word: the commands `edgeq help` lists, and the global
#    options; after --netns, the namespaces in /run/netns;
#  - interface names inside the namespace --netns names (not lo), for
#    attach, detach, status, flush, agent start|stop, peer ... dev;
#  - each command's options and words: attach's --config (files),
#    --xdp-mode (its three modes), agent's start|stop, peer's add|del|list
#    and, after a prefix, via, scheme (none|eqds) and dev.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
. tests/lib/netns.sh

tb_start
edgeq() { "$EDGEQ" "$@"; }	# what the script runs for `edgeq help`
. tools/completion/edgeq.bash

# comp WORD...: complete the last word (may be empty) of `edgeq WORD...`;
# REPLY holds the candidates, sorted, on one line.
comp() {
	COMP_WORDS=(edgeq "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_edgeq
	REPLY=$(printf '%s\n' "${COMPREPLY[@]}" | sort | paste -sd' ')
	echo "# edgeq $* -> $REPLY"
}
# is WORDS: REPLY is exactly these words (in any order).
is() { [ "$REPLY" = "$(printf '%s\n' "$@" | sort | paste -sd' ')" ]; }
# has WORD: REPLY contains it.
holds() { [[ " $REPLY " == *" $1 "* ]]; }

registered() { complete -p edgeq 2>/dev/null | grep -q -- '-F _edgeq'; }
check "the completion script registers itself for edgeq" registered
cmds=$("$EDGEQ" help | awk '/^  [a-z]/ { print $1 }' | paste -sd' ')
comp ""
check "the first word: every command edgeq help lists ($cmds), and the global options" \
	is $cmds --netns -v --help
comp a
check "'a': attach and agent" is attach agent
comp --netns ""
check "after --netns: the namespaces ($TB_A among them)" holds "$TB_A"
comp --netns "$TB_A" attach ""
check "attach in --netns $TB_A: its interfaces ($TB_IFA), not lo" \
	bash -c "[[ ' $REPLY ' == *' $TB_IFA '* && ' $REPLY ' != *' lo '* ]]"
comp --netns "$TB_A" attach "$TB_IFA" --
check "attach IFACE --: its options" is --config --xdp-mode --no-agent --help
comp attach "$TB_IFA" --xdp-mode ""
check "--xdp-mode: auto, native, generic" is auto native generic
cfg=$(mktemp "$TB_TMP/completion.XXXXXX")
comp attach "$TB_IFA" --config "${cfg%?????}"
check "--config: file names (${cfg##*/})" holds "$cfg"
comp --netns "$TB_A" status ""
check "status: the interfaces" holds "$TB_IFA"
comp status "$TB_IFA" --
check "status IFACE --: --json, --help" is --json --help
comp --netns "$TB_A" metrics ""
check "metrics: the interfaces" holds "$TB_IFA"
comp metrics "$TB_IFA" --
check "metrics IFACE --: --help" is --help
comp top "$TB_IFA" --
check "top IFACE --: --interval, --count, --help" is --interval --count --help
comp --netns "$TB_A" detach ""
check "detach: the interfaces" holds "$TB_IFA"
comp flush "$TB_IFA" --
check "flush IFACE --: --peer, --help" is --peer --help
comp agent ""
check "agent: start, stop" is start stop --help
comp --netns "$TB_A" agent stop ""
check "agent stop: the interfaces" holds "$TB_IFA"
comp peer ""
check "peer: add, del, key, list" is add del key list --help
comp peer add 10.9.0.0/24 ""
check "peer add PREFIX: via" is via
comp peer add 10.9.0.0/24 via 10.77.0.2 ""
check "peer add PREFIX via ADDR: scheme, key, dev" is scheme key dev
comp peer add 10.9.0.0/24 via 10.77.0.2 scheme ""
check "... scheme: none, eqds" is none eqds
comp --netns "$TB_A" peer add 10.9.0.0/24 via 10.77.0.2 scheme eqds dev ""
check "... dev: the interfaces" holds "$TB_IFA"
comp peer key 10.77.0.2 ""
check "peer key ADDR: accept, sign, drop" is accept sign drop
comp peer key 10.77.0.2 sign 2 ""
check "peer key ADDR sign ID: dev" is dev
comp peer list dev "$TB_IFA" ""
check "peer list dev IFACE: --json" is --json
comp help ""
check "help: the commands, and config" is $cmds config
tap_done
