/* Which C functions the pass gates in each mode; the expected sets are in
 * meson.build. Each function is used so that clang emits it. */
#include <pathprof/compiler.h>
#include <pathprof/plugin.h>

PATHPROF int marked(int x);
int unmarked(int x);
int pp_lookalike(int x);
int __reserved(int x);
PATHPROF int multi(int x);
PATHPROF PP_NOINSTR int marked_noinstr(int x);

PATHPROF int marked(int x)
{
	return x + 1;
}

int unmarked(int x)
{
	return x * 2;
}

PATHPROF static int marked_static(int x)
{
	return x - 1;
}

/* PP_NOINSTR reaches the IR as xray-never: excluded in every mode. */
PATHPROF PP_NOINSTR int marked_noinstr(int x)
{
	return x;
}

/* The runtime's prefix: never gated, even when a list names it. */
int pp_lookalike(int x)
{
	return x;
}

/* Reserved for the implementation: not taken by mode all. */
int __reserved(int x)
{
	return x;
}

PATHPROF int multi(int x)
{
	if (x < 0)
		return -1;
	if (x == 0)
		return 0;
	return 1;
}

int main(void)
{
	return marked(1) + unmarked(2) + marked_static(3) + marked_noinstr(4) + pp_lookalike(5) +
	       __reserved(6) + multi(7);
}
