#!/bin/sh
# Run one XRay test program mode and compare its canonical path listing (and,
# when given, its stderr) with the expected text, and the unmatched count
# with XTEST_UNMATCHED when that is set; timed when XTEST_TIMING=on.
# usage: check.sh <program> <pathprof-cli> <mode> <PATHPROF_XRAY value | -> \
#                 <expected-paths> [<expected-stderr>]   (- leaves it unset)
set -u
prog=$1 cli=$2 mode=$3 xray=$4 want=$5 want_err=${6:-}
if [ "$xray" = - ]; then unset PATHPROF_XRAY; else export PATHPROF_XRAY="$xray"; fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

PATHPROF_OUT=$tmp/prof PATHPROF_TIMING=${XTEST_TIMING:-off} "$prog" "$mode" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: $prog $mode exited $rc"; cat "$tmp/err"; exit 1
fi
"$cli" report --format paths "$tmp/prof" >"$tmp/paths" || { echo "FAIL: report"; exit 1; }
if ! diff -u "$want" "$tmp/paths"; then
	echo "FAIL: path listing of mode $mode differs (- expected, + got)"; exit 1
fi
if [ -n "$want_err" ] && ! diff -u "$want_err" "$tmp/err"; then
	echo "FAIL: stderr of mode $mode differs"; exit 1
fi
if [ -z "$want_err" ] && [ -s "$tmp/err" ]; then
	echo "FAIL: unexpected stderr"; cat "$tmp/err"; exit 1
fi
# XTEST_UNMATCHED (when set): the profile's unmatched count
if [ -n "${XTEST_UNMATCHED:-}" ]; then
	got=$("$cli" report --format json "$tmp/prof" | python3 -c 'import json, sys; print(json.load(sys.stdin)["unmatched"])') ||
		{ echo "FAIL: report --format json"; exit 1; }
	[ "$got" = "$XTEST_UNMATCHED" ] || { echo "FAIL: mode $mode: unmatched $got, expected $XTEST_UNMATCHED"; exit 1; }
fi
echo "ok: $mode"
