#!/bin/sh
# Build examples/multi with one injector and one compiler, through the
# wrapper, through pkg-config flags in CFLAGS/LDFLAGS, or through CMake with
# CC set to the wrapper; run it with `pathprof run` and compare the program's
# output, the canonical path listing and the exit status with the expected text.
# usage: multi.sh HOW VIA CC SRCDIR BUILDROOT PATHPROF WRAPPER EXPECTED [WRAPPER-OPTS...]
set -eu
how=$1 via=$2 cc=$3 src=$4 build=$5 pathprof=$6 wrapper=$7 expected=$8
shift 8
command -v "$cc" >/dev/null 2>&1 || { echo "multi.sh: $cc not found: skipped"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-multi.XXXXXX")
trap 'rm -rf "$work"' EXIT
PKG_CONFIG_PATH=$build/meson-uninstalled
export PKG_CONFIG_PATH
warn="-Wall -Wextra -Werror"
case $how in
wrapper)
	make -s -C "$work" -f "$src/Makefile" SRCDIR="$src" \
		CC="$wrapper --via=$via $* $cc" CFLAGS="-O2 -g $warn" >/dev/null
	;;
pkgconfig)
	make -s -C "$work" -f "$src/Makefile" SRCDIR="$src" CC="$cc" \
		CFLAGS="-O2 -g $warn $(pkg-config --cflags "pathprof-$via")" \
		LDFLAGS="$(pkg-config --libs "pathprof-$via")" >/dev/null
	;;
cmake)
	command -v cmake >/dev/null 2>&1 || { echo "multi.sh: cmake not found: skipped"; exit 77; }
	cat >"$work/CMakeLists.txt" <<EOT
cmake_minimum_required(VERSION 3.13)
project(multi C)
add_executable(multi $src/main.c $src/request.c $src/parse.c $src/route.c $src/util.c)
target_compile_options(multi PRIVATE -O2 $warn)
EOT
	CC="$wrapper --via=$via $* $cc" cmake -S "$work" -B "$work/b" >"$work/cmake.log" 2>&1 ||
		{ cat "$work/cmake.log"; exit 1; }
	cmake --build "$work/b" >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
	cp "$work/b/multi" "$work/multi"
	;;
*) echo "multi.sh: unknown way $how" >&2; exit 1 ;;
esac
cd "$work"
set +e
"$pathprof" run --format paths --out "$work/multi.pathprof" -- ./multi 1000 >got 2>err
echo "status $?" >>got
set -e
if ! diff -u "$expected" got; then
	cat err
	echo "multi.sh: $how $via $cc: output differs from $expected" >&2
	exit 1
fi
