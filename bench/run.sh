#!/bin/sh
# The overhead benchmarks in one command: builds pathprof (release) in its own
# build directory if needed, then runs bench/overhead.py: the overhead table on
# the feed example against uftrace and XRay FDR, callgrind instruction counts,
# the scaling run and the memory figures; then the tree workload and the
# instructions per gate. Markdown on stdout, progress on stderr; overhead.md
# and overhead.json in BUILD/bench.
# Usage: bench/run.sh [--quick] [--build DIR] [overhead.py options...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=${PATHPROF_BENCH_BUILD:-${TMPDIR:-/tmp}/pathprof-build-bench}
set -- "$@" --
while [ "$1" != -- ]; do
	case $1 in
	--build) build=$2; shift 2 ;;
	-h | --help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; python3 "$here/overhead.py" --help; exit 0 ;;
	*) set -- "$@" "$1"; shift ;;
	esac
done
shift

if [ ! -f "$build/build.ninja" ]; then
	echo "bench/run.sh: configuring $build" >&2
	meson setup --buildtype=release "$build" "$src" >&2
fi
# Everything the rows link against, and the scaling run.
ninja -C "$build" >&2
python3 "$here/overhead.py" --build "$build" "$@"

# The tree-shaped workload (bench/tree.c): a recursive-descent parser, one
# deep event a document, per timing mode; and the instructions per gate.
cpu=$(($(nproc) - 1))
echo
echo "Tree workload (bench/treebench: expression parser, 6-13 gates deep, in-process A B pairs, median [IQR] ns per gate over the plain parser):"
echo
echo "| timing | gates per document | plain ns per document | ns per gate over plain | IQR |"
echo "|---|---:|---:|---:|---:|"
for m in off on sample:64; do
	PATHPROF_OUT=/dev/null PATHPROF_TIMING=$m taskset -c "$cpu" "$build/bench/treebench" 41 |
		sed -n 's/^treebench: timing=\([^ ]*\) gates_per_doc=\([0-9]*\) bytes=[0-9]* plain_ns_per_doc=\([0-9]*\) ns_per_gate=\([0-9.]*\) iqr=\([0-9.]*\)$/| \1 | \2 | \3 | \4 | \5 |/p'
done
echo
echo "Instructions per raii gate, entry and exit (bench/gateinstr.sh: callgrind, chain events gated minus plain):"
echo
"$here/gateinstr.sh" "$build"

# What the live segment costs (on by default: the data `pathprof recover` reads after a
# kill): start-up and a path's first run.
echo
echo "Live segment (bench/newpath.py: medians of 21 interleaved rounds, fresh processes):"
echo
python3 "$here/newpath.py" "$build" 21
