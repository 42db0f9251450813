#!/bin/sh
# Install what building and testing pathprof needs on Debian 12, only when
# something is missing (so it is cheap to run every time). Needs root or sudo.
set -eu
pkgs="meson ninja-build pkg-config gcc g++ clang llvm-14-dev libclang-rt-14-dev
      libdw-dev libelf-dev zlib1g-dev python3 valgrind graphviz chromium golang-go nodejs
      autoconf cmake make uftrace man-db groff-base prometheus libbpf-dev bpftool
      tmux libmicrohttpd-dev python3-cram strace libclang-14-dev libffi-dev libzstd-dev libblas-dev
      gcc-12-plugin-dev"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# npm: the browser test installs playwright-core with it. Some nodejs builds
# (NodeSource) bundle npm and conflict with Debian's package: check the command.
command -v npm >/dev/null 2>&1 || missing="$missing npm"
[ -z "$missing" ] && exit 0
echo "deps.sh: installing:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
