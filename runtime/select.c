/* PATHPROF_ROOT and PATHPROF_FUNCTIONS: which keys start an event and which
 * are not gates at all, decided once per key. The gate's slow path asks
 * pp__key_class(); the first time a key is asked about it is named through
 * the same resolver a dump uses (names.c: raii sites, ELF symbols for cyg and
 * xray, the plugin's tables), matched against the lists (glob.c), and the
 * answer kept in a table that readers probe without a lock. Only the naming
 * itself takes a lock, once per key. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "glob.h"
#include "runtime.h"
#include "select.h"
#include "site_patch.h"
#include "throttle.h"

uint32_t pp__selecting;
/* 1 while PATHPROF_FUNCTIONS is in force: the cyg hooks and the plugin's
 * shim then note the calls of the functions it leaves out, which the
 * throttling thread patches out of the code (pathprof/gate.h). */
PP_EXPORT uint32_t pp__select_sites;

/* 2^18 keys (4 MB of address space, touched as it fills): more functions
 * than a program gates. Past 3/4 full, keys are named on every sight, still
 * correctly, and a warning says so once. */
pp__class_slot_t *pp__class_slots;
static uint32_t used;
static char *lists[3]; /* [PP__SEL_ROOTS], [PP__SEL_FUNCTIONS]: owned copies */
static char *compiled;  /* the list gcc applied at compile time: said, not applied */
static pthread_mutex_t select_lock = PTHREAD_MUTEX_INITIALIZER;
static pp__live_resolver_t resolver; /* under select_lock */
static __thread int naming PP_TLS_IE;
static __thread int own_keys PP_TLS_IE;
/* Per list: the keys it picked, and how it was given (said at exit when it
 * picked none: a selection that matches nothing is otherwise silent). */
static uint64_t picked[3];
static char set_by[3][32];

/* Under select_lock. Readers see the key before the tag that makes it live. */
static void remember(int fe, uint64_t key, int cls)
{
	static int full_warned;
	pp__class_slot_t *slots = pp__class_slots;
	if (!slots) {
		void *m = mmap(NULL, PP__CLASS_SLOTS * sizeof *slots, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return;
		slots = m;
		__atomic_store_n(&pp__class_slots, slots, __ATOMIC_RELEASE);
	}
	uint32_t i = pp__class_home(key);
	for (uint32_t n = 0; n < PP__CLASS_PROBES && used < PP__CLASS_SLOTS / 4 * 3;
	     i = (i + 1) & (PP__CLASS_SLOTS - 1), n++) {
		if (slots[i].tag)
			continue;
		slots[i].key = key;
		__atomic_store_n(&slots[i].tag, (uint32_t)fe << 4 | (uint32_t)(cls + 1), __ATOMIC_RELEASE);
		used++;
		return;
	}
	if (!full_warned++)
		pp__warn("more than %u functions seen by PATHPROF_ROOT/PATHPROF_FUNCTIONS: the rest "
			 "are matched by name at every entry (slower, still exact)",
			 used);
}

/* The symbol tables are read when a selection is set rather than at the
 * first key, whose caller's self time would carry it. */
static void warm_resolver(void)
{
	const char *file;
	uint32_t line;
	pp__resolve_live(&resolver, PP_FE_CYG, (uint64_t)(uintptr_t)&warm_resolver, &file, &line);
}

static const char *name_key(int fe, uint64_t key)
{
	const char *file;
	uint32_t line;
	return pp__resolve_live(&resolver, fe, key, &file, &line);
}

static int classify(int fe, uint64_t key)
{
	const char *name = name_key(fe, key);
	if (!name)
		return PP__KEY_PLAIN;
	if (lists[PP__SEL_FUNCTIONS] && !pp__select_name(lists[PP__SEL_FUNCTIONS], ',', name))
		return PP__KEY_SKIP;
	if (lists[PP__SEL_FUNCTIONS])
		picked[PP__SEL_FUNCTIONS]++;
	if (lists[PP__SEL_ROOTS] && pp__select_name(lists[PP__SEL_ROOTS], ',', name)) {
		picked[PP__SEL_ROOTS]++;
		return PP__KEY_ROOT;
	}
	return PP__KEY_PLAIN;
}

int pp__key_class_miss(int fe, uint64_t key)
{
	int c;
	if (naming)
		return PP__KEY_PLAIN;
	int saved = errno;
	naming = 1;
	/* naming the key is the runtime's work on the program's thread */
	uint64_t cpu = pp__thread_cpu_ns();
	pthread_mutex_lock(&select_lock);
	c = pp__key_class_seen(fe, key);
	if (c < 0) {
		c = own_keys ? PP__KEY_PLAIN : classify(fe, key);
		remember(fe, key, c);
	}
	pthread_mutex_unlock(&select_lock);
	pp__own_cpu_since(cpu);
	naming = 0;
	errno = saved;
	return c;
}

void pp__select_own_keys(int on)
{
	own_keys = on;
}

/* A child forked while another thread named a key would inherit the lock
 * held: it starts with a free one (the table itself is consistent). */
static void after_fork_child(void)
{
	pthread_mutex_init(&select_lock, NULL);
	naming = 0;
}

static void at_fork_once(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
}

int pp__select_set(uint32_t which, const char *list, const char *what)
{
	static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
	pthread_once(&fork_once, at_fork_once);
	char err[256];
	char *copy = NULL;
	if (list && *list) {
		if (pp__select_check(list, ',', err, sizeof err) != 0) {
			pp__warn("%s=%s: %s; ignored", what, list, err);
			return -1;
		}
		if (!(copy = strdup(list)))
			return -1;
	}
	/* Patched code is never patched back (site_patch.c): the functions
	 * an earlier list left out stay so. */
	uint32_t gone = which == PP__SEL_FUNCTIONS ? pp__site_patched_left_out() : 0;
	if (gone)
		pp__warn("%s%s%s: the hook calls of functions an earlier selection left out were patched "
			 "out of the code (%u): they stay ungated whatever this list says",
			 what, copy ? "=" : " cleared", copy ? copy : "", gone);
	pthread_mutex_lock(&select_lock);
	free(lists[which]);
	lists[which] = copy;
	picked[which] = 0;
	snprintf(set_by[which], sizeof set_by[which], "%s", what);
	if (pp__class_slots) {
		memset(pp__class_slots, 0, PP__CLASS_SLOTS * sizeof *pp__class_slots);
		used = 0;
	}
	if (copy) {
		/* the symbol tables' reading is the runtime's work, also when a
		 * constructor of the program sets the selection (pathprof-cc) */
		uint64_t cpu = pp__thread_cpu_ns();
		warm_resolver();
		pp__own_cpu_since(cpu);
	}
	uint32_t sel = (lists[PP__SEL_ROOTS] ? PP__SEL_ROOTS : 0) |
		       (lists[PP__SEL_FUNCTIONS] ? PP__SEL_FUNCTIONS : 0);
	__atomic_store_n(&pp__selecting, sel, __ATOMIC_RELEASE);
	__atomic_store_n(&pp__select_sites, lists[PP__SEL_FUNCTIONS] != NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&select_lock);
	/* the thread that patches what the list leaves out: started here when
	 * a gate ran before the list was set (a C++ program's static
	 * constructors, before pathprof-cc's), else at the first gate */
	if (which == PP__SEL_FUNCTIONS && copy)
		pp__throttle_start();
	return 0;
}

void pp__select_env_load(void)
{
	const char *s = getenv("PATHPROF_ROOT");
	if (s && *s)
		pp__select_set(PP__SEL_ROOTS, s, "PATHPROF_ROOT");
	s = getenv("PATHPROF_FUNCTIONS");
	if (s && *s)
		pp__select_set(PP__SEL_FUNCTIONS, s, "PATHPROF_FUNCTIONS");
}

void pp__select_note_compiled(const char *list)
{
	char *copy = list && *list ? strdup(list) : NULL;
	pthread_mutex_lock(&select_lock);
	free(compiled);
	compiled = copy;
	pthread_mutex_unlock(&select_lock);
}

char *pp__select_describe(void)
{
	char *s = NULL;
	pthread_mutex_lock(&select_lock);
	const char *r = lists[PP__SEL_ROOTS], *f = lists[PP__SEL_FUNCTIONS], *c = compiled;
	if ((r || f || c) &&
	    asprintf(&s, "%s%s%s%s%s%s%s%s%s%s", c ? "compiled out by gcc (pathprof-cc)=" : "", c ? c : "",
		     c && (r || f) ? "; " : "", r ? set_by[PP__SEL_ROOTS] : "", r ? "=" : "", r ? r : "",
		     r && f ? "; " : "", f ? set_by[PP__SEL_FUNCTIONS] : "", f ? "=" : "", f ? f : "") < 0)
		s = NULL;
	pthread_mutex_unlock(&select_lock);
	return s;
}

char *pp__select_roots(void)
{
	pthread_mutex_lock(&select_lock);
	char *s = lists[PP__SEL_ROOTS] ? strdup(lists[PP__SEL_ROOTS]) : NULL;
	pthread_mutex_unlock(&select_lock);
	return s;
}

void pp__select_report(void)
{
	pthread_mutex_lock(&select_lock);
	for (uint32_t w = PP__SEL_ROOTS; w <= PP__SEL_FUNCTIONS; w++)
		if (lists[w] && !picked[w])
			pp__warn("%s=%s: no function that ran matched%s", set_by[w], lists[w],
				 w == PP__SEL_ROOTS ? "; no event started at a root"
						    : "; nothing was gated");
	pthread_mutex_unlock(&select_lock);
}
