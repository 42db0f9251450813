# Sourced by the scripts that build programs through an injector without
# pathprof-cc (tests/common/fe_build.sh, tests/e2e/lib.sh, verify/verify.sh):
# the injector's flags from its recipe, frontends/recipes.txt, the file the
# pkg-config modules and the CMake package are generated from, so a test
# builds exactly as a user's project does. Needs root (the source tree).
# shellcheck shell=sh disable=SC2154

# recipe_field NAME N: field N (1-based) of NAME's line, trimmed.
recipe_field()
{
	awk -F'|' -v n="$1" -v f="$2" '
		/^[ \t]*#/ || NF != 5 { next }
		{ g = $1; gsub(/[ \t]/, "", g) }
		g == n { v = $f; gsub(/^[ \t]+|[ \t]+$/, "", v); print v; found = 1 }
		END { exit !found }' "$root/frontends/recipes.txt" ||
		{ echo "recipe: no injector '$1' in frontends/recipes.txt" >&2; return 1; }
}

# recipe_cflags NAME [PLUGIN]: its compile flags (@plugin@ is PLUGIN).
recipe_cflags()
{
	recipe_field "$1" 3 | sed "s|@plugin@|${2:-}|g"
}

# recipe_ldflags NAME: its link flags besides the archive and the runtime.
recipe_ldflags()
{
	recipe_field "$1" 4
}

# recipe_archive NAME BUILD: the front-end's archive in build tree BUILD,
# for a program: the one built for executables where there is one, as
# pathprof-cc links it (pkgconfig/meson.build, shim_exe).
recipe_archive()
{
	if [ -f "$2/frontends/$1/libpathprof-$1-exe.a" ]; then
		echo "$2/frontends/$1/libpathprof-$1-exe.a"
	else
		echo "$2/frontends/$1/libpathprof-$1.a"
	fi
}

# recipe_link NAME BUILD: its link flags, then its archive linked whole (the
# runtime comes after, from the caller).
recipe_link()
{
	echo "$(recipe_ldflags "$1") -Wl,--whole-archive $(recipe_archive "$1" "$2") -Wl,--no-whole-archive"
}
