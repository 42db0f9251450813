#!/bin/sh
# What pathprof costs on a real program: wall time of the SQLite driver built
# through each front-end, per timing mode, against the uninstrumented build
# with the same compiler and optimisation level. Repetitions are interleaved
# (every row once per round, rotated) so a slow spell of the machine hits all
# rows alike; median and min-max per row. A benchmark, not a test: it asserts
# nothing on time. Markdown on stdout, progress on stderr; with --json FILE,
# every time too. Do not run it while the e2e test runs on the same build.
# usage: overhead.sh BUILD_DIR [--reps N] [--rows N] [--json FILE]
set -u
LC_ALL=C
export LC_ALL

usage() { echo "usage: overhead.sh BUILD_DIR [--reps N] [--rows N] [--json FILE]" >&2; exit 2; }
if [ $# -lt 1 ] || [ ! -d "$1" ]; then usage; fi
build=$(cd "$1" && pwd)
shift
reps=5 rows=200000 json=
while [ $# -gt 0 ]; do
	case $1 in
	--reps) [ $# -ge 2 ] || usage; reps=$2; shift 2 ;;
	--rows) [ $# -ge 2 ] || usage; rows=$2; shift 2 ;;
	--json) [ $# -ge 2 ] || usage; json=$2; shift 2 ;;
	*) usage ;;
	esac
done
case $reps$rows in *[!0-9]*) usage ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
python=${E2E_PYTHON:-python3}
# shellcheck source=tests/e2e/lib.sh
. "$root/tests/e2e/lib.sh"
fetch_sqlite || exit 1

work=$build/tests/e2e/runs
# two compiles at a time
# shellcheck disable=SC2086
set -- $base_builds $e2e_builds
while [ $# -gt 0 ]; do
	echo "overhead: building $1 ${2:-}" >&2
	build_one "$1" "$work/$1" >/dev/null 2>&1 &
	[ $# -gt 1 ] && build_one "$2" "$work/$2" >/dev/null 2>&1 &
	wait
	shift; [ $# -gt 0 ] && shift
done
for b in $base_builds $e2e_builds; do
	[ -x "$work/$b/driver" ] || { echo "overhead: $b failed to build, see $work/$b/build.log" >&2; exit 1; }
done

# Rows: "id build timing" (timing '-' for baselines; xray 'unarmed' runs the
# xray build without PATHPROF_XRAY, so its sleds stay no-ops).
rowlist=$work/overhead.rows
{
	for b in $base_builds; do echo "$b $b -"; done
	for b in $e2e_builds; do
		for t in off on sample:16; do echo "$b-$t $b $t"; done
	done
	echo "clang-xray-unarmed clang-xray unarmed"
} >"$rowlist"
nrows=$(wc -l <"$rowlist")
times=$work/overhead.times
: >"$times"

r=1
while [ "$r" -le "$reps" ]; do
	# rotate the order by one row per round
	i=0
	while [ "$i" -lt "$nrows" ]; do
		n=$(( (i + r - 1) % nrows + 1 ))
		# shellcheck disable=SC2046
		set -- $(sed -n "${n}p" "$rowlist")
		id=$1 b=$2 t=$3
		arm='' timing=off
		case $t in
		-|unarmed) ;;
		*) timing=$t; [ "$b" = clang-xray ] && arm=all ;;
		esac
		prof=$work/$b/overhead-$t.pathprof
		[ "$t" = sample:16 ] && prof=$work/$b/overhead-sample.pathprof
		t0=$(date +%s%N)
		if ! PATHPROF_XRAY=$arm PATHPROF_TIMING=$timing PATHPROF_OUT=$prof \
			"$work/$b/driver" --db "$work/$b/overhead.db" --rows "$rows" >"$prof.out"; then
			echo "overhead: $id failed" >&2
			exit 1
		fi
		t1=$(date +%s%N)
		echo "$id $(( (t1 - t0) / 1000000 ))" >>"$times"
		echo "overhead: round $r/$reps $id $(( (t1 - t0) / 1000000 )) ms" >&2
		i=$((i + 1))
	done
	r=$((r + 1))
done

# Per row: median, min, max (ms) and the ratio of medians to its baseline.
stats=$work/overhead.stats
while read -r id b t; do
	fe_flags "$b"
	sort -n -k2 "$times" | awk -v id="$id" -v base="$base" '
		$1 == id { v[n++] = $2 }
		END { printf "%s %s %d %d %d\n", id, base, (n % 2) ? v[int(n/2)] : (v[n/2-1] + v[n/2]) / 2, v[0], v[n-1] }'
done <"$rowlist" >"$stats"

echo "## SQLite driver: wall time per front-end and timing mode"
echo
echo "SQLite $sqlite_version, driver --rows $rows (in-memory and on-disk database), $reps interleaved rounds; flags in docs/internals/e2e-sqlite.md."
echo
echo "| row | baseline | median s | min-max s | x baseline |"
echo "|---|---|---|---|---|"
awk '
	{ id[NR] = $1; base[NR] = $2; med[$1] = $3; lo[NR] = $4; hi[NR] = $5 }
	END { for (i = 1; i <= NR; i++)
		printf "| %s | %s | %.2f | %.2f-%.2f | %s |\n", id[i], base[i], med[id[i]] / 1000,
			lo[i] / 1000, hi[i] / 1000,
			id[i] == base[i] ? "1" : sprintf("%.2f", med[id[i]] / med[base[i]]) }' "$stats"
echo
echo "Paths (count-only runs): "
for b in $e2e_builds; do
	if [ -f "$work/$b/overhead-off.pathprof" ] &&
		"$build/tools/pathprof" report --format json "$work/$b/overhead-off.pathprof" >"$work/$b/overhead-off.json" &&
		s=$("$python" "$root/tests/e2e/check_profile.py" "$work/$b/overhead-off.json" "${b#*-}" "$work/$b/overhead-off.pathprof.out"); then
		echo "- $b: $s"
	else
		echo "- $b: profile check failed"
	fi
done

if [ -n "$json" ]; then
	awk -v rows="$rows" -v reps="$reps" -v ver="$sqlite_version" '
		FNR == NR { t[$1] = t[$1] (t[$1] == "" ? "" : ", ") $2 / 1000; next }
		{ r[++n] = sprintf("    {\"id\": \"%s\", \"baseline\": \"%s\", \"median_s\": %.3f, \"min_s\": %.3f, \"max_s\": %.3f, \"times_s\": [%s]}",
			$1, $2, $3 / 1000, $4 / 1000, $5 / 1000, t[$1]) }
		END {
			printf "{\n  \"workload\": {\"sqlite\": \"%s\", \"rows\": %d, \"rounds\": %d},\n  \"rows\": [\n", ver, rows, reps
			for (i = 1; i <= n; i++) printf "%s%s\n", r[i], i < n ? "," : ""
			printf "  ]\n}\n" }' "$times" "$stats" >"$json"
	echo "overhead: wrote $json" >&2
fi
