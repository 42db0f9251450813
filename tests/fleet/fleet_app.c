/* The workload of the fleet test: a "service" that handles requests when
 * told to on stdin, so the test knows every count it must see in Prometheus
 * and can stop it at a quiet point. Commands, each answered "ok" once done:
 *   run N          N requests: request > parse, request > respond > encode
 *   sleep N US     N requests: request > respond > wait, each sleeping US µs
 *   odd N          N requests through a gate whose name needs escaping
 *   dump FILE      write the profile (pp_dump) as it is now
 *   quit           exit normally (the live segment goes away) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pathprof/pathprof.h>
#include <pathprof/raii.h>

#define NOINL __attribute__((noinline))

static volatile unsigned sink;

NOINL static void parse(void)
{
	PP_GATE("parse");
	sink++;
}

NOINL static void encode(void)
{
	PP_GATE("encode");
	sink++;
}

NOINL static void wait_us(long us)
{
	PP_GATE("wait");
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* quote, backslash, newline and a byte that is not UTF-8 */
NOINL static void odd(void)
{
	PP_ROOT();
	PP_GATE("we\"ird\\na\nme\xff");
	sink++;
}

NOINL static void respond(long us)
{
	PP_GATE("respond");
	if (us >= 0)
		wait_us(us);
	else
		encode();
}

NOINL static void request(long us)
{
	PP_ROOT();
	PP_GATE("request");
	if (us < 0)
		parse();
	respond(us);
}

int main(void)
{
	char line[4200], arg[4096];
	long n, us;
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof line, stdin)) {
		if (sscanf(line, "run %ld", &n) == 1) {
			for (long i = 0; i < n; i++)
				request(-1);
		} else if (sscanf(line, "sleep %ld %ld", &n, &us) == 2) {
			for (long i = 0; i < n; i++)
				request(us);
		} else if (sscanf(line, "odd %ld", &n) == 1) {
			for (long i = 0; i < n; i++)
				odd();
		} else if (sscanf(line, "dump %4095s", arg) == 1) {
			if (pp_dump(arg) != 0)
				return 1;
		} else if (!strncmp(line, "quit", 4)) {
			return 0;
		} else {
			fprintf(stderr, "fleet_app: unknown command: %s", line);
			return 2;
		}
		puts("ok");
	}
	return 0;
}
