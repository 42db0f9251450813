#!/bin/sh
# pathprof capture on SQLite through its own shell (#31): the autoconf
# release inside the npm package sqlite3 (fetched at test time into the
# build tree, checked by sha256, never committed) gives sqlite3.c and
# shell.c; libsqlite3.so is built from the first at -O2 and at -O0, the
# shell from the second, linked to the library. A shim generated from
# sqlite3.h (tests/capture/sqlite.spec) records the shell running
# tests/capture/sqlite.sql. Then:
#  - the trace holds prepared statements, steps, finalize, close, column
#    values, blobs with their lengths and sqlite3_exec with its callback's
#    invocations;
#  - replay against the same build reproduces every return code, column
#    value, blob byte and callback argument (exit 0), with the calls the
#    trace holds; against the -O0 build it replays too;
#  - compare names sqlite3_step slower at -O0, with its ratio (7 passes a
#    side: the rank test then tolerates 6 crossed pairs of 49, passes
#    slowed by a parallel test);
#  - a database left from another replay is a difference, named (exit 3).
# A SQLite that cannot be fetched is a FAIL, never a skip.
# usage: sqlite.sh PATHPROF SRCROOT BUILDROOT WORKDIR
set -u
pp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$2 build=$3 work=$4/capture-sqlite.$$
cache=$build/tests/capture/cache
mkdir -p "$work" "$cache" || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# shellcheck source=tests/capture/sqlite_fetch.sh
. "$src/tests/capture/sqlite_fetch.sh"
sqlite_fetch "$cache" || exit 1
s=$cache/$rel
cd "$work" || exit 1

fns='sqlite3_open,sqlite3_open_v2,sqlite3_close,sqlite3_close_v2,sqlite3_prepare_v2,sqlite3_step,sqlite3_reset,sqlite3_finalize,sqlite3_column_*,!sqlite3_column_*16,!sqlite3_column_value,!sqlite3_column_*_name,!sqlite3_column_decltype,sqlite3_exec,sqlite3_errmsg,sqlite3_changes,sqlite3_sql,sqlite3_stmt_isexplain'
"$pp" capture gen --header "$s/sqlite3.h" --functions "$fns" --spec "$src/tests/capture/sqlite.spec" \
	-o shim.c 2>gen.err || { echo "FAIL: gen: $(cat gen.err)"; exit 1; }
export PKG_CONFIG_PATH="$build/meson-uninstalled" LD_LIBRARY_PATH="$build/runtime/capture"
# shellcheck disable=SC2046
gcc -shared -fPIC -Wall -Wextra -Werror -I"$s" shim.c -o shim.so $(pkg-config --cflags --libs pathprof-capture) -ldl ||
	{ echo "FAIL: the shim does not build"; exit 1; }
"$s/sqlite3" plain.db <"$src/tests/capture/sqlite.sql" >plain.out 2>&1 || fail "the plain shell failed"
asan=$(ldd shim.so | sed -n 's/^[[:space:]]*lib[at]san\.so[^ ]* => \([^ ]*\) .*/\1/p' | head -n 1)
LD_PRELOAD="${asan:+$asan }./shim.so" PATHPROF_CAPTURE=trace.cap "$s/sqlite3" test.db <"$src/tests/capture/sqlite.sql" \
	>captured.out 2>&1 || fail "the captured shell failed"
cmp -s plain.out captured.out || fail "the shim changed the shell's output"
grep -q "^INSERT INTO t VALUES(20003,'row20000',10000.0,NULL);" captured.out || fail "no .dump output"

"$pp" capture show trace.cap >show.txt || fail "show"
for f in sqlite3_open_v2 sqlite3_prepare_v2 sqlite3_step sqlite3_finalize sqlite3_close sqlite3_column_text \
	sqlite3_column_blob sqlite3_exec; do
	grep -q "^[0-9]* \[[0-9]*\] $f(" show.txt || fail "no $f in the trace"
done
grep -q "sqlite3_column_blob(#[0-9]*, 1) = \[4 bytes\]" show.txt || fail "no blob with its length"
grep -q "sqlite3_exec(#1, \"SELECT name, type, sql FROM sqlite_schem\"\.\.\., &callback, ptr, &string) \[[1-9][0-9]* callbacks\] = 0" show.txt ||
	fail "no sqlite3_exec with its callback's invocations: $(grep sqlite3_exec show.txt)"
grep -q "sqlite3_prepare_v2(#1, .*, -1, &handle, &tail) = 0 -> parameter 4: #[0-9]*, parameter 5: +[0-9]*" show.txt ||
	fail "prepare's statement and tail"

# replay against the same build, in a fresh directory (the shell opened test.db)
mkdir r1 && (cd r1 && "$pp" capture replay ../trace.cap --lib "$s/libsqlite3.so" --format json >../r1.json 2>../r1.err) ||
	fail "replay: exit $?: $(cat r1.err)"
want=$(grep -c '^[0-9]* \[' show.txt)
python3 - r1.json show.txt "$want" <<'PY' || fail "replay table"
import collections, json, re, sys
d = json.load(open(sys.argv[1]))
rec = collections.Counter(re.match(r"\d+ \[\d+\] (\w+)\(", l).group(1) for l in open(sys.argv[2]) if re.match(r"\d+ \[", l))
got = {f["function"]: f["calls"] for f in d["functions"]}
if d["calls"] != int(sys.argv[3]) or d["divergences"] != 0 or got != dict(rec):
    print("  replayed %r of %s calls, %d differences" % (got, sys.argv[3], d["divergences"])); sys.exit(1)
PY
# against the -O0 build
mkdir r2 && (cd r2 && "$pp" capture replay ../trace.cap --lib "$s/libsqlite3-O0.so" >/dev/null 2>../r2.err) ||
	fail "replay against -O0: $(cat r2.err)"
# compare: sqlite3_step is slower at -O0
"$pp" capture compare trace.cap --lib "$s/libsqlite3.so" --lib "$s/libsqlite3-O0.so" --repeat 7 \
	--format json >cmp.json 2>cmp.err || fail "compare: $(cat cmp.err)"
python3 - cmp.json <<'PY' || fail "compare verdict"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["function"]: x for x in d["functions"]}
s = f["sqlite3_step"]
if s["verdict"] != "slower" or not s["ratio"] > 1.3:
    print("  sqlite3_step: %r" % s); sys.exit(1)
print("  sqlite3_step at -O0: %.2fx, %s" % (s["ratio"], s["verdict"]))
PY
"$pp" capture compare trace.cap --lib "$s/libsqlite3.so" --lib "$s/libsqlite3.so" --repeat 3 >same.txt 2>&1 ||
	fail "compare with itself: $(cat same.txt)"
grep -Eq ' (slower|faster)$' same.txt && fail "a verdict from 3 passes: $(cat same.txt)"
grep -q "sqlite3_step .*not enough passes" same.txt || fail "3 passes: $(cat same.txt)"
# a database another replay left: the first CREATE TABLE fails, named
mkdir r3 && cp r2/test.db r3/ 2>/dev/null
(cd r3 && "$pp" capture replay ../trace.cap --lib "$s/libsqlite3.so" >/dev/null 2>../r3.err)
[ $? -eq 3 ] && grep -q "capture replay: call [0-9]* (thread [0-9]*, sqlite3_prepare_v2): returned 1, recorded 0" r3.err ||
	fail "a replay on a used database: $(cat r3.err)"
[ "$fails" -eq 0 ] || exit 1
echo "ok: $want calls of the sqlite3 shell captured and replayed exactly"
