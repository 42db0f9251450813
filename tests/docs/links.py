#!/usr/bin/env python3
"""Every relative link of README.md, tests/README.md, bench/README.md and
the pages under docs/ names a file that exists (the pages move between
docs/guides, docs/reference and docs/internals; a link left behind fails
here). usage: links.py SRCROOT"""
import os
import re
import sys

root = sys.argv[1]
pages = [os.path.join(root, p) for p in ("README.md", "tests/README.md", "bench/README.md")]
for d, _, fs in os.walk(os.path.join(root, "docs")):
    pages += [os.path.join(d, f) for f in fs if f.endswith(".md")]
bad = 0
for page in pages:
    text = open(page, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code is not a link
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:|#", target):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(page), target.split("#")[0]))
        if not os.path.exists(path):
            print("%s: link to %s: no such file" % (os.path.relpath(page, root), target))
            bad += 1
print("links: %d bad" % bad)
sys.exit(1 if bad else 0)
