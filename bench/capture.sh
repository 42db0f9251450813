#!/bin/sh
# What recording a library's API calls costs (#31): SQLite's shell (the
# 3.52.0 release tests/capture/sqlite.sh uses) running a workload that reads
# 20 000 rows column by column, with a shim generated from sqlite3.h:
# plain, with the shim preloaded and PATHPROF_CAPTURE unset (recording
# off), and recording. Medians of interleaved runs of the whole process,
# ratios to plain; the trace's bytes per call. Then, deterministically, the
# instructions a call costs with recording off: callgrind on the shell
# with and without the shim, on the workload and on one reading twice the
# rows; the difference of the two differences over the difference in calls
# is a call's own cost (loading the shim cancels out).
# usage: bench/capture.sh BUILD_DIR [RUNS]   (default 9)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-9}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/capture/sqlite_fetch.sh
. "$root/tests/capture/sqlite_fetch.sh"
sqlite_fetch "$build/tests/capture/cache" >&2 || exit 1
export PKG_CONFIG_PATH="$build/meson-uninstalled" LD_LIBRARY_PATH="$build/runtime/capture"
fns='sqlite3_open,sqlite3_open_v2,sqlite3_close,sqlite3_close_v2,sqlite3_prepare_v2,sqlite3_step,sqlite3_reset,sqlite3_finalize,sqlite3_column_*,!sqlite3_column_*16,!sqlite3_column_value,!sqlite3_column_*_name,!sqlite3_column_decltype,sqlite3_exec,sqlite3_errmsg,sqlite3_changes,sqlite3_sql,sqlite3_stmt_isexplain'
"$build/tools/pathprof" capture gen --header "$s/sqlite3.h" --functions "$fns" \
	--spec "$root/tests/capture/sqlite.spec" -o "$tmp/shim.c" 2>/dev/null
# shellcheck disable=SC2046
gcc -O2 -shared -fPIC -I"$s" "$tmp/shim.c" -o "$tmp/shim.so" $(pkg-config --cflags --libs pathprof-capture) -ldl
sql() { # ROWS
	cat <<SQL
PRAGMA synchronous=OFF;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<$1) INSERT INTO t(name, score) SELECT 'row' || i, i * 0.5 FROM n;
SELECT id, name, score FROM t;
SELECT count(*), sum(score) FROM t WHERE name LIKE 'row1%';
SQL
}
sql 20000 >"$tmp/work.sql"
sql 40000 >"$tmp/work2.sql"
cd "$tmp"
run() { # NAME [ENV...]: one timed run of the shell on a fresh database
	name=$1
	shift
	rm -f db db-journal
	python3 - "$name" "$@" <<'PY' >>rows
import os, subprocess, sys, time
env = dict(os.environ)
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    env[k] = v
t = time.perf_counter_ns()
with open("work.sql") as i, open(os.devnull, "w") as o:
    subprocess.run([os.environ["SHELL_BIN"], "db"], stdin=i, stdout=o, env=env, check=True)
print(sys.argv[1], time.perf_counter_ns() - t)
PY
}
export SHELL_BIN="$s/sqlite3"
: >rows
i=0
while [ "$i" -lt "$runs" ]; do
	run plain
	run off LD_PRELOAD=./shim.so
	run on LD_PRELOAD=./shim.so PATHPROF_CAPTURE=trace.cap
	i=$((i + 1))
done
calls=$("$build/tools/pathprof" capture show trace.cap | grep -c '^[0-9]* \[')
bytes=$(stat -c %s trace.cap)
rm -f db
LD_PRELOAD=./shim.so PATHPROF_CAPTURE=trace2.cap "$s/sqlite3" db <work2.sql >/dev/null
calls2=$("$build/tools/pathprof" capture show trace2.cap | grep -c '^[0-9]* \[')
cg() { # OUT SQL [ENV]: callgrind's instruction count
	rm -f db
	env ${3:+"$3"} valgrind --tool=callgrind --callgrind-out-file="$1" "$s/sqlite3" db <"$2" >/dev/null 2>>cg.err
	sed -n 's/^summary: //p' "$1"
}
d1=$(( $(cg off.cg work.sql LD_PRELOAD=./shim.so) - $(cg plain.cg work.sql) ))
d2=$(( $(cg off2.cg work2.sql LD_PRELOAD=./shim.so) - $(cg plain2.cg work2.sql) ))
python3 - rows "$calls" "$bytes" "$calls2" "$d1" "$d2" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    rows.setdefault(k, []).append(int(v))
calls, nbytes, calls2, d1, d2 = (int(x) for x in sys.argv[2:7])
base = statistics.median(rows["plain"])
print("| run | wall, ms (median) | ratio to plain |")
print("|---|---|---|")
for k, label in (("plain", "plain shell"), ("off", "shim preloaded, recording off"), ("on", "recording")):
    m = statistics.median(rows[k])
    print("| %s | %.2f | %.3f |" % (label, m / 1e6, m / base))
print("(%d interleaved runs each)" % len(rows["plain"]))
print()
print("calls recorded: %d; trace %d bytes, %.1f bytes a call" % (calls, nbytes, nbytes / calls))
print("callgrind, recording off: the shim adds %d instructions to %d calls and %d to %d calls:"
      " %.2f a call, %d to load it" % (d1, calls, d2, calls2, (d2 - d1) / (calls2 - calls),
                                       d1 - (d2 - d1) / (calls2 - calls) * calls))
PY
