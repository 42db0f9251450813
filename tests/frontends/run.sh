#!/bin/sh
# Build one test program through one front-end with one compiler, run it, and
# compare its canonical path listing with the expected text.
# usage: run.sh CC FRONTEND OPT SRC EXPECTED BUILDROOT SRCROOT PATHPROF [ARGS...]
set -eu
cc=$1 fe=$2 opt=$3 src=$4 expected=$5 build=$6 root=$7 pathprof=$8
shift 8
command -v "$cc" >/dev/null 2>&1 || { echo "run.sh: compiler $cc not found" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-fe.XXXXXX")
trap 'rm -rf "$work"' EXIT
inc="-I$root/runtime/include -I$root/frontends/raii"
case $fe in
raii) flags="-DFE_RAII" libs="" ;;
cyg) flags="-finstrument-functions" libs="$build/frontends/cyg/libpathprof-cyg.a" ;;
*) echo "run.sh: unknown front-end $fe" >&2; exit 1 ;;
esac
# shellcheck disable=SC2086
"$cc" -std=gnu11 -g $opt $flags $inc "$src" -o "$work/prog" \
	-Wl,--whole-archive $libs -Wl,--no-whole-archive \
	"$build/runtime/libpathprof.a" -ldw -lelf -lpthread -ldl -lm
PATHPROF_OUT="$work/out.pathprof" PATHPROF_TIMING=on "$work/prog" "$@"
"$pathprof" report --format paths "$work/out.pathprof" >"$work/got"
if ! diff -u "$expected" "$work/got"; then
	echo "run.sh: $fe $cc $opt: listing differs from $expected" >&2
	exit 1
fi
