#!/bin/sh
# verify: the four front-ends must report the same paths. Builds the feed
# example (C) and the C++ workload through raii, cyg, xray and the plugin with
# clang and through raii and cyg with gcc, runs each build twice (recording a
# trace the second time) and compares the canonical path listings across runs,
# builds, the replayed trace and the workloads' own --expect oracles, plus the
# stable path ids and the drop counters. Prints a PASS/FAIL table (docs/internals/verify.md);
# exits 1 on any mismatch.
# usage: verify.sh BUILD_DIR [-O2|-O0|...]   (a built pathprof Meson build;
#        the optimisation level of the workloads, -O2 by default)
# Compilers: VERIFY_CLANG, VERIFY_CLANGXX (raii, cyg, xray), VERIFY_PLUGIN_CLANG,
# VERIFY_PLUGIN_CLANGXX (the clang that loads the plugin), VERIFY_GCC,
# VERIFY_GXX, VERIFY_PYTHON; defaults clang, clang++, gcc, g++, python3.
set -u
LC_ALL=C
export LC_ALL

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
	echo "usage: verify.sh BUILD_DIR [-O2|-O0|...]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
opt=${2:--O2}
case $opt in
-O[0-3s]) ;;
*) echo "verify.sh: '$opt' is not an optimisation level (-O0 to -O3, -Os)" >&2; exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
cli=$build/tools/pathprof
rt_a=$build/runtime/libpathprof.a
cyg_a=$build/frontends/cyg/libpathprof-cyg.a
xray_a=$build/frontends/xray/libpathprof-xray.a
shim_a=$build/frontends/plugin/libpathprof-plugin.a
plugin=$build/frontends/plugin/pathprof-plugin.so
clang=${VERIFY_CLANG:-clang}
clangxx=${VERIFY_CLANGXX:-clang++}
pclang=${VERIFY_PLUGIN_CLANG:-$clang}
pclangxx=${VERIFY_PLUGIN_CLANGXX:-$clangxx}
gcc=${VERIFY_GCC:-gcc}
gxx=${VERIFY_GXX:-g++}
python=${VERIFY_PYTHON:-python3}
pathids=$root/verify/pathids.py

# Workload sizes: small enough for a couple of seconds per build on two
# cores, large enough that every path of both workloads occurs many times.
# workload_args WORKLOAD: its arguments and the events they make (into args, events).
workload_args()
{
	case $1 in
	feed) args="--seed 42 --messages 20000" events=20000 ;;
	wl) args="--seed 42 --events 20000 --threads 4" events=80000 ;;
	esac
}

builds="clang-raii clang-cyg clang-xray clang-plugin gcc-raii gcc-cyg"
ref="clang-raii"

# Every piece must be there: CI installs clang and builds the plugin, so a
# missing one is a failure, never a skip.
missing=
need_file() { [ -e "$1" ] || missing="$missing
  $2: $1 not found"; }
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing="$missing
  $2: '$1' not found"; }
need_file "$cli" "pathprof CLI"
need_file "$rt_a" "static runtime (default_library=both)"
need_file "$cyg_a" "cyg front-end"
need_file "$xray_a" "xray front-end (needs clang on x86_64)"
need_file "$shim_a" "plugin shim"
need_file "$plugin" "plugin${VERIFY_PLUGIN_WHY:+ ($VERIFY_PLUGIN_WHY)}"
for c in "$clang" "$clangxx" "$pclang" "$pclangxx" "$gcc" "$gxx" "$python"; do
	need_cmd "$c" "compiler/tool"
done
if [ -n "$missing" ]; then
	echo "verify: FAIL: cannot build every front-end:$missing" >&2
	exit 1
fi

work=$build/verify/work$opt
rm -rf "$work" && mkdir -p "$work" || exit 1
results=$work/results
: >"$results"
failed=0

# row WORKLOAD BUILD CHECK PASS|FAIL [detail]
row()
{
	printf '%-8s %-13s %-12s %s%s\n' "$1" "$2" "$3" "$4" "${5:+  $5}" >>"$results"
	[ "$4" = PASS ] || failed=1
}

# show TITLE FILE...: print a mismatch as it is found (head of a unified diff).
show()
{
	title=$1
	shift
	echo "--- $title"
	diff -u "$@" | sed -n '3,42p'
}

inc="-I$root/runtime/include -I$root/frontends/raii -I$root/frontends/plugin"
libs="$rt_a -ldw -lelf -lpthread -ldl -lm"
warn="$opt -g -Wall -Wextra -Werror"

# shellcheck source=tests/common/recipe.sh
. "$root/tests/common/recipe.sh"

# fe_flags BUILD: compile flags, link flags and compiler of one build (into
# cflags, lflags, ccomp, cxxcomp), the injector's from its recipe
# (frontends/recipes.txt); both workloads read the FEED_* switches of
# examples/feed/gate.h. See docs/internals/verify.md for why.
fe_flags()
{
	case $1 in
	clang-*) ccomp=$clang cxxcomp=$clangxx ;;
	gcc-*) ccomp=$gcc cxxcomp=$gxx ;;
	esac
	case $1 in
	*-raii)
		cflags="-DFEED_RAII $(recipe_cflags raii)"
		lflags=
		;;
	*-cyg | *-xray)
		cflags="-DFEED_PATHPROF $(recipe_cflags "${1#*-}")"
		lflags=$(recipe_link "${1#*-}" "$build")
		;;
	*-plugin)
		ccomp=$pclang cxxcomp=$pclangxx
		# -fplugin as well: clang knows the plugin's -mllvm options only then
		cflags="-DFEED_PATHPROF -fplugin=$plugin $(recipe_cflags plugin "$plugin") -mllvm -pathprof-mode=all"
		lflags=$(recipe_link plugin "$build")
		;;
	esac
}

# build_feed BUILD DIR: the example's own sources, unchanged.
build_feed()
{
	fe_flags "$1"
	# shellcheck disable=SC2086
	"$ccomp" -std=gnu11 $warn $cflags $inc "$root"/examples/feed/*.c -o "$2/prog" \
		$lflags $libs
}

# build_wl BUILD DIR: codec.cpp as a shared library the program calls into,
# except for xray, where LLVM 14 patches only the executable's sleds.
build_wl()
{
	fe_flags "$1"
	w=$root/verify/workload
	# shellcheck disable=SC2086
	case $1 in
	*-xray)
		"$cxxcomp" -std=gnu++17 $warn $cflags $inc "$w/main.cpp" "$w/codec.cpp" \
			-o "$2/prog" $lflags $libs
		;;
	*)
		"$cxxcomp" -std=gnu++17 $warn $cflags $inc -fPIC -shared "$w/codec.cpp" \
			-o "$2/libwlcodec.so" &&
		"$cxxcomp" -std=gnu++17 $warn $cflags $inc "$w/main.cpp" -o "$2/prog" \
			-L"$2" -lwlcodec -Wl,-rpath,"$2" $lflags $libs
		;;
	esac
}

# run_one BUILD DIR N ARGS: run N of a build; the two runs use different
# timing modes, which must not change a count, and run 2 also records a
# trace for the replay check.
run_one()
{
	set -- "$1" "$2" "$3" "$4" PATHPROF_OUT="$2/run$3.pathprof"
	case $3 in
	1) set -- "$@" PATHPROF_TIMING=on ;;
	*) set -- "$@" PATHPROF_TIMING=sample:3 PATHPROF_TRACE="$2/run$3.trace" ;;
	esac
	case $1 in *-xray) set -- "$@" PATHPROF_XRAY=all ;; esac
	d=$2 n=$3 a=$4
	shift 4
	# shellcheck disable=SC2086
	env "$@" "$d/prog" $a >"$d/run$n.out" 2>"$d/run$n.err" || {
		echo "exit status $?" >>"$d/run$n.err"
		return 1
	}
	[ ! -s "$d/run$n.err" ] || return 1
	"$cli" report --format paths "$d/run$n.pathprof" >"$d/run$n.paths" 2>>"$d/run$n.err" &&
		"$cli" report --format json "$d/run$n.pathprof" >"$d/run$n.json" 2>>"$d/run$n.err"
}

# replay DIR: the profile rebuilt from run 2's trace, as a listing and ids.
replay()
{
	"$cli" replay -o "$1/replay.pathprof" "$1/run2.trace" &&
		"$cli" report --format paths "$1/replay.pathprof" >"$1/replay.paths" &&
		"$cli" report --format json "$1/replay.pathprof" >"$1/replay.json" &&
		"$python" "$pathids" "$1/replay.json" >"$1/replay.ids"
}

# Build everything first, two at a time (the machine has two cores).
for wl in feed wl; do
	for b in $builds; do
		mkdir -p "$work/$wl/$b"
	done
done
jobs=0
for wl in feed wl; do
	for b in $builds; do
		d=$work/$wl/$b
		(if build_$wl "$b" "$d" >"$d/build.log" 2>&1; then : >"$d/built"; fi) &
		jobs=$((jobs + 1))
		if [ $jobs -ge 2 ]; then
			wait
			jobs=0
		fi
	done
done
wait

for wl in feed wl; do
	workload_args "$wl"
	for b in $builds; do
		d=$work/$wl/$b
		if [ ! -e "$d/built" ]; then
			row "$wl" "$b" build FAIL "see $d/build.log"
			sed -n '1,20p' "$d/build.log"
			continue
		fi
		row "$wl" "$b" build PASS
		if ! run_one "$b" "$d" 1 "$args" || ! run_one "$b" "$d" 2 "$args"; then
			row "$wl" "$b" run FAIL
			echo "--- $wl/$b: run failed:"
			cat "$d"/run*.err
			continue
		fi
		row "$wl" "$b" run PASS
		: >"$d/ran"

		if cmp -s "$d/run1.paths" "$d/run2.paths"; then
			row "$wl" "$b" 2-runs PASS
		else
			row "$wl" "$b" 2-runs FAIL
			show "$wl/$b: run 2 differs from run 1 (- run 1, + run 2)" "$d/run1.paths" "$d/run2.paths"
		fi

		# shellcheck disable=SC2086
		"$d/prog" $args --expect | sort >"$d/expect"
		sort "$d/run1.paths" >"$d/run1.sorted"
		if [ -s "$d/expect" ] && cmp -s "$d/expect" "$d/run1.sorted"; then
			row "$wl" "$b" oracle PASS
		else
			row "$wl" "$b" oracle FAIL
			show "$wl/$b: listing differs from --expect (- expected, + got)" "$d/expect" "$d/run1.sorted"
		fi

		fe=${b#*-}
		if "$python" "$pathids" --events "$events" --frontend "$fe" "$d/run1.json" >"$d/ids" 2>"$d/ids.err"; then
			row "$wl" "$b" counters PASS
		else
			row "$wl" "$b" counters FAIL
			echo "--- $wl/$b: counters:"
			cat "$d/ids.err"
		fi

		if ! replay "$d" >"$d/replay.err" 2>&1; then
			row "$wl" "$b" replay FAIL
			echo "--- $wl/$b: replay failed:"
			cat "$d/replay.err"
		elif cmp -s "$d/run2.paths" "$d/replay.paths" && cmp -s "$d/ids" "$d/replay.ids"; then
			row "$wl" "$b" replay PASS
		else
			row "$wl" "$b" replay FAIL
			show "$wl/$b: replay of run 2's trace differs (- run 2, + replay)" "$d/run2.paths" "$d/replay.paths"
			show "$wl/$b: ids of the replay differ (- run 1, + replay)" "$d/ids" "$d/replay.ids"
		fi
	done

	# Across front-ends: each build against the reference build.
	r=$work/$wl/$ref
	for b in $builds; do
		d=$work/$wl/$b
		if [ "$b" = "$ref" ] || [ ! -e "$d/ran" ]; then
			continue
		fi
		if [ ! -e "$r/ran" ]; then
			row "$wl" "$b" "=$ref" FAIL "reference did not run"
			continue
		fi
		if cmp -s "$r/run1.paths" "$d/run1.paths"; then
			row "$wl" "$b" "=$ref" PASS
		else
			row "$wl" "$b" "=$ref" FAIL
			show "$wl/$b: listing differs from $ref (- $ref, + $b)" "$r/run1.paths" "$d/run1.paths"
		fi
		if [ -s "$d/ids" ] && cmp -s "$r/ids" "$d/ids"; then
			row "$wl" "$b" "ids" PASS
		else
			row "$wl" "$b" "ids" FAIL
			show "$wl/$b: stable ids differ from $ref (- $ref, + $b)" "$r/ids" "$d/ids"
		fi
	done
done

echo
printf '%-8s %-13s %-12s %s\n' workload build check result
cat "$results"
if [ $failed -ne 0 ]; then
	echo "verify: FAIL at $opt (work files in $work)"
	exit 1
fi
echo "verify: PASS ($(grep -c PASS "$results") checks at $opt)"
