#!/bin/sh
# e2e: SQLite (fetched from npm at test time, never committed) and the driver
# built through cyg, xray and the plugin with clang and cyg with gcc, each run
# twice; the canonical path listings must be identical across runs and builds,
# the counters clean, the names resolved and the report readable
# (docs/internals/e2e-sqlite.md). Prints one row per build x check, then PASS or FAIL.
# A SQLite that cannot be fetched is a FAIL, never a skip.
# usage: sqlite.sh BUILD_DIR [ROWS]
set -u
LC_ALL=C
export LC_ALL

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ ! -d "$1" ]; then
	echo "usage: sqlite.sh BUILD_DIR [ROWS]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
rows=${2:-200000}
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${E2E_PYTHON:-python3}
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"
ref="clang-cyg"

missing=
for f in "$cli" "$rt_a" "$cyg_a" "$xray_a" "$shim_a" "$plugin"; do
	[ -e "$f" ] || missing="$missing $f"
done
for c in "$clang" "$pclang" "$gcc" "$python"; do
	command -v "$c" >/dev/null 2>&1 || missing="$missing $c"
done
if [ -n "$missing" ]; then
	echo "e2e: FAIL: cannot build every front-end, missing:$missing" >&2
	exit 1
fi
if ! fetch_sqlite; then
	echo "e2e: FAIL: SQLite $sqlite_version ($sqlite_pkg) could not be fetched, so nothing was tested" >&2
	exit 1
fi

work=$build/tests/e2e/runs
mkdir -p "$work" || exit 1

# build_and_run NAME: build, then run twice (timed, then sampled) and list.
# Everything is left in $work/NAME for the checks and for a reader.
# shellcheck disable=SC2317 # called through two_at_a_time
build_and_run()
{
	d=$work/$1
	rm -f "$d"/run* "$d"/t.db "$d/driver"
	build_one "$1" "$d" || { echo fail >"$d/run.status"; return; }
	arm=
	[ "$1" = clang-xray ] && arm=all
	for r in 1 2; do
		t=on
		[ "$r" = 2 ] && t=sample:16
		if PATHPROF_XRAY=$arm PATHPROF_TIMING=$t PATHPROF_OUT="$d/run$r.pathprof" \
			"$d/driver" --db "$d/t.db" --rows "$rows" >"$d/run$r.out" 2>"$d/run$r.err" &&
			"$cli" report --format paths "$d/run$r.pathprof" >"$d/run$r.paths" 2>>"$d/run$r.err"; then
			:
		else
			echo fail >"$d/run.status"
			return
		fi
	done
	echo ok >"$d/run.status"
}

start=$(date +%s)
# shellcheck disable=SC2086
two_at_a_time build_and_run $e2e_builds
echo "e2e: SQLite $sqlite_version, $rows rows, built and ran 4 builds in $(($(date +%s) - start)) s"

for b in $e2e_builds; do
	d=$work/$b
	if [ ! -x "$d/driver" ]; then
		row "$b" build FAIL "see $d/build.log"
		tail -n 5 "$d/build.log"
		continue
	fi
	row "$b" build ok
	if [ "$(cat "$d/run.status")" != ok ] || [ -s "$d/run1.err" ] || [ -s "$d/run2.err" ]; then
		row "$b" run FAIL "see $d/run*.err"
		cat "$d"/run*.err 2>/dev/null | head -n 5
		continue
	fi
	row "$b" run ok
	if cmp -s "$d/run1.out" "$work/$ref/run1.out" && cmp -s "$d/run1.out" "$d/run2.out"; then
		row "$b" results ok "$(tr '\n' ' ' <"$d/run1.out")"
	else
		row "$b" results FAIL "query checksums differ from $ref's"
		diff "$work/$ref/run1.out" "$d/run1.out"
	fi
	if cmp -s "$d/run1.paths" "$d/run2.paths"; then
		row "$b" 2-runs ok "$(wc -l <"$d/run1.paths") paths"
	else
		row "$b" 2-runs FAIL
		diff -u "$d/run1.paths" "$d/run2.paths" | head -n 20
	fi
	if [ "$b" != "$ref" ]; then
		if cmp -s "$d/run1.paths" "$work/$ref/run1.paths"; then
			row "$b" "=$ref" ok
		else
			row "$b" "=$ref" FAIL "$(diff "$work/$ref/run1.paths" "$d/run1.paths" | grep -c '^[<>]') lines differ"
			diff -u "$work/$ref/run1.paths" "$d/run1.paths" | head -n 30
		fi
	fi
	"$cli" report --format json "$d/run1.pathprof" >"$d/run1.json" || continue
	if msg=$("$python" "$root/tests/e2e/check_profile.py" "$d/run1.json" "${b#*-}" "$d/run1.out" 2>&1); then
		row "$b" counters ok "$msg"
	else
		row "$b" counters FAIL "$msg"
	fi
done

# Readability, on the reference build's timed run.
# PATHPROF_ROOT on a real program: rooted at sqlite3_step (called from the
# driver's operations, and from inside SQLite), the rooted paths are exactly
# the plain run's suffixes from sqlite3_step (check_roots.py).
d=$work/$ref
if [ -x "$d/driver" ]; then
	rm -f "$d/t.db"
	if PATHPROF_ROOT=sqlite3_step PATHPROF_TIMING=on PATHPROF_OUT="$d/root.pathprof" \
		"$d/driver" --db "$d/t.db" --rows "$rows" >"$d/root.out" 2>"$d/root.err" &&
		[ ! -s "$d/root.err" ] && cmp -s "$d/root.out" "$d/run1.out" &&
		"$cli" report --format paths "$d/root.pathprof" >"$d/root.paths" &&
		msg=$("$python" "$root/tests/e2e/check_roots.py" sqlite3_step "$d/run1.paths" "$d/root.paths" 2>&1); then
		row "$ref" root ok "$msg"
	else
		row "$ref" root FAIL "${msg:-the rooted run failed or its results differ: see $d/root.*}"
	fi
fi

if [ -f "$d/run1.pathprof" ]; then
	"$cli" report --top 30 "$d/run1.pathprof" >"$d/report.txt"
	# A reader must see the layers: a top path going VDBE > B-tree > pager.
	if grep -Eq 'sqlite3VdbeExec > .*(sqlite3Btree|balance).* > .*[Pp]ager' "$d/report.txt"; then
		row report layers ok "a top-30 path runs VDBE > B-tree > pager ($d/report.txt)"
	else
		row report layers FAIL "no top-30 path runs VDBE > B-tree > pager"
	fi
	if "$cli" report --format html -o "$d/report.html" "$d/run1.pathprof" &&
		grep -q balance_nonroot "$d/report.html" && grep -q sqlite3VdbeExec "$d/report.html"; then
		row report html ok "$d/report.html ($(wc -c <"$d/report.html") bytes)"
	else
		row report html FAIL "no HTML report, or names missing from it"
	fi
fi

e2e_verdict
