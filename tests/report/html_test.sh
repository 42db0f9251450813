#!/bin/sh
# Runs html_test.js in headless Chromium. playwright-core comes from npm into
# NPM_DIR (inside the build directory) on first use; when it cannot be
# installed or Chromium is missing the test fails, it never passes unrun.
# usage: html_test.sh PATHPROF MKPROF NPM_DIR WORK_DIR
set -u
pp=$1 mkprof=$2 npm_dir=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
pw_version=1.65.1

fail() { echo "FAIL: $*"; exit 1; }

command -v node >/dev/null || fail "node not found (Debian nodejs): cannot run the browser test"
[ -x /usr/bin/chromium ] || fail "/usr/bin/chromium not found (Debian chromium): cannot run the browser test"
if [ "$(cat "$npm_dir/.installed" 2>/dev/null)" != "$pw_version" ]; then
	mkdir -p "$npm_dir" || fail "cannot create $npm_dir"
	npm install --prefix "$npm_dir" --no-audit --no-fund --silent "playwright-core@$pw_version" ||
		fail "cannot install playwright-core@$pw_version from npm into $npm_dir"
	echo "$pw_version" >"$npm_dir/.installed"
fi

mkdir -p "$work/screenshots" || exit 1
"$mkprof" demo "$work/demo.pathprof" || fail "mkprof demo"
"$mkprof" hostile "$work/hostile.pathprof" || fail "mkprof hostile"
"$pp" report --format html -o "$work/demo.html" "$work/demo.pathprof" || fail "report --format html demo"
"$pp" report --format json -o "$work/demo.json" "$work/demo.pathprof" || fail "report --format json demo"
"$pp" report --format html -o "$work/hostile.html" "$work/hostile.pathprof" || fail "report --format html hostile"
"$mkprof" diff-a "$work/diff-a.pathprof" || fail "mkprof diff-a"
"$mkprof" diff-b "$work/diff-b.pathprof" || fail "mkprof diff-b"
"$pp" diff --format html -o "$work/diff.html" "$work/diff-a.pathprof" "$work/diff-b.pathprof" ||
	fail "diff --format html"
"$pp" diff --format json -o "$work/diff.json" "$work/diff-a.pathprof" "$work/diff-b.pathprof" ||
	fail "diff --format json"
for s in a b; do
	"$pp" report --format json -o "$work/diff-$s.json" "$work/diff-$s.pathprof" || fail "report --format json diff-$s"
done
# 10 000 paths: more frames than the graph can draw
"$mkprof" wide10k "$work/wide10k.pathprof" || fail "mkprof wide10k"
"$pp" report --format html -o "$work/wide10k.html" "$work/wide10k.pathprof" || fail "report --format html wide10k"
# 100 000 paths: more than a page carries
"$mkprof" wide100k "$work/wide100k.pathprof" || fail "mkprof wide100k"
"$pp" report --format html -o "$work/wide100k.html" "$work/wide100k.pathprof" || fail "report --format html wide100k"
"$mkprof" noexit "$work/noexit.pathprof" || fail "mkprof noexit"
"$pp" report --format html -o "$work/noexit.html" "$work/noexit.pathprof" || fail "report --format html noexit"
"$mkprof" offcpu "$work/offcpu.pathprof" || fail "mkprof offcpu"
"$pp" report --format html -o "$work/offcpu.html" "$work/offcpu.pathprof" || fail "report --format html offcpu"
"$mkprof" wide100k-b "$work/wide100k-b.pathprof" || fail "mkprof wide100k-b"
"$pp" diff --format html -o "$work/wide100k-diff.html" "$work/wide100k.pathprof" "$work/wide100k-b.pathprof" ||
	fail "diff --format html wide100k"
exec node "$here/html_test.js" "$npm_dir" "$work/demo.html" "$work/demo.json" "$work/hostile.html" \
	"$work/diff.html" "$work/diff.json" "$work/screenshots" "$work/wide10k.html" "$work/wide100k.html" \
	"$work/wide100k-diff.html" "$work/offcpu.html" "$work/noexit.html"
