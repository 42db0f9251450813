/* Naming a live segment's keys from the files its writer had mapped
 * (format/segment.h, pp__shm_module_t), for the keys the writer itself
 * never named: a program of one thread runs no naming pass
 * (PATHPROF_NAMER=auto), and any writer may die between a new key and its
 * next pass. cyg keys are code addresses, named by the file's symbol
 * table; raii keys are the addresses of static site records, read from
 * the file's data; plugin keys (hashes of names) are looked up in the
 * name tables the pass put in each file's own section. A file whose build
 * id is no longer the one the writer loaded names nothing (its addresses
 * may mean other things now); xray ids need the writer's memory (its
 * sleds' map), and stay raw. */
#ifndef PP_SHM_OFFLINE_H
#define PP_SHM_OFFLINE_H

#include <stdint.h>

typedef struct pp__offline pp__offline_t;

/* An empty namer, to which the writer's modules are added. NULL when out
 * of memory. */
pp__offline_t *pp__offline_new(void);

/* Whether the writer's modules were added already (a view keeps its namer
 * from one snapshot to the next: its files are read once); the first
 * call says no, and marks them added. */
int pp__offline_first(pp__offline_t *o);

/* The writer's file path, loaded at bias, spanning [lo, hi), with build
 * id build_id (hex, "" when it had none). 0, or -1 when out of memory. */
int pp__offline_add(pp__offline_t *o, const char *path, uint64_t bias, uint64_t lo, uint64_t hi,
		    const char *build_id);

/* The name of key (front-end fe), and its file and line where known ("",
 * 0), valid until the next call; NULL when the files cannot say. */
const char *pp__offline_name(pp__offline_t *o, int fe, uint64_t key, const char **file,
			     uint32_t *line);

void pp__offline_free(pp__offline_t *o);

#endif
