#!/usr/bin/env python3
"""What exporting the live segment (on by default: the data `pathprof recover`
reads after a kill; PATHPROF_SHM=off turns it off) costs: process start-up to exit
with one gate, and the extra time of a path's first run (bench/newpath.c),
each without and with the segment. Rounds alternate the two so drift hits
both alike; medians and the interquartile range are printed as Markdown rows.
usage: newpath.py BUILD [ROUNDS]"""
import os
import re
import statistics
import subprocess
import sys
import time


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return statistics.median(xs), q[2] - q[0]


def main():
    build = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    prog = os.path.join(build, "bench", "newpath")
    base = dict(os.environ, PATHPROF_OUT="/dev/null")
    envs = {"off": dict(base, PATHPROF_SHM="off"),
            "segment (default)": dict(base, PATHPROF_SHM="pp-bench-newpath.%p")}
    start = {k: [] for k in envs}
    newp = {k: [] for k in envs}
    for _ in range(rounds):
        for name, env in envs.items():
            t0 = time.perf_counter()
            subprocess.run([prog, "one"], env=env, check=True)
            start[name].append((time.perf_counter() - t0) * 1e3)
            out = subprocess.run([prog], env=env, check=True, capture_output=True, text=True).stdout
            m = re.search(r"per_new_path_ns=([0-9.]+)", out)
            newp[name].append(float(m.group(1)))
    print("| export | start-up to exit, one gate (ms) | IQR | first run of a path over later runs (ns) | IQR |")
    print("|---|---:|---:|---:|---:|")
    for name in envs:
        s, si = quartiles(start[name])
        n, ni = quartiles(newp[name])
        print(f"| {name} | {s:.2f} | {si:.2f} | {n:.0f} | {ni:.0f} |")


if __name__ == "__main__":
    main()
