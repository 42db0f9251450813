# bash completion for pathprof (installed as .../bash-completion/completions/pathprof).
# Commands come from 'pathprof --help' and each command's options from its
# own --help, and the report formats from 'pathprof report --formats', so
# the completion follows the installed version; a few option values are
# known words, everything else completes file names.
_pathprof()
{
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [[ -z $cmd ]]; then
		local cmds
		cmds=$("${COMP_WORDS[0]}" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "$cmds help --help --version" -- "$cur"))
		return
	fi
	case $prev in
	--format)
		case $cmd in
		top) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
		diff) COMPREPLY=($(compgen -W "text json html" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" report --formats 2>/dev/null)" -- "$cur")) ;;
		esac
		return ;;
	--sort)
		case $cmd in
		top) COMPREPLY=($(compgen -W "rate time count" -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "count time" -- "$cur")) ;;
		esac
		return ;;
	--value) COMPREPLY=($(compgen -W "count time leaf" -- "$cur")); return ;;
	--names) COMPREPLY=($(compgen -W "full short" -- "$cur")); return ;;
	--timing) COMPREPLY=($(compgen -W "on off sample: burst burst:" -- "$cur")); return ;;
	esac
	# top: the pids of this user's live profiled processes
	if [[ $cmd == top && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" top --list 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
		return
	fi
	# recover: the segments dead processes of this user left, by name (a
	# pid may name another process by now)
	if [[ $cmd == recover && $cur != -* && $prev != -o && $prev != --out ]]; then
		COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" recover --list 2>/dev/null | awk '{ sub("^/", "", $NF); print $NF }')" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		local opts
		opts=$("${COMP_WORDS[0]}" "$cmd" --help 2>/dev/null |
			grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _pathprof pathprof
