#!/bin/sh
# Fuzz every reader of untrusted bytes with libFuzzer: build the targets of
# tests/fuzz with clang (ASan+UBSan, coverage on the whole runtime), run each
# for SECONDS from its seed corpus, and copy any input that fails into
# tests/fuzz/regress/<target>/, where the unit suite replays it from then on.
# usage: scripts/fuzz.sh [-t SECONDS] [TARGET...]   (default 60 s, every target)
# Extra libFuzzer flags: PP_FUZZ_FLAGS; build dir: PP_FUZZ_BUILD
# (default <repo>/build-fuzz; the grown corpus is kept in <build>/corpus).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${PP_FUZZ_BUILD:-$root/build-fuzz}
secs=60
if [ "${1:-}" = -t ]; then
	secs=$2
	shift 2
fi
targets=${*:-profile cli env trace shm glob capture}
flags="-fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"

if [ ! -f "$build/build.ninja" ]; then
	# The plugin is loaded into clang, which has no sanitizer runtime.
	CC=$(command -v clang) CXX=$(command -v clang++) meson setup "$build" "$root" \
		-Db_sanitize=address,undefined -Db_lundef=false -Dplugin=disabled \
		-Dc_args="$flags" -Dcpp_args="$flags" >"$build.setup.log" 2>&1 ||
		{ cat "$build.setup.log"; exit 1; }
fi
exes=""
for t in $targets; do
	exes="$exes tests/fuzz/fuzz-$t"
done
# shellcheck disable=SC2086 # the seeds of profile, trace and shm come from this build's writers
ninja -C "$build" $exes tests/fuzz/seeds.stamp >"$build.build.log" 2>&1 ||
	{ grep -E -A12 '^FAILED' "$build.build.log" | head -60; exit 1; }

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=""
for t in $targets; do
	corpus=$build/corpus/$t crashes=$build/crashes/$t
	seeds=$root/tests/fuzz/seeds/$t
	[ -d "$build/tests/fuzz/seeds/$t" ] && seeds=$build/tests/fuzz/seeds/$t
	mkdir -p "$corpus" "$crashes"
	log=$build/fuzz-$t.log
	echo "== fuzz $t: ${secs}s"
	# -close_fd_mask=3: the targets' own output is noise; libFuzzer keeps
	# the sanitizer reports. Seeds come second so new inputs go to corpus.
	# shellcheck disable=SC2086
	if "$build/tests/fuzz/fuzz-$t" -max_total_time="$secs" -close_fd_mask=3 \
		-artifact_prefix="$crashes/" -print_final_stats=1 ${PP_FUZZ_FLAGS:-} \
		"$corpus" "$seeds" >"$log" 2>&1; then
		# coverage: edges the seeds reach (INITED), and at the end (DONE)
		grep -E '#[0-9]+[[:space:]]+(INITED|DONE) ' "$log" | sed 's/^/  /'
		grep -E '^stat::number_of_executed_units|^Done' "$log" | tail -1
	else
		failed="$failed $t"
		grep -E 'ERROR|SUMMARY|runtime error|fuzz: |^    #[0-9] ' "$log" | head -30
		for f in "$crashes"/*; do
			[ -f "$f" ] || continue
			name=$(basename "$f")
			cp "$f" "$root/tests/fuzz/regress/$t/$name"
			echo "fuzz: $t: kept $name in tests/fuzz/regress/$t/ (rename it after what it broke)"
		done
		echo "fuzz: $t: full log in $log"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz: failures in:$failed" >&2
	exit 1
fi
echo "fuzz: no finding ($targets, ${secs}s each)"
