#!/bin/sh
# pathprof capture on zlib, whose one-shot calls take lengths through
# pointers (compress2's uLongf *destLen: the capacity in, the bytes written
# out; uncompress2's uLong *sourceLen too): the spec's 'ref' rule, and an
# out buffer whose capacity and filled length are what a ref points to
# before and after the call. Checked: gen refuses such a pointer without
# the spec and says to use 'ref'; show prints each ref's value before and
# after; replay against the same libz reproduces every byte and every ref
# (exit 0, the exact counts); against another build (compress2 at level
# 1, tests/capture/zfast.c) it names the buffer and the ref that differ
# (exit 3), with the values zround itself printed for both levels.
# usage: zlib.sh PATHPROF SRCROOT BUILDROOT WORKDIR
. "$2/tests/capture/common.sh"
hdr=/usr/include/zlib.h
[ -f "$hdr" ] || { echo "SKIP: no $hdr (apt install zlib1g-dev)"; exit 77; }
fns='compressBound,compress2,uncompress2,crc32'

# without the spec, a pointer to an integer is refused, and the line says how to explain it
grep -v '^ref compress2' "$t/zlib.spec" >noref.spec
gen_refuses "$hdr" "$fns" noref.spec "pathprof: capture gen: compress2: refused: parameter destLen is a uLongf *: say in the spec what it points to ('ref compress2 destLen' for one value the call reads or writes; for an array, 'in compress2 destLen LENGTH', 'out compress2 destLen CAPACITY FILLED' or 'inout compress2 destLen LENGTH')"
{ cat "$t/zlib.spec"; printf 'ref compress2 level\n'; } >bad.spec
gen_refuses "$hdr" compress2 bad.spec "pathprof: capture gen: compress2: refused: bad.spec:12: parameter level is a int, not a pointer"
# a retbuf counts bytes: a table of z_crc_t is refused; so is a z_stream,
# whose bytes hold pointers
printf 'retbuf get_crc_table zlibVersion\n' >tab.spec
gen_refuses "$hdr" get_crc_table tab.spec "pathprof: capture gen: get_crc_table: refused: tab.spec:1: get_crc_table returns a const z_crc_t *: a retbuf's length counts bytes, so it must point to void or a char type"
gen_refuses "$hdr" deflate "" "pathprof: capture gen: deflate: refused: parameter strm is a z_streamp: a struct holding pointers (next_in), whose addresses a replay cannot give back; leave deflate out of --functions"

capture_shim "$hdr" "$fns" "$t/zlib.spec"
gcc -O2 "$t/zround.c" -o zround -lz || exit 1
# cc, not gcc: under scripts/sanitize.sh gcc adds its sanitizer, whose
# runtime the replaying tool (clang's, there) cannot load beside its own
cc -O2 -shared -fPIC "$t/zfast.c" -o libzfast.so -lz || exit 1
seq 1 20000 >numbers.txt
cp "$src/README.md" readme.txt
ZROUND_LEVEL=1 ./zround readme.txt numbers.txt >level1.out || exit 1
LD_PRELOAD=$preload PATHPROF_CAPTURE=z.cap ./zround readme.txt numbers.txt >level6.out ||
	fail "the captured run failed"

# show: each ref's value before the call (&N) and after it
n1=$(wc -c <readme.txt) n2=$(wc -c <numbers.txt)
# zround prints a line a file: its length, compressed length, bytes read back
compressed() { sed -n "$2s/^[0-9]* \([0-9]*\) .*/\1/p" "$1"; }
c1=$(compressed level6.out 1) c2=$(compressed level6.out 2)
"$pp" capture show z.cap | sed 's/ \[[0-9]*\] / /' >show.out || fail "show"
# the capacity offered is what compressBound returned just before
b1=$(sed -n "s/^1 compressBound($n1) = //p" show.out) b2=$(sed -n "s/^6 compressBound($n2) = //p" show.out)
[ -n "$b1" ] && [ -n "$b2" ] || fail "show: no compressBound of $n1 and $n2"
cat >show.want <<EOF2
2 compress2(&buffer, &$b1, [$n1 bytes], $n1, 6) = 0 -> parameter 1: [$c1 bytes], parameter 2: $c1
3 uncompress2(&buffer, &$((n1 + 1)), [$c1 bytes], &$c1) = 0 -> parameter 1: [$n1 bytes], parameter 2: $n1, parameter 4: $c1
7 compress2(&buffer, &$b2, [$n2 bytes], $n2, 6) = 0 -> parameter 1: [$c2 bytes], parameter 2: $c2
8 uncompress2(&buffer, &$((n2 + 1)), [$c2 bytes], &$c2) = 0 -> parameter 1: [$n2 bytes], parameter 2: $n2, parameter 4: $c2
EOF2
grep 'compress2' show.out | diff show.want - >show.diff || fail "show: $(cat show.diff)"
[ "$(wc -l <show.out)" -eq 10 ] || fail "show: $(wc -l <show.out) calls, not 10"

# replay against the same library: every byte and every ref as recorded
"$pp" capture replay z.cap --lib libz.so.1 >r.out 2>r.err || fail "replay against libz: $(cat r.err)"
got=$(awk '$1 != "function" { print $1, $2 }' r.out | paste -sd' ' -)
[ "$got" = "compressBound 2 compress2 2 uncompress2 2 crc32 4 TOTAL 10" ] || fail "replay counts: $got"

# against compress2 at level 1: its output and the length it set differ
f1=$(compressed level1.out 1) f2=$(compressed level1.out 2)
[ "$f1" != "$c1" ] && [ "$f2" != "$c2" ] || fail "level 1 compresses to the same sizes ($f1 $f2)"
"$pp" capture replay z.cap --lib ./libzfast.so >/dev/null 2>d.err
[ $? -eq 3 ] || fail "replay against level 1: exit $?, $(cat d.err)"
grep -qx "pathprof: capture replay: call 2 (thread [0-9]*, compress2): parameter 1: $f1 bytes written, $c1 recorded" d.err &&
	[ "$(wc -l <d.err)" -eq 1 ] || fail "replay against level 1: $(cat d.err)"
"$pp" capture replay z.cap --lib ./libzfast.so --keep-going >/dev/null 2>k.err
[ $? -eq 3 ] || fail "replay --keep-going against level 1: exit $?"
sed 's/(thread [0-9]*, /(/' k.err >k.got
cat >k.want <<EOF2
pathprof: capture replay: call 2 (compress2): parameter 1: $f1 bytes written, $c1 recorded
pathprof: capture replay: call 2 (compress2): parameter 2: set to $f1, recorded $c1
pathprof: capture replay: call 7 (compress2): parameter 1: $f2 bytes written, $c2 recorded
pathprof: capture replay: call 7 (compress2): parameter 2: set to $f2, recorded $c2
EOF2
grep -v 'differences\|replayed' k.got | diff k.want - >k.diff || fail "replay --keep-going: $(cat k.diff)"
[ "$fails" -eq 0 ] || exit 1
echo "ok: zlib captured through refs ($c1, $c2 bytes), replayed exactly, level 1 named"
