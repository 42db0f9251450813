#!/bin/sh
# Build pathprof under sanitizers and run its tests there: the unit suite
# under ASan+UBSan with gcc and with clang, and the threaded tests under
# TSan. Any sanitizer report fails the run (docs/internals/robustness.md).
# usage: scripts/sanitize.sh [asan-gcc] [asan-clang] [tsan]   (default: all three)
# Build dirs go under $PP_SANITIZE_DIR (default: <repo>/build-sanitize).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
top=${PP_SANITIZE_DIR:-$root/build-sanitize}
configs=${*:-asan-gcc asan-clang tsan}
jobs=${PP_SANITIZE_JOBS:-2}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# die_after_fork=0: a forked child that exports live starts its naming thread,
# which TSan refuses by default after a multi-threaded fork.
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:die_after_fork=0
export LSAN_OPTIONS=print_suppressions=0
# No default live segment under the sanitizers: its naming thread's
# allocations hold the sanitizer allocator's locks, which the fatal-signal
# handler's raw clone can inherit (tests/crash under asan-clang then waits
# out its 20 s). Tests of the segment name it (or unset this themselves).
export PATHPROF_SHM=off

# Tests that build programs themselves (tests/frontends/run.sh, tests/frontends/xray)
# call gcc/clang by name and link libpathprof.a, whose objects then need the
# sanitizer runtime: wrappers of the same names, first on PATH, add the
# build's -fsanitize flags to every such compile and link. clang 14's static
# XRay and sanitizer runtimes define the same symbols, so an XRay link takes
# the shared sanitizer runtime instead.
wrappers()
{
	dir=$1 flags=$2
	mkdir -p "$dir"
	for w in gcc g++ clang clang++; do
		real=$(PATH=$(echo "$PATH" | sed "s|$dir:||") command -v "$w") || continue
		xray=""
		case $w in
		clang*) xray="-shared-libsan -Wl,-rpath,$("$real" -print-runtime-dir)" ;;
		esac
		cat >"$dir/$w" <<-WRAP
		#!/bin/sh
		case " \$* " in
		*" -c "* | *" -S "* | *" -E "*) ;;
		*" -fxray-instrument "*) exec $real "\$@" $flags $xray ;;
		esac
		exec $real "\$@" $flags
		WRAP
		chmod +x "$dir/$w"
	done
}

run()
{
	name=$1 cc=$2 cxx=$3 san=$4
	shift 4
	build=$top/$name
	flags="-fsanitize=$san -fno-omit-frame-pointer"
	[ "$san" = thread ] || flags="$flags -fno-sanitize-recover=all"
	wrappers "$build/bin" "$flags"
	echo "== sanitize: $name ($cc, -fsanitize=$san)"
	# The LLVM pass plugin is loaded into clang itself, and the GCC plugin
	# into gcc's cc1, neither of which carries a sanitizer runtime, so they
	# are built only in the ordinary builds (and the
	# verify suite, which needs it, runs there); b_lundef is off because
	# clang links the sanitizer runtime into executables only. Off-CPU
	# recording is left out: its BPF object is compiled by clang for the
	# BPF target, which takes no sanitizer flag (the wrappers add them), and
	# its tests are e2e, which do not run here.
	if [ ! -f "$build/build.ninja" ]; then
		PATH="$build/bin:$PATH" CC=$(command -v "$cc") CXX=$(command -v "$cxx") \
			meson setup "$build" "$root" -Dwerror=true -Db_sanitize="$san" -Db_lundef=false \
			-Dplugin=disabled -Dgcc_plugin=disabled -Doffcpu=disabled -Dc_args="$flags" -Dcpp_args="$flags" \
			>"$top/$name.setup.log" ||
			{ cat "$top/$name.setup.log" >&2; exit 1; }
	fi
	PATH="$build/bin:$PATH" ninja -C "$build" >"$top/$name.build.log" 2>&1 ||
		{ grep -E -A12 "^FAILED" "$top/$name.build.log" | head -60 >&2; exit 1; }
	PATH="$build/bin:$PATH" meson test -C "$build" --print-errorlogs --num-processes "$jobs" \
		--timeout-multiplier 4 "$@"
}

# Unit tests of a build, minus those matching the regex $2. The ASan runtimes
# of gcc and clang cannot share a process, so a program one compiler links
# against the shared libpathprof the other built is left out (tests/wrapper:
# tests/modules, tests/crash, tests/safety and tests/patch: *-clang in the gcc build and *-gcc in the clang build;
# tests/report's gatecost, select, budget and openstop and tests/timing's burst through xray (clang) in the gcc
# build, raii and cyg (gcc) and tests/capture (gcc) in the clang build); the static
# library mixes fine and stays in. tests/control's programs (every injector,
# compiler and level, 113 tests and two thirds of each build's time) run at
# -O0 in the gcc build and at -O2 in the clang build: each variant still runs
# under ASan once, and the runtime under both compilers' ASan, for about five
# minutes less CI (each build's tests 12 -> 9.5 min); the ordinary build runs them all. tests/timing's ownwork is left out of
# both: it compares two walks' times, which ASan's first touches of its
# shadow memory make differ (2.3 against 1.0 ms); the code it checks runs
# in every timed test here. tests/frontends' jmpgap and inlrec-jmp: the
# sanitizer's runtime defines longjmp ahead of pathprof's interposer (gcc's
# as a library linked first, clang's inside the program), so the frames a
# jump leaves are dropped at the next gate there instead of closed at the
# jump, and the gap stays open (docs/internals/control-flow.md; tests/
# control's longjmp program expects either, by the sanitizer's macros).
# tests/report's cputime too: it bounds the
# program's CPU time outside main to 1 ms, and ASan's own work there
# (the XRay build's, under asan-clang: 2.3-4 ms) is the program's.
unit_tests()
{
	meson test -C "$1" --list 2>/dev/null | grep ':unit / ' | sed 's/^.* \/ //' |
		grep -Ev "$2" || true
}

# Threaded tests: whatever runs several threads or reads another thread's
# slabs. XRay's are left out (tests/frontends/xray's, and tests/control's
# through XRay): its trampolines call the handler without the frame TSan's
# instrumented code expects, and the program dies in TSan's own runtime
# (exit 139) before pathprof runs; the XRay tests run under ASan.
threaded()
{
	unit_tests "$1" '^xray-|-xray-' | grep -E 'thread|live|trace|merge|gate-' || true
}

mkdir -p "$top"
for cfg in $configs; do
	case $cfg in
	asan-gcc | asan-clang)
		cc=${cfg#asan-} other=clang
		[ "$cc" = gcc ] || other=gcc
		# the tests that build through the other compiler's injectors
		otherfe="xray|plugin"
		[ "$cc" = gcc ] || otherfe="raii|cyg|capture-zstd|capture-paths"
		cxx=g++
		[ "$cc" = gcc ] || cxx=clang++
		# tests/control's programs at the optimisation level the other
		# build runs them at
		otherlevel="O2(-nosibling)?"
		[ "$cc" = gcc ] || otherlevel=O0
		# Configure and build first so the test list exists.
		run "$cfg" "$cc" "$cxx" address,undefined --list >/dev/null
		# shellcheck disable=SC2046
		run "$cfg" "$cc" "$cxx" address,undefined $(unit_tests "$top/$cfg" \
			"^(multi|wrapper|dlclose|crash|killed|safety-[a-z]+)-.*-$other\$|^patch-(cyg|raii)-$other(-noplt|-shared|-select)?\$|^(report-(gatecost|select|budget|openstop)|timing-burst)-($otherfe)\$|^control-.*-$otherlevel\$|^timing-ownwork-|^fe-(jmpgap|inlrec-jmp)-|^report-cputime-|^($otherfe)\$")
		;;
	tsan)
		run "$cfg" clang clang++ thread --list >/dev/null
		# shellcheck disable=SC2046
		run "$cfg" clang clang++ thread $(threaded "$top/$cfg")
		;;
	*) echo "sanitize.sh: unknown configuration '$cfg' (asan-gcc, asan-clang, tsan)" >&2; exit 2 ;;
	esac
done
echo "sanitize: all clean ($configs)"
