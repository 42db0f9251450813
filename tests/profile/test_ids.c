/* Unit tests of the profile's primitives: the stable path id (pinned across
 * versions), the ids with their prefixes' hashes kept, and the CRC-32 of
 * every section. Built under ASan/UBSan. */
#include "crc32.h"
#include "path_ids.h"
#include "profile.h"
#include "../hist/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_path_id(void)
{
	const char *a[] = { "main", "parse", "leaf" };
	char m[] = "main", q[] = "parse", l[] = "leaf";
	const char *b[] = { m, q, l };
	CHECK_EQ_U64(pp__path_id(a, 3), pp__path_id(b, 3));
	/* pinned: ids must stay the same across builds and versions */
	CHECK_EQ_U64(pp__path_id(a, 3), 0xfc57708c7cc90dfbull);
	const char *rev[] = { "leaf", "parse", "main" };
	CHECK(pp__path_id(a, 3) != pp__path_id(rev, 3), "order matters");
	CHECK(pp__path_id(a, 2) != pp__path_id(a, 3), "depth matters");
	const char *s1[] = { "ab", "c" }, *s2[] = { "a", "bc" }, *s3[] = { "abc" };
	CHECK(pp__path_id(s1, 2) != pp__path_id(s2, 2), "separator between names");
	CHECK(pp__path_id(s1, 2) != pp__path_id(s3, 1), "separator between names");
	const char *e1[] = { "" }, *e2[] = { "", "" };
	CHECK(pp__path_id(e1, 1) != pp__path_id(e2, 2), "empty names still count");
	CHECK(pp__path_id(e1, 1) != pp__path_id(a, 0), "empty name vs no name");
}

/* Ids with the prefixes' hashes kept equal pp__path_id's, whatever was met
 * before: 3 000 paths drawn over a small name set, so that they share
 * prefixes, repeat, extend and shorten each other, some deeper than any
 * before (the scratch grows); the name table moves (realloc) and grows
 * between calls, as the dump's does. */
static void test_path_ids(void)
{
	uint32_t nn = 8;
	pp_name_t *names = calloc(nn, sizeof *names);
	char buf[32];
	for (uint32_t i = 0; i < nn; i++) {
		snprintf(buf, sizeof buf, "fn%u%s", i, i % 3 ? "_long_name_here" : "");
		names[i].name = strdup(buf);
	}
	pp__ids_t m = { 0 };
	uint32_t idx[80];
	const char *str[80];
	uint64_t seed = 12345;
	for (int t = 0; t < 3000; t++) {
		if (t % 100 == 99) { /* the table moves and grows */
			pp_name_t *g = malloc((nn + 1) * sizeof *g);
			memcpy(g, names, nn * sizeof *g);
			free(names);
			names = g;
			snprintf(buf, sizeof buf, "added%u", nn);
			names[nn++].name = strdup(buf);
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t depth = 1 + (uint32_t)(seed >> 33) % (t < 1500 ? 12 : 80);
		for (uint32_t i = 0; i < depth; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* shallow levels from few names: shared prefixes */
			idx[i] = (uint32_t)(seed >> 40) % (i < 4 ? 2 : nn);
			str[i] = names[idx[i]].name;
		}
		CHECK_EQ_U64(pp__ids_get(&m, names, idx, depth), pp__path_id(str, depth));
		CHECK_EQ_U64(pp__ids_get(&m, names, idx, depth), pp__path_id(str, depth)); /* met */
		if (depth > 1)
			CHECK_EQ_U64(pp__ids_get(&m, names, idx, depth - 1), pp__path_id(str, depth - 1));
	}
	CHECK(m.n > 0 && m.n < 3000 * 40, "prefixes kept and shared");
	pp__ids_free(&m);

	/* A collision of the prefix key: B's key made to lead to A's entry (as
	 * two different prefixes of one mix would) must cost a recomputation,
	 * never A's hash under B's id. */
	uint32_t pa[2] = { 0, 1 }, pb[2] = { 1, 0 };
	const char *sa[2] = { names[0].name, names[1].name }, *sb[2] = { names[1].name, names[0].name };
	CHECK_EQ_U64(pp__ids_get(&m, names, pa, 2), pp__path_id(sa, 2));
	uint32_t a_entry = m.n - 1;
	CHECK_EQ_U64(pp__ids_get(&m, names, pb, 2), pp__path_id(sb, 2));
	CHECK(pp__map_put(&m.at, m.keys[1], a_entry) == 0, "map");
	CHECK(pp__map_put(&m.at, m.keys[0], a_entry) == 0, "map");
	CHECK_EQ_U64(pp__ids_get(&m, names, pb, 2), pp__path_id(sb, 2));
	pp__ids_free(&m);
	for (uint32_t i = 0; i < nn; i++)
		free(names[i].name);
	free(names);
}

/* The checksum against the standard check value and a bit-at-a-time
 * reference, over every length and alignment its ways can meet (eight
 * bytes a step and their tail; where the CPU has it, 64-byte folding
 * steps, then 16-byte ones, then the tables), whole and continued in two
 * pieces (a piece under 64 bytes takes the tables alone). */
static void test_crc32(void)
{
	CHECK_EQ_U64(pp__crc32("123456789", 9, 0), 0xcbf43926u);
	CHECK_EQ_U64(pp__crc32("", 0, 0), 0);
	static uint8_t buf[600];
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (size_t i = 0; i < sizeof buf; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (uint8_t)x;
	}
	for (size_t off = 0; off < 16; off++) {
		uint32_t ref = ~0u;
		for (size_t n = 0; off + n <= sizeof buf; n++) {
			if (n) { /* the reference, one byte more each length */
				ref ^= buf[off + n - 1];
				for (int k = 0; k < 8; k++)
					ref = ref & 1 ? 0xedb88320u ^ (ref >> 1) : ref >> 1;
			}
			CHECK_EQ_U64(pp__crc32(buf + off, n, 0), ~ref);
			size_t cut = n / 3;
			CHECK_EQ_U64(pp__crc32(buf + off + cut, n - cut, pp__crc32(buf + off, cut, 0)), ~ref);
			cut = n > 70 ? n - 70 : 0;
			CHECK_EQ_U64(pp__crc32(buf + off + cut, n - cut, pp__crc32(buf + off, cut, 0)), ~ref);
		}
	}
}

int main(void)
{
	test_path_id();
	test_path_ids();
	test_crc32();
	return check_done("test_ids");
}
