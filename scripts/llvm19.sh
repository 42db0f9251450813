#!/bin/sh
# The pass plugin against a second LLVM: build with Debian's LLVM 19
# (-Dllvm_config=llvm-config-19) and run the plugin tests and verify, which
# then build their plugin variants with clang-19. Installs the packages when
# missing. usage: scripts/llvm19.sh [BUILD_DIR]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-llvm19}
pkgs="clang-19 llvm-19-dev libclang-rt-19-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "llvm19.sh: installing:$missing"
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$root" -Dwerror=true -Dllvm_config=llvm-config-19 -Dplugin=enabled
fi
ninja -C "$build"
tests=$(meson test -C "$build" --list 2>/dev/null | sed -n 's/^pathprof:[a-z]* \/ //p' | grep -E '^(plugin-|verify-)')
# shellcheck disable=SC2086
meson test -C "$build" --print-errorlogs --num-processes 2 $tests
