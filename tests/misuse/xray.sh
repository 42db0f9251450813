#!/bin/sh
# An XRay pattern that matches nothing, through PATHPROF_XRAY, the API and
# `pathprof run --xray`: one line each (never two for one mistake), the program
# runs to its end, and an empty profile is still written.
# usage: xray.sh XPROG PATHPROF
set -u
prog=$1 pp=$2
# Meson passes build-tree paths relative to where the test starts.
case $prog in /*) ;; *) prog=$PWD/$prog ;; esac
case $pp in /*) ;; *) pp=$PWD/$pp ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-misuse-xray.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
fails=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# check WHAT WANT-STDOUT WANT-STDERR WANT-PATHS: after the program ran.
check() {
	[ "$st" -eq 0 ] || fail "$1: exit status $st"
	[ "$(cat stdout)" = "$2" ] || fail "$1: stdout '$(cat stdout)', want '$2'"
	[ "$(cat stderr)" = "$3" ] || fail "$1: stderr differs
  got:  $(cat stderr)
  want: $3"
	paths=$("$pp" report --format paths out.pathprof 2>&1) || fail "$1: no profile: $paths"
	[ "$paths" = "$4" ] || fail "$1: listing '$paths', want '$4'"
	rm -f out.pathprof
}

PATHPROF_OUT=$work/out.pathprof "$prog" api >stdout 2>stderr
st=$?
check "pp_xray_arm_pattern" "nomatch 0, empty -1
ran 56" 'pathprof: xray: pp_xray_arm_pattern("nomatch*"): no XRay-instrumented function matches; nothing armed
pathprof: xray: pp_xray_arm_pattern: the pattern is empty; nothing armed' ""

PATHPROF_XRAY='nomatch*' PATHPROF_OUT=$work/out.pathprof "$prog" >stdout 2>stderr
st=$?
check "PATHPROF_XRAY=nomatch*" "ran 56" \
	"pathprof: PATHPROF_XRAY=nomatch*: no XRay-instrumented function matches; not arming" ""

PATHPROF_XRAY='' PATHPROF_OUT=$work/out.pathprof "$prog" >stdout 2>stderr
st=$?
check "PATHPROF_XRAY=" "ran 56" \
	"pathprof: PATHPROF_XRAY is empty: expected 'all' or a function-name pattern; not arming" ""

# Positive control: a pattern that matches arms exactly its functions, silently.
PATHPROF_XRAY='work_*' PATHPROF_OUT=$work/out.pathprof "$prog" >stdout 2>stderr
st=$?
check "PATHPROF_XRAY=work_*" "ran 56" "" "8|work_root>work_leaf"

"$pp" run --xray='nomatch*' --out="$work/out.pathprof" --format=paths -- "$prog" >stdout 2>stderr
st=$?
check "pathprof run --xray=nomatch*" "ran 56" \
	"pathprof: PATHPROF_XRAY=nomatch*: no XRay-instrumented function matches; not arming" ""

[ "$fails" -eq 0 ] || { echo "xray.sh: $fails check(s) failed"; exit 1; }
echo "xray.sh: ok"
