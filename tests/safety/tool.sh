#!/bin/sh
# The pathprof tool is nobody's host (#28): it links the runtime to replay
# gates but never its host side (runtime/host/), so reading a profile
# installs no signal handler and writes no profile of its own, whatever
# PATHPROF_OUT says. Checked with strace on report and replay.
# usage: tool.sh PATHPROF PROFILE TRACE
set -eu
pp=$1 prof=$2 trace=$3
# a sanitizer's runtime installs handlers of its own: nothing to see there.
# Told by the dynamic symbol (imported from gcc's runtime, defined by
# clang's), not by the name anywhere in the file: the runtime's own code
# names it too (runtime/shm.c looks it up), so every build skipped.
if nm -D "$pp" 2>/dev/null | grep -qE ' [UT] __(asan|tsan)_init$'; then
	echo "SKIP: a sanitizer build"
	exit 77
fi
command -v strace >/dev/null || { echo "tool.sh: strace is not installed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-tool.XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
for cmd in "report $prof" "replay $trace -o $work/replayed.pathprof"; do
	# shellcheck disable=SC2086
	PATHPROF_OUT="$work/tool.pathprof" strace -f -e trace=rt_sigaction -o "$work/strace" \
		"$pp" $cmd >/dev/null 2>&1 || { echo "FAIL: pathprof $cmd failed"; fails=$((fails + 1)); }
	if grep -E 'rt_sigaction\((SIGSEGV|SIGBUS|SIGFPE|SIGILL|SIGABRT|SIGTERM|SIGINT|SIGHUP|SIGQUIT|SIGPIPE), \{' "$work/strace"; then
		echo "FAIL: pathprof ${cmd%% *} installed a signal handler"
		fails=$((fails + 1))
	fi
	[ ! -e "$work/tool.pathprof" ] || { echo "FAIL: pathprof ${cmd%% *} wrote a profile of itself"; fails=$((fails + 1)); }
done
[ "$fails" -eq 0 ] || exit 1
echo "ok: the tool installs no handler and writes no profile"
