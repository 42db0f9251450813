#!/bin/sh
# pathprof capture on a real library, libzstd (opaque ZSTD_CCtx/ZSTD_DCtx,
# buffers with capacity and size arguments): a shim generated from zstd.h
# with tests/capture/zstd.spec, preloaded into zfiles compressing three
# files; replay against the same libzstd must reproduce every return value
# and every output byte (exit 0, 22 calls, the exact per-function counts);
# a flipped byte of a recorded output is named with its call (exit 3); a
# cut trace replays what is whole and says where it stops (exit 1); a
# library without the functions is refused by name; gen refuses what it
# cannot record and names bad spec lines. A static libzstd is captured
# through gen --wrap and the linker's --wrap flags, the same 22 calls; a
# changed signature is named by gen --check.
# usage: zstd.sh PATHPROF SRCROOT BUILDROOT WORKDIR
. "$2/tests/capture/common.sh"
hdr=/usr/include/zstd.h
[ -f "$hdr" ] || { echo "SKIP: no $hdr (apt install libzstd-dev)"; exit 77; }
fns='ZSTD_createCCtx,ZSTD_freeCCtx,ZSTD_compressCCtx,ZSTD_createDCtx,ZSTD_freeDCtx,ZSTD_decompressDCtx,ZSTD_compressBound,ZSTD_isError,ZSTD_getErrorName,ZSTD_getFrameContentSize'
capture_shim "$hdr" "$fns" "$src/tests/capture/zstd.spec"
grep -q '^pathprof: capture gen: 10 functions in shim.c$' gen.err || fail "gen said: $(cat gen.err)"
gcc -O2 "$src/tests/capture/zfiles.c" -o zfiles -lzstd || exit 1
head -c 200000 /dev/urandom >random.bin
seq 1 30000 >numbers.txt
./zfiles "$src/README.md" numbers.txt random.bin >plain.out || exit 1
LD_PRELOAD=$preload PATHPROF_CAPTURE=trace.%p ./zfiles "$src/README.md" numbers.txt random.bin >captured.out ||
	fail "the captured run failed"
cmp -s plain.out captured.out || fail "the shim changed the program's output"
trace=$(ls trace.* 2>/dev/null | head -n 1)
[ -n "$trace" ] || { echo "FAIL: no trace written"; exit 1; }
# unset: no file, same output
./zfiles numbers.txt >/dev/null && LD_PRELOAD=$preload ./zfiles numbers.txt >/dev/null
[ "$(ls trace.* | wc -l)" -eq 1 ] || fail "a trace written without PATHPROF_CAPTURE"

"$pp" capture replay "$trace" --lib libzstd.so.1 --format json -o replay.json 2>replay.err
rc=$?
[ $rc -eq 0 ] || fail "replay exit $rc: $(cat replay.err)"
python3 - replay.json <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
calls = {f["function"]: f["calls"] for f in d["functions"]}
want = {"ZSTD_createCCtx": 1, "ZSTD_createDCtx": 1, "ZSTD_compressBound": 3, "ZSTD_compressCCtx": 3,
        "ZSTD_isError": 6, "ZSTD_getFrameContentSize": 3, "ZSTD_decompressDCtx": 3,
        "ZSTD_freeCCtx": 1, "ZSTD_freeDCtx": 1}
ok = calls == want and d["calls"] == 22 and d["divergences"] == 0 and d["total"]["calls"] == 22
ok = ok and all(f["total_ns"] > 0 and f["p50_ns"] <= f["p99_ns"] for f in d["functions"])
if not ok:
    print("FAIL: replay table %s" % d)
    sys.exit(1)
PY
# show: the calls as text, no library needed
"$pp" capture show "$trace" >show.txt 2>show.err || fail "show: $(cat show.err)"
[ "$(wc -l <show.txt)" -eq 22 ] || fail "show: $(wc -l <show.txt) lines, want 22"
grep -Eq '^1 \[[0-9]+\] ZSTD_createCCtx\(\) = #1$' show.txt || fail "show: $(head -n 1 show.txt)"
grep -Eq '^[0-9]+ \[[0-9]+\] ZSTD_compressCCtx\(#1, &buffer, [0-9]+, \[[0-9]+ bytes\], [0-9]+, 3\) = [0-9]+ -> parameter 2: \[[0-9]+ bytes\]$' show.txt ||
	fail "show: no compress line: $(sed -n 4p show.txt)"
grep -Eq 'ZSTD_freeCCtx\(#1 \(freed\)\) = 0$' show.txt || fail "show: no freed handle"
"$pp" capture replay "$trace" --lib libzstd.so.1 --repeat 3 --time 'ZSTD_*compress*' >rep.txt 2>&1 ||
	fail "--repeat 3: $(cat rep.txt)"
grep -Eq '^ZSTD_compressCCtx +9 ' rep.txt || fail "--repeat 3: $(cat rep.txt)"
grep -Eq '^ZSTD_isError +18 +\(untimed\)' rep.txt || fail "--time: $(cat rep.txt)"

# two threads at once: one replay thread per recorded thread, each in its
# order, the same results; and all in the recorded global order (--serial)
gcc -O2 "$src/tests/capture/zthreads.c" -o zthreads -lzstd -lpthread || exit 1
LD_PRELOAD=$preload PATHPROF_CAPTURE=threads.cap ./zthreads >/dev/null || fail "zthreads"
tids=$("$pp" capture show threads.cap | sed -n 's/^[0-9]* \[\([0-9]*\)\].*/\1/p' | sort -u | wc -l)
[ "$tids" -eq 2 ] || fail "zthreads: $tids threads in the trace"
for how in "" --serial; do
	# shellcheck disable=SC2086
	"$pp" capture replay threads.cap --lib libzstd.so.1 $how --format json -o t.json 2>t.err ||
		fail "threads $how: $(cat t.err)"
	python3 -c "
import json, sys
d = json.load(open('t.json'))
c = {f['function']: f['calls'] for f in d['functions']}
sys.exit(not (d['divergences'] == 0 and c.get('ZSTD_compressCCtx') == 100 and c.get('ZSTD_decompressDCtx') == 100 and c.get('ZSTD_createCCtx') == 2))" ||
		fail "threads $how: $(cat t.json)"
done

# a changed output byte: named, exit 3
python3 -c "
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.rfind(b'\x28\xb5\x2f\xfd')   # the last zstd frame recorded
d[i + 40] ^= 0xff
open('bad.cap', 'wb').write(d)" "$trace"
# a replay that stops early leaves the library's contexts it would have
# freed later: not a leak of pathprof's (sanitizer builds check leaks)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
"$pp" capture replay bad.cap --lib libzstd.so.1 >/dev/null 2>bad.err
rc=$?
[ $rc -eq 3 ] || fail "a changed byte: exit $rc, $(cat bad.err)"
grep -q '^pathprof: capture replay: call [0-9]* (thread [0-9]*, ZSTD_decompressDCtx): ' bad.err ||
	fail "a changed byte: $(cat bad.err)"

# cut: what is whole is replayed, exit 1, one line
size=$(wc -c <"$trace")
head -c $((size * 2 / 3)) "$trace" >cut.cap
"$pp" capture replay cut.cap --lib libzstd.so.1 >/dev/null 2>cut.err
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <cut.err)" -eq 1 ] && grep -q 'cut .*after call [0-9]*' cut.err ||
	fail "a cut trace: exit $rc, $(cat cut.err)"

# a static libzstd: gen --wrap, the program linked with libzstd.a and the
# flags gen wrote; the same calls recorded, replayed against the shared one
if [ -f /usr/lib/x86_64-linux-gnu/libzstd.a ]; then
	"$pp" capture gen --header "$hdr" --functions "$fns" --spec "$src/tests/capture/zstd.spec" \
		--wrap wrap.flags -o wshim.c 2>/dev/null || fail "gen --wrap"
	grep -q -- "-Wl,--wrap=ZSTD_compressCCtx" wrap.flags || fail "wrap flags: $(cat wrap.flags)"
	# shellcheck disable=SC2046
	gcc -O2 -Wall -Wextra -Werror "$src/tests/capture/zfiles.c" wshim.c /usr/lib/x86_64-linux-gnu/libzstd.a \
		$(cat wrap.flags) $(pkg-config --cflags --libs pathprof-capture) -o zstatic || fail "static build"
	ldd zstatic | grep -q libzstd && fail "zstatic links libzstd.so"
	LD_LIBRARY_PATH="$build/runtime/capture" PATHPROF_CAPTURE=static.cap ./zstatic "$src/README.md" numbers.txt \
		random.bin >static.out || fail "the static program failed"
	cmp -s plain.out static.out || fail "the wrapped program's output differs"
	"$pp" capture replay static.cap --lib libzstd.so.1 --format json -o static.json 2>static.err ||
		fail "replay of the static program's trace: $(cat static.err)"
	grep -q '"calls": 22,' static.json || fail "static: $(head -c 300 static.json)"
fi

# a changed interface: the trace's signatures against the header as it is
# now (gen --check), the same header and one with a parameter retyped
"$pp" capture gen --header "$hdr" --spec "$src/tests/capture/zstd.spec" --check "$trace" 2>chk.err ||
	fail "check against the same header: $(cat chk.err)"
grep -q "the 9 functions it calls have the signatures it recorded" chk.err || fail "check: $(cat chk.err)"
sed 's/ZSTD_compressBound(size_t srcSize)/ZSTD_compressBound(int srcSize)/' "$hdr" >zstd2.h
"$pp" capture gen --header zstd2.h --spec "$src/tests/capture/zstd.spec" --check "$trace" 2>chk2.err
[ $? -eq 1 ] && grep -q "ZSTD_compressBound: parameter 1 (srcSize) is now a 4-byte signed integer, the trace recorded an 8-byte unsigned integer" chk2.err ||
	fail "a changed signature: $(cat chk2.err)"

# the wrong library; not a trace
"$pp" capture replay "$trace" --lib libz.so.1 >/dev/null 2>lib.err
[ $? -eq 1 ] && grep -q 'the library has no function ZSTD_createCCtx, which the trace calls' lib.err ||
	fail "the wrong library: $(cat lib.err)"
"$pp" capture replay "$src/README.md" --lib libzstd.so.1 >/dev/null 2>magic.err
[ $? -eq 1 ] || fail "not a trace: $(cat magic.err)"

# gen: refusals and spec errors, one line each, by name
"$pp" capture gen --header "$hdr" --functions ZSTD_compress -o x.c 2>ref.err
[ $? -eq 1 ] && grep -q "ZSTD_compress: refused: parameter dst is a void \*: say in the spec" ref.err ||
	fail "refusal: $(cat ref.err)"
printf 'frees ZSTD_freeCCtx cctx\n' >bad.spec
"$pp" capture gen --header "$hdr" --functions ZSTD_freeCCtx --spec bad.spec -o x.c 2>spec.err
[ $? -eq 1 ] && grep -q "bad.spec:1: 'frees' is not one of free, in, out, callback, opaque, strings, outstr, tail, retbuf, ref" spec.err || fail "spec: $(cat spec.err)"
printf '# zstd\nfree ZSTD_freeCCtx ctx\n' >bad.spec
"$pp" capture gen --header "$hdr" --functions ZSTD_freeCCtx --spec bad.spec -o x.c 2>spec.err
[ $? -eq 1 ] && grep -q "bad.spec:2: ZSTD_freeCCtx has no parameter 'ctx'" spec.err || fail "spec: $(cat spec.err)"
[ ! -e x.c ] || fail "a refused gen wrote its output"
[ "$fails" -eq 0 ] || exit 1
echo "ok: $(sed -n 's/.*"calls": \([0-9]*\),$/\1/p' replay.json | head -n 1) calls captured and replayed"
