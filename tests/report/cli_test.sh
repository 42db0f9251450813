#!/bin/sh
# CLI behaviour of `pathprof report`: exit statuses (0 ok, 1 bad input or
# write error, 2 usage), exactly one "pathprof: ..." line on stderr for each
# error, and the canonical listing of a profile written by pp__profile_write.
# usage: cli_test.sh PATHPROF TEST_REPORT EXPECTED_DIR WORK_DIR
set -u
pp=$1 tr=$2 exp=$3 dir=$4/cli-test.$$
mkdir -p "$dir" || exit 1
trap 'rm -rf "$dir"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run STATUS STDERR-LINE CMD...: expect exit STATUS and, when STDERR-LINE is
# not empty, exactly that one line on stderr (a '*' suffix matches a prefix).
run() {
	want=$1 line=$2
	shift 2
	"$@" >"$dir/out" 2>"$dir/err"
	got=$?
	[ "$got" = "$want" ] || fail "'$*': exit $got, expected $want"
	if [ -n "$line" ]; then
		n=$(wc -l <"$dir/err")
		[ "$n" = 1 ] || fail "'$*': $n lines on stderr, expected 1"
		first=$(head -n 1 "$dir/err")
		case "$first" in
		$line) ;;
		*) fail "'$*': stderr '$first', expected '$line'" ;;
		esac
	elif [ "$want" = 0 ] && [ -s "$dir/err" ]; then
		fail "'$*': unexpected stderr: $(cat "$dir/err")"
	fi
}

# Top level.
run 0 "" "$pp" --version
grep -qx 'pathprof [0-9][0-9.]*' "$dir/out" || fail "--version printed '$(cat "$dir/out")'"
run 0 "" "$pp" --help
grep -q '^  report ' "$dir/out" || fail "--help does not list report"
run 2 "" "$pp"
run 2 "pathprof: 'frob' is not a pathprof command (see 'pathprof --help')" "$pp" frob
run 2 "pathprof: unknown option '--frob' (see 'pathprof --help')" "$pp" --frob
run 1 "pathprof: standard output: write failed: No space left on device" sh -c "'$pp' --help >/dev/full"

# report: help names every option.
run 0 "" "$pp" report --help
for o in --top --sort --min-count --min-time --format -o --output --help; do
	grep -q -- "$o" "$dir/out" || fail "report --help does not explain $o"
done
run 0 "" "$pp" help report

# report: usage errors (status 2), before the file is even opened.
run 2 "pathprof: report: no profile file given (see 'pathprof report --help')" "$pp" report
run 2 "pathprof: report: unknown option '--bogus' (see 'pathprof report --help')" \
	"$pp" report --bogus x.pathprof
run 2 "pathprof: report: unknown option '-x' (see 'pathprof report --help')" "$pp" report -x f
run 2 "pathprof: report: option '--top' needs a value (see 'pathprof report --help')" \
	"$pp" report x.pathprof --top
run 2 "pathprof: report: --top: 'ten' is not a non-negative integer" "$pp" report --top ten f
run 2 "pathprof: report: --top: '-1' is not a non-negative integer" "$pp" report --top=-1 f
run 2 "pathprof: report: --top: '4294967296' is too large (at most 4294967295)" \
	"$pp" report --top 4294967296 f
run 2 "pathprof: report: --min-count: '' is not a non-negative integer" "$pp" report --min-count= f
run 2 "pathprof: report: --min-time: '1h' is not a duration (a number with ns, us, ms or s; no unit: ns)" "$pp" report --min-time 1h f
run 2 "pathprof: report: --min-time: '-1ms' is not a duration (a number with ns, us, ms or s; no unit: ns)" "$pp" report --min-time -1ms f
run 2 "pathprof: report: --sort: 'size' is not 'count' or 'time'" "$pp" report --sort size f
run 2 "pathprof: report: --format: 'xml' is not 'text', 'json', 'paths', 'folded', 'dot', 'html', 'pprof', 'waitfor' or 'flat'" "$pp" report --format xml f
run 2 "pathprof: report: one profile file expected, got 2 (see 'pathprof report --help')" \
	"$pp" report a b

# report: bad input files (status 1), one line naming the file.
run 1 "pathprof: $dir/missing.pathprof: *" "$pp" report "$dir/missing.pathprof"
printf 'not a profile at all\n' >"$dir/junk"
run 1 "pathprof: $dir/junk: *" "$pp" report "$dir/junk"
: >"$dir/empty"
run 1 "pathprof: $dir/empty: *" "$pp" report "$dir/empty"
[ -s "$dir/out" ] && fail "a bad input file produced output"

# A real profile file, written by the profile writer.
if ! "$tr" --write-profile "$dir/p.pathprof"; then
	fail "test_report --write-profile could not write a profile"
else
	run 0 "" "$pp" report --format paths "$dir/p.pathprof"
	cmp -s "$dir/out" "$exp/timed.paths" || fail "report --format paths: got
$(cat "$dir/out")"
	# Filters apply to the listing; --top and --sort do not.
	run 0 "" "$pp" report --format=paths --min-count 10 --top 1 --sort time "$dir/p.pathprof"
	cmp -s "$dir/out" "$exp/timed-min.paths" || fail "report --format paths --min-count 10: got
$(cat "$dir/out")"
	run 0 "" "$pp" report -o "$dir/o.txt" --format paths "$dir/p.pathprof"
	[ -s "$dir/out" ] && fail "-o still wrote to stdout"
	cmp -s "$dir/o.txt" "$exp/timed.paths" || fail "-o file differs"
	run 0 "" "$pp" report "$dir/p.pathprof"
	grep -q '^  frontend   raii$' "$dir/out" || fail "text report lacks the frontend line"
	grep -q 'a1a1a1a1a1a1a1a1' "$dir/out" && fail "text report shows test ids, not pp__path_id"
	# Durations take units: each is the same number of nanoseconds.
	for t in 1500000 1500000ns 1500us 1.5ms 0.0015s; do
		run 0 "" "$pp" report --format json --min-time "$t" "$dir/p.pathprof"
		grep -q '"min_time_ns": 1500000,' "$dir/out" || fail "--min-time $t is not 1500000 ns"
	done
	run 0 "" "$pp" report --format json "$dir/p.pathprof"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["paths"]) == 5' \
		"$dir/out" || fail "report --format json is not valid JSON with 5 paths"
	run 0 "" "$pp" report --top 1 "$dir/p.pathprof"
	[ "$(grep -c ' > ' "$dir/out")" = 1 ] || fail "--top 1 showed $(grep -c ' > ' "$dir/out") paths"
	run 1 "pathprof: standard output: write failed: No space left on device" \
		sh -c "'$pp' report '$dir/p.pathprof' >/dev/full"
	run 1 "pathprof: /dev/full: write failed: No space left on device" \
		"$pp" report -o /dev/full "$dir/p.pathprof"
	run 1 "pathprof: $dir/nodir/x: cannot open for writing: *" \
		"$pp" report -o "$dir/nodir/x" "$dir/p.pathprof"
	# No command writes over a recording, the input itself included
	# (select: tests/report/select.sh).
	cp "$dir/p.pathprof" "$dir/q.pathprof"
	for cmd in "report -o $dir/q.pathprof $dir/p.pathprof" "report -o $dir/q.pathprof $dir/q.pathprof" \
		"diff -o $dir/q.pathprof $dir/p.pathprof $dir/p.pathprof"; do
		# shellcheck disable=SC2086 # the command's words
		run 1 "pathprof: $dir/q.pathprof: holds a pathprof recording (a profile, trace or capture), which writing there would destroy: name another file" \
			"$pp" $cmd
		cmp -s "$dir/p.pathprof" "$dir/q.pathprof" || fail "'$cmd' changed the profile"
	done
	# and a profile is written only over a profile or an empty file
	printf 'notes\n' >"$dir/notes.txt"
	run 1 "pathprof: $dir/notes.txt: not a pathprof profile, and left as it was: name another file" \
		"$pp" merge -o "$dir/notes.txt" "$dir/p.pathprof" "$dir/p.pathprof"
	[ "$(cat "$dir/notes.txt")" = notes ] || fail "merge -o replaced a file that was not a profile"
	: >"$dir/empty.pathprof"
	run 0 "" "$pp" merge -o "$dir/empty.pathprof" "$dir/p.pathprof" "$dir/p.pathprof"
	run 0 "" "$pp" merge -o "$dir/empty.pathprof" "$dir/p.pathprof" "$dir/p.pathprof"
fi

# The formats come from one table (report/report.c): every name it lists
# renders a profile, is accepted by run --format, is completed by the shell,
# and is documented; a format added to the table and forgotten elsewhere
# fails here (#28).
root=$(cd "$(dirname "$0")/../.." && pwd)
formats=$("$pp" report --formats)
[ "$(echo "$formats" | wc -l)" -ge 8 ] || fail "report --formats: '$formats'"
for f in $formats; do
	run 0 "" "$pp" report --format "$f" -o "$dir/out.$f" "$dir/p.pathprof"
	grep -q "^ *$f  " "$dir/help" 2>/dev/null || "$pp" report --help >"$dir/help"
	grep -q "^ *$f  " "$dir/help" || fail "report --help does not list $f"
	grep -q "\`$f\`" "$root/docs/reference/cli.md" "$root/docs/reference/reports.md" ||
		fail "format $f is not documented in docs/reference/cli.md or docs/reference/reports.md"
done
# completion: the words bash offers after --format
comp=$(bash -c '. "$1/tools/pathprof.bash"; COMP_WORDS=("$2" report --format ""); COMP_CWORD=3
	_pathprof; printf "%s\n" "${COMPREPLY[@]}"' sh "$root" "$pp")
[ "$comp" = "$formats" ] || fail "completion offers '$comp' after --format, the table '$formats'"
[ "$fails" = 0 ] && echo "cli: all checks passed"
exit $((fails != 0))
