/* A function in a shared library the symbolize test links, so one expected
 * name comes from a module other than the executable. */
#include "symlib.h"

int pp_symtest_lib_fn(int x)
{
	volatile int v = x;
	v = v * 3 + 1;
	return v;
}
