-- pathprof capture on SQLite (tests/capture/sqlite.sh): what the sqlite3 shell runs
-- while recorded: tables, an index, inserts in transactions, indexed
-- queries, a join, updates, deletes, blobs read back (.mode quote) and
-- .dump (sqlite3_exec with a callback).
PRAGMA synchronous=OFF;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB);
CREATE INDEX t_name ON t(name);
BEGIN;
INSERT INTO t(name, score, data) VALUES('alpha', 1.5, x'00ff10');
INSERT INTO t(name, score, data) VALUES('beta', 2.25, x'deadbeef');
INSERT INTO t(name, score, data) VALUES('gamma', NULL, NULL);
COMMIT;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<20000) INSERT INTO t(name, score) SELECT 'row' || i, i * 0.5 FROM n;
COMMIT;
SELECT id, name, score FROM t WHERE name = 'beta';
SELECT count(*), sum(score) FROM t WHERE name LIKE 'row1%';
SELECT count(*) FROM t AS a JOIN t AS b ON a.name = b.name WHERE a.id % 3 = 0;
UPDATE t SET score = score * 2 WHERE id % 7 = 0;
DELETE FROM t WHERE id % 11 = 0;
SELECT name, score FROM t WHERE id < 12 ORDER BY id;
SELECT name, score FROM t WHERE name BETWEEN 'row500' AND 'row505' ORDER BY name;
.mode quote
SELECT id, data FROM t WHERE data IS NOT NULL;
.mode list
.dump t
