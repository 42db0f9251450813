#!/bin/sh
# The gate-cost benchmark in one command: builds pathprof (release) in its own
# build directory if needed, then prints Markdown tables of the time per gate
# (gatecost) and of the instructions per gate (callgrind.sh).
# Usage: bench/run.sh [--quick] [--build DIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=${PATHPROF_BENCH_BUILD:-${TMPDIR:-/tmp}/pathprof-build-bench}
quick=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=--quick ;;
	--build) build=$2; shift ;;
	-h | --help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench/run.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done

if [ ! -f "$build/build.ninja" ]; then
	echo "bench/run.sh: configuring $build" >&2
	meson setup --buildtype=release "$build" "$src" >&2
fi
ninja -C "$build" bench/gatecost >&2

echo "## Gate cost over an uninstrumented baseline (raii)"
echo
"$build/bench/gatecost" $quick
echo
if command -v valgrind >/dev/null 2>&1; then
	echo "## Instructions per gate (callgrind)"
	echo
	"$here/callgrind.sh" "$build/bench/gatecost" $quick
else
	echo "(valgrind not installed: no instruction counts; apt-get install valgrind)"
fi
