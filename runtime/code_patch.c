/* Writing the program's code (code_patch.h): the maps that say which bytes
 * are private r-x code, and the pages made writable for a round. x86-64
 * only, the one architecture whose patches (site_patch.c, raii_patch.c)
 * exist. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "code_patch.h"
#include "runtime.h"

static int broken; /* mprotect was refused: write nothing more */

/* /proc/self/maps, read once a round: what may be read, and what is
 * private r-x code that may be patched. */
typedef struct { uint64_t lo, hi; char r, x, w, p; } map_t;
static map_t *maps;
static uint32_t nmaps, capmaps;

int pp__code_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	if (!f)
		return -1;
	char line[512];
	nmaps = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long long lo, hi;
		char perm[5];
		if (sscanf(line, "%llx-%llx %4s", &lo, &hi, perm) != 3)
			continue;
		if (nmaps == capmaps) {
			uint32_t cap = capmaps ? 2 * capmaps : 256;
			map_t *m = realloc(maps, cap * sizeof *m);
			if (!m)
				break;
			maps = m;
			capmaps = cap;
		}
		maps[nmaps++] = (map_t){ lo, hi, perm[0], perm[2], perm[1], perm[3] };
	}
	fclose(f);
	return 0;
}

static const map_t *map_of(uint64_t a)
{
	for (uint32_t i = 0; i < nmaps; i++)
		if (a >= maps[i].lo && a < maps[i].hi)
			return &maps[i];
	return NULL;
}

int pp__code_readable(uint64_t a, uint64_t n)
{
	while (n) {
		const map_t *m = map_of(a);
		if (!m || m->r != 'r')
			return 0;
		uint64_t in = m->hi - a < n ? m->hi - a : n;
		a += in;
		n -= in;
	}
	return 1;
}

uint8_t pp__code_byte(uint64_t a)
{
	return *(const volatile uint8_t *)(uintptr_t)a;
}

/* Pages made writable in this round, made r-x again at its end (or when
 * the list is full): a page holds many call sites, and each change of its
 * protection interrupts every CPU running the program to flush its TLB
 * (SQLite: 1 000 cyg sites patched, the interrupts a few % of its run when
 * each site had its own pair). */
#define OPEN_PAGES 64
static uint64_t open_page[OPEN_PAGES];
static uint32_t nopen;

void pp__code_close(void)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	for (uint32_t i = 0; i < nopen; i++)
		mprotect((void *)(uintptr_t)open_page[i], page, PROT_READ | PROT_EXEC);
	nopen = 0;
}

int pp__code_poke(uint64_t a, uint8_t old, uint8_t to)
{
	const map_t *m = map_of(a);
	if (broken || !m || m->r != 'r' || m->w == 'w' || m->x != 'x' || m->p != 'p' ||
	    pp__code_byte(a) != old)
		return -1;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t at = a & ~(page - 1);
	uint32_t i = 0;
	while (i < nopen && open_page[i] != at)
		i++;
	if (i == nopen) {
		if (nopen == OPEN_PAGES)
			pp__code_close();
		if (mprotect((void *)(uintptr_t)at, page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
			broken = 1;
			pp__code_close();
			pp__warn("PATHPROF_BUDGET: cannot patch the code of stopped functions (mprotect: %s); "
				 "their gates keep returning at once", strerror(errno));
			return -1;
		}
		open_page[nopen++] = at;
	}
	__atomic_store_n((uint8_t *)(uintptr_t)a, to, __ATOMIC_RELAXED);
	return 0;
}

int pp__code_refused(void)
{
	return broken;
}

void pp__code_end(void)
{
	free(maps);
	maps = NULL;
	nmaps = capmaps = 0;
}
