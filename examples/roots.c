/* A request loop that never calls pp_root(), gated through any front-end
 * (examples/feed/gate.h): without PATHPROF_ROOT the whole loop is one event
 * rooted at serve; PATHPROF_ROOT='handle_*' makes each request an event of
 * its own, with handle_retry (a nested match) staying inside it. lex is a
 * prefix of lexer_start, so a selection that matches parts of names, not
 * names, shows at once (tests/frontends/select.sh, select.expected). */
#include <stdio.h>
#include <pathprof/pathprof.h>

#include "feed/gate.h"

static volatile unsigned sink;

GATED static int lex(unsigned v)
{
	GATE();
	return (int)(v % 3);
}

GATED static int lexer_start(unsigned v)
{
	GATE();
	return lex(v) + 1;
}

GATED static void handle_retry(unsigned v)
{
	GATE();
	sink += (unsigned)lex(v);
}

GATED static void handle_request(unsigned v)
{
	GATE();
	sink += (unsigned)lexer_start(v);
	if (v % 5 == 0)
		handle_retry(v);
}

GATED static void poll_input(unsigned v)
{
	GATE();
	sink += v;
}

GATED static void serve(unsigned n)
{
	GATE();
	for (unsigned i = 0; i < n; i++) {
		poll_input(i);
		handle_request(i);
	}
}

GATED static void shutdown_server(void)
{
	GATE();
	sink++;
}

HELPER static unsigned parse(const char *s)
{
	unsigned v = 0;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (unsigned)(*s++ - '0');
	return v;
}

HELPER int main(int argc, char **argv)
{
	serve(argc > 1 ? parse(argv[1]) : 100);
	shutdown_server();
	return 0;
}
