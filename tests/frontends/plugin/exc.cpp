// Run-time check of the plugin's gates with C++ exceptions: thrown through
// gated frames with and without cleanups of their own, caught in a gated
// frame that then calls another gated child, rethrown out of a gated root.
// Exact counts in exc.expected; no frame may stay open.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <pathprof/pathprof.h>
#include <pathprof/plugin.h>

PATHPROF static void thrower(int i)
{
	if (i % 2)
		throw std::runtime_error("odd");
}

// Has a landing pad of its own (the string's destructor) that resumes.
PATHPROF static int middle(int i)
{
	std::string s(20, 'x');
	thrower(i);
	return (int)s.size();
}

// Has no EH code of its own: the pass adds the cleanup pad.
PATHPROF static int plain(int i)
{
	thrower(i);
	return 2;
}

PATHPROF static int recover(int i)
{
	return -i;
}

PATHPROF static int catcher(int i)
{
	try {
		return middle(i) + plain(i + 1);
	} catch (const std::exception &) {
		return recover(i);
	}
}

PATHPROF static void rethrower(int i)
{
	try {
		plain(i);
	} catch (...) {
		recover(i);
		throw;
	}
}

int main()
{
	int sum = 0, caught = 0;
	for (int i = 0; i < 10; i++)
		sum += catcher(i);
	for (int i = 0; i < 4; i++) {
		try {
			rethrower(i);
		} catch (const std::exception &) {
			caught++;
		}
	}
	if (PP__DS_DEPTH(pp__tls.dstate) != 0) {
		std::fprintf(stderr, "exc: %u frames left open\n", PP__DS_DEPTH(pp__tls.dstate));
		return 1;
	}
	std::printf("sum %d caught %d\n", sum, caught);
	return sum == -45 && caught == 2 ? 0 : 1;
}
