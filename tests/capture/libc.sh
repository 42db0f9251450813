#!/bin/sh
# pathprof capture on libc's time.h: a pointer to a struct without
# pointers in it is an array of such structs, as long as the spec says
# ('out clock_getres __res 1 1': one struct timespec the call fills, its
# 16 bytes); gen says so when the spec is silent, and refuses a struct that
# holds pointers (mktime's struct tm: tm_zone), whose addresses a replay
# could not give back, with or without a rule. Replay against libc gives
# every struct back as recorded (exit 0).
# usage: libc.sh PATHPROF SRCROOT BUILDROOT WORKDIR
. "$2/tests/capture/common.sh"
hdr=/usr/include/time.h
[ -f "$hdr" ] || { echo "SKIP: no $hdr"; exit 77; }
"$pp" capture gen --header "$hdr" --functions clock_getres,nanosleep,mktime -o none.c 2>e0
[ $? -eq 1 ] && [ ! -e none.c ] || fail "gen without a spec wrote a shim"
cat >e0.want <<'EOF2'
pathprof: capture gen: mktime: refused: parameter __tp is a struct tm *: a struct holding pointers (tm_zone), whose addresses a replay cannot give back; leave mktime out of --functions
pathprof: capture gen: nanosleep: refused: parameter __requested_time is a const struct timespec *: say in the spec how many structs the call reads there ('in nanosleep __requested_time 1' for one)
pathprof: capture gen: clock_getres: refused: parameter __res is a struct timespec *: say in the spec how many structs it points to ('in clock_getres __res 1' for one the call reads, 'out clock_getres __res 1 1' for one it fills, 'inout clock_getres __res 1' for one it reads and changes)
pathprof: capture gen: 3 of 3 functions refused; narrow --functions or explain them in the spec
EOF2
diff e0.want e0 >e0.diff || fail "gen without a spec: $(cat e0.diff)"
printf 'inout mktime __tp 1\n' >tm.spec
gen_refuses "$hdr" mktime tm.spec "pathprof: capture gen: mktime: refused: tm.spec:1: parameter __tp is a struct tm *: its elements hold a pointer (tm_zone), whose address a replay cannot give back"

printf 'out clock_getres __res 1 1\nin nanosleep __requested_time 1\nout nanosleep __remaining 1 1\n' >time.spec
capture_shim "$hdr" clock_getres,nanosleep time.spec
gcc -O2 "$t/tspec.c" -o tspec || exit 1
LD_PRELOAD=$preload PATHPROF_CAPTURE=t.cap ./tspec >got.out || fail "the captured run failed"
[ "$(cat got.out)" = "0 0.000000001 0" ] || fail "tspec printed $(cat got.out)"
"$pp" capture show t.cap | sed 's/ \[[0-9]*\] / /' >show.out || fail "show"
cat >show.want <<'EOF2'
1 clock_getres(1, &buffer) = 0 -> parameter 2: [16 bytes]
2 nanosleep([16 bytes], &buffer) = 0 -> parameter 2: [16 bytes]
EOF2
diff show.want show.out >show.diff || fail "show: $(cat show.diff)"
"$pp" capture replay t.cap --lib libc.so.6 >r.out 2>r.err || fail "replay against libc: $(cat r.err)"
got=$(awk '$1 != "function" { print $1, $2 }' r.out | paste -sd' ' -)
[ "$got" = "clock_getres 1 nanosleep 1 TOTAL 2" ] || fail "replay counts: $got"
[ "$fails" -eq 0 ] || exit 1
echo "ok: libc's structs captured by element, replayed exactly; a struct holding pointers refused"
