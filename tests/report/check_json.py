#!/usr/bin/env python3
# Parses every JSON rendering of test_report back with a strict reader (UTF-8
# only, no NaN/Infinity, no duplicate keys) and checks it against the schema
# in docs/reference/cli.md: field types, consistency of counts, bins and name indices.
import json
import subprocess
import sys

exe = sys.argv[1]
errors = []


def err(msg):
    errors.append(msg)


def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in %r" % keys)
    return dict(pairs)


def bad_constant(name):
    raise ValueError("non-JSON constant " + name)


TOP = {"schema": int, "profile_version": int, "frontend": str, "command": str,
       "pid": int, "start_ns": int, "end_ns": int, "timing": str, "sample_n": int,
       "events": int, "records": int, "drops_table": int, "drops_depth": int,
       "unmatched": int, "threads": int, "drops_time": int, "drops_signal": int, "unprofiled_frames": int, "unprofiled_threads": int, "hist": dict, "names": list,
       "total_count": int, "total_paths": int, "selection": dict, "paths": list,
       "nodes": list}
INCL = ["count", "sum_ticks", "min_ticks", "max_ticks", "mean_ns", "min_ns",
        "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "bins"]
NODE = ["id", "calls", "self_ticks", "self_ns", "incl", "name_ids", "path"]


def check(case, doc):
    if set(doc) != set(TOP) | {"ticks_per_ns", "gated_ns", "service", "host", "build_id"}:
        err("%s: top-level keys %s" % (case, sorted(doc)))
        return
    for k, t in TOP.items():
        if not isinstance(doc[k], t):
            err("%s: %s is not %s" % (case, k, t.__name__))
    # who wrote it: three strings, or three nulls (a profile without them)
    who = [doc["service"], doc["host"], doc["build_id"]]
    if not (all(isinstance(w, str) for w in who) or all(w is None for w in who)):
        err("%s: service, host, build_id %r" % (case, who))
    if doc["schema"] != 2:
        err("%s: schema %r" % (case, doc["schema"]))
    if doc["selection"]["shown"] != len(doc["paths"]):
        err("%s: shown %d but %d paths" % (case, doc["selection"]["shown"], len(doc["paths"])))
    names = [n["name"] for n in doc["names"]]
    for p in doc["paths"]:
        if [names[i] for i in p["name_ids"]] != p["path"]:
            err("%s: path %s names do not match name_ids" % (case, p["id"]))
        if len(p["id"]) != 16 or int(p["id"], 16) < 0:
            err("%s: bad id %r" % (case, p["id"]))
    node_ids = {n["id"] for n in doc["nodes"]}
    for p in doc["paths"]:
        if (p["self_ns"] is None) != (p["id"] not in node_ids):
            err("%s: path %s has self_ns %r but its leaf node is %s"
                % (case, p["id"], p["self_ns"], "present" if p["id"] in node_ids else "absent"))
    ids = [n["id"] for n in doc["nodes"]]
    if ids != sorted(ids, key=lambda x: int(x, 16)) or len(ids) != len(set(ids)):
        err("%s: node ids not sorted and unique" % case)
    gated = 0
    for n in doc["nodes"]:
        if list(n) != NODE:
            err("%s: node keys %s" % (case, list(n)))
            continue
        if [names[i] for i in n["name_ids"]] != n["path"]:
            err("%s: node %s names do not match name_ids" % (case, n["id"]))
        s = n["incl"]
        if list(s) != INCL:
            err("%s: incl keys %s" % (case, list(s)))
            continue
        if s["count"] != n["calls"]:
            err("%s: node %s calls %d but %d timed" % (case, n["id"], n["calls"], s["count"]))
        if n["self_ticks"] > s["sum_ticks"]:
            err("%s: node %s self above inclusive" % (case, n["id"]))
        gated += n["self_ns"]
        if sum(c for _, c in s["bins"]) != s["count"]:
            err("%s: node %s bins do not sum to count" % (case, n["id"]))
        buckets = [b for b, _ in s["bins"]]
        if buckets != sorted(set(buckets)) or any(b >= doc["hist"]["buckets"] for b in buckets):
            err("%s: node %s bins not increasing or out of range" % (case, n["id"]))
        if not (s["min_ns"] <= s["p50_ns"] <= s["p90_ns"] <= s["p99_ns"]
                <= s["p999_ns"] <= s["max_ns"]):
            err("%s: node %s percentiles out of order" % (case, n["id"]))
    if abs(gated - doc["gated_ns"]) > 1e-3 * max(1.0, gated) + len(doc["nodes"]):
        err("%s: gated_ns %r but node self times sum to %r" % (case, doc["gated_ns"], gated))


cases = subprocess.run([exe, "--list"], check=True, capture_output=True).stdout.decode().split()
jsons = [c for c in cases if c.endswith(".json")]
if not jsons:
    err("no JSON cases")
for case in jsons:
    raw = subprocess.run([exe, "--print", case], check=True, capture_output=True).stdout
    try:
        doc = json.loads(raw.decode("utf-8", errors="strict"),
                         object_pairs_hook=no_dups, parse_constant=bad_constant)
    except ValueError as e:
        err("%s: not valid JSON: %s" % (case, e))
        continue
    check(case, doc)
    if case == "weird.json":
        got = [n["name"] for n in doc["names"]]
        want = ['root "q"', "back\\slash", "nl\nand\ttab\x01", "bad\ufffd\ufffd\ufffdutf8",
                "caf\u00e9 \u65e5\U0001F600", "a|b", "operator>", "\ufffd\ufffd\ufffdsurrogate"]
        if got != want:
            err("weird.json: names decode to %r" % got)
        if doc["command"] != 'prog "arg"\x7f' or doc["ticks_per_ns"] is not None:
            err("weird.json: command %r, ticks_per_ns %r" % (doc["command"], doc["ticks_per_ns"]))

for e in errors:
    print("FAIL:", e)
print("%d JSON renderings checked, %d failures" % (len(jsons), len(errors)))
sys.exit(1 if errors else 0)
