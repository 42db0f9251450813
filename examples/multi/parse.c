/* Splitting "METHOD /path?query" in place. */
#include <string.h>
#include "multi.h"

static PROFILED int parse_method(request_t *r, char **rest)
{
	GATE();
	char *sp = strchr(r->text, ' ');
	if (!sp || sp - r->text >= (long)sizeof r->method)
		return -1;
	memcpy(r->method, r->text, (size_t)(sp - r->text));
	r->method[sp - r->text] = 0;
	*rest = sp + 1;
	return 0;
}

static PROFILED void parse_query(request_t *r, char *q)
{
	GATE();
	*q = 0;
	r->query = q + 1;
	r->sum += checksum(r->query);
}

PROFILED int parse_request(request_t *r)
{
	GATE();
	char *rest;
	if (parse_method(r, &rest) != 0)
		return -1;
	r->path = rest;
	char *q = strchr(rest, '?');
	if (q)
		parse_query(r, q);
	return 0;
}
