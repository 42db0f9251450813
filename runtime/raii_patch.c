/* Once a budget stopped a raii site, its gates' entries jump over the gate
 * (#29: an inline gate has no call to patch out, so a stopped one still
 * ran its timed branch at entry and exit, 2.6-2.9 ns on every call of a 5
 * ns function, bench/budget.sh). pathprof/raii.h starts each gate's entry
 * with `cmp $rel32, %eax` and lists it, with its site, in its module's
 * section pp_raii_patch; every file that includes the header tells us the
 * module's table when it is loaded and unloaded. Each round in which the
 * budget stopped a key or a table came, the throttling thread makes the
 * first byte of each entry of a stopped site e9 (`jmp rel32`, to where the
 * compiler put the gate's skipped case): one byte, as site_patch.c does for
 * cyg, so a running thread sees the old instruction or the new one. A call
 * that entered before the stop holds its site in its gate variable and
 * leaves as usual; one that skipped the entry holds null and leaves
 * nothing. The tables are the compiler's, so nothing is guessed from the
 * code: a byte that is not 3d is left alone, and counted as left.
 *
 * x86-64 only (the header emits the tables there); the tables' registry
 * is kept everywhere so the header's calls always link. */
#include <pthread.h>
#include <stdint.h>

#include <pathprof/frontend.h>
#include <pathprof/gate.h>
#include "code_patch.h"
#include "raii_patch.h"
#include "runtime.h"

/* Modules with a table: more are refused (their stopped gates keep the
 * timed branch's test, as on other architectures). */
#define MAX_TABLES 256

static struct {
	const int32_t *from, *to;
} tables[MAX_TABLES];
static uint32_t ntables;
static uint32_t changes; /* tables added since the start */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void pp__raii_patches(const int32_t *from, const int32_t *to, int load)
{
	if (!from || to <= from)
		return;
	pthread_mutex_lock(&lock);
	uint32_t i = 0;
	while (i < ntables && tables[i].from != from)
		i++;
	if (load && i == ntables && ntables < MAX_TABLES) {
		tables[ntables].from = from;
		tables[ntables++].to = to;
		changes++;
	} else if (!load && i < ntables) {
		tables[i] = tables[--ntables];
	}
	pthread_mutex_unlock(&lock);
}

/* An entry of a table: where its instruction is, and the site it gates. */
static uint64_t entry_code(const int32_t *e)
{
	return (uint64_t)(uintptr_t)e + (uint64_t)(int64_t)e[0];
}

static const pp_site_t *entry_site(const int32_t *e)
{
	return (const pp_site_t *)(const void *)((const char *)&e[1] + e[1]);
}

static int stopped(const int32_t *e)
{
	return __atomic_load_n(&entry_site(e)->stopped, __ATOMIC_RELAXED) != 0;
}

static uint32_t npatched, nleft; /* entries made jumps; of stopped sites, left */

#if defined(__x86_64__)
void pp__raii_patch_pending(void)
{
	static uint32_t seen_stops, seen_changes;
	uint32_t stops = __atomic_load_n(&pp__throttle_n, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&lock);
	if (stops == seen_stops && changes == seen_changes) {
		pthread_mutex_unlock(&lock);
		return;
	}
	int maps = pp__code_maps() == 0;
	/* unreadable maps: every entry is left, and tried again next round */
	if (maps) {
		seen_stops = stops;
		seen_changes = changes;
	}
	uint32_t left = 0;
	for (uint32_t t = 0; t < ntables; t++)
		for (const int32_t *e = tables[t].from; e + 2 <= tables[t].to; e += 2) {
			uint64_t code = entry_code(e);
			if (!stopped(e))
				continue;
			int ok = maps && pp__code_readable(code, 5);
			if (ok && pp__code_byte(code) == 0xe9)
				continue; /* patched in an earlier round */
			if (ok && pp__code_poke(code, 0x3d, 0xe9) == 0)
				npatched++;
			else
				left++;
		}
	pp__code_close();
	__atomic_store_n(&nleft, left, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
}
#else
void pp__raii_patch_pending(void)
{
}
#endif

void pp__raii_patch_counts(uint32_t *patched, uint32_t *left)
{
	pthread_mutex_lock(&lock);
	*patched = npatched;
	*left = nleft;
	pthread_mutex_unlock(&lock);
}
