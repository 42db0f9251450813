#!/bin/sh
# The "adding an injector" checklist (docs/guides/injectors.md) stays true:
# every injector pathprof-cc offers has its recipe, and what is generated
# from the recipe (its pkg-config module, its CMake target) is in the build;
# it is named in each place the checklist lists by hand.
# usage: injectors.sh SRCROOT WRAPPER BUILDROOT
set -eu
src=$1 wrapper=$2 build=$3
# the injectors, from the wrapper's own help: the lines under "injectors"
vias=$("$wrapper" --help 2>&1 | sed -n '/^injectors/,/^$/s/^  \([a-z][a-z0-9]*\)  .*/\1/p' | tr '\n' ' ')
[ -n "$vias" ] || { echo "FAIL: no --via list in pathprof-cc --help"; exit 1; }
fails=0
for inj in $vias; do
	upper=$(echo "$inj" | tr a-z A-Z)
	grep -q "PP_FE_$upper" "$src/runtime/include/pathprof/state.h" || { echo "FAIL: $inj: no PP_FE_$upper"; fails=$((fails + 1)); }
	grep -q "\"$inj\"" "$src/runtime/names.c" || { echo "FAIL: $inj: no name in runtime/names.c"; fails=$((fails + 1)); }
	[ -d "$src/frontends/$inj" ] || { echo "FAIL: $inj: no frontends/$inj"; fails=$((fails + 1)); }
	grep -Eq "^$inj +\|" "$src/frontends/recipes.txt" || { echo "FAIL: $inj: no recipe in frontends/recipes.txt"; fails=$((fails + 1)); }
	# generated for every injector this build has: its archive, and the
	# pass plugin when its recipe names one (-Dplugin=disabled builds the
	# shim without it, and no module)
	built=0
	[ -f "$build/frontends/$inj/libpathprof-$inj.a" ] && built=1
	if grep -Eq "^$inj +\|.*@plugin@" "$src/frontends/recipes.txt" && [ ! -f "$build/frontends/$inj/pathprof-$inj.so" ]; then
		built=0
	fi
	if [ "$built" = 1 ]; then
		[ -f "$build/meson-uninstalled/pathprof-$inj-uninstalled.pc" ] ||
			{ echo "FAIL: $inj: no pkg-config module generated"; fails=$((fails + 1)); }
	fi
	grep -q "_pp_injector($inj " "$build/cmake/pathprofConfig.cmake" ||
		{ echo "FAIL: $inj: no CMake target generated"; fails=$((fails + 1)); }
	for f in tools/pathprof-cc tests/common/fe_build.sh verify/verify.sh bench/overhead.py README.md; do
		grep -qw "$inj" "$src/$f" || { echo "FAIL: $inj: not named in $f"; fails=$((fails + 1)); }
	done
	for f in docs/guides/getting-started-$inj.md docs/reference/$inj.md; do
		[ -f "$src/$f" ] || { echo "FAIL: $inj: no $f"; fails=$((fails + 1)); }
	done
done
[ "$fails" -eq 0 ] || exit 1
echo "ok: $vias"
