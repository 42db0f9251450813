#!/bin/sh
# e2e: Lua 5.3.5 (the npm package lua-src: pinned, checksummed, cached in the
# build dir, never committed), an interpreter whose error(), pcall and
# coroutine.yield are longjmps when it is built as C and C++ throws when
# built as C++. Built the way a user builds it, `pathprof-cc --via=...`,
# through cyg (gcc and clang) and the plugin at -O2 and XRay at -O0 (whose
# sleds come after inlining, which at -O2 would leave it other functions
# to gate) as C, and through clang's cyg as C++, each runs lua_errors.lua
# timed. Every build must print the
# script's answers, leave no exit unmatched, drop nothing, and list the
# paths to every throw and what pcall does after one exactly as
# lua.expected has them (the runtime closes the frames a jump or a catch
# leaves: runtime/host/longjmp.c, catch.c), with the throwing node timed.
# Prints one row per build x check, then PASS or FAIL. A Lua that cannot
# be fetched is a FAIL, never a skip.
# usage: lua.sh BUILD_DIR
set -u
LC_ALL=C
export LC_ALL

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: lua.sh BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${E2E_PYTHON:-python3}
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"

lua_pkg=lua-src@5.3.5
lua_tgz=lua-src-5.3.5.tgz
lua_sha256=0190b7ed390f92b1c88a65332098ae62a701fa6797189d35e416275acbc6528b
clangxx=${E2E_CLANGXX:-clang++}
wrap=$build/tools/pathprof-cc-uninstalled
export PKG_CONFIG_PATH="$build/meson-uninstalled"
builds="gcc-cyg clang-cyg clang-xray clang-plugin clangxx-cyg"

if ! fetch_npm Lua "$lua_pkg" "$lua_tgz" "$lua_sha256"; then
	echo "e2e: FAIL: Lua ($lua_pkg) could not be fetched, so nothing was tested" >&2
	exit 1
fi
src=$cache/lua-5.3.5
if [ ! -f "$src/ok" ]; then
	if ! { rm -rf "$src" && mkdir -p "$src" &&
		tar -xzf "$cache/$lua_tgz" -C "$src" --strip-components=2 package/src; }; then
		echo "e2e: FAIL: $lua_tgz: cannot unpack" >&2
		exit 1
	fi
	touch "$src/ok"
fi

work=$build/tests/e2e/lua
mkdir -p "$work" || exit 1

# build_and_run NAME: the interpreter (lua.c and the library; not luac.c)
# through pathprof-cc, then one timed run of the script; all in $work/NAME.
# shellcheck disable=SC2317 # called through two_at_a_time
build_and_run()
{
	d=$work/$1
	rm -rf "$d" && mkdir -p "$d" || return
	lang=-std=gnu99 cxx='' arm='' opt=-O2
	case $1 in
	gcc-cyg) via="--via=cyg $gcc" ;;
	clang-cyg) via="--via=cyg $clang" ;;
	clang-xray) via="--via=xray $clang" arm=all opt=-O0 ;;
	clang-plugin) via="--via=plugin --plugin-mode=all $pclang" ;;
	# the C++ driver, which links libstdc++ after the runtime: given first
	# (-lstdc++ on a C driver's line), its __cxa_begin_catch would be
	# found before the runtime's (docs/reference/cyg.md)
	clangxx-cyg) via="--via=cyg $clangxx" lang="-x c++" cxx="-x none" ;;
	esac
	set --
	for f in "$src"/*.c; do
		[ "${f##*/}" = luac.c ] || set -- "$@" "$f"
	done
	# shellcheck disable=SC2086
	"$wrap" $via $opt -g $lang -DLUA_USE_POSIX -DLUA_USE_DLOPEN -w "$@" $cxx \
		-o "$d/lua" -lm -ldl >"$d/build.log" 2>&1 || return
	PATHPROF_XRAY=$arm PATHPROF_TIMING=on PATHPROF_OUT="$d/run.pathprof" \
		"$d/lua" "$root/tests/e2e/lua_errors.lua" >"$d/run.out" 2>"$d/run.err"
	echo $? >"$d/run.status"
}

start=$(date +%s)
# shellcheck disable=SC2086
two_at_a_time build_and_run $builds
echo "e2e: Lua 5.3.5, built and ran 5 builds in $(($(date +%s) - start)) s"

want=$(printf '40\t1830\t610\t300\tfalse\ttrue')
for b in $builds; do
	d=$work/$b
	if [ ! -x "$d/lua" ]; then
		row "$b" build FAIL "see $d/build.log"
		tail -n 5 "$d/build.log"
		continue
	fi
	row "$b" build ok
	if [ "$(cat "$d/run.status")" != 0 ] || [ -s "$d/run.err" ] || [ "$(cat "$d/run.out")" != "$want" ]; then
		row "$b" run FAIL "exit $(cat "$d/run.status"), see $d/run.err and run.out"
		head -n 5 "$d/run.err" "$d/run.out"
		continue
	fi
	row "$b" run ok
	if ! "$cli" report --format json "$d/run.pathprof" >"$d/run.json" 2>"$d/report.err"; then
		row "$b" report FAIL "$(head -n 1 "$d/report.err")"
		continue
	fi
	# The throw paths and pcall's work after a throw, C++ names without
	# their parameters; the counters; the throwing node's time.
	if msg=$("$python" - "$d/run.json" "$root/tests/e2e/lua.expected" "$d/got" <<'PY'
import json, re, sys
prof = json.load(open(sys.argv[1]))
want = open(sys.argv[2]).read().splitlines()
def bare(name):
    while True:
        short = re.sub(r"\([^()]*\)", "", name)
        if short == name:
            return name
        name = short
def path(names):
    return ">".join(bare(n) for n in names)
pick = re.compile(r"luaD_throw$|luaB_pcall>lua_pcallk>luaD_pcall>(luaF_close|seterrorobj|luaD_shrinkstack)")
got = sorted("%d|%s" % (p["count"], path(p["path"])) for p in prof["paths"]
             if pick.search(path(p["path"])))
open(sys.argv[3], "w").write("".join(l + "\n" for l in got))
errs = []
if got != sorted(want):
    errs.append("listing differs from lua.expected (diff it with %s)" % sys.argv[3])
for key in ("unmatched", "drops_table", "drops_depth", "drops_time"):
    if prof[key]:
        errs.append("%s = %d" % (key, prof[key]))
throws = [n for n in prof["nodes"] if path(n["path"]).endswith("luaB_error>lua_error>luaG_errormsg>luaD_throw")]
if len(throws) != 1 or throws[0]["incl"]["count"] != 40 or throws[0]["incl"]["sum_ticks"] <= 0:
    errs.append("error()'s luaD_throw node: %s, expected one, 40 timed calls" %
                [(n["incl"]["count"], n["incl"]["sum_ticks"]) for n in throws])
if errs:
    print("; ".join(errs))
    sys.exit(1)
print("%d paths as expected, 40 timed throws, unmatched 0" % len(got))
PY
	); then
		row "$b" paths ok "$msg"
	else
		row "$b" paths FAIL "$msg"
		[ -f "$d/got" ] && diff -u "$root/tests/e2e/lua.expected" "$d/got" | head -n 20
	fi
done

e2e_verdict
