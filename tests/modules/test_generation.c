/* pp__modules_loaded() is a generation, not a count: every load and unload
 * changes it, so a library unloaded and another loaded (the count back
 * where it was) still tells a kept symbolizer to reopen (runtime/names.c's
 * live resolvers, the namer's among them). usage: test_generation LIB.so */
#include <dlfcn.h>
#include <stdio.h>

#include "runtime.h"
#include "../runtime/check.h"

int main(int argc, char **argv)
{
	CHECK(argc == 2);
	int g0 = pp__modules_loaded();
	CHECK(pp__modules_loaded() == g0); /* nothing loaded: the same */
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "test_generation: %s\n", dlerror());
		return 1;
	}
	int g1 = pp__modules_loaded();
	CHECK(g1 != g0);
	CHECK(dlclose(h) == 0);
	if (dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD)) {
		/* a sanitizer's runtime may keep it mapped: nothing was unloaded */
		printf("note: %s stayed loaded after dlclose\n", argv[1]);
		return 0;
	}
	int g2 = pp__modules_loaded();
	CHECK(g2 != g1);
	CHECK(g2 != g0); /* as many modules as at first; a count would say no change */
	h = dlopen(argv[1], RTLD_NOW);
	CHECK(h != NULL);
	CHECK(pp__modules_loaded() != g2);
	CHECK(dlclose(h) == 0);
	return 0;
}
