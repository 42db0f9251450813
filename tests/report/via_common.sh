# Sourced by the scripts of tests/report and tests/timing that build a
# program through one injector (budget.sh, openstop.sh, select.sh,
# burst.sh, ownwork.sh): their arguments, a work
# directory removed at exit and entered, fail(), the injector's own flags
# (extra: the plugin's mode; def: raii's define). The script sets `script`
# (its name, for the work directory) first.
# usage: script=NAME; . "$(dirname "$0")/via_common.sh"   (with VIA CC SRCROOT PATHPROF WRAPPER WORKDIR)
# shellcheck shell=sh disable=SC2034,SC2154
set -u
via=$1 cc=$2 src=$3 pp=$(cd "$(dirname "$4")" && pwd)/$(basename "$4") wrapper=$5 work=$6/$script-$1.$$
mkdir -p "$work" || exit 1
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $via: $*"; exit 1; }
cd "$work" || exit 1
extra= def=
[ "$via" = plugin ] && extra=--plugin-mode=all
[ "$via" = raii ] && def=-DPATHPROF_RAII
