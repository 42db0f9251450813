#!/bin/sh
# Build one program with clang and the pathprof pass plugin, run it, and
# compare its canonical path listing with the expected text.
# usage: run.sh CLANG PLUGIN OPT SRC EXPECTED BUILDROOT SRCROOT PATHPROF [CLANG-FLAGS...]
set -eu
cc=$1 plugin=$2 opt=$3 src=$4 expected=$5 build=$6 root=$7 pathprof=$8
shift 8
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-plugin.XXXXXX")
trap 'rm -rf "$work"' EXIT
case $src in
*.cpp) std=-std=gnu++17 ;;
*) std=-std=gnu11 ;;
esac
"$cc" $std -g "$opt" -Wall -Wextra -Werror -fpass-plugin="$plugin" "$@" \
	-I"$root/runtime/include" -I"$root/frontends/plugin" "$src" -o "$work/prog" \
	"$build/frontends/plugin/libpathprof-plugin.a" \
	"$build/runtime/libpathprof.a" -ldw -lelf -lpthread -ldl -lm
PATHPROF_OUT="$work/out.pathprof" PATHPROF_TIMING=on "$work/prog"
"$pathprof" report --format paths "$work/out.pathprof" >"$work/got"
if ! diff -u "$expected" "$work/got"; then
	echo "run.sh: $src $opt: listing differs from $expected" >&2
	exit 1
fi
