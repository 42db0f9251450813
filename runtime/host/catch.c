/* __cxa_begin_catch, interposed. Clang's -finstrument-functions runs no
 * exit hook while a C++ exception unwinds, so the frames it unwound stay
 * open on the thread's stack. The next gate finds them dead only when it
 * lies above them: a function the catching one calls next, with a frame at
 * least as large as the one that threw through, ran its hook at or below
 * their positions and nested under them (`catcher>middle>recover` where
 * `catcher>recover` ran). A catch handler calls this before its first
 * statement, from the catching function itself: every frame lying below
 * that function's stack pointer has ended then, and is closed as its exit
 * would have closed it (gate_resync.c, pp__unwound_to); XRay's exit sleds
 * do not run while unwinding either. GCC's hooks ran while unwinding and
 * left none; raii's cleanups and the plugin's landing pads leave their
 * frames themselves.
 * Weak, so that a program linking the C++ runtime statically
 * (-static-libstdc++, whose object defining this also defines
 * __cxa_end_catch) keeps its own without a clash, and the catch is then
 * sorted out at the next gate, as before. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime.h"

typedef void *(*begin_catch_fn)(void *);

/* The C++ ABI's (no header of the C runtime declares it) */
void *__cxa_begin_catch(void *exc);

PP_EXPORT PP_NOINSTR __attribute__((weak)) void *__cxa_begin_catch(void *exc)
{
	static begin_catch_fn real;
	begin_catch_fn fn = __atomic_load_n(&real, __ATOMIC_ACQUIRE);
	if (!fn) {
		fn = (begin_catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
		if (!fn) { /* a catch without a C++ runtime: cannot be */
			fputs("pathprof: __cxa_begin_catch: no C++ runtime to forward the catch to\n",
			      stderr);
			abort();
		}
		__atomic_store_n(&real, fn, __ATOMIC_RELEASE);
	}
#if defined(__x86_64__)
	/* the catching function's stack pointer at this call (cyg's and the
	 * plugin's positions are such stack pointers, frontends/cyg/cyg.c) */
	pp__unwound_to((uint64_t)(uintptr_t)__builtin_dwarf_cfa());
#endif
	return fn(exc);
}
