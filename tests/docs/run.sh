#!/bin/sh
# Runs the console blocks of one documentation page with cram (Debian's
# python3-cram: its `cram3` runs a test file and shows a diff on drift):
# doc2cram.py turns the page into a cram test in the build tree first.
# A page that needs BPF (NEEDS=bpf: off-CPU recording) is skipped, visibly
# and with status 77, where `pathprof run --offcpu` says it cannot record.
# Its blocks run up to three times: on a loaded machine the recorder has
# been seen to miss one of a thread's blocks (offcpu.md's lock example: 4
# of 5 sleeps, once in 25 runs beside two CPU hogs; the epoll case 9 of
# 10 once in CI), which the page's exact counts then show. Every failed
# run's diff is printed; a page that is wrong fails all three.
# usage: run.sh PAGE.md SRCROOT BUILDROOT [NEEDS]
set -eu
page=$1 src=$2 build=$3 needs=${4:-}
command -v cram3 >/dev/null || { echo "docs: cram3 is not installed (apt-get install python3-cram)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$needs" = bpf ]; then
	why=$(PATHPROF_OUT="$work/probe.pathprof" "$build/tools/pathprof" run --offcpu -o /dev/null -- "$build/examples/feed-raii" --messages 1 --quiet 2>&1 |
		grep -e '--offcpu:' || true)
	if [ -n "$why" ]; then
		echo "SKIP: $page needs off-CPU recording: $why"
		exit 77
	fi
fi
name=$(basename "$page" .md)
python3 "$src/tests/docs/doc2cram.py" "$page" "$src" "$build" >"$work/$name.t"
tries=1
[ "$needs" = bpf ] && tries=3
i=1
while :; do
	TMPDIR=$work cram3 --shell=/bin/sh "$work/$name.t" && exit 0
	[ "$i" -lt "$tries" ] || exit 1
	echo "docs: $page: run $i of $tries failed; again"
	rm -f "$work/$name.t.err"
	i=$((i + 1))
done
