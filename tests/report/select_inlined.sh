#!/bin/sh
# pathprof select --binary on a real cyg build (examples/inlined.c, gcc
# -O2): host's gates cost more than its work and it is dropped; slow_path,
# kept on its own figures, and never_run, which the run never gated, sit
# inlined in host with their hooks. Without --binary the list is host
# alone, and gcc's rebuild with it still calls four hooks in host's code;
# with it the list adds slow_path and never_run, and the rebuild calls none
# there. The same through the LLVM plugin when PLUGIN_CC is given (every
# function gated, then rebuilt with the kept list: slow_path's gate stays in
# host's code unless --binary takes it off the list). A binary that is not
# the profile's program nor a shared library, not ELF, not x86-64, missing
# or stripped, and a profile of another injector are refused in one line.
# A program whose code sits in a shared library: --binary takes the
# library too.
# usage: select_inlined.sh PATHPROF MKPROF WRAPPER SRCDIR WORKDIR [PLUGIN_CC]
set -u
pp=$1 mkprof=$2 wrapper=$3 src=$4 dir=$5 plugin_cc=${6:-}
# Meson passes build-tree paths relative to where the test starts
case $pp in /*) ;; *) pp=$PWD/$pp ;; esac
case $mkprof in /*) ;; *) mkprof=$PWD/$mkprof ;; esac
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
build() { # OUT [EXCLUDE-LIST]
	"$wrapper" --via=cyg gcc -O2 ${2:+-finstrument-functions-exclude-function-list="$2"} \
		"$src/examples/inlined.c" -o "$1" >build.log 2>&1 || { fail "build $1: $(cat build.log)"; exit 1; }
}
hooks_in_host() { # EXE [HOOKS] -> hook calls in host's own code
	objdump -d -w --no-show-raw-insn "$1" | awk -v re="call.*<(${2:-__cyg_profile_func_enter|__cyg_profile_func_exit})>" '
		/^[0-9a-f]+ <host>:$/ {on = 1; next} /^$/ {on = 0} on && $0 ~ re {n++} END {print n + 0}'
}
build prog
PATHPROF_TIMING=on PATHPROF_OUT=prog.pathprof ./prog >/dev/null || fail "run"
# without --binary: host alone
"$pp" select prog.pathprof >plain.txt 2>plain.err || fail "select: $(cat plain.err)"
[ "$(cat plain.txt)" = host ] || fail "dropped '$(paste -sd, plain.txt)', expected host"
# with it: host, then slow_path (in the profile) and never_run (not)
"$pp" select prog.pathprof --binary ./prog >bin.txt 2>bin.err || fail "select --binary: $(cat bin.err)"
[ "$(sort bin.txt | paste -sd, -)" = host,never_run,slow_path ] ||
	fail "--binary dropped '$(paste -sd, bin.txt)', expected host, slow_path and never_run"
case $(cat bin.err) in
"pathprof: select: 1 of 3 functions cost more than 5% of the work they hold, and 2 more inlined into dropped ones, whose code holds their hooks; their gates took "*) ;;
*) fail "--binary said '$(cat bin.err)'" ;;
esac
# the same code in a shared library (a libtool project's shape): the
# program's code holds no inlined hooks, the library's does; --binary takes
# both, the program's build id checked, the library's not (the profile
# records none)
"$wrapper" --via=cyg gcc -O2 -fPIC -shared -Dmain=inlined_main "$src/examples/inlined.c" -o libinl.so \
	>build.log 2>&1 || fail "build libinl.so: $(cat build.log)"
printf 'int inlined_main(void);\nint main(void) { return inlined_main(); }\n' >main.c
"$wrapper" --via=cyg gcc -O2 main.c -L. -linl -Wl,-rpath,"$PWD" -o prog-lib >build.log 2>&1 ||
	fail "build prog-lib: $(cat build.log)"
PATHPROF_TIMING=on PATHPROF_OUT=lib.pathprof ./prog-lib >/dev/null || fail "run prog-lib"
"$pp" select lib.pathprof --binary ./prog-lib >lib-prog.txt 2>lib-prog.err || fail "select --binary prog-lib: $(cat lib-prog.err)"
[ "$(cat lib-prog.txt)" = host ] || fail "--binary of the program alone dropped '$(paste -sd, lib-prog.txt)', expected host"
"$pp" select lib.pathprof --binary ./prog-lib --binary ./libinl.so >lib-both.txt 2>lib-both.err ||
	fail "select --binary prog-lib --binary libinl.so: $(cat lib-both.err)"
[ "$(sort lib-both.txt | paste -sd, -)" = host,never_run,slow_path ] ||
	fail "--binary of the program and its library dropped '$(paste -sd, lib-both.txt)', expected host, slow_path and never_run"
# gcc's lists, rebuilt: the hooks left in host's code
"$pp" select prog.pathprof --format gcc >plain.gcc 2>/dev/null || fail "select --format gcc"
"$pp" select prog.pathprof --binary ./prog --format gcc >bin.gcc 2>/dev/null || fail "select --binary --format gcc"
[ "$(hooks_in_host prog)" = 6 ] || fail "host of the first build calls $(hooks_in_host prog) hooks, expected 6"
build prog-plain "$(cat plain.gcc)"
[ "$(hooks_in_host prog-plain)" = 4 ] || fail "host rebuilt without itself calls $(hooks_in_host prog-plain) hooks, expected 4 (its inlined callees')"
build prog-bin "$(cat bin.gcc)"
[ "$(hooks_in_host prog-bin)" = 0 ] || fail "host rebuilt with --binary's list calls $(hooks_in_host prog-bin) hooks, expected 0"
# refusals: one line, exit 1, no list
refused() { # WHY SELECT-ARGS...
	why=$1
	shift
	"$pp" select "$@" >out 2>err
	rc=$?
	[ "$rc" = 1 ] || fail "select $*: exit $rc, expected 1"
	[ ! -s out ] || fail "select $*: wrote a list"
	[ "$(wc -l <err)" = 1 ] && grep -qF "$why" err || fail "select $*: said '$(cat err)', expected '$why'"
}
refused "select: --binary: ./prog-bin is neither the profile's program (build id " prog.pathprof --binary ./prog-bin
refused "select: --binary: $src/examples/inlined.c: not an ELF file" prog.pathprof --binary "$src/examples/inlined.c"
refused "select: --binary: ./missing: No such file or directory" prog.pathprof --binary ./missing
# an aarch64 ELF header (machine 183)
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\267\000' >arm64
refused "select: --binary: ./arm64: not an x86-64 program (the only code --binary reads)" prog.pathprof --binary ./arm64
strip -o prog-stripped prog || fail "strip"
refused "select: --binary: ./prog-stripped has no function symbols (stripped?)" prog.pathprof --binary ./prog-stripped
"$mkprof" nested-xray xray.pathprof || fail "mkprof"
refused "select: --binary: xray.pathprof was gated through xray: only cyg's hooks and the plugin's gates are inlined with their functions" xray.pathprof --binary ./prog
# the plugin: the kept list, and the gates left in host's code by each
if [ -n "$plugin_cc" ]; then
	"$wrapper" --via=plugin --plugin-mode=all "$plugin_cc" -O2 "$src/examples/inlined.c" -o pprog \
		>build.log 2>&1 || fail "plugin build: $(cat build.log)"
	PATHPROF_TIMING=on PATHPROF_OUT=pprog.pathprof ./pprog >/dev/null || fail "plugin run"
	"$pp" select pprog.pathprof --format keep >keep.txt 2>/dev/null || fail "plugin select"
	"$pp" select pprog.pathprof --format keep --binary ./pprog >keep-bin.txt 2>keep-bin.err ||
		fail "plugin select --binary: $(cat keep-bin.err)"
	[ "$(sort keep.txt | paste -sd, -)" = main,slow_path ] || fail "plugin kept '$(paste -sd, keep.txt)'"
	[ "$(cat keep-bin.txt)" = main ] || fail "plugin --binary kept '$(paste -sd, keep-bin.txt)', expected main"
	for l in keep keep-bin; do
		"$wrapper" --via=plugin --plugin-list="$l.txt" "$plugin_cc" -O2 "$src/examples/inlined.c" \
			-o "pprog-$l" >build.log 2>&1 || fail "plugin rebuild with $l.txt: $(cat build.log)"
	done
	[ "$(hooks_in_host pprog-keep pp_plugin_enter)" = 1 ] ||
		fail "host rebuilt with the kept list calls pp_plugin_enter $(hooks_in_host pprog-keep pp_plugin_enter) times, expected 1 (slow_path's)"
	[ "$(hooks_in_host pprog-keep-bin pp_plugin_enter)" = 0 ] ||
		fail "host rebuilt with --binary's kept list calls pp_plugin_enter $(hooks_in_host pprog-keep-bin pp_plugin_enter) times, expected 0"
fi
[ "$fails" -eq 0 ] || { echo "select_inlined.sh: $fails check(s) failed"; exit 1; }
echo "select_inlined.sh: ok"
