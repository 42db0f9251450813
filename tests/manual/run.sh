#!/bin/sh
# The installed manual: a man page for pathprof, every command its help
# lists and pathprof-cc, each rendering without a roff warning and naming the
# command's options; and the bash completion offering commands, each
# command's options and the values of --format, --sort and --names.
# usage: run.sh PATHPROF MANDIR COMPLETION
set -eu
pp=$1 mandir=$2 completion=$3
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cmds=$("$pp" --help | sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ -n "$cmds" ] || fail "no commands in 'pathprof --help'"
for page in pathprof pathprof-cc $(printf 'pathprof-%s ' $cmds); do
	f=$mandir/$page.1
	[ -f "$f" ] || { fail "$page: no man page"; continue; }
	out=$(MANWIDTH=80 man --warnings -l "$f" 2>"$mandir/$page.err") || fail "$page: man failed"
	[ ! -s "$mandir/$page.err" ] || { fail "$page: roff warnings"; cat "$mandir/$page.err"; }
	echo "$out" | grep -q "^NAME" || fail "$page: no NAME section"
done
for c in $cmds; do
	for opt in $("$pp" "$c" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
		MANWIDTH=200 man -l "$mandir/pathprof-$c.1" 2>/dev/null | grep -q -- "$opt" ||
			fail "pathprof-$c.1 lacks $opt"
	done
done

# complete WORDS...: what the completion offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pathprof; echo "${COMPREPLY[*]}"' \
		_ "$completion" "$@"
}
dir=$(dirname "$pp")
PATH=$dir:$PATH
export PATH
[ "$(complete_words pathprof re)" = "replay report recover record" ] ||
	fail "commands: '$(complete_words pathprof re)'"
[ "$(complete_words pathprof report --format p)" = "paths pprof" ] ||
	fail "report --format: '$(complete_words pathprof report --format p)'"
[ "$(complete_words pathprof report --names s)" = "short" ] || fail "--names"
[ "$(complete_words pathprof recover --k)" = "--keep" ] ||
	fail "recover options: '$(complete_words pathprof recover --k)'"
[ "$(complete_words pathprof top --format '')" = "text json" ] || fail "top --format"
[ "$(complete_words pathprof recover --l)" = "--list" ] ||
	fail "recover --list: '$(complete_words pathprof recover --l)'"
[ "$fails" -eq 0 ] || { echo "run.sh: $fails check(s) failed"; exit 1; }
echo "run.sh: man pages of $(echo $cmds | wc -w) commands and the completion: ok"
