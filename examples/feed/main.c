/* feed: a deterministic market-data feed handler, the example program that
 * the README demo, verify and bench run. Each message is one event: the loop
 * encodes the next generated message, marks a new root and hands the bytes to
 * on_message(), which decodes and dispatches by type. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "feed.h"

static uint64_t bad_messages;

GATED void on_message(const uint8_t *buf, size_t len);

GATED void on_message(const uint8_t *buf, size_t len)
{
	GATE();
	msg_t m;
	if (decode(buf, len, &m) != 0) {
		bad_messages++;
		return;
	}
	switch (m.type) {
	case MSG_ADD:
		book_add(m.id, m.side, m.price, m.qty);
		break;
	case MSG_CANCEL:
		book_cancel(m.id);
		break;
	case MSG_TRADE:
		book_trade(m.side, m.price, m.qty);
		break;
	case MSG_SNAPSHOT:
		book_snapshot(&m);
		break;
	case MSG_HEARTBEAT:
		break;
	}
}

static HELPER void usage(FILE *out)
{
	fprintf(out,
		"usage: feed [--messages N] [--seed S] [--expect | --expect-types] [--quiet]\n"
		"  --messages N    messages to generate and handle (default 100000)\n"
		"  --seed S        generator seed (default 1)\n"
		"  --expect        print the exact path counts a profiler must report\n"
		"                  (canonical listing, count|root>...>leaf) and exit\n"
		"  --expect-types  print the number of messages of each type and exit\n"
		"  --quiet         do not print the run summary\n");
}

static HELPER int parse_u64(const char *opt, const char *s, uint64_t *v)
{
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "feed: %s: expected a non-negative integer, got '%s'\n", opt, s);
		return -1;
	}
	*v = x;
	return 0;
}

HELPER int main(int argc, char **argv)
{
	uint64_t n = 100000, seed = 1;
	int expect = 0, types = 0, quiet = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--messages") || !strcmp(a, "--seed")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "feed: %s needs a value\n", a);
				return 2;
			}
			if (parse_u64(a, argv[++i], a[2] == 'm' ? &n : &seed))
				return 2;
		} else if (!strcmp(a, "--expect")) {
			expect = 1;
		} else if (!strcmp(a, "--expect-types")) {
			types = 1;
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "feed: unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	if (expect || types)
		return expect_print(seed, n, types);

	gen_t *g = gen_create(seed);
	if (!g) {
		fprintf(stderr, "feed: out of memory\n");
		return 1;
	}
	msg_t m;
	uint8_t wire[WIRE_MAX];
	for (uint64_t i = 0; i < n; i++) {
		gen_next(g, &m);
		size_t len = wire_encode(&m, wire);
		ROOT();
		on_message(wire, len);
	}
	gen_destroy(g);
	if (!quiet)
		printf("messages %" PRIu64 " bad %" PRIu64 " signals %" PRIu64 " rejects %" PRIu64
		       " orders %" PRIu64 " book %016" PRIx64 " sent %016" PRIx64 "\n",
		       n, bad_messages, feed_stats.signals, feed_stats.rejects, feed_stats.orders,
		       book_digest(), feed_stats.order_digest);
	return bad_messages ? 1 : 0;
}
