/* Fuzz target: the trace reader (pp__trace_load, then pp__trace_next over
 * every chunk it keeps). Oracles: a refusal is one line naming the file;
 * every kept chunk and damaged stretch lies inside the file; decoding stops
 * within each chunk; nothing leaks. `pathprof replay` is left out: it keeps
 * runtime state between runs in one process (docs/internals/robustness.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "trace_read.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fz_dir();
	return 0;
}

static void check_loaded(const pp_trace_t *tr)
{
	for (uint32_t i = 0; i < tr->ndamage; i++) {
		const pp_trace_damage_t *d = &tr->damage[i];
		if (d->offset > tr->size || d->length > tr->size - d->offset || !memchr(d->what, 0, sizeof d->what))
			fz_fail("damage %u at %llu+%llu outside the %llu-byte file", i,
				(unsigned long long)d->offset, (unsigned long long)d->length,
				(unsigned long long)tr->size);
	}
	for (uint32_t t = 0; t < tr->nthreads; t++) {
		const pp_trace_thread_t *th = &tr->threads[t];
		for (uint32_t c = 0; c < th->nchunks; c++) {
			const pp_trace_chunk_t *ch = &th->chunks[c];
			if (ch->data < tr->buf || ch->len > tr->size || ch->data > tr->buf + tr->size - ch->len)
				fz_fail("chunk %llu of stream %llu lies outside the file",
					(unsigned long long)ch->seq, (unsigned long long)th->stream);
			pp_trace_cursor_t cur;
			pp_trace_ev_t ev;
			pp__trace_cursor(&cur, ch);
			while (pp__trace_next(&cur, &ev) > 0)
				if (cur.p > cur.end)
					fz_fail("decoding ran past the end of a chunk");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fz_put("in.pptrace", data, size);
	pp_trace_t tr;
	char err[512] = "";
	int rc = pp__trace_load(&tr, path, err, sizeof err);
	if (rc < 0) {
		if (strncmp(err, path, strlen(path)) || strchr(err, '\n'))
			fz_fail("refusal is not one line naming the file: '%s'", err);
		return 0; /* nothing is the caller's to free after a refusal */
	}
	check_loaded(&tr);
	pp__trace_free(&tr);
	return 0;
}
