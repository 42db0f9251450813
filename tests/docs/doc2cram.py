#!/usr/bin/env python3
"""Turn the runnable blocks of a Markdown page into a cram test (Debian's
python3-cram runs it and compares every output): fenced blocks whose info
string is `console` are a reader's terminal: `$ ` starts a command, `> `
right after it continues it (as a shell prompts), every other line is what
it prints; `[N]` alone on a line is the exit status of a command that fails. In
an output line, `…` stands for any text (times, pids, addresses: what
changes from run to run); it becomes a cram glob. Blocks of other kinds
(`sh`, `c`, none) are illustrations and are not run.

The page runs in a scratch directory holding a copy of examples/, with the
build tree's pathprof, pathprof-cc and pathprof-c++ first on PATH and its
pkg-config modules on PKG_CONFIG_PATH, as docs/guides/worked-example.md tells a
reader to set up.
usage: doc2cram.py PAGE.md SRCROOT BUILDROOT > PAGE.t
"""
import re
import sys

page, src, build = sys.argv[1:4]
out = []
out.append("The runnable blocks of %s, run as a reader would (tests/docs).\n" % page)
out.append("  $ mkdir bin && ln -s %s/tools/pathprof bin/pathprof" % build)
out.append("  $ ln -s %s/tools/pathprof-cc-uninstalled bin/pathprof-cc" % build)
out.append("  $ ln -s %s/tools/pathprof-c++-uninstalled bin/pathprof-c++" % build)
out.append("  $ export PATH=$PWD/bin:$PATH PKG_CONFIG_PATH=%s/meson-uninstalled" % build)
out.append("  $ for v in $(env | sed -n 's/^\\(PATHPROF_[A-Z_]*\\)=.*/\\1/p'); do unset $v; done")
out.append("  $ cp -r %s/examples . && chmod -R u+w examples" % src)
out.append("")

in_block = False
runnable = False
pending = None  # the last line was a command or its continuation
for n, line in enumerate(open(page, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    fence = re.match(r"^```(\S*)", line)
    if fence:
        if not in_block:
            in_block, runnable = True, fence.group(1) == "console"
            if runnable:
                out.append("%s, line %d:" % (page.split("/")[-1], n))
        else:
            if runnable:
                out.append("")
            in_block = runnable = False
        continue
    if not (in_block and runnable):
        continue
    if line.startswith("$ "):
        out.append("  $ " + line[2:])
        pending = True
        continue
    if pending and line.startswith("> "):
        out.append("  > " + line[2:])
        continue
    pending = None
    if "\u2026" in line:
        out.append("  " + line.replace("*", "\\*").replace("?", "\\?").replace("\u2026", "*")
                   + " (glob)")
    else:
        out.append("  " + line if line else "  ")
if in_block:
    sys.exit("%s: a fenced block is not closed" % page)
print("\n".join(out))
