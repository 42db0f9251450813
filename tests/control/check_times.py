#!/usr/bin/env python3
"""Node times of a profile (its JSON export) against what the program measured
itself ('~' lines of ctl's output): '~run NS' the wall time of the gated run;
'~a>b CALLS INCL_NS SELF_NS' a node's calls, and the nanoseconds its spins
took, inclusive and self ('-': not checked). Checks: calls exact; times within
2% (or one tick); self times of all nodes sum exactly, in ticks, to the roots'
inclusive time; no node's inclusive or self time above the run.
usage: check_times.py PROFILE.json CTL_OUTPUT"""
import json
import sys

doc = json.load(open(sys.argv[1]))
want = [l[1:].split() for l in open(sys.argv[2]) if l.startswith("~")]
tpn = doc["ticks_per_ns"]
nodes = {">".join(n["path"]): n for n in doc["nodes"]}
fails = []
run = None
for w in want:
    if w[0] == "run":
        run = int(w[1])
        continue
    name, calls, incl, self = w
    n = nodes.get(name)
    if not n:
        fails.append("node %s missing" % name)
        continue
    if n["calls"] != int(calls):
        fails.append("%s: %d calls, expected %s" % (name, n["calls"], calls))
    for what, got, exp in (("inclusive", n["incl"]["sum_ticks"] / tpn, incl), ("self", n["self_ns"], self)):
        if exp == "-":
            continue
        exp = int(exp)
        tol = max(0.02 * exp, 1 / tpn)
        if abs(got - exp) > tol:
            fails.append("%s: %s %.0f ns, expected %d +- %.0f" % (name, what, got, exp, tol))
roots = sum(n["incl"]["sum_ticks"] for n in doc["nodes"] if len(n["path"]) == 1)
selfs = sum(n["self_ticks"] for n in doc["nodes"])
if roots != selfs:
    fails.append("self times sum to %d ticks, the roots' inclusive time is %d" % (selfs, roots))
for n in doc["nodes"]:
    if run is not None and (n["incl"]["sum_ticks"] / tpn > run or n["self_ns"] > run):
        fails.append("%s: a time above the run (%d ns)" % (">".join(n["path"]), run))
if run is not None and doc["gated_ns"] > run:
    fails.append("gated time %.0f ns above the run %d ns" % (doc["gated_ns"], run))
for f in fails:
    print("check_times: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
