#!/bin/sh
# First run: install what is missing, build, run the example feed handler
# through each front-end built so far, and print its path report.
# usage: scripts/demo.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/scripts/deps.sh"
[ -f "$build/build.ninja" ] || meson setup "$build" "$root" >/dev/null
ninja -C "$build" >/dev/null
out=$(mktemp -d "${TMPDIR:-/tmp}/pathprof-demo.XXXXXX")
for fe in raii cyg xray plugin; do
	prog="$build/examples/feed/feed-$fe"
	[ -x "$prog" ] || continue
	echo "== feed handler through the $fe front-end"
	env PATHPROF_OUT="$out/feed-$fe.pathprof" PATHPROF_TIMING=on PATHPROF_XRAY=all \
		"$prog" --messages 200000 >/dev/null
	"$build/tools/pathprof" report --top 8 "$out/feed-$fe.pathprof"
	echo
done
echo "profiles kept in $out (pathprof report --help for more views)"
