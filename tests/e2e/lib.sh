# Shared by sqlite.sh (the e2e test) and overhead.sh: fetch SQLite's
# amalgamation from the npm package better-sqlite3 (pinned, checksummed, cached
# in the build dir, never committed) and build it plus the driver through each
# front-end with the flags of docs/internals/e2e-sqlite.md. Sourced, not run.
# Needs: build (a built pathprof Meson build dir), root (the source tree),
# E2E_CLANG, E2E_PLUGIN_CLANG, E2E_GCC (defaults clang, clang, gcc).
# shellcheck shell=sh disable=SC2034,SC2154

# The pinned package and the sha256 of its tarball: a different file is refused.
sqlite_pkg=better-sqlite3@12.10.1
sqlite_tgz=better-sqlite3-12.10.1.tgz
sqlite_sha256=55a4e8528e28a50c6074b698ee5da4061af1e70b886e2e0c08ce0da340935171
sqlite_version=3.53.2

clang=${E2E_CLANG:-clang}
pclang=${E2E_PLUGIN_CLANG:-$clang}
gcc=${E2E_GCC:-gcc}
cli=$build/tools/pathprof
rt_a=$build/runtime/libpathprof.a
cyg_a=$build/frontends/cyg/libpathprof-cyg.a
xray_a=$build/frontends/xray/libpathprof-xray.a
shim_a=$build/frontends/plugin/libpathprof-plugin.a
plugin=$build/frontends/plugin/pathprof-plugin.so
cache=$build/tests/e2e/cache

# Flags (docs/internals/e2e-sqlite.md says why, with the evidence):
#  -std=c99 everywhere: it defines __STRICT_ANSI__, which empties SQLite's
#    SQLITE_INLINE (always_inline, inlined even at -O0, so XRay would never see
#    those functions while cyg and the plugin gate them through the inlining).
#  cyg and plugin at -O2: their hooks are placed before inlining and make every
#    gated function opaque to the optimiser, so they gate the source-level calls
#    at any level.
#  xray at -O0: sleds are in the final code, and from -O1 on clang drops or
#    merges calls to functions it proved side-effect free (constant returns,
#    readnone), -fno-inline or not; -O0 keeps every call, and has no tail calls.
#  SQLITE_* options: deterministic and simple (no threads, no randomness, no
#    mmap, temp tables in memory, no extension loading).
base_flags="-std=c99 -g -U_FORTIFY_SOURCE"
sqlite_defs="-DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION
 -DSQLITE_DEFAULT_MEMSTATUS=0 -DSQLITE_OMIT_RANDOMNESS -DSQLITE_TEMP_STORE=3
 -DSQLITE_MAX_MMAP_SIZE=0 -DSQLITE_DQS=0 -DSQLITE_OMIT_DEPRECATED
 -DSQLITE_OMIT_SHARED_CACHE"
syslibs="-ldw -lelf -lpthread -ldl -lm"

# row BUILD CHECK STATUS [DETAIL]: one line of a test's table; a STATUS
# other than ok counts in fails, which e2e_verdict reads at the end.
fails=0
row()
{
	printf '%-13s %-10s %-4s %s\n' "$1" "$2" "$3" "${4:-}"
	[ "$3" = ok ] || fails=$((fails + 1))
}

# e2e_verdict: PASS and exit 0, or FAIL with the count and exit 1.
e2e_verdict()
{
	if [ "$fails" -eq 0 ]; then
		echo "e2e: PASS"
		exit 0
	fi
	echo "e2e: FAIL ($fails checks)"
	exit 1
}

# two_at_a_time FUNC NAME...: FUNC NAME for each NAME, two at once (the
# compiles and runs fill both cores of CI).
two_at_a_time()
{
	fn=$1
	shift
	while [ $# -gt 0 ]; do
		"$fn" "$1" &
		if [ $# -gt 1 ]; then "$fn" "$2" & fi
		wait
		shift; [ $# -gt 0 ] && shift
	done
}

# fetch_npm WHAT PKG TGZ SHA256: leaves the npm package PKG's tarball in
# $cache/TGZ, checked against SHA256; returns 1 with one line saying why
# (naming WHAT) when it cannot.
fetch_npm()
{
	mkdir -p "$cache" || return 1
	if ! command -v npm >/dev/null 2>&1; then
		echo "e2e: cannot fetch $1: npm not found (scripts/deps.sh installs it)" >&2
		return 1
	fi
	if [ ! -f "$cache/$3" ]; then
		if ! (cd "$cache" && npm_config_cache="$cache/npm" npm pack --loglevel=error \
			"$2" >npm.log 2>&1); then
			echo "e2e: cannot fetch $1: 'npm pack $2' failed:" >&2
			tail -n 5 "$cache/npm.log" >&2
			rm -f "$cache/$3"
			return 1
		fi
	fi
	got=$(sha256sum "$cache/$3" | cut -d' ' -f1)
	if [ "$got" != "$4" ]; then
		echo "e2e: $3: sha256 $got, expected $4; refusing it" >&2
		rm -f "$cache/$3"
		return 1
	fi
}

# fetch_sqlite: leaves the amalgamation in $cache/sqlite3.c (and sqlite3.h);
# returns 1 with one line saying why when it cannot.
fetch_sqlite()
{
	[ -f "$cache/ok-$sqlite_version" ] && return 0
	fetch_npm SQLite "$sqlite_pkg" "$sqlite_tgz" "$sqlite_sha256" || return 1
	tar -xzf "$cache/$sqlite_tgz" -C "$cache" --strip-components=3 \
		package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h || return 1
	grep -q "#define SQLITE_VERSION  *\"$sqlite_version\"" "$cache/sqlite3.h" || {
		echo "e2e: $sqlite_tgz does not hold SQLite $sqlite_version" >&2
		return 1
	}
	touch "$cache/ok-$sqlite_version"
}

# The builds the test compares and their uninstrumented baselines (overhead.sh).
e2e_builds="clang-cyg clang-xray clang-plugin gcc-cyg"
base_builds="clang-O2 clang-O0 gcc-O2"

# shellcheck source=tests/common/recipe.sh
. "$root/tests/common/recipe.sh"

# fe_flags NAME: compiler, optimisation, front-end compile flags and link flags
# of build NAME (into cc, opt, fflags, lflags; the injector's from its recipe,
# frontends/recipes.txt) and the baseline it is timed
# against (into base).
fe_flags()
{
	opt=-O2 fflags=$(recipe_cflags cyg) base=$1
	lflags="$(recipe_link cyg "$build") $rt_a $syslibs"
	case $1 in
	clang-O2|clang-O0) cc=$clang opt=${1#clang} fflags="" lflags=-lm ;;
	gcc-O2) cc=$gcc fflags="" lflags=-lm ;;
	clang-cyg) cc=$clang base=clang-O2 ;;
	gcc-cyg) cc=$gcc base=gcc-O2 ;;
	clang-xray) cc=$clang opt=-O0 base=clang-O0
		fflags=$(recipe_cflags xray)
		lflags="$(recipe_link xray "$build") $rt_a $syslibs" ;;
	clang-plugin) cc=$pclang base=clang-O2
		fflags="-fplugin=$plugin $(recipe_cflags plugin "$plugin") -mllvm -pathprof-mode=all"
		lflags="$(recipe_link plugin "$build") $rt_a $syslibs" ;;
	*) echo "e2e: unknown build $1" >&2; return 1 ;;
	esac
}

# build_one NAME DIR: compile SQLite and the driver into DIR/driver; the
# compiler's output goes to DIR/build.log. Skips work already done for the
# same flags (the SQLite compile is the expensive part of the suite).
build_one()
{
	fe_flags "$1" || return 1
	d=$2
	mkdir -p "$d" && rm -f "$d/driver" || return 1
	# The object depends on the flags, the compiler (by version, not by the
	# path it was reached through) and, for the plugin build, the pass itself.
	pass=
	case $fflags in *pass-plugin*) pass=$(cksum <"$plugin") ;; esac
	# shellcheck disable=SC2086
	stamp=$(printf '%s\n' "$("$cc" --version | head -n 1)" "$pass" $opt $base_flags \
		$sqlite_defs $fflags | cksum | cut -d' ' -f1)
	if [ ! -f "$d/sqlite3.o" ] || [ "$(cat "$d/stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -f "$d/sqlite3.o" "$d/stamp"
		# shellcheck disable=SC2086
		"$cc" $opt $base_flags $sqlite_defs $fflags -w -c "$cache/sqlite3.c" \
			-o "$d/sqlite3.o" >"$d/build.log" 2>&1 || return 1
		echo "$stamp" >"$d/stamp"
	fi
	# shellcheck disable=SC2086
	"$cc" $opt $base_flags $sqlite_defs $fflags -Wall -Wextra -Werror \
		-I"$cache" -c "$root/tests/e2e/driver.c" -o "$d/driver.o" >>"$d/build.log" 2>&1 ||
		return 1
	# shellcheck disable=SC2086
	"$cc" "$d/driver.o" "$d/sqlite3.o" -o "$d/driver" $lflags >>"$d/build.log" 2>&1
}
