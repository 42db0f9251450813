# Sourced by the capture tests on a real library (zstd.sh, zlib.sh,
# blas.sh), with their arguments (PATHPROF SRCROOT BUILDROOT WORKDIR):
# sets pp, src, build and t (this folder), makes and enters a work
# directory of its own that goes at exit, and defines fail, which counts
# failures in fails.
set -u
pp=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") src=$2 build=$3 work=$4/capture-$(basename "$0" .sh).$$
t=$src/tests/capture
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$work" || exit 1

# capture_shim HEADER FUNCTIONS SPEC runs
# gen (its message kept in gen.err) and builds shim.so the documented way,
# through the uninstalled pkg-config module; it sets preload to what
# LD_PRELOAD takes (a sanitizer build's shim needs its runtime first).
capture_shim() {
	"$pp" capture gen --header "$1" --functions "$2" --spec "$3" -o shim.c 2>gen.err ||
		{ cat gen.err; exit 1; }
	export PKG_CONFIG_PATH="$build/meson-uninstalled" LD_LIBRARY_PATH="$build/runtime/capture"
	# shellcheck disable=SC2046
	gcc -shared -fPIC -Wall -Wextra -Werror shim.c -o shim.so $(pkg-config --cflags --libs pathprof-capture) -ldl ||
		{ echo "FAIL: the shim does not build"; exit 1; }
	pre=$(ldd shim.so | sed -n 's/^[[:space:]]*lib[at]san\.so[^ ]* => \([^ ]*\) .*/\1/p' | head -n 1)
	preload="${pre:+$pre }./shim.so"
}

# gen_refuses HEADER FUNCTIONS SPEC LINE: gen writes no shim and says LINE
# first (SPEC "": no spec).
gen_refuses() {
	rm -f refused.c
	"$pp" capture gen --header "$1" --functions "$2" ${3:+--spec "$3"} -o refused.c 2>refused.err
	rc=$?
	[ $rc -eq 1 ] && [ ! -e refused.c ] && [ "$(head -n 1 refused.err)" = "$4" ] ||
		fail "gen $2${3:+ with $3}: exit $rc, $(cat refused.err)"
}
