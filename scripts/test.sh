#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, build with
# warnings as errors, and run every Meson suite (unit, verify, e2e).
# usage: scripts/test.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-test}
"$root/scripts/deps.sh"
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$root" -Dwerror=true
fi
ninja -C "$build"
meson test -C "$build" --print-errorlogs --num-processes 2
