/* The live view's outputs (`pathprof top`, tools/cmd_top.c): what each
 * refresh shows of two snapshots of a segment, as text or JSON. The
 * command keeps the snapshots, the terminal and the keys. */
#ifndef PP_REPORT_TOP_H
#define PP_REPORT_TOP_H

#include <stdio.h>

#include "profile.h"
#include "shm_read.h"

typedef enum { PP__TOP_RATE, PP__TOP_TIME, PP__TOP_COUNT } pp__top_sort_t;


typedef struct view {
	pp__shm_view_t seg;
	pp_profile_t cur, prev;
	pp__shm_stats_t st, pst;
	int have_prev;
	int gone;      /* the writer was seen dead or exited */
	pp__top_sort_t sort;
	uint32_t top;
	int json, frozen, tty;
	int raw; /* times as measured: the gate's cost not taken out */
	double interval;
} pp__top_view_t;

/* Render the view (its cur and, when have_prev, prev snapshots) to f. 0,
 * or -1 when out of memory or the write failed. */
int pp__report_top(FILE *f, pp__top_view_t *v);

#endif
