#!/bin/sh
# The whole test suite, as CI runs it: install what is missing, build with
# warnings as errors, run every Meson suite (unit, verify, e2e), then the
# sanitizer builds and a short fuzz run (docs/internals/robustness.md; PP_FUZZ_SECONDS
# per target, default 30; PP_SANITIZE=0 skips both), the consumer projects
# (scripts/consumers.sh; PP_CONSUMERS=0 skips them), and the plugin tests and
# verify against LLVM 19 (scripts/llvm19.sh; PP_LLVM19=0 skips it).
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
# Projects that use pathprof: Meson, CMake, make, against an install of this
# build (scripts/consumers.sh; PP_CONSUMERS=0 skips it).
if [ "${PP_CONSUMERS:-1}" != 0 ]; then
	"$root/scripts/consumers.sh" "$build"
fi
if [ "${PP_SANITIZE:-1}" != 0 ]; then
	"$root/scripts/sanitize.sh"
	"$root/scripts/fuzz.sh" -t "${PP_FUZZ_SECONDS:-30}"
fi
if [ "${PP_LLVM19:-1}" != 0 ]; then
	"$root/scripts/llvm19.sh" "$build-llvm19"
fi
