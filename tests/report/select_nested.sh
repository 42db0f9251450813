#!/bin/sh
# pathprof select's second rule on a profile whose figures are known
# (mkprof nested: main > a > b > c > d, 2 000 calls each below main, every
# function's gates within 5 % of what it holds, all of them together 9.2 %
# of the work): at 5 % it drops d, then c (worst gates-to-work first) and
# stops where the kept gates cost 4.6 %; at 7 % d alone; at 10 % nothing;
# the gcc form names the kept functions a dropped name takes with it
# (gcc matches substrings). Exact lists and lines.
# usage: select_nested.sh PATHPROF MKPROF WORKDIR
set -u
pp=$1 mkprof=$2 dir=$3/select-nested
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$mkprof" nested "$dir/n.pathprof" || { echo "FAIL: mkprof"; exit 1; }
check() { # BUDGET WANTED-LIST MORE DROPPED-NS PCT
	"$pp" select "$dir/n.pathprof" --budget "$1" >"$dir/out" 2>"$dir/err" || fail "$1: exit $?: $(cat "$dir/err")"
	got=$(paste -sd, "$dir/out")
	[ "$got" = "$2" ] || fail "$1: dropped '$got', expected '$2'"
	more=
	[ "$3" = 0 ] || more=", and $3 more until the gates kept cost $1 of all the work"
	want="pathprof: select: 0 of 5 functions cost more than $1 of the work they hold$more; their gates took $4 of the 120015 ns all gates took ($5%)"
	[ "$(cat "$dir/err")" = "$want" ] || fail "$1: said '$(cat "$dir/err")', expected '$want'"
}
check 5% d,c 2 60000 50
check 7% d 1 30000 25
check 10% "" 0 0 0
# gcc's list matches substrings: at 1 % all four go, and 'a' also drops
# the kept 'main', which the gcc form says
"$pp" select "$dir/n.pathprof" --budget 1% --format gcc >"$dir/gcc" 2>"$dir/gcc.err" || fail "gcc: exit $?"
got=$(tr ',' '\n' <"$dir/gcc" | sort | paste -sd, -)
[ "$got" = "a,b,c,d" ] || fail "gcc: '$(cat "$dir/gcc")', expected a, b, c and d"
want="pathprof: select: --format gcc: 'a' also drops the kept 'main' (gcc matches substrings; pathprof-cc --exclude-functions=@FILE with --format names matches whole names)"
[ "$(head -n 1 "$dir/gcc.err")" = "$want" ] || fail "gcc: said '$(head -n 1 "$dir/gcc.err")'"
[ "$fails" -eq 0 ] || { echo "select_nested.sh: $fails check(s) failed"; exit 1; }
echo "select_nested.sh: ok"
