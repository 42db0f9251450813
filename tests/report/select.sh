#!/bin/sh
# pathprof select on a real run: bench/compensate.c (200 000 calls of a 5 ns
# helper, 100 spins of 20 us) built through VIA and run timed; with a 5 %
# budget the helper (its gates cost several times its work) is dropped and
# the spins, main and the two phases are kept, in every output form; the
# next run with the list (PATHPROF_XRAY for xray, PATHPROF_FUNCTIONS
# otherwise; raii also rebuilt with pathprof-cc --exclude-functions=@FILE)
# has no helper node and the same phases. A profile without
# times, or without the measured gate cost, is refused in one line.
# usage: select.sh VIA CC SRCROOT PATHPROF WRAPPER WORKDIR
script=select
# shellcheck source=tests/report/via_common.sh
. "$(dirname "$0")/via_common.sh"
# selects WANT ARGS...: `pathprof select ARGS` prints exactly WANT
selects() {
	want=$1
	shift
	got=$("$pp" select "$@" 2>/dev/null)
	[ "$got" = "$want" ] || fail "select $*: '$got', want '$want': $("$pp" select "$@" 2>&1 >/dev/null)"
}
"$wrapper" --via="$via" $extra "$cc" -O2 "$src/bench/compensate.c" -o prog >build.log 2>&1 || fail "build: $(cat build.log)"
PATHPROF_TIMING=on PATHPROF_XRAY=all PATHPROF_OUT=all.pathprof ./prog >/dev/null || fail "run"
"$pp" select all.pathprof >drop.txt 2>sel.err || fail "select: $(cat sel.err)"
grep -qx helper drop.txt || fail "helper not dropped: $(cat drop.txt); $(cat sel.err)"
for keep in main many_calls long_spins spin; do
	grep -qx "$keep" drop.txt && fail "$keep dropped"
done
grep -q "^pathprof: select: [0-9]* of [0-9]* functions cost more than 5% of the work they hold" sel.err ||
	fail "summary: $(cat sel.err)"
"$pp" select all.pathprof --format keep >keep.txt 2>/dev/null || fail "--format keep"
for keep in main many_calls long_spins spin; do
	grep -qx "$keep" keep.txt || fail "$keep not kept: $(cat keep.txt)"
done
grep -qx helper keep.txt && fail "helper kept"
list=$("$pp" select all.pathprof --format exclude 2>/dev/null)
case $list in '!'*helper*) ;; *) fail "--format exclude: '$list'" ;; esac
if [ "$via" = xray ]; then
	PATHPROF_TIMING=on PATHPROF_XRAY="$list" PATHPROF_OUT=sel.pathprof ./prog >/dev/null || fail "rerun"
else
	PATHPROF_TIMING=on PATHPROF_FUNCTIONS="$list" PATHPROF_OUT=sel.pathprof ./prog >/dev/null || fail "rerun"
fi
nodes_of() {
	"$pp" report --format json "$1" | python3 -c '
import json, sys
print(" ".join(sorted(">".join(n["path"]) for n in json.load(sys.stdin)["nodes"])))'
}
nodes=$(nodes_of sel.pathprof)
case " $nodes " in *helper*) fail "helper still gated: $nodes" ;; esac
# XRay re-armed with the list: the second pass over its profile keeps the
# list as it was (a run that selects at run time measures no gate cost)
if [ "$via" = xray ]; then
	printf '%s\n' "$list" >xl.txt
	selects "$list" sel.pathprof --format exclude --previous xl.txt
fi
[ "$nodes" = "main main>long_spins main>long_spins>spin main>many_calls" ] || fail "nodes: $nodes"
# raii: the list rebuilds the program without the dropped gates, which the
# compiler removes (one site fewer: the helper's; the raii archive's own two,
# frontends/raii/cost.c, stay)
if [ "$via" = raii ]; then
	"$wrapper" --via=raii --exclude-functions=@drop.txt "$cc" -O2 "$src/bench/compensate.c" -o prog-sel \
		>build.log 2>&1 || fail "rebuild with the list: $(cat build.log)"
	before=$(nm prog | grep -c 'pp__site_') after=$(nm prog-sel | grep -c 'pp__site_')
	[ "$((before - after))" = 1 ] || fail "gate sites before/after the list: $before/$after"
	PATHPROF_TIMING=on PATHPROF_OUT=rebuilt.pathprof ./prog-sel >/dev/null || fail "rebuilt run"
	nodes=$(nodes_of rebuilt.pathprof)
	[ "$nodes" = "main main>long_spins main>long_spins>spin main>many_calls" ] || fail "rebuilt nodes: $nodes"
	# the second pass over the rebuilt program: nothing left to drop, the
	# first list carried over whole
	"$pp" select rebuilt.pathprof --previous drop.txt >again.txt 2>sel3.err || fail "second pass: $(cat sel3.err)"
	cmp -s drop.txt again.txt || fail "second pass: $(cat again.txt) for $(cat drop.txt)"
	grep -q "^pathprof: select: 0 of 4 functions .*, with the list of drop.txt (0 of this profile's functions on it);" sel3.err ||
		fail "second pass summary: $(cat sel3.err)"
	# nothing to drop, without the first list: an empty list of names,
	# which rebuilds with every gate; '*' as an exclude list (an empty
	# PATHPROF_XRAY or PATHPROF_FUNCTIONS would select nothing)
	"$pp" select rebuilt.pathprof >none.txt 2>/dev/null && [ ! -s none.txt ] || fail "nothing to drop: '$(cat none.txt)'"
	selects '*' rebuilt.pathprof --format exclude
	echo '*' >star.txt
	selects '*' rebuilt.pathprof --format exclude --previous star.txt
	selects "$list" all.pathprof --format exclude --previous star.txt
	"$wrapper" --via=raii --exclude-functions=@none.txt "$cc" -O2 "$src/bench/compensate.c" -o prog-none \
		>build.log 2>&1 || fail "rebuild with an empty list: $(cat build.log)"
	[ "$(nm prog-none | grep -c 'pp__site_')" = "$before" ] || fail "an empty list dropped gates"
	PATHPROF_TIMING=on PATHPROF_FUNCTIONS='*' PATHPROF_OUT=star.pathprof ./prog >/dev/null || fail "run with '*'"
	[ "$(nodes_of star.pathprof)" = "$(nodes_of all.pathprof)" ] || fail "'*' did not select every function"
fi
# C++ through cyg: the helper is helper(unsigned long), and its name, as
# select writes it, is never in gcc's list (gcc matches its own spelling,
# without the parameters): left out with a line saying what works instead,
# pathprof-cc --exclude-functions=@FILE. With gcc, where the GCC plugin was
# built (frontends/cyg/gcc_select.cc), the rebuilt helper has no hook call
# at all, and the header says what gcc left out; with clang++ (or gcc without the plugin) the runtime leaves it
# out and patches its two hook calls out of the code. Either way the run
# has no helper node. Before, the gcc list held a name gcc never matched,
# and the wrapper cut any name with a comma in two (bench/README.md, "C++
# through cyg").
hooks_in() { # EXE FUNCTION: the hook calls in FUNCTION's own code
	objdump -d --no-show-raw-insn -C "$1" |
		awk -v f=" <$2>:" 'substr($0, length($0) - length(f) + 1) == f { on = 1; next } /^$/ { on = 0 }
			on && /(call|jmp).*<__cyg_profile_func_(enter|exit)/' |
		wc -l
}
if [ "$via" = cyg ] && [ "$cc" = gcc ]; then
	cxx="$wrapper --via=cyg g++ -x c++ -O2 $src/bench/compensate.c"
	$cxx -o prog++ >build.log 2>&1 || fail "C++ build: $(cat build.log)"
	PATHPROF_TIMING=on PATHPROF_OUT=cxx.pathprof ./prog++ >/dev/null || fail "C++ run"
	"$pp" select cxx.pathprof >cxx.txt 2>/dev/null || fail "C++ select"
	grep -qx 'helper(unsigned long)' cxx.txt || fail "C++: helper not dropped: $(cat cxx.txt)"
	"$pp" select cxx.pathprof --format gcc >cxxg.txt 2>cxxg.err || fail "C++ select --format gcc"
	[ ! -s cxxg.txt ] || fail "C++ --format gcc: '$(cat cxxg.txt)', want nothing gcc would not match"
	grep -qx "pathprof: select: --format gcc: 'helper(unsigned long)' left out (it stays gated): gcc's list cannot name a C++ function; 'pathprof-cc --exclude-functions=@FILE' with --format names can" cxxg.err ||
		fail "C++ --format gcc: $(cat cxxg.err)"
	[ "$(hooks_in prog++ 'helper(unsigned long)')" -gt 0 ] || fail "C++: the gated helper has no hook calls to look for"
	# Under gcc's AddressSanitizer (scripts/sanitize.sh asan-gcc) the runtime
	# carries gcc's ASan runtime, which a clang++-built program cannot share.
	gcc_asan=
	ldd "$(dirname "$(command -v "$pp")")/../runtime/libpathprof.so" 2>/dev/null | grep -q 'libasan\.so' && gcc_asan=1
	for cxxc in g++ clang++; do
		command -v $cxxc >/dev/null || continue
		[ $cxxc = clang++ ] && [ -n "$gcc_asan" ] && continue
		# bench/budget.c: the same helper, called long enough (about 40 ms)
		# for the run-time way's patcher, whose first round follows its
		# symbolizer's start by 10-20 ms here, to patch before the exit
		# (compensate.c's 12 ms run left it unpatched 2 times in 3)
		"$wrapper" --via=cyg --exclude-functions=@cxx.txt $cxxc -x c++ -O2 "$src/bench/budget.c" \
			-o prog++sel >build.log 2>&1 || fail "C++ rebuild with the list ($cxxc): $(cat build.log)"
		PATHPROF_TIMING=on PATHPROF_OUT=cxxsel.pathprof ./prog++sel >/dev/null || fail "C++ rerun ($cxxc)"
		case " $(nodes_of cxxsel.pathprof) " in *helper*) fail "C++ ($cxxc): helper still gated: $(nodes_of cxxsel.pathprof)" ;; esac
		uses_plugin=
		"$wrapper" --via=cyg --exclude-functions=x --show g++ -c x.cpp | grep -q -- ' -fplugin=[^ ]*pathprof_gcc_select\.so ' &&
			uses_plugin=1
		# built (meson says so) means used: a silent fall-back would test the other way
		[ $cxxc != g++ ] || [ "${PP_GCC_SELECT:-0}" = 0 ] || [ -n "$uses_plugin" ] ||
			fail "C++ (g++): the GCC plugin was built but the wrapper does not load it"
		if [ $cxxc = g++ ] && [ -n "$uses_plugin" ]; then
			[ "$(hooks_in prog++sel 'helper(unsigned long)')" = 0 ] || fail "C++ (g++): the helper was compiled with hook calls"
			# recorded, not applied again: no hook call is patched
			[ "$("$pp" report cxxsel.pathprof | grep -A1 '^  selection')" = '  selection  compiled out by gcc (pathprof-cc)=!helper(unsigned long)' ] ||
				fail "C++ (g++): the selection line: $("$pp" report cxxsel.pathprof | grep -A1 '^  selection')"
		else
			"$pp" report cxxsel.pathprof | grep -qx '             hook calls of the functions it leaves out patched out of the code at 2 sites (0 left)' ||
				fail "C++ ($cxxc): the helper's hook calls: $("$pp" report cxxsel.pathprof | grep -A1 '^  selection')"
		fi
	done
fi
# --previous: the new list holds the old one's entries as written, then
# what this profile adds (none here but the helper, which the old list
# already has): 'gone' (a function this run never gated, as after a
# rebuild without it) and 'spin' (kept by the budget, dropped by the old
# list) stay, the helper is not listed twice; keep: the old list's globs
# that name no function of this run, then the kept functions by name
printf 'gone\nhelper\nspin\n' >prev.txt
"$pp" select all.pathprof --previous prev.txt >drop2.txt 2>sel2.err || fail "--previous: $(cat sel2.err)"
[ "$(tr '\n' ' ' <drop2.txt)" = "gone helper spin " ] || fail "--previous names: $(cat drop2.txt)"
grep -q ", with the list of prev.txt (2 of this profile's functions on it);" sel2.err ||
	fail "--previous summary: $(cat sel2.err)"
printf '!gone,!spin\n' >prev.txt
selects '!gone,!spin,!helper' all.pathprof --format exclude --previous prev.txt
printf 'gone,spin\n' >prev.txt
selects 'gone,spin,helper' all.pathprof --format gcc --previous prev.txt
# gcc's entries drop by substring: 'help' already drops the helper
printf 'help\n' >prev.txt
selects help all.pathprof --format gcc --previous prev.txt
printf 'main\nmany_*\nlong_spins\nhelper\ngone*\n' >prev.txt
[ "$("$pp" select all.pathprof --format keep --previous prev.txt 2>/dev/null | head -1)" = "gone*" ] &&
	[ "$("$pp" select all.pathprof --format keep --previous prev.txt 2>/dev/null | sort | tr '\n' ' ')" = "gone* long_spins main many_calls " ] ||
	fail "--previous keep: $("$pp" select all.pathprof --format keep --previous prev.txt 2>&1)"
# a list of another form, or none, is refused in one line
printf 'helper,spin\n' >prev.txt
"$pp" select all.pathprof --format exclude --previous prev.txt >/dev/null 2>e3 && fail "--previous: a gcc list taken for exclude"
[ "$(wc -l <e3)" = 1 ] && grep -q "^pathprof: select: --previous: prev.txt: 'helper' is not an entry of a --format exclude list" e3 ||
	fail "--previous of another form: $(cat e3)"
"$pp" select all.pathprof --previous missing.txt >/dev/null 2>e4 && fail "--previous: a missing list accepted"
[ "$(cat e4)" = "pathprof: select: --previous: missing.txt: cannot open: No such file or directory" ] ||
	fail "--previous missing: $(cat e4)"
# its output: never over a recording, the profile read included; a failed
# write is the one line, without the summary
cp all.pathprof copy.pathprof
"$pp" select copy.pathprof -o copy.pathprof >/dev/null 2>e5 && fail "-o over the profile accepted"
[ "$(cat e5)" = "pathprof: copy.pathprof: holds a pathprof recording (a profile, trace or capture), which writing there would destroy: name another file" ] ||
	fail "-o over the profile: $(cat e5)"
cmp -s all.pathprof copy.pathprof || fail "-o over the profile: the profile changed"
"$pp" select all.pathprof -o /dev/full >/dev/null 2>e6 && fail "a failed write succeeded"
[ "$(cat e6)" = "pathprof: /dev/full: write failed: No space left on device" ] || fail "a failed write: $(cat e6)"
# refusals: untimed, and (under a root selection) no measured cost
PATHPROF_TIMING=off PATHPROF_XRAY=all PATHPROF_OUT=off.pathprof ./prog >/dev/null
"$pp" select off.pathprof >/dev/null 2>e1 && fail "an untimed profile was accepted"
grep -q "no times" e1 || fail "untimed: $(cat e1)"
PATHPROF_TIMING=on PATHPROF_XRAY=all PATHPROF_ROOT='main' PATHPROF_OUT=nocost.pathprof ./prog >/dev/null
"$pp" select nocost.pathprof >/dev/null 2>e2 && fail "a profile without the gate cost was accepted"
grep -q "did not measure its gate's cost" e2 || fail "no cost: $(cat e2)"
echo "ok: $via: dropped $(tr '\n' ' ' <drop.txt)"
