#!/bin/sh
# inlrec.c (or inlrec_jmp.c) through one front-end: run.sh's exact listing
# (EXPECTED) and UNMATCHED exits without their entry's frame (0: none;
# inlrec_jmp's abandoned copies: 40). Built with gcc -O2 through cyg, the
# walk must first be seen inlined into itself (several entry hooks in its
# body), else this test would check nothing the other listings do not; the
# other builds (no such inlining) must give the same listing.
# usage: inlrec.sh CC FRONTEND OPT SRC EXPECTED BUILDROOT SRCROOT PATHPROF UNMATCHED
set -eu
# shellcheck disable=SC2034 # build: read by fe_build
cc=$1 fe=$2 opt=$3 src=$4 expected=$5 build=$6 root=$7 pathprof=$8 unmatched=$9
if [ "$cc" = gcc ] && [ "$fe" = cyg ] && [ "$opt" = -O2 ]; then
	work=$(mktemp -d "${TMPDIR:-/tmp}/pp-inlrec.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	# shellcheck source=tests/common/fe_build.sh
	. "$root/tests/common/fe_build.sh"
	fe_build "$cc" "$fe" "$opt" "$src" "$work/prog"
	copies=$(objdump -d "$work/prog" | awk '/<release>:/,/^$/' | grep -c 'call.*<__cyg_profile_func_enter>' || true)
	[ "$copies" -ge 3 ] || {
		echo "inlrec.sh: $fe $cc $opt: release holds $copies entry hooks: gcc did not inline it into itself" >&2
		exit 1
	}
fi
FE_UNMATCHED=$unmatched sh "$root/tests/frontends/run.sh" "$cc" "$fe" "$opt" "$src" "$expected" "$build" "$root" "$pathprof"
