#!/usr/bin/env python3
"""Check the counters and names of one SQLite e2e profile (its JSON report).

A C program's gates must all be named as plain C identifiers: an address
(0x..., module+0x...) means the symbolizer missed one. Static functions of
SQLite and of the driver must be among them. Every operation of the driver
is one event, rooted at one of its operation functions. Prints one summary
line (distinct paths, deepest path, records, drops) or what is wrong; exit 1
then.
usage: check_profile.py PROFILE.json FRONTEND DRIVER-STDOUT
"""
import json
import re
import sys

# static in sqlite3.c (B-tree, pager, VDBE record code) and in driver.c
STATICS = ["balance_nonroot", "btreeBeginTrans", "pager_write", "vdbeRecordCompareInt", "insert_order"]
# the driver's gated operations, called from ungated loops: the only roots
OPS = {"exec", "prepare", "finish", "open_db", "close_db", "insert_customer",
       "insert_order", "query1", "query2"}


def main():
    path, frontend, out = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path) as f:
        prof = json.load(f)
    with open(out) as f:
        ops = sum(int(m) for m in re.findall(r", (\d+) operations$", f.read(), re.M))
    errs = []
    if prof["frontend"] != frontend:
        errs.append("frontend %r, expected %r" % (prof["frontend"], frontend))
    for key in ("drops_table", "drops_depth", "unmatched"):
        if prof[key] != 0:
            errs.append("%s = %d" % (key, prof[key]))
    if prof["events"] != ops or ops == 0:
        errs.append("events = %d, expected %d (the driver's operations)" % (prof["events"], ops))
    paths = prof["paths"]
    total = sum(p["count"] for p in paths)
    if prof["records"] != total:
        errs.append("records %d != sum of path counts %d" % (prof["records"], total))
    names = [n["name"] for n in prof["names"]]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n)]
    if bad:
        errs.append("%d names are not resolved C identifiers, e.g. %s" % (len(bad), bad[:3]))
    gone = [s for s in STATICS if s not in names]
    if gone:
        errs.append("static functions not named: %s" % gone)
    roots = set(p["path"][0] for p in paths) - OPS
    if roots:
        errs.append("paths rooted elsewhere than at an operation: %s" % sorted(roots)[:3])
    if errs:
        print("; ".join(errs))
        return 1
    deepest = max(paths, key=lambda p: len(p["path"]))
    print("%d events, %d paths, deepest %d (leaf %s), %d records, %d names, 0 drops"
          % (ops, len(paths), len(deepest["path"]), deepest["path"][-1], total, len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
