#!/bin/sh
# First run: install what is missing, build, run the example feed handler
# through every front-end, and print its path report for each.
# raii and cyg come from the Meson build; xray and plugin are compiled here
# through the compiler wrapper, as a user would build their own program.
# usage: scripts/demo.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
"$root/scripts/deps.sh"
[ -f "$build/build.ninja" ] || meson setup "$build" "$root" >/dev/null
ninja -C "$build" >/dev/null
out=$(mktemp -d "${TMPDIR:-/tmp}/pathprof-demo.XXXXXX")
wrap="$build/tools/pathprof-cc-uninstalled"
feed="-O2 -DFEED_PATHPROF -I$root/examples/feed $root/examples/feed/*.c"
# shellcheck disable=SC2086
"$wrap" --via=xray --xray-threshold=1 clang $feed -o "$out/feed-xray" ||
	echo "demo: the xray build failed; skipping it" >&2
# shellcheck disable=SC2086
"$wrap" --via=plugin --plugin-mode=all clang $feed -o "$out/feed-plugin" ||
	echo "demo: the plugin build failed; skipping it" >&2
for fe in raii cyg xray plugin; do
	prog="$out/feed-$fe"
	[ -x "$prog" ] || prog="$build/examples/feed-$fe"
	[ -x "$prog" ] || continue
	echo "== feed handler through the $fe front-end"
	env PATHPROF_OUT="$out/feed-$fe.pathprof" PATHPROF_TIMING=on PATHPROF_XRAY=all \
		"$prog" --messages 200000 --quiet
	"$build/tools/pathprof" report --top 8 "$out/feed-$fe.pathprof"
	echo
done
echo "profiles kept in $out (pathprof report --help for more views)"
