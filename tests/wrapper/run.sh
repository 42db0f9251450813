#!/bin/sh
# `pathprof run`: sets the environment, prints the report after the program
# exits, keeps the profile, and exits with the program's status (128+N for a
# signal, 127 when it cannot start, 2 for a bad command line).
# usage: run.sh PATHPROF WRAPPER BUILDROOT SRCDIR
# shellcheck disable=SC2015 # 'A && B || fail': fail when either step fails
set -u
pathprof=$1 wrapper=$2 build=$3 srcdir=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PKG_CONFIG_PATH=$build/meson-uninstalled
export PKG_CONFIG_PATH
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# Under AddressSanitizer (scripts/sanitize.sh) the runtime's copy that
# writes a profile at a signal switches stacks, and ASan says so on stderr
# ('==PID==WARNING: ...'): those lines are the sanitizer's, not pathprof's.
expect() { # what want-status got-status file want-text
	[ "$3" -eq "$2" ] || fail "$1: status $3, want $2"
	printf '%s\n' "$5" >want
	grep -v -e '^==[0-9]*==' -e '^False positive error reports may follow$' \
		-e '^For details see https://github.com/google/sanitizers/issues/189$' "$4" >got.clean || true
	diff -u want got.clean >/dev/null || { fail "$1: output differs"; diff -u want got.clean; }
}

"$wrapper" --via=cyg gcc -O0 -g "$srcdir/status.c" -o status || { echo "run.sh: build failed"; exit 1; }

"$pathprof" run --format paths -- ./status 3 xx >out 2>err
expect "exit 3, paths" 3 $? out "2|main>work"
[ -s status.pathprof ] || fail "default --out: status.pathprof not kept"

"$pathprof" run --top 5 ./status 0 >out 2>err
st=$?
[ "$st" -eq 0 ] || fail "text report: status $st"
grep -q '^pathprof report' out && grep -q ' main > work$' out || { fail "text report: no header or path"; cat out; }
grep -qx "pathprof: profile kept in status.pathprof ('pathprof report status.pathprof' shows it again)" err ||
	{ fail "text report: no 'profile kept' line"; cat err; }

PATHPROF_OUT=ignored.pathprof "$pathprof" run --timing off --out "o.%p.pathprof" --format paths ./status 7 a b c >out 2>err
expect "--out with %p, --timing off" 7 $? out "4|main>work"
[ ! -e ignored.pathprof ] || fail "--out did not override PATHPROF_OUT"
ls o.*.pathprof >/dev/null 2>&1 || fail "--out with %p: no o.<pid>.pathprof"

"$pathprof" run ./status kill >out 2>err
expect "killed by SIGTERM" 143 $? err "pathprof: run: './status' was killed by signal 15 (Terminated)
pathprof: profile kept in status.pathprof ('pathprof report status.pathprof' shows it again)"
grep -q '^  killed     written at signal 15 (SIGTERM) in thread [1-9]' out && grep -q ' main > work$' out ||
	{ fail "killed by SIGTERM: the report does not say the profile was written at the signal"; cat out; }

# The report to a file: standard output holds only the program's own output.
"$pathprof" run -o report.txt --format paths ./status 4 abc >out 2>err
expect "-o FILE" 4 $? report.txt "2|main>work"
[ ! -s out ] || fail "-o FILE: the report also went to standard output: $(cat out)"
# -o naming the profile itself (a user who took it for the profile's):
# refused before the program runs, the last profile left as it was; and a
# report never overwrites a profile, whichever command writes it.
cp status.pathprof kept.pathprof
"$pathprof" run -o status.pathprof ./status 4 abc >out 2>err
expect "-o the profile" 2 $? err "pathprof: run: -o status.pathprof names the profile the program writes; -o is where the report goes, --out where the profile does"
cmp -s status.pathprof kept.pathprof || fail "-o the profile: the profile changed"
"$pathprof" run --out "$work/./kept2.pathprof" -o kept2.pathprof ./status 4 abc >out 2>err
expect "-o the profile, another spelling" 2 $? err "pathprof: run: -o kept2.pathprof names the profile the program writes; -o is where the report goes, --out where the profile does"
"$pathprof" report -o kept.pathprof status.pathprof >out 2>err
expect "report -o over a profile" 1 $? err "pathprof: kept.pathprof: holds a pathprof recording (a profile, trace or capture), which writing there would destroy: name another file"
cmp -s status.pathprof kept.pathprof || fail "report -o over a profile: the profile changed"
# --out naming a file that is not a profile: refused before the run (the
# runtime would leave it and write NAME.1, where run would not look)
printf 'my notes\n' >notes.txt
"$pathprof" run --out notes.txt ./status 4 abc >out 2>err
expect "--out not a profile" 2 $? err "pathprof: run: notes.txt is not a pathprof profile, which the profile would replace: name another file with --out"
[ "$(cat notes.txt)" = "my notes" ] && [ ! -e notes.txt.1 ] || fail "--out not a profile: the file changed or the program ran"
# pprof is binary: refused on the shared standard output, written with -o.
"$pathprof" run --format pprof ./status 0 >out 2>err
expect "pprof without -o" 2 $? err "pathprof: run: --format pprof is binary and the program's output shares standard output: write it with -o FILE"
"$pathprof" run --format pprof -o prof.pb.gz ./status 0 a >out 2>err
[ "$?" -eq 0 ] && [ "$(od -An -tx1 -N2 prof.pb.gz | tr -d ' ')" = 1f8b ] || fail "pprof with -o: no gzip file"

"$pathprof" run -- ./no-such-program >out 2>err
expect "missing program" 127 $? err "pathprof: run: cannot run './no-such-program': No such file or directory"

"$pathprof" run --out plain.pathprof -- sh -c 'exit 5' >out 2>err
expect "program without pathprof" 5 $? err "pathprof: run: 'sh' wrote no profile to plain.pathprof: was it built with a pathprof injector (pathprof-cc --via=..., docs/guides/getting-started-cyg.md) and did any gate run?"

"$pathprof" run --timing fast -- ./status 0 >out 2>err
expect "bad --timing" 2 $? err "pathprof: run: --timing: 'fast' is not 'on', 'off', 'sample:N' (0 < N < 2147483648) or 'burst[:N]' (0 < N <= 1000)"
"$pathprof" run --format pdf -- ./status 0 >out 2>err
expect "bad --format" 2 $? err "pathprof: run: --format: 'pdf' is not 'text', 'json', 'paths', 'folded', 'dot', 'html', 'pprof', 'waitfor' or 'flat'"
"$pathprof" run >out 2>err
expect "no program" 2 $? err "pathprof: run: no program given (see 'pathprof run --help')"

# Child processes' profiles (NAME.PID, or the %p name with their pid):
# counted in one line with how to add them up; an earlier run's are not
cat >forks.c <<'EOC'
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static int work(int k) { return k + 1; }
int main(int argc, char **argv)
{
	for (int i = 0; i < atoi(argv[1]); i++)
		if (fork() == 0)
			return work(i) - i - 1;
	while (wait(NULL) > 0)
		;
	return work(0) - 1;
}
EOC
"$wrapper" --via=cyg gcc -O0 forks.c -o forks || fail "build forks"
"$pathprof" run --format paths ./forks 2 >out 2>err
expect "children" 0 $? err "pathprof: its child processes wrote 2 more profiles, forks.pathprof.<pid> ('pathprof merge -o all.pathprof forks.pathprof forks.pathprof.*' adds them up)"
"$pathprof" run --format paths ./forks 1 >out 2>err
expect "one child, two older" 0 $? err "pathprof: its child processes wrote 1 more profile, forks.pathprof.<pid> ('pathprof merge -o all.pathprof forks.pathprof forks.pathprof.*' adds them up)"
"$pathprof" merge -o all.pathprof forks.pathprof forks.pathprof.* && "$pathprof" report --format paths all.pathprof >out ||
	fail "children: merge"
[ "$(cat out)" = "4|main>work" ] || fail "children: merged $(cat out)"
"$pathprof" run --out 'o.%p.pathprof' --format paths ./forks 3 >out 2>err
expect "children with %p" 0 $? err "pathprof: its child processes wrote 3 more profiles, o.<pid>.pathprof ('pathprof merge -o all.pathprof o.*.pathprof' adds them up)"

# A profiled program in which no gate runs: the report says so, not just 0
printf '%s\n' '__attribute__((no_instrument_function)) int main(void) { return 0; }' >nogate.c
"$wrapper" --via=cyg gcc -O0 nogate.c -o nogate || fail "build nogate"
"$pathprof" run -- ./nogate >out 2>err
st=$?
[ "$st" -eq 0 ] && grep -q '^  note       no gate ran: nothing was counted' out ||
	{ fail "no gate ran: status $st, no note"; cat out err; }

# Selections: --exclude-functions and --functions compiled into the program
# by the wrapper (gcc and clang alike), whole names only (lex, not
# lexer_start), and run --root / --functions; the counts are
# tests/frontends/select.expected's. Where the wrapper applies the list at
# run time (clang, or gcc without the GCC plugin), PATHPROF_FUNCTIONS
# overrides it; where gcc applied it at compile time
# (frontends/cyg/gcc_select.cc), a function left out has no hooks, so no
# run-time selection brings it back, and one asking for it alone gates
# nothing and says so.
roots=$srcdir/../../examples/roots.c
# Under gcc's AddressSanitizer (scripts/sanitize.sh asan-gcc) the runtime
# carries gcc's ASan runtime, which a clang-built program cannot share.
gcc_asan=
ldd "$build/runtime/libpathprof.so" 2>/dev/null | grep -q 'libasan\.so' && gcc_asan=1
for c in gcc clang; do
	command -v "$c" >/dev/null 2>&1 || continue
	[ "$c" = clang ] && [ -n "$gcc_asan" ] && continue
	"$wrapper" --via=cyg --exclude-functions=lex "$c" -O2 -DFEED_PATHPROF "$roots" -o sel-$c ||
		{ fail "build with --exclude-functions ($c)"; continue; }
	"$pathprof" run --format paths -- ./sel-$c 100 >out 2>err
	expect "--exclude-functions=lex ($c)" 0 $? out "20|serve>handle_request>handle_retry
100|serve>handle_request>lexer_start
100|serve>poll_input
1|shutdown_server"
	if [ "$c" = gcc ] && "$wrapper" --via=cyg --functions=x --show gcc -c x.c | grep -q -- ' -fplugin='; then
		gplug=1
		PATHPROF_FUNCTIONS=lex "$pathprof" run --format paths -- ./sel-$c 100 >out 2>err
		st=$?
		[ "$st" -eq 0 ] && [ ! -s out ] || { fail "PATHPROF_FUNCTIONS after gcc's list: status $st, paths"; cat out; }
		grep -qx "pathprof: PATHPROF_FUNCTIONS=lex: no function that ran matched; nothing was gated" err ||
			{ fail "PATHPROF_FUNCTIONS=lex after gcc's list: no line saying so"; cat err; }
		# a malformed list stops the compiler with the plugin's line first
		"$wrapper" --via=cyg --functions='lex[' gcc -O2 "$roots" -o bad-list 2>err && fail "a malformed list compiled"
		[ "$(head -n 1 err)" = "cc1: error: pathprof-gcc-select: the function list: 'lex[' has a '[' that is never closed" ] ||
			{ fail "a malformed list: $(head -n 1 err)"; }
	else
		PATHPROF_FUNCTIONS=lex "$pathprof" run --format paths -- ./sel-$c 100 >out 2>err
		expect "PATHPROF_FUNCTIONS over the built-in list ($c)" 0 $? out "120|lex"
	fi
done
"$wrapper" --via=cyg --functions='lex*,handle_request' gcc -O2 -DFEED_PATHPROF "$roots" -o sel-f ||
	fail "build with --functions"
"$pathprof" run --format paths -- ./sel-f 100 >out 2>err
expect "--functions" 0 $? out "20|handle_request>lex
100|handle_request>lexer_start>lex"
"$pathprof" run --format paths --root 'handle_*' --functions '*,!poll_input' -- ./sel-gcc 100 >out 2>err
st=$?
if [ -n "${gplug-}" ]; then
	expect "run --root --functions, lex compiled without hooks" 0 $st out "20|handle_request>handle_retry
100|handle_request>lexer_start
1|shutdown_server"
else
	expect "run --root --functions" 0 $st out "20|handle_request>handle_retry>lex
100|handle_request>lexer_start>lex
1|shutdown_server"
fi
"$pathprof" run --root 'handle_[' -- ./sel-gcc 100 >out 2>err
expect "bad --root" 2 $? err "pathprof: run: --root 'handle_[': 'handle_[' has a '[' that is never closed"

[ "$fails" -eq 0 ] || { echo "run.sh: $fails check(s) failed"; exit 1; }
