/* The raw event trace's file layout (docs/guides/trace.md): what the recorder
 * (runtime/recorder.c) writes and the reader (reader/trace_read.c) reads,
 * defined once. Only definitions. */
#ifndef PP_TRACE_FORMAT_H
#define PP_TRACE_FORMAT_H

/* File: an 8-byte magic, u32 version, u32 header length, then chunks. */
#define PP_TRACE_MAGIC "PPTRACE\n"
/* 2: every exit of a timed event carries its timestamp (node timing);
 * 3: every thread's stream ends with its end record (thread exit, the exit
 * dump's freeze, or the exiting thread at exit), so a stream without one
 * was cut; entries and names carry a key's id, not the key */
#define PP_TRACE_VERSION 3u
#define PP_TRACE_HEADER 16u

/* Chunk header (little-endian): u32 magic, u32 payload length, u64 stream,
 * u64 sequence, u32 event count, u32 CRC-32 of bytes 4..28 and the payload.
 * Stream 0 carries process records (config, names, dumps); stream n >= 1 is
 * the n-th thread recorded. */
#define PP_CHUNK_MAGIC 0x4b435050u /* "PPCK" */
#define PP_CHUNK_HEADER 32u
#define PP_CHUNK_MAX (1u << 24) /* readers refuse longer payloads */

/* Event opcodes. Keys and timestamps are zigzag varints of the difference
 * to the previous one in the same chunk (both start at 0 in every chunk, so
 * each chunk decodes on its own). */
enum pp_trace_op {
	PP_EV_ENTER = 1,   /* key id delta (ids: NAME records) */
	PP_EV_ENTER_T = 2, /* key id delta, tick delta: a pushed frame of a timed event */
	PP_EV_LEAVE = 3,
	PP_EV_LEAVE_T = 4, /* tick delta: a timed leaf return */
	PP_EV_ROOT = 5,    /* pp_root() */
	PP_EV_RESET = 6,   /* pp_reset() called by this thread */
	PP_EV_START = 7,   /* os tid, slab ref, slab use, front-end */
	PP_EV_END = 8,     /* events not recorded (signal handlers nested in the recorder) */
	/* stream 0 */
	PP_EV_CONFIG = 16, /* pid, start ns, depth bound, paths per slab */
	PP_EV_NAME = 17,   /* key id, front-end, line, name, file */
	PP_EV_META = 18,   /* the meta fields of a profile dumped live */
	PP_EV_CLOSE = 19,  /* chunks written before this one (at process exit) */
	PP_EV_PROCESS = 20, /* service, host, build id of a profile dumped live */
	PP_EV_GATECOST = 21, /* the gate's cost it measured (bits of two doubles) */
	PP_EV_CPU = 22,      /* CPU ns, voluntary and involuntary switches at the dump */
	PP_EV_SELECT = 23,   /* the function selections it ran under */
};

#endif
