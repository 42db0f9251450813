#!/bin/sh
# Progress of long commands: on a terminal (script(1) gives one) `report` of
# a 100 000-path profile, `merge` and `diff` of several files say where they
# are on stderr, and the line is cleared at the end; with stderr a file
# nothing is written there, and the outputs are the same either way.
# usage: progress.sh PATHPROF MKPROF WORKDIR
set -u
pp=$1 mkprof=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v script >/dev/null || { echo "progress.sh: script(1) is missing (util-linux)"; exit 1; }
"$mkprof" wide100k "$work/big.pathprof" || fail "mkprof wide100k"
"$mkprof" demo "$work/a.pathprof" || fail "mkprof demo"
cp "$work/a.pathprof" "$work/b.pathprof"
mkdir -p "$work/runs" && cp "$work/a.pathprof" "$work/runs/1.pathprof" &&
	cp "$work/a.pathprof" "$work/runs/2.pathprof" || fail "copy runs"

tty() { # NAME COMMAND: run COMMAND with a terminal as stdout and stderr
	script -qec "$2" /dev/null >"$work/$1.tty" 2>&1 || fail "$1 on a terminal: exit $?"
}
tty report "'$pp' report --format pprof -o '$work/tty.pb' '$work/big.pathprof'"
grep -q "pathprof: report: $work/big.pathprof: 100000 paths; writing the report" "$work/report.tty" ||
	fail "report on a terminal shows no progress: $(cat "$work/report.tty")"
grep -q "$(printf '\r\033\\[K')" "$work/report.tty" || fail "report leaves its progress line"
tty merge "'$pp' merge -o '$work/tty.merged' '$work/a.pathprof' '$work/b.pathprof'"
grep -q "merge: reading 2 of 2: $work/b.pathprof" "$work/merge.tty" || fail "merge shows no progress"
grep -q "merge: writing $work/tty.merged" "$work/merge.tty" || fail "merge does not say it writes"
tty diff "'$pp' diff '$work/runs' '$work/runs'"
grep -q "diff: reading 2 of 2: $work/runs/2.pathprof" "$work/diff.tty" ||
	fail "diff shows no progress: $(cat "$work/diff.tty")"

"$pp" report --format pprof -o "$work/file.pb" "$work/big.pathprof" 2>"$work/report.err" ||
	fail "report exit $?"
[ ! -s "$work/report.err" ] || fail "report wrote to a non-terminal stderr: $(cat "$work/report.err")"
cmp -s "$work/tty.pb" "$work/file.pb" || fail "report output differs on a terminal"
"$pp" merge -o "$work/file.merged" "$work/a.pathprof" "$work/b.pathprof" 2>"$work/merge.err" ||
	fail "merge exit $?"
[ ! -s "$work/merge.err" ] || fail "merge wrote to a non-terminal stderr: $(cat "$work/merge.err")"
cmp -s "$work/tty.merged" "$work/file.merged" || fail "merge output differs on a terminal"
[ "$fails" -eq 0 ] && echo "progress: ok"
exit "$fails"
