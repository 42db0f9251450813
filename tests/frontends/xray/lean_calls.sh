#!/bin/sh
# pathprof's trampolines keep no vector register, so the lean handler must
# touch none (frontends/xray/vector_safe.h): its object (lean.c.o in the
# shim's archive) may use no xmm/ymm/zmm register and call nothing outside
# itself but the stubs that keep them (pp__xray_v_*). Fails naming the
# instruction or the call that breaks it.
# usage: lean_calls.sh LIBPATHPROF_XRAY_A
set -u
lib=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && ar x "$lib" lean.c.o) || { echo "FAIL: no lean.c.o in $lib"; exit 1; }
objdump -dr --no-show-raw-insn "$tmp/lean.c.o" >"$tmp/dis" || { echo "FAIL: objdump"; exit 1; }
# the function symbols lean.c.o defines
nm --defined-only "$tmp/lean.c.o" | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >"$tmp/own"
[ -s "$tmp/own" ] || { echo "FAIL: no functions in lean.c.o"; exit 1; }
bad=0
if grep -nE '%[xyz]mm[0-9]' "$tmp/dis" >"$tmp/vec"; then
	echo "FAIL: lean.c.o uses vector registers:"; head -5 "$tmp/vec"; bad=1
fi
# every relocation on a call or jump: to a symbol (not a section: its
# own code) that is neither lean.c.o's nor a stub
awk '
$2 ~ /^R_X86_64_/ {
	if (ins ~ /^(call|jmp)/) { sym = $3; sub(/[-+]0x[0-9a-f]+$/, "", sym); print sym }
	next
}
/^[ \t]*[0-9a-f]+:[ \t]/ { ins = $2 }' "$tmp/dis" | sort -u >"$tmp/called"
[ -s "$tmp/called" ] || { echo "FAIL: no calls found in lean.c.o (did objdump's format change?)"; exit 1; }
n=0
while read -r sym; do
	case $sym in
	.text* | pp__xray_v_*) ;;
	*) grep -qx "$sym" "$tmp/own" || { echo "FAIL: lean.c.o calls $sym directly, not through a stub that keeps the vector registers"; bad=1; } ;;
	esac
	case $sym in pp__xray_v_*) n=$((n + 1)) ;; esac
done <"$tmp/called"
[ "$n" -gt 0 ] || { echo "FAIL: lean.c.o calls no stub (are the renames in vector_safe.h off?)"; bad=1; }
[ $bad -eq 0 ] && echo "ok: lean.c.o uses no vector register; calls out only through $n stubs"
exit $bad
