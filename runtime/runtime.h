/* Internal declarations shared by the runtime's files: start-up, the error
 * sink, the clock and process-wide state. Nothing here is public. */
#ifndef PP_RUNTIME_H
#define PP_RUNTIME_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <pathprof/state.h>
#include "profile.h"

typedef struct pp__global {
	int frontend;          /* enum pp_frontend of the first gate seen */
	int mixed_frontends;   /* another front-end's gate was seen too */
	int exit_dump;         /* write the profile at exit */
	int exit_dump_hooked;  /* atexit handler installed */
	char out[4096];        /* PATHPROF_OUT, or "" for the default name */
	uint64_t pid;
	uint64_t first_pid;     /* pid at start, to tell a forked child */
	uint64_t start_ns;     /* CLOCK_REALTIME at start */
	uint64_t skipped;      /* frames of threads that could not register */
	uint64_t unprofiled_threads; /* threads that could not register */
	uint64_t signal_skipped; /* frames of signal handlers run during their thread's registration */
	int crash_dump;        /* PATHPROF_CRASH: write the profile at a fatal signal */
	uint32_t crash_signal; /* set in the copy that writes the profile at a crash */
	uint64_t crash_tid;
	char service[64];      /* PATHPROF_SERVICE or the program's name (process.c) */
	char host[64];
	char build_id[48];     /* hex GNU build id of the executable, "" if none */
	/* The timed gate's cost measured in this process (gate_cost.c), in
	 * ticks per gate: inside the interval it times, and outside it (in
	 * the parent's self time); 0 and 0 until measured. */
	double gate_in, gate_out;
	/* The profile's CPU time is the program's, over the run
	 * (pp__program_cpu_ns): the process's, less what it had used when the
	 * run started (cpu_at_start: the loader, constructors before ours, the
	 * runtime's own start), what the runtime did on the program's threads
	 * (its host's start, each thread's registration) or on a thread it
	 * joined (the gate-cost thread): own_cpu, added to atomically; and
	 * what its own live threads used. cpu_end holds the result frozen
	 * when the exit's own work starts (cpu_frozen). */
	uint64_t cpu_at_start, own_cpu, cpu_end;
	int cpu_frozen;
	/* Burst timing: windows opened, every thread's (gate_window.c). */
	uint64_t windows;
} pp__global_t;

/* CPU time of the whole process (user + system, all threads), and of the
 * calling thread, ns. */
uint64_t pp__process_cpu_ns(void);
PP_EXPORT uint64_t pp__thread_cpu_ns(void);
/* The program's CPU time over the run so far, or as frozen at the exit;
 * freeze it there, before the runtime's exit work. Restart: the run's CPU
 * time starts now (an XRay program's, after the XRay runtime's own start). */
uint64_t pp__program_cpu_ns(void);
void pp__program_cpu_freeze(void);
PP_EXPORT void pp__program_cpu_restart(void);
/* Count the calling thread's CPU time since `from` (pp__thread_cpu_ns) as
 * the runtime's own work. */
PP_EXPORT void pp__own_cpu_since(uint64_t from);
/* CPU time the naming thread used so far (shm.c), ns. */
uint64_t pp__shm_namer_cpu_ns(void);

extern pp__global_t pp__g;

/* One-time start-up (env.c): environment, clock, fatal signals. The
 * constructor runs it; the public calls (api.c) and a thread's first gate
 * (pp__thread_start) run it too, in case they come first (another library's
 * constructor). Subsystems never call it: start-up calls them. */
void pp__init(void);

/* A thread's first gate (env.c): start-up, then its slab, its signal stack
 * and the at-exit dump. 0, or -1 when it runs unprofiled. */
int pp__thread_start(pp__tls_t *t, int fe);

/* Fill pp__g's service, host and build id (process.c; start-up). */
void pp__process_init(void);
/* The GNU build id of the module info describes, in hex, from its notes
 * in memory ("" when it has none); at most n - 1 characters. */
struct dl_phdr_info;
void pp__phdr_build_id(const struct dl_phdr_info *info, char *out, size_t n);

/* pp_set_timing() without the start-up (state.c). */
int pp__set_timing(enum pp_timing mode, unsigned sample_n);

/* The bodies of the public calls of the same name (dump.c); api.c runs
 * start-up first. */
int pp__dump(const char *path);

/* Measure the timed gate's cost once (gate_cost.c) into pp__g.gate_in and
 * gate_out, when timing is on or sampled and one injector without a
 * selection ran; otherwise leave them 0. Runs a thread of its own. */
void pp__gate_cost_measure(void);
/* The same while the program runs (the namer, after a pass), kept apart
 * from pp__g's and published in the live segment: the figures a profile
 * written at a crash, or recovered after a kill, has, where no exit runs
 * to measure them. Once; nothing while another measure runs. */
void pp__gate_cost_early(void);
/* The figures a profile written now carries: pp__g's, else the early
 * ones, else 0 (not measured). Async-signal-safe. */
void pp__gate_cost_get(double *in, double *out);
void pp__summary(FILE *out, int n);
void pp__disable_exit_dump(void);

/* Read PATHPROF_* into pp__config, pp__mode and pp__g; warns once per bad
 * variable and keeps the default. */
void pp__env_load(void);

/* The error sink: "pathprof: <message>" on stderr, one line. */
PP_EXPORT void pp__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Clock: remember the start point, and measure ticks per ns at dump time. */
void pp__clock_start(void);
double pp__clock_ticks_per_ns(void);
/* The first reading of the clock and the counter (pp__clock_start), which
 * the live segment publishes: a tool measures the rate from it when no
 * naming pass published one (format/tick_clock.h). */
void pp__clock_origin(uint64_t *ns, uint64_t *ticks);
uint64_t pp__realtime_ns(void);
/* Now on the run's clock (format/tick_clock.h): where a run's end is
 * stamped, so its length and its ticks are on one clock. */
uint64_t pp__run_now_ns(void);

/* Control went up the stack to the function whose stack pointer is sp (a
 * C++ catch, host/catch.c; a longjmp, host/longjmp.c): the frames below
 * it, whose exits never ran, are closed now, as exits (gate_resync.c). */
void pp__unwound_to(uint64_t sp);

/* Names of front-ends as written into profiles. */
const char *pp__frontend_name(int fe);

/* Build the merged profile of every slab into p. 0 or -1 (message in err). */
int pp__profile_collect(pp_profile_t *p, char *err, size_t errlen);

/* pp_summary()'s text (summary.c); the caller holds the dump lock. */
void pp__summary_print(FILE *out, const pp_profile_t *p, int n);

/* Key naming (names.c). A resolver lives for one collection. */
typedef struct pp__resolver pp__resolver_t;
pp__resolver_t *pp__resolver_open(void);
/* Name of key of front-end fe; file and line set when known (else "" and 0). */
const char *pp__resolve(pp__resolver_t *r, int fe, uint64_t key, const char **file,
			uint32_t *line);
void pp__resolver_close(pp__resolver_t *r);
/* A resolver kept for the life of the process, reopened once a library
 * loaded since names an address no module held (names.c). */
typedef struct pp__live_resolver {
	pp__resolver_t *r;
	int modules; /* loaded modules when r was opened */
} pp__live_resolver_t;
const char *pp__resolve_live(pp__live_resolver_t *lr, int fe, uint64_t key, const char **file,
			     uint32_t *line);
/* Close it if a library was loaded or unloaded since it was opened: the
 * next name opens it afresh. For a caller that resolves in passes. */
void pp__resolve_live_refresh(pp__live_resolver_t *lr);
/* The library mapped at [lo, hi) is going away (modules.c): name every key
 * the slabs hold in it and copy its name tables, so that naming never reads
 * it again. */
void pp__names_retire(uintptr_t lo, uintptr_t hi);
/* No library is dlclose()d between hold and release (modules.c); under
 * it, pp__modules_holds tells whether [a, a+n) lies in a loaded module. */
void pp__modules_hold(void);
void pp__modules_release(void);
int pp__modules_holds(uintptr_t a, size_t n);
/* A generation of the modules loaded: it changes with every load and
 * unload (a change means a symbolizer must be reopened). */
int pp__modules_loaded(void);

/* Fatal signals (crash.c): write the profile before dying of them. */
void pp__crash_arm(void);

/* What the runtime does for the program it is loaded into, beyond counting:
 * set by host/start.c, which libpathprof and every front-end carry, and left
 * empty in the pathprof tool, which replays gates but is nobody's host (it
 * installs no handler and writes no profile at exit). */
typedef struct pp__host {
	void (*thread_start)(pp__tls_t *t); /* a thread's first gate */
} pp__host_t;
extern pp__host_t pp__host;

/* Write the profile from a copy of the process (crash.c): safe in a signal
 * handler and with any lock held. sig is recorded as the crash signal (0:
 * none). */
void pp__dump_in_copy(int sig);

/* Resolve the exec family for the interposers of exits.c. */
void pp__exits_arm(void);
/* Give the calling thread an alternate signal stack if it has none (a stack
 * overflow then still writes the profile); *stackp is the slab's, kept for
 * the next thread that takes the slab. */
void pp__crash_thread(void **stackp);

/* Install the at-exit dump once. */
void pp__hook_exit(void);

#endif
