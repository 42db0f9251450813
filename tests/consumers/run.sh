#!/bin/sh
# Consumer projects: how a project that uses pathprof builds, against an
# installed prefix, the build tree, and pathprof as a Meson subproject. Each
# way builds the two-file C program and the C++ one in tests/consumers/app
# through every injector the compiler supports, runs them, and compares the
# profile's path listing with app/expected exactly (docs/guides/build-systems.md).
# C++ listings are compared on the paths through handle(): cyg and xray also
# count the standard library's inline functions, which are not the build's
# business.
# usage: run.sh PREFIX BUILDROOT SRCROOT [WAY...]
#   ways: make make-static meson meson-uninstalled meson-subproject
#         cmake-package cmake-pkgconfig cmake-launcher (default: all)
set -eu
prefix=$1 build=$2 src=$3
shift 3
ways=${*:-make make-static meson meson-uninstalled meson-subproject cmake-package cmake-pkgconfig cmake-launcher}
app=$src/tests/consumers/app
pathprof=$prefix/bin/pathprof
pcdir=$(dirname "$(find "$prefix" -name pathprof.pc | head -1)")
[ -f "$pcdir/pathprof.pc" ] || { echo "run.sh: no pathprof.pc under $prefix: install first" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-consumers.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# What each compiler builds: clang all four (the plugin is built for the
# default clang), gcc the two that need no LLVM.
injectors() {
	case $1 in
	gcc) echo "raii cyg" ;;
	*)
		list="raii cyg"
		[ -f "$pcdir/pathprof-xray.pc" ] && list="$list xray"
		[ -f "$pcdir/pathprof-plugin.pc" ] && list="$list plugin"
		echo "$list"
		;;
	esac
}
cxx_of() { [ "$1" = gcc ] && echo g++ || echo clang++; }

# check WAY CC DIR: run DIR/app-INJ-LANG for each injector and language
check() {
	way=$1 cc=$2 dir=$3
	for inj in $(injectors "$cc"); do
		for lang in c cpp; do
			exe=$dir/app-$inj-$lang
			what="$way $cc $inj $lang"
			[ -x "$exe" ] || { fail "$what: not built"; continue; }
			rm -f "$work/out.pathprof"
			if ! (cd "$work" && PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof" "$exe" >"$work/got" 2>"$work/err"); then
				fail "$what: exit status"; cat "$work/err"; continue
			fi
			if [ ! -f "$work/out.pathprof" ]; then
				fail "$what: no profile written (was the runtime linked?)"; continue
			fi
			"$pathprof" report --format paths "$work/out.pathprof" | sort -t'|' -k2 >"$work/paths"
			[ "$lang" = c ] || grep '|main>handle>' "$work/paths" >"$work/p2" || true
			[ "$lang" = c ] || mv "$work/p2" "$work/paths"
			cat "$work/paths" >>"$work/got"
			if ! diff -u "$app/expected" "$work/got" >"$work/diff"; then
				fail "$what: output differs"; cat "$work/diff"
			fi
		done
	done
}

copy_app() { mkdir -p "$1" && cp "$app"/*.c "$app"/*.cpp "$app"/*.h "$1/"; }

# make, with the module's flags in CFLAGS and LDFLAGS: make's rule puts
# LDFLAGS before the objects, the order that --as-needed punishes.
way_make() { # CC STATIC
	cc=$1 static=$2 d=$work/make-$1$2 label=make${2:+-static}
	copy_app "$d"
	for inj in $(injectors "$cc"); do
		flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags "pathprof-$inj")
		libs=$(PKG_CONFIG_PATH=$pcdir pkg-config $static --libs "pathprof-$inj")
		make -s -C "$d" -f "$app/Makefile" INJ="$inj" CC="$cc" CXX="$(cxx_of "$cc")" \
			CFLAGS="-O2 $flags" CXXFLAGS="-O2 $flags" LDFLAGS="$libs" >"$work/log" 2>&1 ||
			{ fail "$label $cc $inj: build"; cat "$work/log"; }
	done
	check "$label" "$cc" "$d"
}

meson_project() { # DIR INJECTORS...
	d=$1
	shift
	copy_app "$d"
	{
		echo "project('consumer', ['c', 'cpp'])"
		for inj in "$@"; do
			echo "dep_$inj = dependency('pathprof-$inj')"
			echo "executable('app-$inj-c', 'main.c', 'work.c', dependencies: dep_$inj)"
			echo "executable('app-$inj-cpp', 'main.cpp', 'work.cpp', dependencies: dep_$inj)"
		done
	} >"$d/meson.build"
}

way_meson() { # WAY CC PKG_CONFIG_PATH
	way=$1 cc=$2 pcpath=$3 d=$work/$1-$2
	# shellcheck disable=SC2046
	meson_project "$d" $(injectors "$cc")
	if [ "$way" = meson-subproject ]; then
		# pathprof's own tree as the subproject, found through the wrap's
		# [provide]: dependency('pathprof-cyg') needs no fallback argument.
		mkdir -p "$d/subprojects"
		ln -s "$src" "$d/subprojects/pathprof"
		cp "$src/docs/pathprof.wrap" "$d/subprojects/pathprof.wrap"
	fi
	if ! PKG_CONFIG_PATH=$pcpath CC=$cc CXX=$(cxx_of "$cc") meson setup "$d/b" "$d" >"$work/log" 2>&1 ||
	   ! ninja -C "$d/b" >>"$work/log" 2>&1; then
		fail "$way $cc: build"; tail -30 "$work/log"; return
	fi
	if [ "$way" = meson-subproject ]; then
		# the subproject builds pathprof, not its tests and benches (#28)
		n=$(meson introspect --targets "$d/b" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
		[ "$n" -lt 40 ] || fail "$way $cc: $n targets, expected fewer than 40"
	fi
	check "$way" "$cc" "$d/b"
}

cmake_project() { # DIR HOW INJECTORS...
	d=$1 how=$2
	shift 2
	copy_app "$d"
	{
		echo "cmake_minimum_required(VERSION 3.21)"
		echo "project(consumer C CXX)"
		case $how in
		package) echo "find_package(pathprof 0.1 CONFIG REQUIRED COMPONENTS $*)" ;;
		pkgconfig) echo "find_package(PkgConfig REQUIRED)" ;;
		esac
		for inj in "$@"; do
			echo "add_executable(app-$inj-c main.c work.c)"
			echo "add_executable(app-$inj-cpp main.cpp work.cpp)"
			case $how in
			package) target=pathprof::$inj ;;
			pkgconfig)
				echo "pkg_check_modules(PP_$inj REQUIRED IMPORTED_TARGET pathprof-$inj)"
				target=PkgConfig::PP_$inj
				;;
			launcher) target= ;;
			esac
			[ -z "$target" ] || echo "target_link_libraries(app-$inj-c PRIVATE $target)"
			[ -z "$target" ] || echo "target_link_libraries(app-$inj-cpp PRIVATE $target)"
		done
	} >"$d/CMakeLists.txt"
}

way_cmake() { # HOW CC
	how=$1 cc=$2
	if [ "$how" = launcher ]; then
		# One project per injector: the launcher is per build. Compile and
		# link both go through pathprof-cc (CMake >= 3.21).
		for inj in $(injectors "$cc"); do
			d=$work/cmake-launcher-$cc-$inj
			cmake_project "$d" launcher "$inj"
			if ! CC=$cc CXX=$(cxx_of "$cc") cmake -S "$d" -B "$d/b" \
				"-DCMAKE_C_COMPILER_LAUNCHER=$prefix/bin/pathprof-cc;--via=$inj" \
				"-DCMAKE_C_LINKER_LAUNCHER=$prefix/bin/pathprof-cc;--via=$inj" \
				"-DCMAKE_CXX_COMPILER_LAUNCHER=$prefix/bin/pathprof-c++;--via=$inj" \
				"-DCMAKE_CXX_LINKER_LAUNCHER=$prefix/bin/pathprof-c++;--via=$inj" \
				>"$work/log" 2>&1 || ! cmake --build "$d/b" >>"$work/log" 2>&1; then
				fail "cmake-launcher $cc $inj: build"; tail -30 "$work/log"; continue
			fi
			mkdir -p "$work/cl-$cc"
			cp "$d/b/app-$inj-c" "$d/b/app-$inj-cpp" "$work/cl-$cc/"
		done
		check cmake-launcher "$cc" "$work/cl-$cc"
		return
	fi
	d=$work/cmake-$how-$cc
	# shellcheck disable=SC2046
	cmake_project "$d" "$how" $(injectors "$cc")
	if ! PKG_CONFIG_PATH=$pcdir CC=$cc CXX=$(cxx_of "$cc") cmake -S "$d" -B "$d/b" \
		-DCMAKE_PREFIX_PATH="$prefix" >"$work/log" 2>&1 || ! cmake --build "$d/b" >>"$work/log" 2>&1; then
		fail "cmake-$how $cc: build"; tail -30 "$work/log"; return
	fi
	check "cmake-$how" "$cc" "$d/b"
}

for way in $ways; do
	case $way in
	make) way_make gcc ""; way_make clang "" ;;
	make-static) way_make clang --static ;;
	meson) way_meson meson gcc "$pcdir"; way_meson meson clang "$pcdir" ;;
	meson-uninstalled) way_meson meson-uninstalled clang "$build/meson-uninstalled" ;;
	meson-subproject) way_meson meson-subproject clang "" ;;
	cmake-package) way_cmake package gcc; way_cmake package clang ;;
	cmake-pkgconfig) way_cmake pkgconfig clang ;;
	cmake-launcher) way_cmake launcher clang ;;
	*) echo "run.sh: unknown way $way" >&2; exit 2 ;;
	esac
	echo "run.sh: $way: done"
done
[ "$fails" -eq 0 ] || { echo "run.sh: $fails check(s) failed"; exit 1; }
echo "run.sh: consumers: all ok ($ways)"
