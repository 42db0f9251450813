#!/bin/sh
# pathprof-cc's refusals, compared whole: wrapper options without their value
# or misspelt, a bad PATHPROF_VIA, XRay with gcc, and the plugin with a clang of
# another LLVM major (a fake one that answers --version, -dumpversion and the
# macro query like a real clang would, and fails loudly if asked to compile).
# Each must print one line, exit 2, run no compiler and write no output.
# usage: cc.sh WRAPPER-CC WRAPPER-CXX HAVE_XRAY HAVE_PLUGIN LLVM_MAJOR PLUGIN_CLANG BUILDROOT
set -u
cc=$1 cxx=$2 have_xray=$3 have_plugin=$4 major=$5 plugin_clang=$6 build=$7
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-misuse-cc.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
unset PATHPROF_VIA
echo 'int main(void) { return 0; }' >x.c
fails=0

other=$((major + 1))
cat >fakeclang <<EOT
#!/bin/sh
case "\$*" in
--version) echo "Debian clang version $other.0.6"; echo "Target: x86_64-pc-linux-gnu" ;;
-dumpversion) echo "$other.0.6" ;;
*-dM*) printf '#define __clang__ 1\n#define __clang_major__ $other\n#define __GNUC__ 4\n' ;;
*) echo "fakeclang: asked to compile: \$*" >&2; : >compiled; exit 1 ;;
esac
EOT
chmod +x fakeclang

# refuse LINE WRAPPER ARGS...
refuse() {
	want=$1 wrapper=$2
	shift 2
	rm -f out.o compiled
	"$wrapper" "$@" >stdout 2>stderr
	st=$?
	got=$(cat stderr)
	if [ "$st" -ne 2 ] || [ "$got" != "$want" ] || [ -s stdout ] || [ -e out.o ] || [ -e compiled ]; then
		echo "FAIL: ${wrapper##*/} $*"
		echo "  status $st (want 2)"
		echo "  got:  $got"
		echo "  want: $want"
		fails=$((fails + 1))
	fi
}

see="(see 'pathprof-cc --help')."
refuse "pathprof-cc: --via needs a value: write --via=INJECTOR $see" "$cc" --via cyg gcc -c x.c -o out.o
refuse "pathprof-c++: --via needs a value: write --via=INJECTOR (see 'pathprof-c++ --help')." \
	"$cxx" --via cyg g++ -c x.c -o out.o
for opt in --exclude-files --exclude-functions --functions; do
	refuse "pathprof-cc: $opt needs a value: write $opt=LIST $see" "$cc" --via=cyg "$opt" gcc -c x.c -o out.o
done
for opt in --xray-list --plugin-list; do
	refuse "pathprof-cc: $opt needs a value: write $opt=FILE $see" "$cc" --via=cyg "$opt" gcc -c x.c -o out.o
done
refuse "pathprof-cc: --xray-threshold needs a value: write --xray-threshold=N $see" \
	"$cc" --via=xray --xray-threshold clang -c x.c -o out.o
refuse "pathprof-cc: --plugin-mode needs a value: write --plugin-mode=MODE $see" \
	"$cc" --via=plugin --plugin-mode clang -c x.c -o out.o
for opt in --plugin-mod=all --xray-thresh=3 --exclude-file=a --vias=cyg --show-cmd; do
	refuse "pathprof-cc: unknown option '${opt%%=*}' $see" "$cc" --via=cyg "$opt" gcc -c x.c -o out.o
done
refuse "pathprof-cc: choose an injector with --via=raii, --via=cyg, --via=xray or --via=plugin (or set PATHPROF_VIA)." \
	"$cc" --via= gcc -c x.c -o out.o
PATHPROF_VIA=gprof refuse "pathprof-cc: PATHPROF_VIA=gprof is not an injector: use raii, cyg, xray or plugin." \
	"$cc" gcc -c x.c -o out.o
unset PATHPROF_VIA # dash keeps an assignment made before a function call
refuse "pathprof-cc: --via=xray-fdr is not an injector: use raii, cyg, xray or plugin." \
	"$cc" --via=xray-fdr gcc -c x.c -o out.o
printf '#!/bin/sh\nexit 1\n' >brokencc
chmod +x brokencc
refuse "pathprof-cc: cannot run './brokencc' to see which compiler it is." \
	"$cc" --via=xray ./brokencc -c x.c -o out.o

if [ "$have_xray" = 1 ]; then
	for how in "-c x.c -o out.o" "x.c -o out.o"; do
		# shellcheck disable=SC2086 # the compiler arguments are the words of $how
		refuse "pathprof-cc: the xray injector needs clang: 'gcc' is not clang, and only clang emits XRay sleds (use --via=cyg or --via=raii with it)." \
			"$cc" --via=xray gcc $how
	done
else
	refuse "pathprof-cc: the xray injector is not available: no pkg-config module pathprof-xray in $build/meson-uninstalled (pathprof was built without it)." \
		"$cc" --via=xray gcc -c x.c -o out.o
fi

if [ "$have_plugin" = 1 ]; then
	sentence="the pathprof pass plugin was built for LLVM $major but './fakeclang' is clang $other: use clang $major ($plugin_clang) or rebuild pathprof with -Dllvm_config=llvm-config-$other."
	refuse "pathprof-cc: $sentence" "$cc" --via=plugin ./fakeclang -c x.c -o out.o
	refuse "pathprof-cc: $sentence" "$cc" --via=plugin ./fakeclang x.c -o out.o
	refuse "pathprof-c++: $sentence" "$cxx" --via=plugin --plugin-mode=all ./fakeclang -c x.c -o out.o
	refuse "pathprof-cc: the plugin injector needs clang: 'gcc' is not clang, and only clang loads LLVM pass plugins (use --via=cyg or --via=raii with it)." \
		"$cc" --via=plugin gcc -c x.c -o out.o
	# Queries go to the compiler untouched, so autoconf still learns its version.
	out=$("$cc" --via=plugin ./fakeclang --version 2>&1 | head -n 1)
	[ "$out" = "Debian clang version $other.0.6" ] || { echo "FAIL: --version not passed through: $out"; fails=$((fails + 1)); }
else
	refuse "pathprof-cc: the plugin injector is not available: no pkg-config module pathprof-plugin in $build/meson-uninstalled (pathprof was built without it)." \
		"$cc" --via=plugin clang -c x.c -o out.o
fi

[ "$fails" -eq 0 ] || { echo "cc.sh: $fails check(s) failed"; exit 1; }
echo "cc.sh: ok"
