/* What a front-end tells the runtime so that its keys can be named at dump
 * time. raii and cyg need nothing (descriptors and ELF symbols); the xray shim
 * translates function ids to addresses; the plugin's pass-emitted tables map
 * name hashes to names. Called from constructors, never from the hot path. */
#ifndef PATHPROF_FRONTEND_H
#define PATHPROF_FRONTEND_H

#include <stdint.h>
#include <pathprof/compiler.h>
#include <pathprof/state.h>

PP_EXTERN_C_BEGIN

/* pp_site_t, one per raii gate site, is in state.h: the gate reads it. */

/* A key -> name table entry (plugin tables, replayed traces). */
typedef struct pp_name_entry {
	uint64_t key;
	const char *name;
} pp_name_entry_t;

/* The section every plugin-built module's table of pp_name_entry_t lies in
 * (rows end to end, 16-byte aligned): the reader of a killed process's
 * segment names its plugin keys from the file (reader/shm_offline.c). */
#define PP_PLUGIN_NAMES_SECTION "pp_plugin_names"

/* Register n names for front-end fe's keys. The table must stay valid for the
 * life of the program (the plugin emits it as a constant). Thread-safe. */
PP_EXPORT void pp_register_names(int fe, const pp_name_entry_t *table, uint32_t n) PP_NOINSTR;

/* Keys of fe are translated to code addresses by fn and then symbolized
 * (xray: function id -> __xray_function_address). */
PP_EXPORT void pp_register_key_address(int fe, uint64_t (*fn)(uint64_t key)) PP_NOINSTR;

/* A module's table of raii gate entries a budget may patch (pathprof/raii.h
 * says what it holds), from the linker's bounds of its section: told when
 * the module is loaded (load 1) and unloaded (load 0), by every file that
 * includes raii.h; kept once. */
PP_EXPORT void pp__raii_patches(const int32_t *from, const int32_t *to, int load) PP_NOINSTR;

/* 1 when this process records a trace (PATHPROF_TRACE): XRay's shim then
 * follows tail calls on its own stack, since a traced thread keeps no
 * frames for the lean one to mark (frontends/xray/arm.c). */
PP_EXPORT int pp__tracing(void) PP_NOINSTR;

/* The body the runtime's measure of a timed gate's cost wraps its gates
 * around (runtime/gate_cost.c, and frontends/raii/cost.c, which measures
 * raii's gate as the program compiled it): four dependent multiply-adds,
 * each kept by an empty asm. A gate around an empty function costs more
 * than one around work, whose latency the processor overlaps part of the
 * gate with (bench/compensate.sh: raii's gate 1.0-1.4 ns less around a
 * 5 ns helper); no gated function is empty. */
#define PP__COST_STEP(v) v = v * 6364136223846793005ull + 1442695040888963407ull; __asm__("" : "+r"(v))
#define PP__COST_BODY(v)         \
	do {                     \
		PP__COST_STEP(v); \
		PP__COST_STEP(v); \
		PP__COST_STEP(v); \
		PP__COST_STEP(v); \
	} while (0)

PP_EXTERN_C_END

#endif
