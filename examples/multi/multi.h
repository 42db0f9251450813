/* multi: a toy request server in four files, the project the worked example
 * (docs/guides/worked-example.md) profiles with each injector. */
#ifndef MULTI_H
#define MULTI_H

#include "prof.h"

typedef struct request {
	char text[64];
	char method[8];
	const char *path;
	const char *query;
	unsigned long sum;
} request_t;

/* request.c */
void handle_request(int i);
/* parse.c */
int parse_request(request_t *r);
/* route.c */
void route(request_t *r);
/* util.c */
void make_request(request_t *r, int i);
unsigned long checksum(const char *s);
extern unsigned long total;

#endif
