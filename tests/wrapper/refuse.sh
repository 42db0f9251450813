#!/bin/sh
# The wrapper's refusals: each combination that cannot work must print exactly
# one documented line, exit 2, and leave no output file behind.
# usage: refuse.sh WRAPPER BUILDROOT HAVE_PLUGIN HAVE_XRAY
set -u
wrapper=$1 build=$2 have_plugin=$3 have_xray=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-refuse.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
echo 'int main(void) { return 0; }' >x.c
PKG_CONFIG_PATH=$build/meson-uninstalled
export PKG_CONFIG_PATH
fails=0

# A compiler that only says it is clang 99, for the LLVM-major refusal.
cat >fakeclang <<'EOT'
#!/bin/sh
printf '#define __clang__ 1\n#define __clang_major__ 99\n#define __GNUC__ 4\n'
EOT
chmod +x fakeclang

refuse() { # expected-line wrapper-args...
	want=$1
	shift
	rm -f out.o
	# shellcheck disable=SC2086 # $wrapper may be "sh FILE"
	$wrapper "$@" >stdout 2>stderr
	st=$?
	got=$(cat stderr)
	if [ "$st" -ne 2 ] || [ "$got" != "$want" ] || [ -s stdout ] || [ -e out.o ]; then
		echo "FAIL: pathprof-cc $*"
		echo "  status $st (want 2)"
		echo "  got:  $got"
		echo "  want: $want"
		fails=$((fails + 1))
	fi
}

refuse "pathprof-cc: choose an injector with --via=raii, --via=cyg, --via=xray or --via=plugin (or set PATHPROF_VIA)." \
	gcc -c x.c -o out.o
refuse "pathprof-cc: --via=gprof is not an injector: use raii, cyg, xray or plugin." \
	--via=gprof gcc -c x.c -o out.o
refuse "pathprof-cc: --xray-list applies to --via=xray, not --via=cyg." \
	--via=cyg --xray-list=l.txt gcc -c x.c -o out.o
refuse "pathprof-cc: --plugin-mode=some is not a mode: use annotated, all or list." \
	--via=plugin --plugin-mode=some clang -c x.c -o out.o
refuse "pathprof-cc: --plugin-mode=list needs --plugin-list=FILE." \
	--via=plugin --plugin-mode=list clang -c x.c -o out.o
refuse "pathprof-cc: --xray-threshold=many is not a number of instructions." \
	--via=xray --xray-threshold=many clang -c x.c -o out.o
refuse "pathprof-cc: --xray-no-tail-calls applies to --via=xray, not --via=cyg." \
	--via=cyg --xray-no-tail-calls gcc -c x.c -o out.o
refuse "pathprof-cc: --exclude-functions applies to --via=cyg and --via=raii, not --via=plugin." \
	--via=plugin --exclude-functions=f clang -c x.c -o out.o
refuse "pathprof-cc: --exclude-functions=lex*: raii gates are matched by whole name at compile time: no globs or '!'." \
	--via=raii --exclude-functions='lex*' gcc -c x.c -o out.o
refuse "pathprof-cc: --exclude-functions=@missing.txt: cannot read missing.txt." \
	--via=raii --exclude-functions=@missing.txt gcc -c x.c -o out.o
# An empty list is `pathprof select` finding nothing to drop: nothing is
# excluded, through the wrapper's @FILE or gcc's own flag (which gcc alone
# refuses empty), and the function stays gated.
: >empty.txt
for form in "--exclude-functions=@empty.txt gcc" "gcc -finstrument-functions-exclude-function-list="; do
	rm -f out.o
	# shellcheck disable=SC2086 # $wrapper may be "sh FILE"; $form is words
	if $wrapper --via=cyg $form -c x.c -o out.o 2>stderr && [ ! -s stderr ] &&
		nm out.o | grep -q __cyg_profile_func_enter; then :; else
		echo "FAIL: an empty list ($form): $(cat stderr)"
		fails=$((fails + 1))
	fi
done
if command -v clang >/dev/null 2>&1; then
	refuse "pathprof-cc: --exclude-files needs gcc: clang has no -finstrument-functions-exclude-file-list (use --exclude-functions, or mark functions PP_NOINSTR)." \
		--via=cyg --exclude-files=vendor/ clang -c x.c -o out.o
fi
if [ "$have_xray" = 1 ]; then
	# accepted: --xray-no-tail-calls compiles without sibling calls
	# shellcheck disable=SC2086
	case $($wrapper --show --via=xray --xray-no-tail-calls clang -O2 -c x.c -o out.o) in
	*" -fno-optimize-sibling-calls "*) ;;
	*) echo "FAIL: --xray-no-tail-calls adds no -fno-optimize-sibling-calls"; fails=$((fails + 1)) ;;
	esac
	refuse "pathprof-cc: the xray injector needs clang: 'gcc' is not clang, and only clang emits XRay sleds (use --via=cyg or --via=raii with it)." \
		--via=xray gcc -c x.c -o out.o
	refuse "pathprof-cc: the xray injector needs clang: 'gcc' is not clang, and only clang emits XRay sleds (use --via=cyg or --via=raii with it)." \
		--via=xray gcc x.c -o out.o
fi
if [ "$have_plugin" = 1 ]; then
	refuse "pathprof-cc: the plugin injector needs clang: 'gcc' is not clang, and only clang loads LLVM pass plugins (use --via=cyg or --via=raii with it)." \
		--via=plugin gcc -c x.c -o out.o
	major=$(pkg-config --variable=llvm_major pathprof-plugin)
	clang=$(pkg-config --variable=clang pathprof-plugin)
	refuse "pathprof-cc: the pathprof pass plugin was built for LLVM $major but './fakeclang' is clang 99: use clang $major ($clang) or rebuild pathprof with -Dllvm_config=llvm-config-99." \
		--via=plugin ./fakeclang -c x.c -o out.o
else
	refuse "pathprof-cc: the plugin injector is not available: no pkg-config module pathprof-plugin in $build/meson-uninstalled (pathprof was built without it)." \
		--via=plugin clang -c x.c -o out.o
fi
# Accepted: a program takes the hooks built for executables, a shared
# library the usual ones, and both really link (a program's hooks in a
# shared library would fail: they reach the thread state at a fixed offset).
echo 'int lib_f(int x) { return x + 1; }' >lib.c
for via in cyg raii; do
	# shellcheck disable=SC2086
	case $($wrapper --show --via=$via gcc -O2 x.c -o prog) in
	*"libpathprof-$via-exe.a,"*) ;;
	*) echo "FAIL: a $via program does not take libpathprof-$via-exe.a"; fails=$((fails + 1)) ;;
	esac
	# shellcheck disable=SC2086
	case $($wrapper --show --via=$via gcc -O2 -shared -fPIC lib.c -o lib.so) in
	*"libpathprof-$via-exe.a"*) echo "FAIL: a $via shared library takes the executables' hooks"; fails=$((fails + 1)) ;;
	*"libpathprof-$via.a,"*) ;;
	*) echo "FAIL: a $via shared library takes no hooks archive"; fails=$((fails + 1)) ;;
	esac
	# shellcheck disable=SC2086
	$wrapper --via=$via gcc -O2 -shared -fPIC lib.c -o lib.so 2>err ||
		{ echo "FAIL: a $via shared library does not link: $(cat err)"; fails=$((fails + 1)); }
	# shellcheck disable=SC2086
	$wrapper --via=$via gcc -O2 x.c -o prog 2>err && PATHPROF_OUT=/dev/null ./prog ||
		{ echo "FAIL: a $via program does not link or run: $(cat err)"; fails=$((fails + 1)); }
done

# The installed-name wrapper whose prefix holds no pathprof (not installed
# yet): it says so, rather than that pathprof was built without the injector.
sed "s|^pcdir=.*|pcdir='$work/no-prefix'|" "$(dirname "$wrapper")/pathprof-cc" >pathprof-cc
wrapper_saved=$wrapper wrapper="env -u PKG_CONFIG_PATH sh pathprof-cc"
# (no PKG_CONFIG_PATH: the build tree's modules must not answer for the prefix)
refuse "pathprof-cc: pathprof is not installed where this wrapper looks ($work/no-prefix has no pathprof.pc): run 'meson install', or use tools/pathprof-cc-uninstalled from the build tree." \
	--via=cyg gcc -c x.c -o out.o
wrapper=$wrapper_saved

[ "$fails" -eq 0 ] || { echo "refuse.sh: $fails refusal(s) wrong"; exit 1; }
