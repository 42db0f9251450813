# Sourced by the test scripts of tests/control and tests/frontends and by
# bench/tracesize.sh: build a C or C++ test program through the raii, cyg,
# xray or plugin front-end (the last two need clang as CC, the plugin the
# clang it was built for) against this build's static runtime, with the
# FEED_* switches of examples/feed/gate.h that the programs are gated with;
# the injector's own flags come from its recipe (tests/common/recipe.sh).
# Needs build (the Meson build dir) and root (the source tree).
# shellcheck shell=sh disable=SC2154

# shellcheck source=tests/common/recipe.sh
. "$root/tests/common/recipe.sh"

# fe_build CC FRONTEND OPT SRC OUT   (SRC: one file, or several separated by
# spaces; C++ when the first ends in .cpp, compiled in the compiler's default
# standard: clang 14 with libstdc++ 12 fails to link std::string at -O0 in
# C++17)
fe_build()
{
	case $2 in
	raii) fe_flags="-DFEED_RAII $(recipe_cflags raii)" fe_libs="" ;;
	cyg | xray) fe_flags="-DFEED_PATHPROF $(recipe_cflags "$2") $(recipe_ldflags "$2")"
		fe_libs=$(recipe_archive "$2" "$build") ;;
	plugin) fe_plugin=$build/frontends/plugin/pathprof-plugin.so
		# -fplugin as well: clang knows the plugin's -mllvm options only then
		fe_flags="-DFEED_PATHPROF -fplugin=$fe_plugin $(recipe_cflags plugin "$fe_plugin") -mllvm -pathprof-mode=all"
		fe_libs=$(recipe_archive plugin "$build") ;;
	*) echo "run.sh: unknown front-end $2" >&2; return 1 ;;
	esac
	case $4 in
	*.cpp | *.cpp\ *) fe_std= ;;
	*) fe_std=-std=gnu11 ;;
	esac
	# shellcheck disable=SC2086
	"$1" $fe_std -g $3 -Wall -Wextra -Werror $fe_flags -I"$root/runtime/include" \
		-I"$root/frontends/raii" -I"$root/frontends/plugin" $4 -o "$5" \
		-Wl,--whole-archive $fe_libs -Wl,--no-whole-archive \
		"$build/runtime/libpathprof.a" -ldw -lelf -lpthread -ldl -lm
}
