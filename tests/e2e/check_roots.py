#!/usr/bin/env python3
"""PATHPROF_ROOT on a real program, checked exactly against the same run
without it (tests/e2e/sqlite.sh). Every leaf return made while a ROOT frame
is open belongs, under PATHPROF_ROOT=ROOT, to the event of the outermost
such frame: its path is the plain run's path from the first ROOT on. So the
paths that start with ROOT in the rooted run are, count for count, the
suffixes from the first ROOT of the plain run's paths that contain it.
Prints one summary line, or what differs; exit 1 then.
usage: check_roots.py ROOT PLAIN.paths ROOTED.paths
"""
import collections
import sys


def read(path):
    out = collections.Counter()
    with open(path) as f:
        for line in f:
            count, names = line.rstrip("\n").split("|", 1)
            out[tuple(names.split(">"))] += int(count)
    return out


def main():
    root, plain_file, rooted_file = sys.argv[1:]
    plain, rooted = read(plain_file), read(rooted_file)
    want = collections.Counter()
    for names, count in plain.items():
        if root in names:
            want[names[names.index(root):]] += count
    got = collections.Counter({n: c for n, c in rooted.items() if n[0] == root})
    if not want:
        print("no path of %s runs through %s: nothing was checked" % (plain_file, root))
        return 1
    if want != got:
        for names in sorted(set(want) | set(got)):
            if want[names] != got[names]:
                print("%s: expected %d, got %d" % (">".join(names), want[names], got[names]))
        return 1
    # A ROOT entered in an event not rooted at ROOT starts an event.
    stray = sum(c for n, c in rooted.items() if n[0] != root and root in n)
    if stray:
        print("%d leaf returns have %s below another root: it started no event" % (stray, root))
        return 1
    nested = sum(c for n, c in got.items() if root in n[1:])
    print("%d paths, %d leaf returns rooted at %s (%d inside a nested %s), as the plain run's "
          "suffixes" % (len(got), sum(got.values()), root, nested, root))
    return 0


if __name__ == "__main__":
    sys.exit(main())
