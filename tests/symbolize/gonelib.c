/* A library the symbolize test never links: it copies it, dlopens the copy
 * and deletes the file, the "(deleted)" mapping case. */
#include "symlib.h"

int pp_symtest_gone_fn(int x)
{
	volatile int v = x;
	v = v * 5 + 2;
	return v;
}
