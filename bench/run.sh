#!/bin/sh
# The overhead benchmarks in one command: builds pathprof (release) in its own
# build directory if needed, then runs bench/overhead.py: the overhead table on
# the feed example against uftrace and XRay FDR, callgrind instruction counts,
# the scaling run and the memory figures. Markdown on stdout, progress on
# stderr; overhead.md and overhead.json in BUILD/bench.
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
exec python3 "$here/overhead.py" --build "$build" "$@"
