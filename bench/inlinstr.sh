#!/bin/sh
# Instructions per cyg gate on code whose helpers are inlined (bench/
# inlparse.c, gcc -O2): the hooks of an inlined helper run at its caller's
# stack position, which the inline gate used to send out of line to the
# resync (#30). Counted by callgrind inside parse(): gated minus plain,
# over the gates a timed run counts there; then the same gates kept under a
# function selection. Deterministic.
# usage: bench/inlinstr.sh BUILD_DIR
set -eu
build=$(cd "$1" && pwd)
root=$(cd "$(dirname "$0")/.." && pwd)
command -v valgrind >/dev/null || { echo "inlinstr.sh: valgrind not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/tests/common/fe_build.sh"
gcc -O2 -g "$root/bench/inlparse.c" -o "$tmp/plain"
fe_build gcc cyg -O2 "$root/bench/inlparse.c" "$tmp/cyg"
ir() { # EXE TIMING
	PATHPROF_OUT=/dev/null PATHPROF_TIMING=$2 valgrind --tool=callgrind --toggle-collect=parse \
		--callgrind-out-file="$tmp/cg" "$1" 200 >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	sed -n 's/^summary: //p' "$tmp/cg"
}
PATHPROF_TIMING=on PATHPROF_OUT="$tmp/p.pathprof" "$tmp/cyg" 200 >/dev/null
gates=$("$build/tools/pathprof" report --format json --top 0 "$tmp/p.pathprof" | python3 -c '
import json, sys
print(sum(x["calls"] for x in json.load(sys.stdin)["nodes"] if "parse" in x["path"]))')
b0=$(ir "$tmp/plain" off) b1=$(ir "$tmp/plain" on) f0=$(ir "$tmp/cyg" off) f1=$(ir "$tmp/cyg" on)
# The same gates under a function selection that keeps them all (it names
# no function of the parser): each goes out of line to look its key up
# (runtime/gate_selected.c).
s0=$(PATHPROF_FUNCTIONS='!no_such_function' ir "$tmp/cyg" off)
s1=$(PATHPROF_FUNCTIONS='!no_such_function' ir "$tmp/cyg" on)
awk -v b0="$b0" -v b1="$b1" -v f0="$f0" -v f1="$f1" -v s0="$s0" -v s1="$s1" -v g="$gates" 'BEGIN {
	print "| injector | count-only instr/gate | timed instr/gate |"
	print "|---|---|---|"
	printf "| cyg (gcc -O2, inlined helpers) | %.1f | %.1f |\n", (f0 - b0) / g, (f1 - b1) / g
	printf "| kept under PATHPROF_FUNCTIONS | %.1f | %.1f |\n", (s0 - b0) / g, (s1 - b1) / g
	printf "(%d gates in 200 parses)\n", g }'
