#!/bin/sh
# PATHPROF_ROOT and PATHPROF_FUNCTIONS through one front-end: build examples/roots.c,
# run it under each selection of select.expected and compare the canonical
# listing (order aside) and the events, unmatched and outside-roots counters
# exactly (under a root selection events are the roots' entries, the same
# through every injector), a function selection's timed too; then
# record a trace under a root selection with timing on and check that its
# replay is the profile written in the same run.
# usage: select.sh CC FRONTEND BUILDROOT SRCROOT PATHPROF
set -eu
cc=$1 fe=$2 build=$3 root=$4 pathprof=$5
command -v "$cc" >/dev/null 2>&1 || { echo "select.sh: compiler $cc not found" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-select.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$root/tests/common/fe_build.sh"
fe_build "$cc" "$fe" -O2 "$root/examples/roots.c" "$work/prog"
export PATHPROF_XRAY=all PATHPROF_TIMING=off

# counters FILE: the line select.expected keeps after each listing (an
# injector whose counters differ has its own before it, "xray: events ...")
counters()
{
	"$pathprof" report --format json "$1" |
		sed -n 's/^  "\(events\|unmatched\|outside_roots\)": \([0-9]*\),$/\1 \2/p' | paste -sd' ' -
}

expected=$root/tests/frontends/select.expected
grep '^== ' "$expected" | sed 's/^== //' | while IFS= read -r title; do
	sed -n "/^== $(printf '%s' "$title" | sed 's/[]*[\/.^$]/\\&/g')\$/,/^events /p" "$expected" |
		sed '1d' >"$work/want.raw"
	grep -v '^\([a-z]*: \)\{0,1\}events ' "$work/want.raw" | sort >"$work/want"
	case $title in
	"no selection") set -- ;;
	*) set -- "$title" ;;
	esac
	rm -f "$work/out.pathprof"
	env PATHPROF_OUT="$work/out.pathprof" "$@" "$work/prog" 100
	"$pathprof" report --format paths "$work/out.pathprof" | sort >"$work/got"
	if ! diff -u "$work/want" "$work/got"; then
		echo "select.sh: $fe $cc, $title: listing differs" >&2
		exit 1
	fi
	# an injector's own counters, where they differ, follow as "FE: events ..."
	want_c=$(sed -n "s/^$fe: \(events \)/\1/p" "$work/want.raw")
	[ -n "$want_c" ] || want_c=$(grep '^events ' "$work/want.raw")
	got_c=$(counters "$work/out.pathprof")
	if [ "$want_c" != "$got_c" ]; then
		echo "select.sh: $fe $cc, $title: '$got_c', expected '$want_c'" >&2
		exit 1
	fi
	# Timed, a function selection's kept gates take their own way through
	# cyg and the plugin (runtime/gate_selected.c): the same listing, every
	# exit timed, timed calls wherever there are events, the same counters.
	case $title in
	PATHPROF_FUNCTIONS=*)
		rm -f "$work/timed.pathprof"
		env PATHPROF_OUT="$work/timed.pathprof" PATHPROF_TIMING=on "$@" "$work/prog" 100
		"$pathprof" report --format paths "$work/timed.pathprof" | sort >"$work/got"
		if ! diff -u "$work/want" "$work/got"; then
			echo "select.sh: $fe $cc, $title, timed: listing differs" >&2
			exit 1
		fi
		got_t=$("$pathprof" report --format json "$work/timed.pathprof" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d["drops_time"], (sum(n["calls"] for n in d["nodes"]) > 0) == (d["events"] > 0))')
		if [ "$(counters "$work/timed.pathprof")" != "$want_c" ] || [ "$got_t" != "0 True" ]; then
			echo "select.sh: $fe $cc, $title, timed: '$(counters "$work/timed.pathprof")', dropped and timed: $got_t" >&2
			exit 1
		fi ;;
	esac
	echo "ok: $fe $cc, $title"
done

# A root selection under recording and timing: replay == live.
PATHPROF_ROOT='handle_*' PATHPROF_TIMING=on PATHPROF_OUT="$work/live.pathprof" \
	PATHPROF_TRACE="$work/run.trace" "$work/prog" 100
"$pathprof" replay -o "$work/replay.pathprof" "$work/run.trace"
"$pathprof" report --format paths "$work/live.pathprof" >"$work/live.paths"
"$pathprof" report --format paths "$work/replay.pathprof" >"$work/replay.paths"
diff -u "$work/live.paths" "$work/replay.paths" || {
	echo "select.sh: $fe $cc: the replay of a trace under PATHPROF_ROOT differs from the profile" >&2
	exit 1
}
[ "$(counters "$work/live.pathprof")" = "events 100 unmatched 1 outside_roots 101" ] || {
	echo "select.sh: $fe $cc: timed run under PATHPROF_ROOT: $(counters "$work/live.pathprof")" >&2
	exit 1
}
[ "$(counters "$work/replay.pathprof")" = "$(counters "$work/live.pathprof")" ] || {
	echo "select.sh: $fe $cc: replay counts $(counters "$work/replay.pathprof"), live $(counters "$work/live.pathprof")" >&2
	exit 1
}
echo "ok: $fe $cc, replay under PATHPROF_ROOT"
