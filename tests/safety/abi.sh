#!/bin/sh
# An object built against another ABI's headers does not link (#27): the
# public headers are copied with PP_ABI lowered by one, a raii program is
# compiled against them and linked with this build's runtime: the link must
# fail naming the missing versioned thread state, and the same program
# built against the real headers must link and run.
# usage: abi.sh SRCROOT BUILDROOT CC
set -eu
src=$1 build=$2 cc=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT
abi=$(sed -n 's/^#define PP_ABI \([0-9]*\)$/\1/p' "$src/runtime/include/pathprof/state.h")
[ -n "$abi" ] || { echo "FAIL: no PP_ABI in state.h"; exit 1; }
cp -r "$src/runtime/include" "$work/old"
sed -i "s/^#define PP_ABI $abi\$/#define PP_ABI $((abi - 1))/" "$work/old/pathprof/state.h"
cat >"$work/p.c" <<'C'
#include <pathprof/raii.h>
__attribute__((noinline)) static int work(int x) { PP_GATE("work"); return x + 1; }
int main(void) { PP_GATE("main"); return work(-1); }
C
link() { "$cc" -O2 -I"$1" -I"$src/frontends/raii" "$work/p.c" -o "$work/p" \
	-L"$build/runtime" -Wl,-rpath,"$build/runtime" -lpathprof 2>"$work/err"; }
if link "$work/old"; then
	echo "FAIL: an object of ABI $((abi - 1)) linked against the runtime of ABI $abi"
	exit 1
fi
# an executable's object names the ABI mark, a shared library's the state
grep -Eq "undefined reference to .pp__(tls|runtime)_abi$((abi - 1))" "$work/err" ||
	{ echo "FAIL: the link error does not name the ABI: $(cat "$work/err")"; exit 1; }
link "$src/runtime/include" || { echo "FAIL: the current headers do not link: $(cat "$work/err")"; exit 1; }
PATHPROF_OUT=/dev/null "$work/p" || { echo "FAIL: the program failed"; exit 1; }
echo "ok: ABI $abi, an object of ABI $((abi - 1)) refused at link time"
