#!/bin/sh
# Build differ.cpp through cyg (g++, clang++) and the plugin (its clang++) at
# -O0 and -O2 and compare the paths through scope and measure (the rest is
# libstdc++'s inside, which varies with its version) with differ.expected:
# the differences between injectors on C++ are the documented ones, exactly.
# usage: differ.sh BUILDROOT SRCROOT PATHPROF PLUGIN_CLANGXX
set -eu
build=$1 root=$2 pathprof=$3 pclangxx=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-differ.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$root/tests/common/fe_build.sh"
: >"$work/got"
while read -r cxx fe opt; do
	case $cxx-$fe in
	gcc-cyg) cc=g++ ;;
	clang-cyg) cc=clang++ ;;
	clang-plugin) cc=$pclangxx ;;
	esac
	fe_build "$cc" "$fe" "$opt" "$root/tests/frontends/differ.cpp" "$work/prog"
	PATHPROF_OUT="$work/out.pathprof" "$work/prog"
	echo "== $cxx $fe $opt" >>"$work/got"
	"$pathprof" report --format paths --names short "$work/out.pathprof" |
		grep -e '>scope' -e '>measure' | sort -r >>"$work/got"
done <<LIST
gcc cyg -O2
clang cyg -O0
clang plugin -O0
clang cyg -O2
clang plugin -O2
LIST
diff -u "$root/tests/frontends/differ.expected" "$work/got" || {
	echo "differ.sh: the injectors differ on C++ otherwise than documented" >&2
	exit 1
}
echo "differ.sh: ok"
