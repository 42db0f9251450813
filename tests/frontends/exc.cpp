// C++ exceptions through gated frames, with exact counts: thrown through
// a frame with a destructor to run and one without, caught in a gated
// frame that then calls another gated function, rethrown out of a gated
// function to main. Every way, every frame leaves, thrown paths included,
// and no exit is unmatched (exc.expected): GCC's -finstrument-functions
// runs the exit hooks while unwinding, raii's cleanups run, and the plugin
// (mode all) adds a cleanup pad to a gated function without one. Clang's
// cyg hooks and XRay's sleds see no unwinding: the catch closes the
// frames it unwound (runtime/host/catch.c), so that their paths count and
// nothing that runs after it nests under them (recover's frame is as
// large as middle's, so its cyg hook runs at middle's position, where it
// nested, catcher>middle>recover, before the catch dropped them; with the
// frames dropped, their paths went uncounted, 26 exits unmatched). At
// main's end its frame is the only one open.
#include <cstdio>
#include <pathprof/pathprof.h>

#include "../../examples/feed/gate.h"

struct Boom {
	int v;
};
struct Guard {
	int *p;
	PP_NOINSTR explicit Guard(int *q) : p(q) {}
	PP_NOINSTR ~Guard() { ++*p; }
};
static volatile int sink;
static int guards;

GATED static void thrower(int i)
{
	GATE("thrower(int)");
	sink++;
	if (i % 2)
		throw Boom{i};
}

GATED static int middle(int i)
{
	GATE("middle(int)");
	Guard g(&guards);
	thrower(i);
	return 20;
}

GATED static int plain(int i)
{
	GATE("plain(int)");
	thrower(i);
	return 2;
}

GATED static int recover(int i)
{
	GATE("recover(int)");
	sink++;
	return -i;
}

GATED static int catcher(int i)
{
	GATE("catcher(int)");
	try {
		return middle(i) + plain(i + 1);
	} catch (const Boom &) {
		return recover(i);
	}
}

GATED static void rethrower(int i)
{
	GATE("rethrower(int)");
	try {
		plain(i);
	} catch (...) {
		recover(i);
		throw;
	}
}

int main()
{
	GATE("main");
	int sum = 0, caught = 0;
	for (int i = 0; i < 10; i++)
		sum += catcher(i);
	for (int i = 0; i < 4; i++) {
		try {
			rethrower(i);
		} catch (const Boom &) {
			caught++;
		}
	}
	unsigned open = PP__DS_DEPTH(pp__tls.dstate);
	std::printf("sum %d caught %d guards %d open %u\n", sum, caught, guards, open);
	return sum == -45 && caught == 2 && guards == 10 && open == 1 ? 0 : 1;
}
