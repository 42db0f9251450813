#!/bin/sh
# What a thread of pathprof's costs a single-threaded program
# (PATHPROF_NAMER, docs/guides/live.md "Names"): bench/stdio_filter.c (putc
# per character, a malloc and free per word) built plain and through cyg
# with `main` alone gated (the rest compiled out by pathprof-cc's list, so
# the gates cost nothing here), run counting only with PATHPROF_NAMER=auto
# (no thread beside it: glibc's stdio and malloc take no lock) and =on (the
# naming thread from the start: they do). Medians of interleaved runs of the
# program's own time, and the ratio to plain.
# usage: bench/namer.sh BUILD_DIR [RUNS]   (default 9)
set -eu
build=$(cd "$1" && pwd)
runs=${2:-9}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$build/meson-uninstalled"
gcc -O2 "$root/bench/stdio_filter.c" -o "$tmp/plain"
"$build/tools/pathprof-cc-uninstalled" --via=cyg --functions=main gcc -O2 "$root/bench/stdio_filter.c" \
	-o "$tmp/gated"
: >"$tmp/rows"
i=0
while [ "$i" -lt "$runs" ]; do
	echo "plain $("$tmp/plain" | cut -d' ' -f1)" >>"$tmp/rows"
	for n in auto on; do
		echo "$n $(PATHPROF_NAMER=$n PATHPROF_OUT=/dev/null "$tmp/gated" | cut -d' ' -f1)" >>"$tmp/rows"
	done
	i=$((i + 1))
done
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$root/bench" python3 - "$tmp/rows" <<'PY'
import statistics, sys, rows as table
rows = table.read(sys.argv[1])
plain = statistics.median(rows["plain"])
print("| build | PATHPROF_NAMER | time, ms (median) | quartiles | x plain |")
print("|---|---|---|---|---|")
for k, label in (("plain", "-"), ("auto", "auto"), ("on", "on")):
    v = [r / 1e6 for r in rows[k]]
    print("| %s | %s | %.1f | %s | %.2f |" % ("plain" if k == "plain" else "cyg, main gated", label,
                                            statistics.median(v), table.quartiles(v), statistics.median(v) * 1e6 / plain))
print("(%d interleaved runs each)" % len(rows["plain"]))
PY
