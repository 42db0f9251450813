#!/bin/sh
# A gated program dies of a fatal signal after N calls of main > mid > leaf:
# the profile at PATHPROF_OUT must hold exactly those N leaf returns, named,
# say which signal and thread, and the process must die of the signal (exit
# status 128 + signal). With PATHPROF_CRASH=off nothing is written.
# usage: run.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
set -eu
wrapper=$1 build=$2 pathprof=$3 via=$4 cc=$5 src=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-crash.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$src/build.sh"
crash_build "$wrapper" "$build" "$via" "$cc" "$src/crash.c" "$work/crash"
n=99999
# Under the sanitizers (scripts/sanitize.sh) ASan would report the fault and
# exit 1 itself: let the signals through to pathprof and the default action.
ASAN_OPTIONS=${ASAN_OPTIONS:-}:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:handle_sigill=0
export ASAN_OPTIONS
fail() { echo "run.sh: $via $cc: $*" >&2; exit 1; }

# run MODE SIGNAL [ENV...]: the status must be 128 + SIGNAL
run() {
	mode=$1 sig=$2
	shift 2
	rm -f "$work/out.pathprof"
	set +e
	(cd "$work" && env PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof" "$@" \
		./crash "$mode" "$n" >"$work/stdout" 2>"$work/stderr")
	st=$?
	set -e
	[ "$st" -eq $((128 + sig)) ] || { cat "$work/stderr" >&2; fail "$mode: exit status $st, expected $((128 + sig))"; }
}

check() { # MODE SIGNAL NAME [LABEL]
	[ -f "$work/out.pathprof" ] || { cat "$work/stderr" >&2; fail "$1: no profile written"; }
	got=$("$pathprof" report --format paths "$work/out.pathprof")
	[ "$got" = "$n|main>mid>leaf" ] || fail "$1: expected '$n|main>mid>leaf', got '$got'"
	"$pathprof" report "$work/out.pathprof" >"$work/report"
	grep -q "^  ${4:-crashed}  *written at signal $2 (SIG$3) in thread [1-9]" "$work/report" ||
		{ cat "$work/report" >&2; fail "$1: the report does not say the profile was written at signal $2"; }
}

if [ "${PATHPROF_SHM-}" = off ]; then # the sanitizer runs (scripts/sanitize.sh)
	run segv 11
	check segv 11 SEGV
else
	run segv 11 PATHPROF_SHM="pp-crash-segv-$$"
	check segv 11 SEGV
	# the profile holds everything: the live segment is removed with it
	[ ! -e "/dev/shm/pp-crash-segv-$$" ] || fail "segv: the live segment was left behind"
fi
run abort 6
check abort 6 ABRT
run bus 7
check bus 7 BUS
run fpe 8
check fpe 8 FPE
run overflow 11
check overflow 11 SEGV
run handler 11
check handler 11 SEGV
[ "$(cat "$work/stdout")" = "own handler ran" ] || fail "handler: the program's SIGSEGV handler did not run"
run term 15
check term 15 TERM killed
# An ignored SIGTERM stays ignored: the program runs on and exits normally.
rm -f "$work/out.pathprof"
(cd "$work" && env PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof" ./crash term-ignored "$n" \
	>"$work/stdout" 2>"$work/stderr") || fail "term-ignored: exit status $?, expected 0"
got=$("$pathprof" report --format paths "$work/out.pathprof" | sort | tr '\n' ' ')
[ "$got" = "1|main>boom $n|main>mid>leaf " ] || fail "term-ignored: got '$got'"
! "$pathprof" report "$work/out.pathprof" | grep -q "written at signal" ||
	fail "term-ignored: the profile says it was written at a signal"
# PATHPROF_CRASH=off: nothing is written at the crash, but the live segment
# every process exports holds the counts, and `pathprof recover` rebuilds them
seg=pp-crash-off-$$
run segv 11 PATHPROF_CRASH=off PATHPROF_SHM="$seg"
[ ! -e "$work/out.pathprof" ] || fail "PATHPROF_CRASH=off: a profile was written"
"$pathprof" recover -o "$work/rec.pathprof" "$seg" 2>/dev/null || fail "PATHPROF_CRASH=off: no segment to recover"
# the count is exact; names may not be published yet: the program dies
# within milliseconds of its first gate, before the naming thread's resolve
got=$("$pathprof" report --format paths "$work/rec.pathprof" | sed 's/[^|>]*:0x[0-9a-f]*/K/g')
case $got in
"$n|main>mid>leaf" | "$n|K>K>K" | "$n|main>K>K" | "$n|main>mid>K") ;;
*) fail "PATHPROF_CRASH=off: recovered '$got'" ;;
esac
[ ! -e "/dev/shm/$seg" ] || fail "PATHPROF_CRASH=off: the segment was not removed"
echo "run.sh: $via $cc: segv abort bus fpe overflow handler term term-ignored off: ok"
