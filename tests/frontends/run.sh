#!/bin/sh
# Build one test program through one front-end with one compiler, run it, and
# compare its canonical path listing with the expected text; with
# FE_UNMATCHED set, the profile's unmatched exits with it too.
# usage: run.sh CC FRONTEND OPT SRC EXPECTED BUILDROOT SRCROOT PATHPROF [ARGS...]
set -eu
cc=$1 fe=$2 opt=$3 src=$4 expected=$5 build=$6 root=$7 pathprof=$8
shift 8
command -v "$cc" >/dev/null 2>&1 || { echo "run.sh: compiler $cc not found" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-fe.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$root/tests/common/fe_build.sh"
fe_build "$cc" "$fe" "$opt" "$src" "$work/prog"
PATHPROF_OUT="$work/out.pathprof" PATHPROF_TIMING=on "$work/prog" "$@"
"$pathprof" report --format paths "$work/out.pathprof" >"$work/got"
if ! diff -u "$expected" "$work/got"; then
	echo "run.sh: $fe $cc $opt: listing differs from $expected" >&2
	exit 1
fi
if [ -n "${FE_UNMATCHED:-}" ]; then
	got=$("$pathprof" report --format json "$work/out.pathprof" | python3 -c '
import json, sys
print(json.load(sys.stdin)["unmatched"])')
	[ "$got" = "$FE_UNMATCHED" ] || { echo "run.sh: $fe $cc $opt: $got exits unmatched, expected $FE_UNMATCHED" >&2; exit 1; }
fi
