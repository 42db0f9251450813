/* One request: generate its text, parse it, route it. */
#include "multi.h"

PROFILED void handle_request(int i)
{
	GATE();
	request_t r;
	make_request(&r, i);
	if (parse_request(&r) != 0)
		return;
	route(&r);
}
