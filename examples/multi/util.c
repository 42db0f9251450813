/* Helpers: never gated (HELPER), so they do not appear in the paths. */
#include <stdio.h>
#include "multi.h"

unsigned long total;

HELPER unsigned long checksum(const char *s)
{
	unsigned long h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

HELPER void make_request(request_t *r, int i)
{
	static const char *const forms[] = {
		"GET /static/logo.png",
		"GET /static/app.js?v=%d",
		"POST /api/order?id=%d",
		"GET /index.html",
		"BAD",
	};
	snprintf(r->text, sizeof r->text, forms[i % 5], i);
	r->method[0] = 0;
	r->path = r->query = NULL;
	r->sum = (unsigned long)i;
}
