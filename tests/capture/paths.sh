#!/bin/sh
# The paths inside a library at replay (#31): tests/capture/minilib.c,
# built plain and through cyg; miniprog's calls are captured against the
# plain build and replayed against the gated one with --profile, the
# library's runtime preloaded: the profile holds each entry point as an
# event and the exact paths inside (mini_work > inner > step 6000 times),
# timed so that self times add up; without the runtime preloaded --profile
# is refused in one line; compare --paths replays two gated builds a
# process a pass and diffs their paths.
# usage: paths.sh PATHPROF SRCROOT BUILDROOT WORKDIR
set -u
pp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$2 build=$3 work=$4/capture-paths.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cd "$work" || exit 1
t=$src/tests/capture
export PKG_CONFIG_PATH="$build/meson-uninstalled" LD_LIBRARY_PATH="$build/runtime/capture"
gcc -O2 -fPIC -shared "$t/minilib.c" -o libmini.so || fail "build"
gcc -O2 -I"$t" "$t/miniprog.c" -o prog -L. -lmini -Wl,-rpath,"$PWD" || fail "build"
"$build/tools/pathprof-cc-uninstalled" --via=cyg gcc -O2 -fPIC -shared "$t/minilib.c" -o libmini-cyg.so ||
	fail "the gated build"
printf 'free mini_free m\n' >mini.spec
"$pp" capture gen --header "$t/minilib.h" --functions 'mini_*' --spec mini.spec -o shim.c 2>/dev/null || fail "gen"
# shellcheck disable=SC2046
gcc -shared -fPIC -I"$t" shim.c -o shim.so $(pkg-config --cflags --libs pathprof-capture) -ldl || fail "shim"
# a sanitizer build's libraries need its runtime loaded first
asan=$(ldd "$build/runtime/libpathprof.so.0" | sed -n 's/^[[:space:]]*lib[at]san\.so[^ ]* => \([^ ]*\) .*/\1/p' | head -n 1)
# replay loads the gated library with RTLD_DEEPBIND (its own hooks first),
# which the sanitizers' runtime refuses
[ -z "$asan" ] || { echo "SKIP: RTLD_DEEPBIND, which --profile needs, does not run under a sanitizer"; exit 77; }
LD_PRELOAD=./shim.so PATHPROF_CAPTURE=t.cap ./prog >/dev/null || fail "capture"
# a PATHPROF_CAPTURE that names another file (the program itself) leaves
# it as it was and records beside it; a capture of an earlier run is
# replaced in place
cp prog prog.kept
LD_PRELOAD=./shim.so PATHPROF_CAPTURE=prog ./prog.kept >/dev/null 2>e0 || fail "capture beside the program"
cmp -s prog prog.kept || fail "PATHPROF_CAPTURE=prog replaced the program"
[ "$(cat e0)" = "pathprof: capture: prog is not a pathprof capture, and is left as it was; recording to prog.1" ] ||
	fail "capture beside the program: $(cat e0)"
[ "$(head -c 7 prog.1)" = PPCAPT1 ] && [ "$(wc -c <prog.1)" -gt 100 ] || fail "prog.1 holds no capture"
LD_PRELOAD=./shim.so PATHPROF_CAPTURE=prog.1 ./prog.kept >/dev/null 2>e0 && [ ! -s e0 ] && [ ! -e prog.1.1 ] ||
	fail "a capture of an earlier run was not replaced: $(cat e0)"
"$pp" capture replay t.cap --lib ./libmini-cyg.so --profile r.pathprof >/dev/null 2>e1
[ $? -eq 2 ] && grep -q "^pathprof: capture replay: --profile: libpathprof is not loaded; run with it preloaded" e1 ||
	fail "--profile without the runtime: $(cat e1)"
LD_PRELOAD="$build/runtime/libpathprof.so.0" "$pp" capture replay t.cap --lib ./libmini-cyg.so \
	--profile r.pathprof >/dev/null 2>e2 || fail "replay: $(cat e2)"
got=$("$pp" report --format paths r.pathprof | sort | paste -sd' ' -)
[ "$got" = "1|mini_free 1|mini_new 6000|mini_work>inner>step" ] || fail "paths: $got"
"$pp" report --format json r.pathprof | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = {">".join(x["path"]): x for x in d["nodes"]}
calls = {k: v["calls"] for k, v in n.items()}
want = {"mini_new": 1, "mini_work": 5, "mini_work>inner": 60, "mini_work>inner>step": 6000, "mini_free": 1}
if calls != want or d["events"] != 7:
    print("FAIL: nodes %r, events %d" % (calls, d["events"])); sys.exit(1)
self = sum(v["self_ticks"] for v in n.values())
roots = sum(v["incl"]["sum_ticks"] for k, v in n.items() if ">" not in k)
if self != roots:
    print("FAIL: self times %d, the entry points took %d" % (self, roots)); sys.exit(1)
' || exit 1
# compare two gated builds with their paths: one process a pass, the
# profiles kept, diffed by path
"$build/tools/pathprof-cc-uninstalled" --via=cyg gcc -O0 -fPIC -shared "$t/minilib.c" -o libmini-cyg0.so ||
	fail "the -O0 gated build"
LD_PRELOAD="$build/runtime/libpathprof.so.0" "$pp" capture compare t.cap --lib ./libmini-cyg.so \
	--lib ./libmini-cyg0.so --repeat 4 --paths cmp >cmp.txt 2>cmp.err || fail "compare --paths: $(cat cmp.err)"
[ "$(ls cmp/a | wc -l) $(ls cmp/b | wc -l)" = "4 4" ] || fail "profiles kept: $(ls cmp/a cmp/b)"
for f in cmp/a/*.pathprof cmp/b/*.pathprof; do
	[ "$("$pp" report --format paths "$f" | sort | paste -sd' ' -)" = "1|mini_free 1|mini_new 6000|mini_work>inner>step" ] ||
		fail "$f: $("$pp" report --format paths "$f")"
done
grep -q "^paths inside: pathprof diff cmp/a cmp/b" cmp.txt && grep -q "  A  cmp/a (4 runs, cyg; gate cost not measured, in the times)" cmp.txt &&
	grep -q "  mini_work > inner > step$" cmp.txt || fail "compare --paths output: $(cat cmp.txt)"
"$pp" capture compare t.cap --lib ./libmini-cyg.so --lib ./libmini-cyg0.so --paths cmp2 >/dev/null 2>e3
[ $? -eq 2 ] && grep -q "capture compare: --paths: libpathprof is not loaded" e3 || fail "--paths unloaded: $(cat e3)"
echo "ok: 7 entry points replayed, 6000 steps inside mini_work, self times add up; compare --paths"
