#!/bin/sh
# The pathprof CLI's refusals, compared whole: for every subcommand an unknown
# option, an option without its value, a value given to a flag, and missing or
# extra operands (status 2); a profile or trace from a newer pathprof read by
# report, merge, diff and replay (status 1, one line naming the file, no
# output written). Nothing may reach standard output.
# usage: cli.sh PROG PATHPROF
set -u
prog=$1 pp=$2
# Meson passes build-tree paths relative to where the test starts.
case $prog in /*) ;; *) prog=$PWD/$prog ;; esac
case $pp in /*) ;; *) pp=$PWD/$pp ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-misuse-cli.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
fails=0

# expect STATUS LINE ARGS...: exactly LINE on stderr, nothing on stdout.
expect() {
	want_st=$1 want=$2
	shift 2
	"$pp" "$@" >stdout 2>stderr
	st=$?
	got=$(cat stderr)
	if [ "$st" -ne "$want_st" ] || [ "$got" != "$want" ] || [ -s stdout ]; then
		echo "FAIL: pathprof $*"
		echo "  status $st (want $want_st)"
		echo "  got:  $got"
		echo "  want: $want"
		fails=$((fails + 1))
	fi
}

PATHPROF_OUT=$work/a.pathprof "$prog" >/dev/null 2>&1 || { echo "FAIL: cannot run $prog"; exit 1; }
cp a.pathprof b.pathprof

# Top level.
expect 2 "pathprof: unknown option '--frob' (see 'pathprof --help')" --frob
expect 2 "pathprof: 'frob' is not a pathprof command (see 'pathprof --help')" frob
expect 2 "pathprof: 'frob' is not a pathprof command (see 'pathprof --help')" help frob
# serve --listen: HOST:PORT with a port getaddrinfo would wrap (99999 is 34463)
if "$pp" serve --help >/dev/null 2>&1; then
	expect 2 "pathprof: serve: --listen: '127.0.0.1' is not HOST:PORT" serve --listen 127.0.0.1
	expect 2 "pathprof: serve: --listen: the port: '99999' is too large (at most 65535)" serve --listen 127.0.0.1:99999
	expect 2 "pathprof: serve: --listen: the port: 'http' is not a non-negative integer" serve --listen 127.0.0.1:http
fi

# The same mistakes in every subcommand.
for cmd in report diff merge top replay run; do
	see="(see 'pathprof $cmd --help')"
	expect 2 "pathprof: $cmd: unknown option '--bogus' $see" "$cmd" --bogus a.pathprof
	expect 2 "pathprof: $cmd: unknown option '--bogus' $see" "$cmd" --bogus=1 a.pathprof
	expect 2 "pathprof: $cmd: unknown option '-Z' $see" "$cmd" -Z a.pathprof
	expect 2 "pathprof: $cmd: option '--help' takes no value $see" "$cmd" --help=yes
done
for cmd in report diff merge replay; do
	expect 2 "pathprof: $cmd: option '-o' needs a value (see 'pathprof $cmd --help')" "$cmd" a.pathprof -o
	expect 2 "pathprof: $cmd: option '--output' needs a value (see 'pathprof $cmd --help')" \
		"$cmd" a.pathprof --output
done
for opt in --top --sort --min-count --min-time --format --value; do
	expect 2 "pathprof: report: option '$opt' needs a value (see 'pathprof report --help')" \
		report a.pathprof "$opt"
done
for opt in --format --min-change --top; do
	expect 2 "pathprof: diff: option '$opt' needs a value (see 'pathprof diff --help')" \
		diff a.pathprof b.pathprof "$opt"
done
for opt in -i --interval --top --sort -n --iterations --format; do
	expect 2 "pathprof: top: option '$opt' needs a value (see 'pathprof top --help')" top x "$opt"
done
for opt in --out --timing --xray --top --format; do
	expect 2 "pathprof: run: option '$opt' needs a value (see 'pathprof run --help')" run "$opt"
done
expect 2 "pathprof: top: option '--once' takes no value (see 'pathprof top --help')" top --once=1 x
expect 2 "pathprof: replay: option '--chunks' takes no value (see 'pathprof replay --help')" \
	replay --chunks=1 t
expect 2 "pathprof: report: unknown option '-x' (see 'pathprof report --help')" \
	report --format=json -xh a.pathprof

# Operands.
expect 2 "pathprof: report: no profile file given (see 'pathprof report --help')" report
expect 2 "pathprof: report: one profile file expected, got 2 (see 'pathprof report --help')" \
	report a.pathprof b.pathprof
for args in "" a.pathprof "a.pathprof b.pathprof a.pathprof"; do
	# shellcheck disable=SC2086 # the operands are the words of $args
	expect 2 "pathprof: diff: needs two profiles or directories, A and B (see 'pathprof diff --help')" \
		diff $args
done
expect 2 "pathprof: merge: no profile files given (see 'pathprof merge --help')" merge -o m.pathprof
expect 2 "pathprof: merge: no output given: use -o OUT (see 'pathprof merge --help')" merge a.pathprof
# (top without a target watches this user's live profiled process: a choice
# that depends on what else runs here, tested in tests/live: test_pick)
expect 2 "pathprof: top: one segment name or pid expected, got 2" top x y
expect 2 "pathprof: replay: no trace file given (see 'pathprof replay --help')" replay
expect 2 "pathprof: replay: one trace file at a time ('b' is extra)" replay a b
expect 2 "pathprof: run: no program given (see 'pathprof run --help')" run
expect 2 "pathprof: run: no program given (see 'pathprof run --help')" run --

# run refuses a profile it could not write before starting the program.
expect 2 "pathprof: run: cannot write the profile $work/no/dir/p.pathprof: $work/no/dir: No such file or directory" \
	run --out="$work/no/dir/p.pathprof" -- "$prog"
PATHPROF_OUT=$work/no/p.pathprof expect 2 \
	"pathprof: run: cannot write the profile $work/no/p.pathprof: $work/no: No such file or directory" run -- "$prog"
unset PATHPROF_OUT # dash keeps an assignment made before a function call
expect 2 "pathprof: run: the profile $work is a directory: name a file" run --out="$work" -- "$prog"
expect 127 "pathprof: run: cannot run '$work/no-such-program': No such file or directory" \
	run --out="$work/p.pathprof" -- "$work/no-such-program"

# top on a name with no live segment (a profile file is not one).
expect 1 "pathprof: /pp-misuse-none.pathprof: no live segment of that name in /dev/shm (is the program running with PATHPROF_SHM=pp-misuse-none.pathprof?)" \
	top --once pp-misuse-none.pathprof
expect 1 "pathprof: a/b: cannot open: No such file or directory" top --once a/b
# a recording's file given to top: named, with the command that reads it
expect 1 "pathprof: /a.pathprof: no live segment of that name; the file a.pathprof is a pathprof profile ('pathprof report' reads it)" \
	top --once a.pathprof
expect 1 "pathprof: recover: a/b: cannot open: No such file or directory" recover a/b
expect 1 "pathprof: recover: /no-such-segment: no live segment of that name in /dev/shm (is the program running with PATHPROF_SHM=no-such-segment?)" recover no-such-segment
expect 2 "pathprof: recover: expected one segment name, pid or file (see 'pathprof recover --help')" recover

# Bad option values.
expect 2 "pathprof: report: --top: 'ten' is not a non-negative integer" report --top ten a.pathprof
expect 2 "pathprof: report: --top: '-1' is not a non-negative integer" report --top=-1 a.pathprof
expect 2 "pathprof: report: --sort: 'name' is not 'count' or 'time'" report --sort name a.pathprof
expect 2 "pathprof: run: --timing: 'fast' is not 'on', 'off', 'sample:N' (0 < N < 2147483648) or 'burst[:N]' (0 < N <= 1000)" \
	run --timing=fast -- true
expect 2 "pathprof: top: --iterations: '-1' is not a non-negative integer" top -n -1 x

# A profile from a newer pathprof: the reader names the file and stops.
cp a.pathprof new.pathprof
printf '\004' | dd of=new.pathprof bs=1 seek=8 conv=notrunc 2>/dev/null
newer="written by format 4; this pathprof reads formats 2 to 3"
for fmt in text json paths folded dot html pprof; do
	expect 1 "pathprof: new.pathprof: $newer" report --format "$fmt" new.pathprof
done
expect 1 "pathprof: new.pathprof: $newer" report -o out.txt new.pathprof
[ -e out.txt ] && { echo "FAIL: report created its output for a newer profile"; fails=$((fails + 1)); }
expect 1 "pathprof: new.pathprof: $newer" merge a.pathprof new.pathprof -o m.pathprof
expect 1 "pathprof: new.pathprof: $newer" merge new.pathprof a.pathprof -o m.pathprof
[ -e m.pathprof ] && { echo "FAIL: merge wrote an output from a newer profile"; fails=$((fails + 1)); }
expect 1 "pathprof: new.pathprof: $newer" diff a.pathprof new.pathprof
expect 1 "pathprof: new.pathprof: $newer" diff new.pathprof a.pathprof
mkdir runs-a runs-b
cp a.pathprof runs-a/r1.pathprof
cp a.pathprof runs-b/r1.pathprof
cp new.pathprof runs-b/r2.pathprof
expect 1 "pathprof: runs-b/r2.pathprof: $newer" diff runs-a runs-b
printf '\377\377\377\377' | dd of=new.pathprof bs=1 seek=8 conv=notrunc 2>/dev/null
expect 1 "pathprof: new.pathprof: written by format 4294967295; this pathprof reads formats 2 to 3" \
	report new.pathprof
# An older one (format 1: per-path segments): one line, no guess at its times.
printf '\001\000\000\000' | dd of=new.pathprof bs=1 seek=8 conv=notrunc 2>/dev/null
expect 1 "pathprof: new.pathprof: written by format 1; this pathprof reads formats 2 to 3" \
	report new.pathprof

# A trace from a newer pathprof.
PATHPROF_TRACE=$work/a.trace PATHPROF_OUT=$work/t.pathprof "$prog" >/dev/null 2>&1
cp a.trace new.trace
printf '\007' | dd of=new.trace bs=1 seek=8 conv=notrunc 2>/dev/null
expect 1 "pathprof: new.trace: written by a newer pathprof: trace version 7; this pathprof reads version 3" \
	replay new.trace -o r.pathprof
[ -e r.pathprof ] && { echo "FAIL: replay wrote an output from a newer trace"; fails=$((fails + 1)); }

# Inputs that are not profiles, answered from their first bytes: a device
# is refused unread, a sparse 10 GiB file and a 3 GiB one with a lying
# header get one line without being read whole (the readers map files).
for cmd in "report" "merge -o m.pathprof a.pathprof" "diff a.pathprof"; do
	# shellcheck disable=SC2086 # cmd is words
	expect 1 "pathprof: /dev/zero: not a regular file or a pipe (use '-' for standard input)" $cmd /dev/zero
done
expect 1 "pathprof: /dev/zero: not a regular file or a pipe (use '-' for standard input)" replay /dev/zero -o r.pathprof
truncate -s 10G sparse.bin
expect 1 "pathprof: sparse.bin: not a pathprof profile (bad magic)" report sparse.bin
expect 1 "pathprof: sparse.bin: not a pathprof trace (bad magic)" replay sparse.bin -o r.pathprof
printf 'PATHPROF\002\000\000\000\020\000\000\000\001\000\000\000\001\000\000\000\377\377\377\377\377\377\377\177' >lying.bin
truncate -s 3G lying.bin
start=$(date +%s)
expect 1 "pathprof: lying.bin: truncated in section META at byte 3221225472 (the section at byte 16 declares 9223372036854775807 payload bytes)" report lying.bin
[ $(($(date +%s) - start)) -le 2 ] || { echo "FAIL: a 3 GiB lying file took more than 2 s"; fails=$((fails + 1)); }
rm -f sparse.bin lying.bin
# '-' is standard input: a profile through a pipe reads as from its file.
"$pp" report --format paths a.pathprof >want.paths
"$pp" report --format paths - <a.pathprof >got.paths 2>stderr ||
	{ echo "FAIL: report - from a pipe: $(cat stderr)"; fails=$((fails + 1)); }
cmp -s want.paths got.paths || { echo "FAIL: report - differs from report FILE"; fails=$((fails + 1)); }
head -c 100000 /dev/zero >zeros
expect 1 "pathprof: -: not a pathprof profile (bad magic)" report - <zeros
# A recording of another kind is named, with the command that reads it,
# from a file and through a pipe.
for cmd in "report" "merge -o m.pathprof a.pathprof" "diff a.pathprof"; do
	# shellcheck disable=SC2086 # cmd is words
	expect 1 "pathprof: a.trace: a pathprof trace, not a profile ('pathprof replay TRACE -o FILE' makes one of it)" $cmd a.trace
done
expect 1 "pathprof: -: a pathprof trace, not a profile ('pathprof replay TRACE -o FILE' makes one of it)" report - <a.trace
expect 1 "pathprof: a.pathprof: a pathprof profile, not a trace ('pathprof report' reads it)" replay a.pathprof -o r.pathprof
expect 1 "pathprof: ./a.trace: a pathprof trace ('pathprof replay TRACE -o FILE' makes a profile of it)" top --once ./a.trace

[ "$fails" -eq 0 ] || { echo "cli.sh: $fails check(s) failed"; exit 1; }
echo "cli.sh: ok"
