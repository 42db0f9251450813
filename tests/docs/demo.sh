#!/bin/sh
# The README's first command, scripts/demo.sh, run as a reader runs it (on
# this build tree): each of the four front-ends prints its report, and the
# counts the README quotes from it are what every one of them counts
# (200 000 messages, 9 981 book snapshots, 44 944 books added).
# usage: demo.sh SRCROOT BUILDROOT
set -eu
src=$1 build=$2
out=$(TMPDIR=${TMPDIR:-/tmp} "$src/scripts/demo.sh" "$build" 2>&1) || {
	echo "$out"
	echo "docs-demo: scripts/demo.sh failed"
	exit 1
}
echo "$out"
fail=0
for fe in raii cyg xray plugin; do
	section=$(echo "$out" | awk -v h="== feed handler through the $fe front-end" \
		'$0 == h { on = 1; next } /^== / || /^profiles kept/ { on = 0 } on')
	[ -n "$section" ] || { echo "docs-demo: no report for $fe"; fail=1; continue; }
	for want in '^[0-9]+ +44944 .* on_message > book_snapshot > book_add$' \
		'^ +on_message +200000 ' '^ +book_snapshot +9981 ' '^ +book_add +44944 '; do
		echo "$section" | grep -Eq "$want" || { echo "docs-demo: $fe: no line matching '$want'"; fail=1; }
	done
done
rm -rf "$(echo "$out" | sed -n 's/^profiles kept in \(.*\) (pathprof.*/\1/p')"
exit $fail
