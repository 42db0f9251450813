#!/bin/sh
# inlrec.c (or inlrec_jmp.c) through one front-end: the listing the
# recursion makes (EXPECTED) and UNMATCHED exits without their entry's
# frame (0: none; inlrec_jmp's abandoned copies: 40). Built with gcc -O2 through cyg,
# the walk must have been inlined into itself (several entry hooks in its
# body), else this test would check nothing the other listings do not; the
# other builds (no such inlining) must give the same listing.
# usage: inlrec.sh CC FRONTEND OPT SRC EXPECTED BUILDROOT SRCROOT PATHPROF UNMATCHED
set -eu
# shellcheck disable=SC2034 # build: read by fe_build
cc=$1 fe=$2 opt=$3 src=$4 expected=$5 build=$6 root=$7 pathprof=$8 unmatched=$9
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-inlrec.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "inlrec.sh: $fe $cc $opt: $*" >&2; exit 1; }
# shellcheck source=tests/common/fe_build.sh
. "$root/tests/common/fe_build.sh"
fe_build "$cc" "$fe" "$opt" "$src" "$work/prog"
if [ "$cc" = gcc ] && [ "$fe" = cyg ] && [ "$opt" = -O2 ]; then
	copies=$(objdump -d "$work/prog" | awk '/<release>:/,/^$/' | grep -c 'call.*<__cyg_profile_func_enter>' || true)
	[ "$copies" -ge 3 ] || fail "release holds $copies entry hooks: gcc did not inline it into itself"
fi
PATHPROF_OUT="$work/out.pathprof" PATHPROF_TIMING=on "$work/prog" >/dev/null || fail "run failed"
"$pathprof" report --format paths "$work/out.pathprof" >"$work/got"
diff -u "$expected" "$work/got" || fail "listing differs from $expected"
got=$("$pathprof" report --format json "$work/out.pathprof" | python3 -c '
import json, sys
print(json.load(sys.stdin)["unmatched"])')
[ "$got" = "$unmatched" ] || fail "$got exits unmatched, expected $unmatched"
