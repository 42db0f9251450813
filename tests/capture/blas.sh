#!/bin/sh
# pathprof capture on CBLAS (Debian libblas-dev, netlib's): arrays of
# doubles and floats whose lengths count elements, read ('in'), written
# ('out') and changed in place ('inout'). Checked: gen refuses a const
# double * without the spec and names the rules; show gives each array's
# bytes (100 doubles: 800, 100 floats: 400); replay against libblas
# reproduces every result and every array (exit 0, the exact counts);
# against a build whose dscal leaves the last element unscaled
# (tests/capture/blasoff.c) it names that call's array (exit 3); against
# a library without them it says so in one line and prints no table; gen
# --check names an array whose element type changed.
# usage: blas.sh PATHPROF SRCROOT BUILDROOT WORKDIR
. "$2/tests/capture/common.sh"
hdr=/usr/include/x86_64-linux-gnu/cblas.h
[ -f "$hdr" ] || { echo "SKIP: no $hdr (apt install libblas-dev)"; exit 77; }
fns='cblas_dcopy,cblas_dscal,cblas_daxpy,cblas_ddot,cblas_dnrm2,cblas_idamax,cblas_sdot'

gen_refuses "$hdr" cblas_ddot "" "pathprof: capture gen: cblas_ddot: refused: parameter X is a const double *: say in the spec what it points to ('ref cblas_ddot X' for one value the call reads or writes; for an array, 'in cblas_ddot X LENGTH', 'out cblas_ddot X CAPACITY FILLED' or 'inout cblas_ddot X LENGTH')"
printf 'inout cblas_ddot X N\n' >const.spec
gen_refuses "$hdr" cblas_ddot const.spec "pathprof: capture gen: cblas_ddot: refused: const.spec:1: parameter X is a const double *: const, so the call cannot write it"

capture_shim "$hdr" "$fns" "$t/blas.spec"
gcc -O2 "$t/vecmath.c" -o vecmath -lblas || exit 1
# linked whether or not it calls libblas, so that the replay finds the rest
# there; cc, not gcc: under scripts/sanitize.sh gcc adds its sanitizer,
# whose runtime the replaying tool (clang's, there) cannot load beside its own
cc -O2 -shared -fPIC "$t/blasoff.c" -o libblasoff.so -Wl,--no-as-needed -lblas || exit 1
LD_PRELOAD=$preload PATHPROF_CAPTURE=v.cap ./vecmath >captured.out || fail "the captured run failed"
[ "$(cat captured.out)" = "dot 380 norm 144.48832132736541 max at 97 sdot 8.19065094" ] ||
	fail "vecmath computed $(cat captured.out)"

"$pp" capture show v.cap | sed 's/ \[[0-9]*\] / /' >show.out || fail "show"
cat >show.want <<'EOF2'
1 cblas_dcopy(100, [800 bytes], 1, &buffer, 1) -> parameter 4: [800 bytes]
2 cblas_dscal(100, 0.5, [800 bytes], 1) -> parameter 3: [800 bytes]
3 cblas_daxpy(100, 2, [800 bytes], 1, [800 bytes], 1) -> parameter 5: [800 bytes]
4 cblas_ddot(100, [800 bytes], 1, [800 bytes], 1) = 380
5 cblas_dnrm2(100, [800 bytes], 1) = 144.48832132736541
6 cblas_idamax(100, [800 bytes], 1) = 97
7 cblas_sdot(100, [400 bytes], 1, [400 bytes], 1) = 8.19065094
EOF2
diff show.want show.out >show.diff || fail "show: $(cat show.diff)"

"$pp" capture replay v.cap --lib libblas.so.3 >r.out 2>r.err || fail "replay against libblas: $(cat r.err)"
got=$(awk '$1 != "function" { print $1, $2 }' r.out | paste -sd' ' -)
[ "$got" = "cblas_dcopy 1 cblas_dscal 1 cblas_daxpy 1 cblas_ddot 1 cblas_dnrm2 1 cblas_idamax 1 cblas_sdot 1 TOTAL 7" ] ||
	fail "replay counts: $got"

# a library without the functions: one line, and no table of nothing
"$pp" capture replay v.cap --lib libz.so.1 >w.out 2>w.err
[ $? -eq 1 ] && [ ! -s w.out ] &&
	[ "$(cat w.err)" = "pathprof: capture replay: v.cap: the library has no function cblas_dcopy, which the trace calls" ] ||
	fail "replay against libz: $(cat w.out w.err)"

# dscal's off-by-one: the array it changed in place is not the recorded one;
# daxpy, given the recorded array, goes on as recorded
"$pp" capture replay v.cap --lib ./libblasoff.so --keep-going >/dev/null 2>d.err
[ $? -eq 3 ] || fail "replay against the off-by-one: exit $?"
[ "$(sed 's/(thread [0-9]*, /(/' d.err)" = "pathprof: capture replay: call 2 (cblas_dscal): parameter 3: the 800 bytes it was given are not left as recorded" ] ||
	fail "replay against the off-by-one: $(cat d.err)"

# the header changed under the trace: dnrm2 takes floats
sed 's/double cblas_dnrm2(const CBLAS_INT N, const double \*X/double cblas_dnrm2(const CBLAS_INT N, const float *X/' "$hdr" >cblas.h
grep -q 'cblas_dnrm2(const CBLAS_INT N, const float \*X' cblas.h || fail "the changed header"
"$pp" capture gen --header cblas.h --spec "$t/blas.spec" --check v.cap 2>c.err
[ $? -eq 1 ] && [ "$(cat c.err)" = "pathprof: capture gen: v.cap: cblas_dnrm2: parameter 2 (X) now holds 4-byte elements, the trace recorded 8-byte ones" ] ||
	fail "gen --check: $(cat c.err)"
"$pp" capture gen --header "$hdr" --spec "$t/blas.spec" --check v.cap 2>c0.err || fail "gen --check, same header: $(cat c0.err)"
[ "$fails" -eq 0 ] || exit 1
echo "ok: CBLAS arrays captured by element, replayed exactly, an off-by-one and a changed element type named"
