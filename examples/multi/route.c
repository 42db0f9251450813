/* Routing: static files through a small cache, everything else rendered. */
#include <string.h>
#include "multi.h"

static PROFILED void load_file(request_t *r)
{
	GATE();
	r->sum += checksum(r->path) * 3;
}

static PROFILED void serve_static(request_t *r)
{
	GATE();
	/* One path in ten misses the cache. */
	if (r->sum % 10 == 0)
		load_file(r);
	else
		r->sum += 1;
}

static PROFILED void escape_html(request_t *r)
{
	GATE();
	r->sum += checksum(r->path) ^ 0x55;
}

static PROFILED void render_page(request_t *r)
{
	GATE();
	escape_html(r);
	if (r->query)
		escape_html(r);
}

PROFILED void route(request_t *r)
{
	GATE();
	if (!strcmp(r->method, "GET") && !strncmp(r->path, "/static/", 8))
		serve_static(r);
	else
		render_page(r);
	total += r->sum;
}
