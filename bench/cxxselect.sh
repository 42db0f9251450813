#!/bin/sh
# The README's workflow on a C++ program through cyg: simdjson's DOM
# parser (npm package simdjson, its amalgamation; pinned and checked,
# cached in the build dir) driven by bench/cxxparse.cpp. Built with g++
# -O2 plain and through pathprof-c++ --via=cyg (every function gated); one
# timed run of REPS/10 parses gives `pathprof select` its profile, whose
# list (--format names) rebuilds the program with pathprof-c++
# --exclude-functions=@FILE: pathprof's GCC plugin compiles those functions
# without hooks (frontends/cyg/gcc_select.cc), or where it was not built
# the runtime leaves them out and patches their hook calls out of the code
# (docs/guides/selection.md); which one is printed.
# --format gcc names no C++ function (gcc matches its own spelling): its
# line count is printed. Where the pass plugin is built, the same through
# clang++ and --via=plugin: every function gated, select --format keep,
# rebuilt with --plugin-list (the pass then gates only those, at compile
# time). Then interleaved runs of plain, the rebuilt programs counting
# only and timed (REPS parses each), and one run of the every-function
# cyg build counting only; medians of the program's wall time and their
# ratios to the plain build of the same compiler.
# usage: bench/cxxselect.sh BUILD_DIR [RUNS] [REPS]   (default 7, 1000)
set -eu
runs=${2:-7}
reps=${3:-1000}
# shellcheck source=bench/npm_bench.sh
. "$(dirname "$0")/npm_bench.sh"
npm_bench_start cxxselect "$1"
fetch simdjson 0.9.2 e14b0719df38e2ad6c465faf307dcb9182a0029b01ddae07b740b010a9ed46bb
src=$cache/simdjson-0.9.2/simdjson/src
export PKG_CONFIG_PATH="$build/meson-uninstalled"
wrap=$build/tools/pathprof-c++-uninstalled
pp=$build/tools/pathprof
cxx() { # OUT COMPILER-PREFIX...: the driver and the library at -O2
	out=$1
	shift
	"$@" -O2 -std=c++17 -I"$src" "$root/bench/cxxparse.cpp" "$src/simdjson.cpp" -o "$out"
}
echo "cxxselect.sh: building (a few minutes: simdjson.cpp with every function gated)" >&2
cxx "$tmp/plain" g++ &
cxx "$tmp/all" "$wrap" --via=cyg g++
wait
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/all.pathprof" "$tmp/all" $((reps / 10)) >/dev/null
"$pp" select "$tmp/all.pathprof" --binary "$tmp/all" >"$tmp/drop.txt" 2>"$tmp/select.err"
"$pp" select "$tmp/all.pathprof" --binary "$tmp/all" --format gcc >"$tmp/drop-gcc.txt" 2>/dev/null
cxx "$tmp/selected" "$wrap" --via=cyg --exclude-functions=@"$tmp/drop.txt" g++
plugin=
if [ -f "$build/frontends/plugin/pathprof-plugin.so" ]; then
	plugin=1
	cxx "$tmp/plain-clang" clang++ &
	cxx "$tmp/all-plugin" "$wrap" --via=plugin --plugin-mode=all clang++
	wait
	PATHPROF_TIMING=on PATHPROF_OUT="$tmp/allp.pathprof" "$tmp/all-plugin" $((reps / 10)) >/dev/null
	"$pp" select "$tmp/allp.pathprof" --format keep >"$tmp/keep.txt" 2>"$tmp/selectp.err"
	cxx "$tmp/plugin" "$wrap" --via=plugin --plugin-mode=list --plugin-list="$tmp/keep.txt" clang++
fi
ms() { # PROGRAM [VAR=VALUE...]: its wall time in ms
	prog=$1
	shift
	s=$(date +%s%N)
	env PATHPROF_OUT=/dev/null "$@" "$prog" "$reps" >/dev/null
	echo $((($(date +%s%N) - s) / 1000000))
}
: >"$tmp/rows"
i=0
while [ "$i" -lt "$runs" ]; do
	{
		echo "plain $(ms "$tmp/plain")"
		echo "selected-count $(ms "$tmp/selected" PATHPROF_TIMING=off)"
		echo "selected-timed $(ms "$tmp/selected" PATHPROF_TIMING=on)"
		if [ -n "$plugin" ]; then
			echo "plain-clang $(ms "$tmp/plain-clang")"
			echo "plugin-count $(ms "$tmp/plugin" PATHPROF_TIMING=off)"
			echo "plugin-timed $(ms "$tmp/plugin" PATHPROF_TIMING=on)"
		fi
	} >>"$tmp/rows"
	i=$((i + 1))
done
echo "all-count $(ms "$tmp/all" PATHPROF_TIMING=off)" >>"$tmp/rows"
PATHPROF_OUT="$tmp/sel.pathprof" "$tmp/selected" "$reps" >/dev/null
patched=$("$pp" report "$tmp/sel.pathprof" | sed -n 's/^ *hook calls of the functions it leaves out patched out of the code at //p')
echo "select: $(tail -n 1 "$tmp/select.err" | cut -c1-160)"
echo "dropped: $(wc -l <"$tmp/drop.txt") functions (--format names); --format gcc: $(tr ',' '\n' <"$tmp/drop-gcc.txt" | grep -c .) entries"
if [ -n "$patched" ]; then
	echo "the rebuilt program's hook calls patched out: $patched"
else
	echo "the rebuilt program: the dropped functions compiled without hooks (gcc plugin)"
fi
[ -z "$plugin" ] || echo "plugin: $(wc -l <"$tmp/keep.txt") functions kept (--format keep)"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" "$reps" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
print("| build (%s parses) | wall, ms (median) | quartiles | ratio to plain |" % sys.argv[2])
print("|---|---:|---|---:|")
for k in ["plain", "selected-count", "selected-timed", "all-count",
          "plain-clang", "plugin-count", "plugin-timed"]:
    if k not in rows:
        continue
    base = statistics.median(rows["plain-clang" if "clang" in k or "plugin" in k else "plain"])
    v = rows[k]
    m = statistics.median(v)
    print("| %s | %.0f | %s | %.2f |" % (k, m, table.quartiles(v), m / base))
print("(%d interleaved runs; all-count: one run)" % len(rows["plain"]))
PY
