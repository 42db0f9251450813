/* The raii front-end is header-only, so nothing the linker must include
 * refers to libpathprof until the program's own objects do. A link line
 * whose flags come before the objects (make's LDFLAGS) under --as-needed
 * would then drop the runtime as unused and fail on the gates' symbols. This
 * one object, linked whole (the pathprof-raii pkg-config module and the
 * CMake target pathprof::raii do that), holds a reference to the runtime, so
 * the runtime is kept wherever the flags sit. */
#include <pathprof/pathprof.h>

/* Not static: an unused static could be dropped before the link sees it.
 * Hidden: a program and its shared libraries, each built with the raii
 * archive, each hold one of their own (exported, they were one symbol
 * defined twice, which AddressSanitizer reports as an ODR violation). */
extern void (*const pp__raii_anchor)(void) PP_HIDDEN;
void (*const pp__raii_anchor)(void) __attribute__((used)) PP_HIDDEN = pp_root;
