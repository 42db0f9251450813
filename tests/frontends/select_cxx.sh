#!/bin/sh
# Selections on C++ names through one front-end (#29, docs/guides/selection.md):
# tests/frontends/select_cxx.cpp run 10 times round its loop.
#  - a glob matches the qualified name: 'db::Impl::*' keeps db::Impl::write
#    and not util::first_of<db::Impl::Writer>, whose full name starts with
#    its return type db::Impl::Writer*;
#  - a full name copied from the report, commas and all, is one pattern;
#  - a selection that matches nothing says so at exit;
#  - the profile records the selection and the report shows it;
#  - under a root selection events are the roots' entries (10), gates
#    outside every root are counted apart, the same on every injector.
# usage: select_cxx.sh CXX FRONTEND BUILDROOT SRCROOT PATHPROF
set -eu
cxx=$1 fe=$2 build=$3 root=$4 pathprof=$5
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-selcxx.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$root/tests/common/fe_build.sh"
fe_build "$cxx" "$fe" -O2 "$root/tests/frontends/select_cxx.cpp" "$work/prog"
export PATHPROF_XRAY=all PATHPROF_TIMING=off
fail() { echo "select_cxx.sh: $fe $cxx: $*" >&2; exit 1; }
W='db::Impl::write(db::Impl::Writer*, int)'
F='db::Impl::Writer* util::first_of<db::Impl::Writer>(db::Impl::Writer*, int)'
S='long util::pair_sum<int, long>(int, long)'
# paths VAR=VALUE: the run's listing, one path a line, sorted
paths() {
	env "$1" PATHPROF_OUT="$work/out.pathprof" "$work/prog" 10 >/dev/null 2>"$work/err"
	"$pathprof" report --format paths "$work/out.pathprof" | sort
}
got=$(paths 'PATHPROF_FUNCTIONS=main,db::Impl::*')
[ "$got" = "10|main>$W" ] || fail "'db::Impl::*' kept: $got"
"$pathprof" report "$work/out.pathprof" | grep -qx '  selection  PATHPROF_FUNCTIONS=main,db::Impl::\*' ||
	fail "the text report does not show the selection"
"$pathprof" report --format json "$work/out.pathprof" | grep -q '"function_selection": "PATHPROF_FUNCTIONS=main,db::Impl::\*"' ||
	fail "JSON does not show the selection"
got=$(paths "PATHPROF_FUNCTIONS=main,$S")
[ "$got" = "10|main>$S" ] || fail "the full name '$S' kept: $got"
got=$(paths "PATHPROF_FUNCTIONS=main,$F")
[ "$got" = "10|main>$F" ] || fail "the full name '$F' kept: $got"
paths 'PATHPROF_ROOT=Impl::Write' >/dev/null
grep -qx 'pathprof: PATHPROF_ROOT=Impl::Write: no function that ran matched; no event started at a root' "$work/err" ||
	fail "a root selection matching nothing: $(cat "$work/err")"
got=$(paths 'PATHPROF_ROOT=util::pair_sum*' | grep pair_sum)
[ "$got" = "10|$S" ] || fail "roots 'util::pair_sum*': $got"
c=$("$pathprof" report --format json "$work/out.pathprof" |
	sed -n 's/^  "\(events\|outside_roots\)": \([0-9]*\),$/\1 \2/p' | paste -sd' ' -)
# outside every root: main, then first_of and write of the 9 rounds after
# the first root (a root starts an event as pp_root() does: main's frame,
# and the first round's calls inside it, are left behind)
[ "$c" = "events 10 outside_roots 19" ] || fail "roots 'util::pair_sum*': $c"
echo "ok: $fe $cxx: qualified-name globs, full names, an empty match, the recorded selection, roots"
