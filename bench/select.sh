#!/bin/sh
# The build-run-select-rerun workflow on bench/compensate.c, timed: the
# program's own time for its two phases (200 000 calls of a 5 ns helper, 100
# spins of 20 us), plain, then through xray and cyg with every function
# gated and timed, then with the functions `pathprof select --budget 5%`
# keeps (xray: PATHPROF_XRAY='!...', the dropped sleds left unpatched; cyg:
# rebuilt with gcc's exclude list, so the dropped functions get no hooks;
# raii: rebuilt with pathprof-cc --exclude-functions=@FILE, so the dropped
# gates are not compiled).
# Medians of interleaved runs; ratios to the plain build of the same
# compiler (clang for xray, gcc for cyg).
# usage: bench/select.sh BUILD_DIR [RUNS]   (default 7)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-7}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled"
wrap=$build/tools/pathprof-cc-uninstalled
pp=$build/tools/pathprof
clang -O2 "$root/bench/compensate.c" -o "$tmp/plain"
gcc -O2 "$root/bench/compensate.c" -o "$tmp/plain-gcc"
"$wrap" --via=xray clang -O2 "$root/bench/compensate.c" -o "$tmp/xray"
"$wrap" --via=cyg gcc -O2 "$root/bench/compensate.c" -o "$tmp/cyg"
"$wrap" --via=raii gcc -O2 "$root/bench/compensate.c" -o "$tmp/raii"
PATHPROF_TIMING=on PATHPROF_XRAY=all PATHPROF_OUT="$tmp/x.pathprof" "$tmp/xray" >/dev/null
xlist=$("$pp" select "$tmp/x.pathprof" --format exclude 2>/dev/null)
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/c.pathprof" "$tmp/cyg" >/dev/null
clist=$("$pp" select "$tmp/c.pathprof" --format gcc 2>/dev/null)
# gcc's own list (substrings of names): the dropped functions get no hooks
"$wrap" --via=cyg gcc -O2 -finstrument-functions-exclude-function-list="$clist" \
	"$root/bench/compensate.c" -o "$tmp/cyg-sel"
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/r.pathprof" "$tmp/raii" >/dev/null
"$pp" select "$tmp/r.pathprof" >"$tmp/rlist" 2>/dev/null
"$wrap" --via=raii --exclude-functions=@"$tmp/rlist" gcc -O2 "$root/bench/compensate.c" -o "$tmp/raii-sel"
echo "dropped: xray '$xlist', cyg '$clist', raii '$(paste -sd, "$tmp/rlist")'" >&2
# the two phases' time (not the ungated twin's, bench/compensate.c)
t() { "$@" | awk '$1 != "twin_calls" { s += $2 } END { print s }'; }
: >"$tmp/rows"
i=0
while [ "$i" -lt "$runs" ]; do
	echo "plain $(t "$tmp/plain")" >>"$tmp/rows"
	echo "plain-gcc $(t "$tmp/plain-gcc")" >>"$tmp/rows"
	echo "xray-all $(PATHPROF_TIMING=on PATHPROF_XRAY=all PATHPROF_OUT=/dev/null t "$tmp/xray")" >>"$tmp/rows"
	echo "xray-selected $(PATHPROF_TIMING=on PATHPROF_XRAY="$xlist" PATHPROF_OUT=/dev/null t "$tmp/xray")" >>"$tmp/rows"
	echo "cyg-all $(PATHPROF_TIMING=on PATHPROF_OUT=/dev/null t "$tmp/cyg")" >>"$tmp/rows"
	echo "cyg-selected $(PATHPROF_TIMING=on PATHPROF_OUT=/dev/null t "$tmp/cyg-sel")" >>"$tmp/rows"
	echo "raii-all $(PATHPROF_TIMING=on PATHPROF_OUT=/dev/null t "$tmp/raii")" >>"$tmp/rows"
	echo "raii-selected $(PATHPROF_TIMING=on PATHPROF_OUT=/dev/null t "$tmp/raii-sel")" >>"$tmp/rows"
	i=$((i + 1))
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
print("| build | time, ms (median) | ratio to plain (same compiler) |")
print("|---|---|---|")
for k in ["plain", "xray-all", "xray-selected", "plain-gcc", "cyg-all", "cyg-selected", "raii-all", "raii-selected"]:
    m = statistics.median(rows[k])
    base = statistics.median(rows["plain-gcc" if k.startswith(("cyg", "raii", "plain-gcc")) else "plain"])
    print("| %s | %.2f | %.2f |" % (k, m / 1e6, m / base))
print("(%d interleaved runs each)" % len(rows["plain"]))
PY
