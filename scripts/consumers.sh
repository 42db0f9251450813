#!/bin/sh
# The consumer-project suite (tests/consumers/run.sh): install BUILD into
# PREFIX (default BUILD-prefix; the build's prefix option is set to it), then
# build and run the consumer programs every documented way against it, the
# build tree and pathprof as a Meson subproject (docs/guides/build-systems.md).
# usage: scripts/consumers.sh BUILD [PREFIX [WAY...]]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
prefix=${2:-$build-prefix}
[ $# -lt 2 ] || shift
shift
case $prefix in
/*) ;;
*) prefix=$(pwd)/$prefix ;;
esac
meson configure "$build" -Dprefix="$prefix" >/dev/null
ninja -C "$build" >/dev/null
rm -rf "$prefix"
meson install -C "$build" --no-rebuild --quiet
"$root/tests/consumers/run.sh" "$prefix" "$build" "$root" "$@"
# A staged install (what packagers do: meson install --destdir), then moved
# away from the prefix it was configured for: pkg-config and the wrapper
# must find everything relative to where they are (#32).
if [ $# -eq 0 ]; then
	staged=$build-staged moved=$build-moved
	rm -rf "$staged" "$moved"
	meson install -C "$build" --no-rebuild --quiet --destdir "$staged"
	mv "$staged$prefix" "$moved"
	# nothing may still be found at the configured prefix
	rm -rf "$staged" "$prefix"
	"$root/tests/consumers/run.sh" "$moved" "$build" "$root" make cmake-launcher cmake-package
fi
