#!/bin/sh
# A real autoconf project configured and built with CC set to the wrapper:
# AC_PROG_CC's probes (compiler works, object suffix, executable suffix, cross
# compiling, C standard), a header, a library and a function check.
# usage: autoconf.sh WRAPPER BUILDROOT CC VIA PATHPROF
set -eu
wrapper=$1 build=$2 cc=$3 via=$4 pathprof=$5
command -v autoconf >/dev/null 2>&1 || { echo "autoconf.sh: autoconf not installed: skipped"; exit 77; }
command -v "$cc" >/dev/null 2>&1 || { echo "autoconf.sh: $cc not found: skipped"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pp-ac.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
PKG_CONFIG_PATH=$build/meson-uninstalled
export PKG_CONFIG_PATH
cat >configure.ac <<'EOT'
AC_INIT([actest], [1.0])
AC_PROG_CC
AC_CHECK_HEADERS([stdlib.h string.h])
AC_SEARCH_LIBS([cos], [m])
AC_CHECK_FUNCS([strchr])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
EOT
cat >Makefile.in <<'EOT'
CC = @CC@
CFLAGS = @CFLAGS@
DEFS = @DEFS@
LIBS = @LIBS@
actest: actest.c
	$(CC) $(DEFS) $(CFLAGS) actest.c -o actest $(LIBS)
EOT
cat >actest.c <<'EOT'
#include <math.h>
#include <stdio.h>
static int leaf(int x) { return (int)cos(0.0) + x; }
int main(void) { printf("%d\n", leaf(1)); return 0; }
EOT
autoconf
./configure CC="$wrapper --via=$via $cc" >configure.out 2>&1 || { cat config.log; exit 1; }
grep -q 'checking whether the C compiler works... yes' configure.out
grep -q 'checking for strchr... yes' configure.out
# The conftest programs configure runs wrote profiles; its cleanup took them.
if ls conftest* >/dev/null 2>&1; then echo "autoconf.sh: left behind: $(ls conftest*)"; exit 1; fi
make -s >/dev/null
"$pathprof" run --format paths --out actest.pathprof -- ./actest >got
printf '2\n1|main>leaf\n' >want
diff -u want got
