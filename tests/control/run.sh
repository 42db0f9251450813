#!/bin/sh
# Build tests/control/ctl.c through one front-end with one compiler, run one
# mode, and compare the profile with what the program says it must hold: the
# canonical listing and the counters it names ('#name value' lines).
# usage: run.sh CC FRONTEND OPT MODE BUILDROOT SRCROOT PATHPROF [VAR=VALUE...]
set -eu
cc=$1 fe=$2 opt=$3 mode=$4 build=$5 root=$6 pathprof=$7
shift 7
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-ctl.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$root/tests/common/fe_build.sh"
fe_build "$cc" "$fe" "$opt" "$root/tests/control/ctl.c" "$work/prog"
env PATHPROF_OUT="$work/out.pathprof" "$@" "$work/prog" "$mode" >"$work/expect.all" 2>"$work/stderr"
grep -v '^[#@%+!~]' "$work/expect.all" | sort >"$work/expect" || true
"$pathprof" report --format paths "$work/out.pathprof" | sort >"$work/got"
grep -q '^!any-listing' "$work/expect.all" && cp "$work/got" "$work/expect"
if ! diff -u "$work/expect" "$work/got"; then
	echo "run.sh: $mode $fe $cc $opt: listing differs" >&2
	exit 1
fi
"$pathprof" report --format json "$work/out.pathprof" >"$work/json"
grep '^#' "$work/expect.all" | while read -r name want; do
	name=${name#\#}
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/json" "$name")
	if [ "$got" != "$want" ]; then
		echo "run.sh: $mode $fe $cc $opt: $name is $got, expected $want" >&2
		exit 1
	fi
done
# '~' lines: node times against the program's own measurement
# (check_times.py). A preemption between two spins shows in the profile but
# not in the spins, so the run is repeated (three tries), never the exact
# checks above.
if grep -q '^~' "$work/expect.all"; then
	try=1
	until python3 "$root/tests/control/check_times.py" "$work/json" "$work/expect.all"; do
		[ "$try" -lt 3 ] || { echo "run.sh: $mode $fe $cc $opt: times" >&2; exit 1; }
		try=$((try + 1))
		env PATHPROF_OUT="$work/out.pathprof" "$@" "$work/prog" "$mode" >"$work/expect.all" 2>"$work/stderr"
		"$pathprof" report --format json "$work/out.pathprof" >"$work/json"
	done
fi
# '+a+b N': the sum of JSON fields a and b is N.
grep '^+' "$work/expect.all" | while read -r names want; do
	got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(d[k] for k in sys.argv[2].split("+") if k))' "$work/json" "$names")
	if [ "$got" != "$want" ]; then
		echo "run.sh: $mode $fe $cc $opt: $names is $got, expected $want" >&2
		exit 1
	fi
done
# The runtime warns once per process, never per thread.
if [ "$(grep -c '^pathprof: ' "$work/stderr")" -gt 1 ]; then
	echo "run.sh: $mode $fe $cc $opt: more than one runtime warning:" >&2
	cat "$work/stderr" >&2
	exit 1
fi
# Forked children ('@' lines: the listing each must hold, '%children N').
grep '^@' "$work/expect.all" | sed 's/^@//' | sort >"$work/expect.child" || true
if [ -s "$work/expect.child" ]; then
	want=$(sed -n 's/^%children //p' "$work/expect.all")
	n=0
	for f in "$work"/out.pathprof.*; do
		[ -e "$f" ] || continue
		"$pathprof" report --format paths "$f" | sort >"$work/got.child"
		if ! diff -u "$work/expect.child" "$work/got.child"; then
			echo "run.sh: $mode $fe $cc $opt: child profile $f differs" >&2
			exit 1
		fi
		n=$((n + 1))
	done
	if [ "$n" != "$want" ]; then
		echo "run.sh: $mode $fe $cc $opt: $n child profiles, expected $want" >&2
		exit 1
	fi
fi
