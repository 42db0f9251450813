#!/bin/sh
# Runs a profiled build of feed and compares its canonical path listing with
# what `feed --expect` says a correct profiler must report: the same paths,
# each with the exact count, nothing more. Usage:
#   check-paths.sh FEED PATHPROF TIMING [feed options...]
set -eu
feed=$1 pathprof=$2 timing=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

"$feed" "$@" --expect | LC_ALL=C sort >"$dir/expect"
if [ ! -s "$dir/expect" ]; then
	echo "check-paths: feed --expect printed nothing" >&2
	exit 1
fi
PATHPROF_OUT="$dir/feed.pathprof" PATHPROF_TIMING=$timing "$feed" "$@" --quiet
"$pathprof" report --format paths "$dir/feed.pathprof" | LC_ALL=C sort >"$dir/got"
if ! diff -u "$dir/expect" "$dir/got"; then
	echo "check-paths: $feed $* (PATHPROF_TIMING=$timing): path counts differ from --expect" >&2
	exit 1
fi
echo "ok: $(wc -l <"$dir/got") paths, $(awk -F'|' '{ s += $1 } END { print s }' "$dir/got") leaf returns"
