#!/bin/sh
# Segments are trusted only from their owner (#27): a segment another user
# wrote that claims a root process is refused by root's readers (serve,
# top, recover), another user's segment is "permission denied" for a
# non-root reader, a non-root exporter skips other users' segments, and a
# name another user squats does not turn a program's export off: it exports
# under NAME.uUID and says so once. Needs root and the user nobody.
# usage: owners.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
safety_build prog.c "$work/images" -pthread -lrt -ldl
if [ "$(id -u)" -ne 0 ] || ! id nobody >/dev/null 2>&1; then
	echo "SKIP: needs root and the user nobody"
	exit 77
fi
chmod 755 "$work"
tag=pp-owners-$$
trap 'rm -rf "$work"; rm -f /dev/shm/$tag*; [ -z "$pid" ] || kill "$pid" 2>/dev/null' EXIT
export PATHPROF_XRAY=all

# a kept segment of root's, copied as nobody's with the pid of init
(cd "$work" && PATHPROF_SHM=$tag-real PATHPROF_SHM_KEEP=1 PATHPROF_OUT=out ./images hold 0)
cp /dev/shm/$tag-real /dev/shm/$tag-forged
python3 - /dev/shm/$tag-forged <<'PY'
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(64)          # pp__shm_hdr_t.pid
    f.write(struct.pack('<Q', 1))
    f.seek(156)         # state: running
    f.write(struct.pack('<I', 1))
PY
chown nobody /dev/shm/$tag-forged
want="/$tag-forged: written by uid 65534 but claims process 1 of uid 0: not read (a forged segment?)"
"$pathprof" serve --once $tag-forged >/dev/null 2>"$work/err" || true
grep -qF "skipped: $want" "$work/err" || fail "serve: $(cat "$work/err")"
"$pathprof" top --once $tag-forged >/dev/null 2>"$work/err" && fail "top read the forged segment"
grep -qF "$want" "$work/err" || fail "top: $(cat "$work/err")"
# the real one still reads
"$pathprof" top --once $tag-real >/dev/null 2>"$work/err" || fail "top of the real segment: $(cat "$work/err")"
rm -f /dev/shm/$tag-forged

# a non-root reader: root's segment is refused, by name and by pid
(cd "$work" && PATHPROF_OUT=out ./images hold 5000) & pid=$!
i=0
until [ -e /dev/shm/pathprof.$pid ]; do i=$((i + 1)); [ $i -lt 100 ] || break; sleep 0.05; done
out=$(runuser -u nobody -- "$pathprof" top --once $pid 2>&1 >/dev/null) && fail "nobody read root's segment"
[ "$out" = "pathprof: $pid: the live segment of process $pid belongs to another user: permission denied" ] ||
	fail "top as nobody: $out"
# a non-root exporter skips it without a word
out=$(runuser -u nobody -- "$pathprof" serve --once 2>&1 >"$work/exp")
! grep -q "pid=\"$pid\"" "$work/exp" || fail "nobody's serve exported root's process"
[ -z "$out" ] || fail "nobody's serve: $out"
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=

# a squatted name
runuser -u nobody -- sh -c "echo squat > /dev/shm/$tag-sq"
(cd "$work" && PATHPROF_SHM=$tag-sq PATHPROF_SHM_KEEP=1 PATHPROF_OUT=out ./images hold 0 2>err)
[ "$(cat "$work/err")" = "pathprof: /$tag-sq: the name is taken by another user (uid 65534); exporting as /$tag-sq.u0" ] ||
	fail "squatted: $(cat "$work/err")"
[ -e /dev/shm/$tag-sq.u0 ] || fail "squatted: no segment under the other name"
[ "$(cat /dev/shm/$tag-sq)" = squat ] || fail "squatted: the other user's object changed"
finish
