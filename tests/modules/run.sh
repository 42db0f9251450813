#!/bin/sh
# A gated library dlopened, run, dlclosed, loaded again at another address and
# dlclosed again; the profile written at exit must name and count every path
# exactly, and the host must exit 0 (issue: the exit-time dump read the
# unmapped library); a trace of the same run must replay to the same paths. xray: LLVM 14 cannot patch a library's sleds, so the
# library must load and run ungated (docs/reference/xray.md).
# usage: run.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
set -eu
wrapper=$1 build=$2 pathprof=$3 via=$4 cc=$5 src=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-mod.XXXXXX")
trap 'rm -rf "$work"' EXIT
PKG_CONFIG_PATH=$build/meson-uninstalled
export PKG_CONFIG_PATH
def=''
case $via in
raii) def=-DUSE_RAII ;;
plugin) def=-DUSE_PLUGIN ;;
esac
# shellcheck disable=SC2086 # def is one flag or none
"$wrapper" --via="$via" "$cc" -O2 $def -fPIC -shared "$src/libg.c" -o "$work/libg.so"
"$cc" -O2 -fPIC -shared "$src/libg.c" -o "$work/libfill.so"
# shellcheck disable=SC2086
"$wrapper" --via="$via" "$cc" -O2 $def "$src/host.c" -o "$work/host" -ldl
moved=$(cd "$work" && PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof" ./host ./libg.so ./libfill.so)
# The filler takes the first load's place, so the second load normally lands
# elsewhere; a sanitizer's runtime may keep the library mapped after dlclose,
# and then the reload is the same mapping: the checks below hold either way.
case $moved in
moved) ;;
same) echo "run.sh: note: the second load reused the first one's address" ;;
*) echo "run.sh: the host printed '$moved'" >&2; exit 1 ;;
esac
"$pathprof" report --format paths "$work/out.pathprof" >"$work/got"
if [ "$via" = xray ]; then
	expected='1|main'
else
	expected='4000|main>g_run>g_mid>g_leaf'
fi
if [ "$(cat "$work/got")" != "$expected" ]; then
	echo "run.sh: $via $cc: expected '$expected', got:" >&2
	cat "$work/got" >&2
	exit 1
fi
# A trace names each key at first sight, through a resolver opened at the
# program's first gate, before the library was loaded: the library's
# functions must come out under their names (they came out as
# libc.so.6+0x1e9270 and the like: docs/internals/symbolizer.md).
rm -f "$work/trace"
(cd "$work" && PATHPROF_XRAY=all PATHPROF_TRACE="$work/trace" PATHPROF_OUT="$work/t.pathprof" \
	./host ./libg.so ./libfill.so >/dev/null)
"$pathprof" replay "$work/trace" -o "$work/replayed.pathprof"
got=$("$pathprof" report --format paths "$work/replayed.pathprof")
if [ "$got" != "$expected" ]; then
	echo "run.sh: $via $cc: the trace replayed: expected '$expected', got: $got" >&2
	exit 1
fi
