#!/bin/sh
# The wrapper is transparent where it must be: preprocessing and dependency
# output identical to the plain compiler's, queries answered by the compiler
# alone, response files read for what they do (compile or link), and the
# compile/link/fail steps of an autoconf-style configure behaving as with the
# plain compiler.
# usage: passthru.sh WRAPPER BUILDROOT CC VIA
# shellcheck disable=SC2015 # 'A && B || fail': fail when either step fails
set -u
wrapper=$1 build=$2 cc=$3 via=$4
command -v "$cc" >/dev/null 2>&1 || { echo "passthru.sh: $cc not found: skipped"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-pass.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PKG_CONFIG_PATH=$build/meson-uninstalled
export PKG_CONFIG_PATH
W="$wrapper --via=$via $cc"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
same() { # what cmd1-output cmd2-output
	cmp -s "$2" "$3" || { fail "$1 differs from the plain compiler's"; diff -u "$3" "$2" | head -20; }
}

mkdir inc
echo '#define ANSWER 42' >inc/answer.h
cat >t.c <<'EOT'
#include <stdio.h>
#include "answer.h"
static int twice(int x) { return 2 * x; }
int main(void) { printf("%d\n", twice(ANSWER)); return 0; }
EOT

# Preprocessing and dependency listings.
$W -Iinc -E t.c >w.i 2>&1 && $cc -Iinc -E t.c >p.i 2>&1 || fail "-E failed"
same "-E output" w.i p.i
$W -Iinc -M t.c >w.d 2>&1 && $cc -Iinc -M t.c >p.d 2>&1 || fail "-M failed"
same "-M output" w.d p.d
$W -Iinc -MM -MT obj/t.o t.c >w.d && $cc -Iinc -MM -MT obj/t.o t.c >p.d || fail "-MM failed"
same "-MM -MT output" w.d p.d
mkdir w p
(cd w && $W -I../inc -c -MMD -MP -MF t.d ../t.c -o t.o) || fail "-c -MMD -MF through the wrapper failed"
(cd p && $cc -I../inc -c -MMD -MP -MF t.d ../t.c -o t.o) || fail "-c -MMD -MF failed"
same "-MMD -MF dependency file" w/t.d p/t.d

# Queries go to the compiler unchanged.
$W --version >w.txt 2>&1 && $cc --version >p.txt 2>&1 || fail "--version failed"
same "--version output" w.txt p.txt
$W -dumpmachine >w.txt && $cc -dumpmachine >p.txt || fail "-dumpmachine failed"
same "-dumpmachine output" w.txt p.txt

# Response files: a compile stays a compile (instrumentation, no runtime),
# a link gets the runtime; quoted words count too.
printf '%s\n' "-Iinc" "'-c'" "t.c" "-o" "r.o" >compile.rsp
printf '%s\n' "r.o" "-o" "r" >link.rsp
show=$($wrapper --show --via="$via" "$cc" @compile.rsp)
case $show in *-lpathprof*) fail "a compile through @file got the runtime: $show" ;; esac
case $via in cyg) case $show in *-finstrument-functions*) ;; *) fail "a compile through @file got no instrumentation: $show" ;; esac ;; esac
show=$($wrapper --show --via="$via" "$cc" @link.rsp)
case $show in *-lpathprof*) ;; *) fail "a link through @file got no runtime: $show" ;; esac
$W @compile.rsp && $W @link.rsp || fail "build through response files failed"
[ "$(PATHPROF_OUT=r.pathprof ./r)" = 84 ] || fail "program built through @file misbehaves"
[ "$via" = raii ] || [ -s r.pathprof ] || fail "program built through @file wrote no profile"

# An autoconf-style configure, as its macros drive $CC.
cat >conftest.c <<'EOT'
#include <math.h>
int main(int argc, char **argv) { (void)argv; return (int)cos((double)argc - 1.0) - 1; }
EOT
echo 'int main(void) { return 0; }' >works.c
CC=$W
rm -f a.out conftest conftest.o
$CC works.c >/dev/null 2>&1 && [ -x a.out ] && ./a.out || fail "configure: 'checking whether the C compiler works' (\$CC conftest.c)"
$CC -c conftest.c >/dev/null 2>&1 && [ -f conftest.o ] || fail "configure: object suffix (\$CC -c conftest.c)"
$CC -o conftest -O2 conftest.c -lm >/dev/null 2>&1 && ./conftest || fail "configure: link and run with -lm"
$CC -E conftest.c >/dev/null 2>&1 || fail "configure: header check (\$CC -E)"
echo '#include <no_such_header_pp.h>' >bad.c
$CC -E bad.c >/dev/null 2>&1 && fail "configure: a missing header must fail \$CC -E"
echo 'int no_such_function_pp(void); int main(void) { return no_such_function_pp(); }' >bad.c
$CC -o bad bad.c >/dev/null 2>&1 && fail "configure: an undefined function must fail the link"
$CC -c -x c - -o stdin.o </dev/null >/dev/null 2>&1 && [ -f stdin.o ] || fail "compile from standard input (-x c -)"

[ "$fails" -eq 0 ] || { echo "passthru.sh: $fails check(s) failed"; exit 1; }
