# Sourced by the tests/safety scripts, whose arguments are WRAPPER BUILDROOT
# PATHPROF VIA CC SRCDIR: a scratch directory ($work, removed at exit with
# the process $pid if one is left), the PATHPROF_* environment cleared so a
# developer's settings never leak in, fail() counting failures and finish()
# reporting them, and safety_build SRC OUT [FLAGS...] compiling a test program
# through the injector (tests/crash/build.sh).
# shellcheck shell=sh disable=SC2034
set -eu
wrapper=$1 build=$2 pathprof=$3 via=$4 cc=$5 src=$6
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-safety.XXXXXX")
pid=
trap 'rm -rf "$work"; [ -z "$pid" ] || kill "$pid" 2>/dev/null' EXIT
. "$src/../crash/build.sh"
# (the sanitizer runs turn the default live segment off: its naming thread
# holds the sanitizer allocator's locks, which a raw clone can inherit;
# keep_shm_off puts that back for the tests whose copies would wait on it)
shm_was=${PATHPROF_SHM-}
for v in $(env | sed -n 's/^\(PATHPROF_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
keep_shm_off() { [ "$shm_was" != off ] || export PATHPROF_SHM=off; }
fails=0
fail() { echo "FAIL: $via $cc: $*"; fails=$((fails + 1)); }
finish() { [ "$fails" -eq 0 ] || exit 1; echo "ok: $via $cc"; }
safety_build() {
	_src=$1 _out=$2
	shift 2
	crash_build "$wrapper" "$build" "$via" "$cc" "$src/$_src" "$_out" "$@"
}
# The leaf calls of main>calls>leaf in a profile (images.c), whatever else
# clang's cyg gates around them (inline library functions).
leafs() { "$pathprof" report --format paths "$1" | sed -n 's/^\([0-9]*\)|main>calls>leaf$/\1/p'; }
