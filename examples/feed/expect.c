/* The oracle: what a correct profiler must report for a run. It replays the
 * generator only (no decoding, no book, no gates) and maps each message to
 * the paths its call tree takes, written out here by hand from the program's
 * structure, so a test compares the profiler against an independent account. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "feed.h"

enum {
	P_DECODE,
	P_ADD,
	P_CANCEL,
	P_TRADE_QUIET, /* trade below the block size: the signal does not act */
	P_TRADE_REJECT,
	P_TRADE_ORDER,
	P_SNAP_CLEAR,
	P_SNAP_ADD,
	P_COUNT
};

static const char *const path_name[P_COUNT] = {
	[P_ADD] = "on_message>book_add",
	[P_CANCEL] = "on_message>book_cancel",
	[P_SNAP_ADD] = "on_message>book_snapshot>book_add",
	[P_SNAP_CLEAR] = "on_message>book_snapshot>book_clear",
	[P_TRADE_QUIET] = "on_message>book_trade>signal_update",
	[P_TRADE_REJECT] = "on_message>book_trade>signal_update>risk_check",
	[P_TRADE_ORDER] = "on_message>book_trade>signal_update>risk_check>send_order",
	[P_DECODE] = "on_message>decode",
};

static HELPER int by_name(const void *a, const void *b)
{
	return strcmp(path_name[*(const int *)a], path_name[*(const int *)b]);
}

HELPER int expect_print(uint64_t seed, uint64_t n, int types_only)
{
	uint64_t per_type[MSG_NTYPES] = {0}, per_path[P_COUNT] = {0};
	gen_t *g = gen_create(seed);
	if (!g) {
		fprintf(stderr, "feed: out of memory\n");
		return 1;
	}
	msg_t m;
	for (uint64_t i = 0; i < n; i++) {
		gen_next(g, &m);
		per_type[m.type]++;
		per_path[P_DECODE]++;
		switch (m.type) {
		case MSG_ADD:
			per_path[P_ADD]++;
			break;
		case MSG_CANCEL:
			per_path[P_CANCEL]++;
			break;
		case MSG_TRADE:
			if (!signal_fires(m.qty))
				per_path[P_TRADE_QUIET]++;
			else if (!risk_ok(m.qty))
				per_path[P_TRADE_REJECT]++;
			else
				per_path[P_TRADE_ORDER]++;
			break;
		case MSG_SNAPSHOT:
			per_path[P_SNAP_CLEAR]++;
			per_path[P_SNAP_ADD] += m.nlevels;
			break;
		}
	}
	gen_destroy(g);
	if (types_only) {
		for (int t = 0; t < MSG_NTYPES; t++)
			printf("%s %llu\n", msg_type_name[t], (unsigned long long)per_type[t]);
	} else {
		int order[P_COUNT];
		for (int p = 0; p < P_COUNT; p++)
			order[p] = p;
		qsort(order, P_COUNT, sizeof order[0], by_name);
		for (int i = 0; i < P_COUNT; i++)
			if (per_path[order[i]])
				printf("%llu|%s\n", (unsigned long long)per_path[order[i]], path_name[order[i]]);
	}
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
