#!/bin/sh
# Every PATHPROF_* variable with bad values: exactly one stderr line naming the
# variable, the value and what is used instead; the program still runs to its
# end and its profile is still written, with the default in force. Empty means
# unset (VAR= prog is how a shell switches a setting off): no line at all.
# usage: env.sh PROG PATHPROF
set -u
prog=$1 pp=$2
# Meson passes build-tree paths relative to where the test starts.
case $prog in /*) ;; *) prog=$PWD/$prog ;; esac
case $pp in /*) ;; *) pp=$PWD/$pp ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-misuse-env.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
fails=0

# The listing with every default: 20 paths, rec once .. rec twenty deep.
i=1 chain=rec
: >default.paths
while [ $i -le 20 ]; do
	echo "1|$chain" >>default.paths
	chain="$chain>rec"
	i=$((i + 1))
done

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# run WANT-STDERR WANT-PATHS VAR=VALUE...: WANT-PATHS is a listing file, or
# 'other' for any listing but the default one (a valid value took effect).
run() {
	want=$1 paths=$2
	shift 2
	rm -f ./*.pathprof
	env PATHPROF_OUT="$work/out.pathprof" "$@" "$prog" >stdout 2>stderr
	st=$?
	what="$*"
	[ "$st" -eq 0 ] || fail "$what: exit status $st, want 0"
	[ "$(cat stdout)" = ran ] || fail "$what: the program did not run to its end"
	# the default name is said at exit (runtime/dump.c): checked apart
	got=$(grep -v '^pathprof: profile written to [^ /]*\.pathprof (timing ' stderr)
	if grep -q '^pathprof: profile written to ' stderr && ! ls ./*.pathprof >/dev/null 2>&1; then
		fail "$what: said a profile was written where there is none"
	fi
	if [ "$got" != "$want" ]; then
		fail "$what: stderr differs"
		echo "  got:  $got"
		echo "  want: $want"
	fi
	prof=''
	for f in ./*.pathprof; do [ -e "$f" ] && prof=$f; done
	if [ -z "$prof" ]; then
		fail "$what: no profile written"
		return
	fi
	"$pp" report --format paths "$prof" >got.paths 2>report.err ||
		{ fail "$what: report: $(cat report.err)"; return; }
	if [ "$paths" = other ]; then
		cmp -s got.paths default.paths && fail "$what: the value did not take effect"
	elif ! cmp -s got.paths "$paths"; then
		fail "$what: listing differs from $paths"
		# all of it: a one-off difference must be readable from the log
		diff "$paths" got.paths | head -n 50
		echo "  stderr:"
		sed 's/^/    /' stderr
		echo "  report --format paths --verbose:"
		"$pp" report "$prof" 2>&1 | head -n 40 | sed 's/^/    /'
	fi
}

# Positive controls: a good value is silent and is used.
run "" default.paths PATHPROF_TIMING=on
run "" default.paths PATHPROF_TIMING=sample:3
run "" other PATHPROF_DEPTH=4
run "" other PATHPROF_PATHS=16
run "" default.paths PATHPROF_ARENA_MB=64
run "" default.paths PATHPROF_SHM_KEEP=1 PATHPROF_SHM="pp-misuse-keep-$$"
rm -f "/dev/shm/pp-misuse-keep-$$" # kept, as asked
# Selections: rec is the root already (nested recs stay in its event, the
# outermost root wins); a list selecting no function leaves no gate.
run "" default.paths PATHPROF_ROOT=rec
run "" default.paths PATHPROF_FUNCTIONS='*,!re'
run "pathprof: PATHPROF_FUNCTIONS=re: no function that ran matched; nothing was gated" other \
	PATHPROF_FUNCTIONS=re
# A selection that matches no function that ran says so at exit (#29).
run "pathprof: PATHPROF_ROOT=Impl::Write: no function that ran matched; no event started at a root" \
	default.paths PATHPROF_ROOT=Impl::Write
run "pathprof: PATHPROF_ROOT=a,,b: an empty pattern at byte 2; ignored" default.paths PATHPROF_ROOT=a,,b
run "pathprof: PATHPROF_FUNCTIONS=[x: '[x' has a '[' that is never closed; ignored" default.paths \
	PATHPROF_FUNCTIONS='[x'
run "pathprof: PATHPROF_FUNCTIONS=rec\\: 'rec\\' ends with a lone backslash; ignored" default.paths \
	'PATHPROF_FUNCTIONS=rec\'

for var in PATHPROF_TIMING PATHPROF_OUT PATHPROF_DEPTH PATHPROF_PATHS PATHPROF_ARENA_MB \
	PATHPROF_TRACE PATHPROF_SHM PATHPROF_SHM_KEEP; do
	run "" default.paths "$var="
done

for val in fast ON 1 -1 sample sample: sample:0 sample:-3 sample:+3 'sample: 3' sample:3x \
	sample:2147483648 sample:99999999999999999999999 ' on'; do
	run "pathprof: PATHPROF_TIMING=$val: expected off, on, sample:N (N >= 1) or burst[:N] (1 <= N <= 1000); using off" \
		default.paths PATHPROF_TIMING="$val"
done

# number VAR LO HI DEFAULT VALUE...
number() {
	var=$1 lo=$2 hi=$3 def=$4
	shift 4
	for val in "$@"; do
		run "pathprof: $var=$val: expected a whole number from $lo to $hi; using $def" \
			default.paths "$var=$val"
	done
}
number PATHPROF_DEPTH 2 4096 256 deep -1 0 1 4097 99999999999999999999999 ' 4' '+4' 4x 0x10 1e3 4.0
number PATHPROF_PATHS 16 67108864 65536 many -16 15 67108865 18446744073709551616 '+16' ' 16' 16k
number PATHPROF_ARENA_MB 16 4194304 65536 big -1 15 4194305 18446744073709551616 '+64' 64M

for val in 2 yes true -1 ' 1' 01; do
	run "pathprof: PATHPROF_SHM_KEEP=$val: expected 0 or 1; using 0" default.paths \
		PATHPROF_SHM_KEEP="$val"
done

long=$(printf '%0300d' 0)
for val in a/b .. . / // "$long"; do
	run "pathprof: PATHPROF_SHM=$val: expected a name of 1-200 bytes without '/'; the live view is off" \
		default.paths PATHPROF_SHM="$val"
done

# A path too long for the runtime's buffer: the default name in the current
# directory (<program>.<pid>.pathprof) is used instead.
long=$(printf '%05000d' 0)
run "pathprof: PATHPROF_OUT is longer than 4095 bytes; using the default name" default.paths \
	PATHPROF_OUT="$work/$long"
run "pathprof: PATHPROF_TRACE is longer than 4095 bytes; not recording" default.paths \
	PATHPROF_TRACE="$work/$long"
run "pathprof: trace $work/no/such/dir/t.trace: cannot create: No such file or directory; not recording" \
	default.paths PATHPROF_TRACE="$work/no/such/dir/t.trace"

# Several bad variables at once: one line each, in a fixed order.
run "pathprof: PATHPROF_TIMING=x: expected off, on, sample:N (N >= 1) or burst[:N] (1 <= N <= 1000); using off
pathprof: PATHPROF_DEPTH=x: expected a whole number from 2 to 4096; using 256
pathprof: PATHPROF_SHM_KEEP=x: expected 0 or 1; using 0" default.paths \
	PATHPROF_SHM_KEEP=x PATHPROF_DEPTH=x PATHPROF_TIMING=x

# An unwritable PATHPROF_OUT loses the profile, but the program still ends
# normally and the line names the file.
env PATHPROF_OUT="$work/no/such/dir/p.pathprof" "$prog" >stdout 2>stderr
st=$?
if [ "$st" -ne 0 ] || [ "$(cat stdout)" != ran ]; then
	fail "unwritable PATHPROF_OUT: status $st"
fi
want="pathprof: $work/no/such/dir/p.pathprof: cannot create temporary file: No such file or directory"
[ "$(cat stderr)" = "$want" ] || fail "unwritable PATHPROF_OUT: stderr '$(cat stderr)', want '$want'"

[ "$fails" -eq 0 ] || { echo "env.sh: $fails check(s) failed"; exit 1; }
echo "env.sh: ok"
