/* e2e driver: a fixed, seeded SQL workload run against SQLite, once on an
 * in-memory database and once on an on-disk one, so the profile of a real
 * program can be compared across front-ends (docs/internals/e2e-sqlite.md). It prints a
 * checksum of every result read back and the number of operations per
 * database: every build must print the same, and each operation is one event.
 * usage: driver --db FILE [--rows N] [--seed S] */
#define _POSIX_C_SOURCE 200809L /* unlink, access: built with -std=c99 like SQLite */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqlite3.h"

/* The loops that run the phases are not gated, so each operation they call
 * (one statement run to completion, a prepare, a BEGIN...) is a root: an event
 * whose segments time that operation alone. With main as the root, the
 * segments of main and of each phase would span the whole run. The driver's
 * helpers (random numbers, checksum) are not gated either: below the
 * operations, the paths are SQLite's. */
#ifdef __clang__
#define UNGATED __attribute__((no_instrument_function, xray_never_instrument))
#else
#define UNGATED __attribute__((no_instrument_function))
#endif

struct ctx {
	sqlite3 *db;
	const char *what;   /* "memory" or the file name, for messages */
	uint64_t rng;
	uint64_t sum;       /* FNV-1a over every result read back */
	long rows;          /* orders; customers are rows / 10 */
	long ops;           /* operations run: the events of the profile */
};

UNGATED static uint64_t next_rand(struct ctx *c)
{
	/* splitmix64: same sequence on every build and platform */
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

UNGATED static long pick(struct ctx *c, long n)
{
	return (long)(next_rand(c) % (uint64_t)n);
}

UNGATED static void mix(struct ctx *c, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		c->sum = (c->sum ^ b[i]) * 0x100000001b3ull;
}

UNGATED static void die(struct ctx *c, const char *doing)
{
	fprintf(stderr, "driver: %s: %s: %s\n", c->what, doing, sqlite3_errmsg(c->db));
	exit(1);
}

/* Step st to the end, folding every column of every row into the checksum. */
static long drain(struct ctx *c, sqlite3_stmt *st)
{
	long n = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *t = sqlite3_column_text(st, i);
			if (t)
				mix(c, t, (size_t)sqlite3_column_bytes(st, i));
		}
		n++;
	}
	if (rc != SQLITE_DONE)
		die(c, sqlite3_sql(st));
	sqlite3_reset(st);
	return n;
}

/* The operations: each is one event. */

static void exec(struct ctx *c, const char *sql)
{
	char *err = NULL;
	c->ops++;
	if (sqlite3_exec(c->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "driver: %s: %s: %s\n", c->what, sql, err ? err : "?");
		exit(1);
	}
}

static sqlite3_stmt *prepare(struct ctx *c, const char *sql)
{
	sqlite3_stmt *st;
	c->ops++;
	if (sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) != SQLITE_OK)
		die(c, sql);
	return st;
}

static void finish(struct ctx *c, sqlite3_stmt *st)
{
	c->ops++;
	sqlite3_finalize(st);
}

static void open_db(struct ctx *c, const char *file)
{
	c->ops++;
	if (sqlite3_open(file, &c->db) != SQLITE_OK)
		die(c, "open");
}

static void close_db(struct ctx *c)
{
	c->ops++;
	if (sqlite3_close(c->db) != SQLITE_OK)
		die(c, "close");
}

static void insert_customer(struct ctx *c, sqlite3_stmt *st, long id)
{
	char name[32];
	c->ops++;
	snprintf(name, sizeof name, "cust-%06ld", pick(c, 1000000));
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, pick(c, 16));
	sqlite3_bind_int64(st, 4, pick(c, 100000));
	drain(c, st);
}

static void insert_order(struct ctx *c, sqlite3_stmt *st)
{
	char item[32];
	c->ops++;
	snprintf(item, sizeof item, "item-%04ld", pick(c, 5000));
	sqlite3_bind_int64(st, 1, 1 + pick(c, c->rows / 10));
	sqlite3_bind_text(st, 2, item, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, 1 + pick(c, 20));
	sqlite3_bind_int64(st, 4, 100 + pick(c, 10000));
	sqlite3_bind_int64(st, 5, pick(c, 365));
	drain(c, st);
}

/* A statement with one or two integer parameters run to completion: a point
 * select, a range scan, a join, an update or a delete. */
static void query1(struct ctx *c, sqlite3_stmt *st, long a)
{
	c->ops++;
	sqlite3_bind_int64(st, 1, a);
	drain(c, st);
}

static void query2(struct ctx *c, sqlite3_stmt *st, long a, long b)
{
	c->ops++;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	drain(c, st);
}

/* The phases: plain loops over operations. */

UNGATED static void create_schema(struct ctx *c)
{
	exec(c, "CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
		" region INTEGER NOT NULL, balance INTEGER NOT NULL)");
	exec(c, "CREATE TABLE orders(id INTEGER PRIMARY KEY, cust INTEGER NOT NULL,"
		" item TEXT NOT NULL, qty INTEGER NOT NULL, price INTEGER NOT NULL,"
		" day INTEGER NOT NULL)");
	exec(c, "CREATE INDEX orders_cust ON orders(cust)");
	exec(c, "CREATE INDEX orders_day ON orders(day, price)");
	exec(c, "CREATE INDEX customer_region ON customer(region)");
}

/* Rows go in in transactions of 1000, through prepared statements. */
UNGATED static void insert_rows(struct ctx *c)
{
	sqlite3_stmt *cu = prepare(c, "INSERT INTO customer VALUES(?1, ?2, ?3, ?4)");
	sqlite3_stmt *or = prepare(c, "INSERT INTO orders(cust, item, qty, price, day)"
		" VALUES(?1, ?2, ?3, ?4, ?5)");
	exec(c, "BEGIN");
	for (long i = 1; i <= c->rows / 10; i++)
		insert_customer(c, cu, i);
	exec(c, "COMMIT");
	for (long i = 0; i < c->rows; i++) {
		if (i % 1000 == 0)
			exec(c, "BEGIN");
		insert_order(c, or);
		if (i % 1000 == 999 || i == c->rows - 1)
			exec(c, "COMMIT");
	}
	finish(c, cu);
	finish(c, or);
}

UNGATED static void point_selects(struct ctx *c)
{
	sqlite3_stmt *byid = prepare(c, "SELECT cust, item, qty * price FROM orders WHERE id = ?1");
	sqlite3_stmt *bycust = prepare(c, "SELECT count(*), sum(qty) FROM orders WHERE cust = ?1");
	for (long i = 0; i < c->rows / 10; i++) {
		query1(c, byid, 1 + pick(c, c->rows));
		query1(c, bycust, 1 + pick(c, c->rows / 10));
	}
	finish(c, byid);
	finish(c, bycust);
}

UNGATED static void range_scans(struct ctx *c)
{
	sqlite3_stmt *week = prepare(c, "SELECT day, sum(price) FROM orders"
		" WHERE day BETWEEN ?1 AND ?1 + 6 GROUP BY day ORDER BY day");
	sqlite3_stmt *top = prepare(c, "SELECT id, price FROM orders WHERE day = ?1"
		" ORDER BY price DESC LIMIT 5");
	for (int i = 0; i < 40; i++) {
		query1(c, week, pick(c, 358));
		query1(c, top, pick(c, 365));
	}
	finish(c, week);
	finish(c, top);
}

UNGATED static void joins(struct ctx *c)
{
	sqlite3_stmt *region = prepare(c, "SELECT c.region, count(*), sum(o.qty * o.price)"
		" FROM customer c JOIN orders o ON o.cust = c.id"
		" WHERE c.region = ?1 GROUP BY c.region");
	sqlite3_stmt *big = prepare(c, "SELECT c.name, o.item FROM orders o"
		" JOIN customer c ON c.id = o.cust WHERE o.day = ?1 AND o.price > ?2"
		" ORDER BY o.id");
	for (int i = 0; i < 4; i++)
		query1(c, region, pick(c, 16));
	for (int i = 0; i < 50; i++) {
		long day = pick(c, 365);
		query2(c, big, day, 9000 + pick(c, 1000));
	}
	finish(c, region);
	finish(c, big);
}

UNGATED static void updates_and_deletes(struct ctx *c)
{
	sqlite3_stmt *up = prepare(c, "UPDATE customer SET balance = balance + ?2 WHERE id = ?1");
	sqlite3_stmt *bump = prepare(c, "UPDATE orders SET qty = qty + 1 WHERE day = ?1 AND price < ?2");
	sqlite3_stmt *del = prepare(c, "DELETE FROM orders WHERE cust = ?1");
	exec(c, "BEGIN");
	for (long i = 0; i < c->rows / 20; i++) {
		long id = 1 + pick(c, c->rows / 10);
		query2(c, up, id, pick(c, 100) - 50);
	}
	for (int i = 0; i < 20; i++) {
		long day = pick(c, 365);
		query2(c, bump, day, 100 + pick(c, 2000));
	}
	for (long i = 0; i < c->rows / 100; i++)
		query1(c, del, 1 + pick(c, c->rows / 10));
	exec(c, "COMMIT");
	exec(c, "DELETE FROM orders WHERE day BETWEEN 100 AND 109");
	finish(c, up);
	finish(c, bump);
	finish(c, del);
}

UNGATED static void totals(struct ctx *c)
{
	sqlite3_stmt *st = prepare(c, "SELECT (SELECT count(*) FROM orders),"
		" (SELECT sum(qty) FROM orders), (SELECT sum(balance) FROM customer)");
	query1(c, st, 0);
	finish(c, st);
}

UNGATED static void run(const char *file, const char *what, long rows, uint64_t seed)
{
	struct ctx c = {.what = what, .rng = seed, .sum = 0xcbf29ce484222325ull, .rows = rows};
	open_db(&c, file);
	/* No fsync (its latency would swamp the overhead figure) and a fixed cache,
	 * so every run does the same page I/O. */
	exec(&c, "PRAGMA synchronous = OFF");
	exec(&c, "PRAGMA cache_size = -8192");
	create_schema(&c);
	insert_rows(&c);
	point_selects(&c);
	range_scans(&c);
	joins(&c);
	updates_and_deletes(&c);
	totals(&c);
	close_db(&c);
	printf("%s: checksum %016llx, %ld operations\n", what, (unsigned long long)c.sum, c.ops);
}

UNGATED int main(int argc, char **argv)
{
	const char *file = NULL;
	long rows = 200000;
	uint64_t seed = 42;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--db"))
			file = argv[i + 1];
		else if (!strcmp(argv[i], "--rows"))
			rows = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else
			break;
	}
	if (!file || rows < 100 || argc % 2 == 0) {
		fprintf(stderr, "usage: driver --db FILE [--rows N>=100] [--seed S]\n");
		return 2;
	}
	if (unlink(file) != 0 && access(file, F_OK) == 0) {
		perror(file);
		return 1;
	}
	run(":memory:", "memory", rows, seed);
	run(file, "disk", rows, seed + 1);
	return 0;
}
