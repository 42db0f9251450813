#!/bin/sh
# The program's own files survive its profiling (#27): tests/safety/prog.c
# (daemon-*) closes every inherited descriptor, opens its log and runs gated code; the
# log must hold exactly its 6 bytes with the live view on (the default),
# with PATHPROF_TRACE, and both, closing by loop and by close_range(); the
# profile must still be whole (main>worker>work 100000 times). daemon-storm
# closes everything over and over while the runtime's threads name what the
# program meets: every name must come out right, and no write of the program
# may fail (their descriptors are their own, runtime/own_thread.c).
# daemon-dlopen loads a library after closing everything, under a
# selection, whose resolver runs on the program's thread (runtime/
# symbolize.c: it closes only what is still its own).
# usage: fds.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
safety_build prog.c "$work/fds" -pthread -lrt -ldl
for how in loop range; do
	for mode in live trace both; do
		rm -f "$work"/app.log "$work"/out.pathprof "$work"/trace "$work"/stderr
		set -- PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof"
		case $mode in
		live) ;;
		trace) set -- "$@" PATHPROF_SHM=off PATHPROF_TRACE="$work/trace" ;;
		both) set -- "$@" PATHPROF_TRACE="$work/trace" ;;
		esac
		(cd "$work" && env "$@" ./fds "daemon-$how" app.log 2>stderr) || fail "$how $mode: exit status $?"
		got=$(od -c "$work/app.log" | head -3)
		[ "$(cat "$work/app.log")" = hello ] && [ "$(wc -c <"$work/app.log")" -eq 6 ] ||
			fail "$how $mode: app.log is $(wc -c <"$work/app.log") bytes: $got"
		"$pathprof" report --format paths "$work/out.pathprof" | grep -qx '100000|worker>calls>leaf' ||
			fail "$how $mode: the profile lacks 100000|worker>calls>leaf: $("$pathprof" report --format paths "$work/out.pathprof" 2>&1)"
		case $mode in
		trace | both)
			# the trace's descriptor was closed by the program: recording
			# stops with one line, and nothing else is said
			want="pathprof: trace $work/trace: the program closed the trace's file descriptor; recording stopped"
			[ "$(cat "$work/stderr")" = "$want" ] || fail "$how $mode: stderr: $(cat "$work/stderr")"
			;;
		*) [ ! -s "$work/stderr" ] || fail "$how $mode: stderr: $(cat "$work/stderr")" ;;
		esac
	done
done
# daemon-dlopen: a selection names keys on the program's thread, through a
# resolver whose module files sit in the program's table; the library the
# daemon loads after closing everything makes it reopen, and its old files'
# numbers are the daemon's log by then. The log must get both writes, and
# the library's functions must be selected by name (XRay: LLVM 14 cannot
# patch a library's sleds, so it runs ungated).
safety_build ../modules/libg.c "$work/libg.so" -fPIC -shared
rm -f "$work"/app.log "$work"/out.pathprof "$work"/stderr
(cd "$work" && env PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof" PATHPROF_FUNCTIONS='main,g_*' \
	./fds daemon-dlopen app.log ./libg.so 2>stderr) ||
	fail "dlopen: exit status $? (5: the log's second write failed)"
[ "$(cat "$work/app.log")" = "$(printf 'hello\nagain')" ] || fail "dlopen: app.log is: $(od -c "$work/app.log" | head -3)"
want='200|main>g_run>g_mid>g_leaf'
[ "$via" != xray ] || want='1|main'
paths=$("$pathprof" report --format paths "$work/out.pathprof" 2>&1)
[ "$paths" = "$want" ] || fail "dlopen: expected the paths '$want', got: $paths"
[ ! -s "$work/stderr" ] || fail "dlopen: stderr: $(cat "$work/stderr")"
rm -f "$work"/app.log "$work"/out.pathprof "$work"/stderr
(cd "$work" && env PATHPROF_XRAY=all PATHPROF_OUT="$work/out.pathprof" ./fds daemon-storm app.log \
	2>stderr) || fail "storm: exit status $? (5: a write of the program failed or was lost)"
paths=$("$pathprof" report --format paths "$work/out.pathprof" 2>&1)
printf '%s\n' "$paths" | grep -q '^100000|\(.*>\)\{0,1\}worker>calls>leaf$' &&
	printf '%s\n' "$paths" | grep -q '^1|main>\(.*>\)\{0,1\}calls>leaf$' &&
	! printf '%s\n' "$paths" | grep -q '0x' ||
	fail "storm: the profile's paths are not named right: $paths"
[ ! -s "$work/stderr" ] || fail "storm: stderr: $(cat "$work/stderr")"
finish
