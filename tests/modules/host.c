/* dlopen the gated library, run it, dlclose it; load a filler (the same
 * library built without gates) into its old place and do it again; exit. The profile written at exit must name every
 * path (the library is gone by then) and count it exactly. Prints whether
 * the second load moved. */
#include <dlfcn.h>
#include <stdio.h>
#include "gate.h"

__attribute__((no_instrument_function)) static void *load(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		fprintf(stderr, "host: %s\n", dlerror());
	return h;
}

G_FN int main(int argc, char **argv)
{
	GATE("main");
	void *at[2] = {0, 0};
	if (argc != 3)
		return 2;
	for (int k = 0; k < 2; k++) {
		void *h = load(argv[1]);
		if (!h)
			return 1;
		void (*run)(int) = (void (*)(int))dlsym(h, "g_run");
		at[k] = (void *)run;
		run(1000);
		if (dlclose(h) != 0)
			return 1;
		if (k == 0 && !load(argv[2]))
			return 1;
	}
	printf("%s\n", at[0] != at[1] ? "moved" : "same");
	return 0;
}
