#!/usr/bin/env python3
"""Man pages for pathprof and each of its commands, made at build time from
the commands' own --help, so the page and the help can never disagree.

usage: manpage.py PATHPROF VERSION OUTDIR
Writes OUTDIR/pathprof.1 and OUTDIR/pathprof-COMMAND.1 for every command the
top-level help lists, and OUTDIR/pathprof-cc.1 from the wrapper's --help when
a PATHPROF_CC environment variable names it."""
import datetime
import os
import re
import subprocess
import sys


def roff(text):
    """Escape a line of help text for roff: backslashes, and a leading dot
    or quote that roff would take for a request."""
    text = text.replace("\\", "\\e")
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def page(name, section_title, version, help_text, see_also, what):
    lines = help_text.rstrip("\n").split("\n")
    usage = lines[0][len("usage: "):] if lines and lines[0].startswith("usage: ") else name
    body = lines[1:]
    epoch = os.environ.get("SOURCE_DATE_EPOCH")  # reproducible builds set it
    date = datetime.date.fromtimestamp(int(epoch)) if epoch else datetime.date.today()
    out = ['.TH "%s" "1" "%s" "pathprof %s" "%s"' % (name.upper(), date.isoformat(), version,
                                                     section_title),
           ".SH NAME", "%s \\- %s" % (name, what or summary(name, body)),
           ".SH SYNOPSIS", ".nf", roff(usage), ".fi", ".SH DESCRIPTION", ".nf"]
    # The help is laid out for a terminal: kept as it is (no filling), with
    # its option lists aligned as written.
    out += [roff(line) for line in body]
    out += [".fi", ".SH SEE ALSO", ", ".join("\\fB%s\\fR(1)" % s for s in see_also)]
    return "\n".join(out) + "\n"


def summary(name, body):
    for line in body:
        if line.strip():
            return line.strip().rstrip(".")
    return name


def main():
    pathprof, version, outdir = sys.argv[1:4]
    top = subprocess.run([pathprof, "--help"], capture_output=True, text=True, check=True).stdout
    commands = []
    whats = {"pathprof": "exact call-path profiles of C and C++ programs",
             "pathprof-cc": "build C and C++ with a pathprof injector"}
    in_list = False
    for line in top.split("\n"):
        if line.startswith("commands:"):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^  (\w+)\s+(.*)$", line)
            if not m:
                break
            commands.append(m.group(1))
            whats["pathprof-" + m.group(1)] = m.group(2)
    pages = {"pathprof": top}
    for c in commands:
        pages["pathprof-" + c] = subprocess.run([pathprof, c, "--help"], capture_output=True,
                                                text=True, check=True).stdout
    cc = os.environ.get("PATHPROF_CC")
    if cc:
        pages["pathprof-cc"] = subprocess.run([cc, "--help"], capture_output=True, text=True,
                                              check=True).stdout
    os.makedirs(outdir, exist_ok=True)
    names = sorted(pages)
    for name, text in pages.items():
        title = "pathprof manual"
        see = [n for n in names if n != name]
        with open(os.path.join(outdir, name + ".1"), "w") as f:
            f.write(page(name, title, version, text, see, whats.get(name)))


if __name__ == "__main__":
    main()
