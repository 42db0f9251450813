#!/bin/sh
# The program's own files survive its profiling (#27): tests/safety/prog.c
# (daemon-*) closes every inherited descriptor, opens its log and runs gated code; the
# log must hold exactly its 6 bytes with the live view on (the default),
# with PATHPROF_TRACE, and both, closing by loop and by close_range(); the
# profile must still be whole (main>worker>work 100000 times).
# usage: fds.sh WRAPPER BUILDROOT PATHPROF VIA CC SRCDIR
. "$6/lib.sh"
safety_build prog.c "$work/fds" -pthread -lrt
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
finish
