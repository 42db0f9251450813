# Sourced by the run.sh of tests/control and tests/frontends: build one C test
# program through the raii or cyg front-end against this build's static
# runtime, with the FEED_* switches of examples/feed/gate.h that the programs
# are gated with. Needs build (the Meson build dir) and root (the source tree).
# shellcheck shell=sh disable=SC2154

# fe_build CC FRONTEND OPT SRC OUT
fe_build()
{
	case $2 in
	raii) fe_flags="-DFEED_RAII" fe_libs="" ;;
	cyg) fe_flags="-DFEED_PATHPROF -finstrument-functions"
		fe_libs="$build/frontends/cyg/libpathprof-cyg.a" ;;
	*) echo "run.sh: unknown front-end $2" >&2; return 1 ;;
	esac
	# shellcheck disable=SC2086
	"$1" -std=gnu11 -g $3 -Wall -Wextra -Werror $fe_flags -I"$root/runtime/include" \
		-I"$root/frontends/raii" "$4" -o "$5" \
		-Wl,--whole-archive $fe_libs -Wl,--no-whole-archive \
		"$build/runtime/libpathprof.a" -ldw -lelf -lpthread -ldl -lm
}
