# SPDX-License-Identifier: GPL-2.0-only
# bash completion for edgeq: commands, their options and words, interface
# names (inside --netns NAME when given), network namespaces, files after
# --config.  Load it with `. tools/completion/edgeq.bash`, or copy it to
# /usr/share/bash-completion/completions/edgeq.
#
# The command names come from `edgeq help`, so that they follow the
# binary; the words of each command are written here, after its usage.

_edgeq_commands() {
	local names
	names=$(edgeq help 2>/dev/null | awk '/^  [a-z]/ { print $1 }')
	echo "${names:-attach detach agent flush status top metrics peer features help}"
}

# Interfaces of this namespace, or of the one named after --netns.
_edgeq_ifaces() {
	local ns=$1
	if [ -n "$ns" ]; then
		ip -n "$ns" -o link show 2>/dev/null
	else
		ip -o link show 2>/dev/null
	fi | awk -F': ' '{ sub(/@.*/, "", $2); if ($2 != "lo") print $2 }'
}

# The command's interface while it has none (and the word is not an
# option), its options after.  Uses cur, n and ns of _edgeq.
_edgeq_iface_then() {
	if [ "$n" -eq 0 ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$(_edgeq_ifaces "$ns")" -- "$cur"))
	else
		COMPREPLY=($(compgen -W "$*" -- "$cur"))
	fi
}

_edgeq() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local ns="" cmd="" i w
	local -a args=()

	# The global options, then the command and its words so far.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ -z "$cmd" ]; then
			case $w in
			--netns) ns=${COMP_WORDS[i + 1]}; ((i++)) ;;
			-*) ;;
			*) cmd=$w ;;
			esac
		else
			args+=("$w")
		fi
	done
	COMPREPLY=()
	case $prev in
	--netns)
		COMPREPLY=($(compgen -W "$(ls /run/netns 2>/dev/null)" -- "$cur"))
		return ;;
	--config)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--xdp-mode)
		COMPREPLY=($(compgen -W "auto native generic" -- "$cur"))
		return ;;
	--peer)
		return ;;	# an address: nothing to offer
	esac
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$(_edgeq_commands) --netns -v --help" -- "$cur"))
		return
	fi
	# Words of the command that are not options.
	local -a pos=()
	for w in "${args[@]}"; do
		case $w in -*) ;; *) pos+=("$w") ;; esac
	done
	local n=${#pos[@]}
	case $cmd in
	attach) _edgeq_iface_then --config --xdp-mode --no-agent --help ;;
	detach) _edgeq_iface_then --help ;;
	status) _edgeq_iface_then --json --help ;;
	metrics) _edgeq_iface_then --help ;;
	top) _edgeq_iface_then --interval --count --help ;;
	flush) _edgeq_iface_then --peer --help ;;
	agent)
		case $n in
		0) COMPREPLY=($(compgen -W "start stop --help" -- "$cur")) ;;
		1) COMPREPLY=($(compgen -W "$(_edgeq_ifaces "$ns")" -- "$cur")) ;;
		esac ;;
	peer)
		if [ "$n" -eq 0 ]; then
			COMPREPLY=($(compgen -W "add del key list --help" -- "$cur"))
			return
		fi
		case $prev in
		dev) COMPREPLY=($(compgen -W "$(_edgeq_ifaces "$ns")" -- "$cur")); return ;;
		scheme) COMPREPLY=($(compgen -W "none eqds" -- "$cur")); return ;;
		via) return ;;	# an address
		esac
		case ${pos[0]} in
		add)
			# add PREFIX via ADDR [scheme S] dev IFACE
			[ "$n" -ge 2 ] || return	# the prefix
			local have=" ${pos[*]} " offer=""
			[[ $have == *" via "* ]] || offer="via"
			[[ $have == *" via "* && $have != *" scheme "* ]] && offer+=" scheme"
			[[ $have == *" via "* && $have != *" key "* ]] && offer+=" key"
			[[ $have == *" via "* && $have != *" dev "* ]] && offer+=" dev"
			COMPREPLY=($(compgen -W "$offer" -- "$cur")) ;;
		key)
			# key ADDR accept|sign|drop KEY-OR-ID dev IFACE
			case $n in
			2) COMPREPLY=($(compgen -W "accept sign drop" -- "$cur")) ;;
			4) COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
			esac ;;
		del)
			[ "$n" -ge 2 ] && [[ " ${pos[*]} " != *" dev "* ]] &&
				COMPREPLY=($(compgen -W "dev" -- "$cur")) ;;
		list)
			if [[ " ${pos[*]} " != *" dev "* ]]; then
				COMPREPLY=($(compgen -W "dev" -- "$cur"))
			else
				COMPREPLY=($(compgen -W "--json" -- "$cur"))
			fi ;;
		esac ;;
	help)
		[ "$n" -eq 0 ] && COMPREPLY=($(compgen -W "$(_edgeq_commands) config" -- "$cur")) ;;
	esac
}
complete -F _edgeq edgeq
