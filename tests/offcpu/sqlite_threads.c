/* A multi-threaded load on SQLite (its amalgamation, fetched from npm, not
 * written here), for `pathprof run --offcpu` on a real program: W threads,
 * each on its own connection to one WAL database with synchronous=FULL,
 * commit small transactions for D seconds. They block on the write lock
 * (SQLite's busy handler sleeps), on fsync at every commit, and on SQLite's
 * own mutexes. Prints "transactions N per_second R".
 * usage: sqlite_threads DB THREADS SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sqlite3.h"

static const char *db_path;
static double seconds;
static long total;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "sqlite_threads: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

static int commit_one(sqlite3 *db, sqlite3_stmt *ins, long id)
{
	check(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), db, "begin");
	for (int i = 0; i < 20; i++) {
		sqlite3_bind_int64(ins, 1, id * 100 + i);
		sqlite3_bind_text(ins, 2, "a row of the off-CPU load", -1, SQLITE_STATIC);
		check(sqlite3_step(ins), db, "insert");
		sqlite3_reset(ins);
	}
	check(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), db, "commit");
	return 1;
}

static void *worker(void *arg)
{
	long me = (long)arg, n = 0;
	sqlite3 *db;
	sqlite3_stmt *ins;
	check(sqlite3_open(db_path, &db), NULL, "open");
	sqlite3_busy_timeout(db, 10000);
	check(sqlite3_exec(db, "PRAGMA synchronous=FULL", NULL, NULL, NULL), db, "pragma");
	check(sqlite3_prepare_v2(db, "INSERT INTO t(id, v) VALUES (?, ?)", -1, &ins, NULL), db,
	      "prepare");
	double end = now() + seconds;
	while (now() < end)
		n += commit_one(db, ins, me * 100000000L + n);
	sqlite3_finalize(ins);
	sqlite3_close(db);
	pthread_mutex_lock(&total_lock);
	total += n;
	pthread_mutex_unlock(&total_lock);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: sqlite_threads DB THREADS SECONDS\n");
		return 2;
	}
	db_path = argv[1];
	int threads = atoi(argv[2]);
	seconds = atof(argv[3]);
	sqlite3 *db;
	check(sqlite3_open(db_path, &db), NULL, "open");
	check(sqlite3_exec(db, "PRAGMA journal_mode=WAL; DROP TABLE IF EXISTS t;"
			   "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)", NULL, NULL, NULL),
	      db, "create");
	sqlite3_close(db);
	pthread_t t[64];
	double t0 = now();
	for (long i = 0; i < threads && i < 64; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < threads && i < 64; i++)
		pthread_join(t[i], NULL);
	double dt = now() - t0;
	printf("transactions %ld per_second %.1f\n", total, (double)total / dt);
	return 0;
}
