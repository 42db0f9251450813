#!/usr/bin/env python3
"""Do the docs' per-gate cost figures match what the bench scripts measure?

#30 asks that every figure in the docs that states a gate's cost come from a
bench script and match it. The figures live in prose (the injector guide's
table, each getting-started guide's "Cost and caveats", the wrapper's
--help, the XRay reference's two shims), so this script knows
where each one is (a pattern around it) and which measure it states:
  - ns and instructions per gate on the feed example: bench/run.sh's
    overhead.json (BUILD/bench/overhead.json of the build it used);
  - instructions per gate on the parsers: bench/inlinstr.sh and
    bench/tailinstr.sh, run here on BUILD (callgrind, about 10 s).
Instructions must agree within 2 % (deterministic, but the bench builds its
own release runtime), nanoseconds within 15 % or 0.3 ns (medians on a noisy
VM; the docs round them). A figure whose pattern is no longer found fails
too: the prose changed and this list must follow.
Usage: bench/docfigures.py --build BUILD [--overhead FILE] [--write]
Prints one row a figure; exits 1 when any does not match. --write puts the
measured value in place of each figure that is off, with as many decimals as
the figure had (nanoseconds move with the host: rewrite them from a run whose
baseline IQR is small, and say in the commit which run it was).
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NUM = r"([0-9]+(?:\.[0-9]+)?)"
WS = r"\s+"


def bench_table(script, build):
    """{row label: (count-only, timed)} from a bench script's markdown table."""
    out = subprocess.run([os.path.join(ROOT, "bench", script), build], check=True,
                         capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(NUM, cells[1]) and re.fullmatch(NUM, cells[2]):
            rows[cells[0]] = (float(cells[1]), float(cells[2]))
    return rows


def measures(overhead, build):
    """Every measure a doc figure may state, by name."""
    ov = json.load(open(overhead))
    m = {}
    for row, t in ov["timing"].items():
        if "ns_gate" in t:
            m["ns:" + row] = t["ns_gate"]
    for row, c in ov["callgrind"].items():
        if "instr_gate" in c:
            m["instr:" + row] = c["instr_gate"]
    inl = bench_table("inlinstr.sh", build)
    key = next(k for k in inl if k.startswith("cyg"))
    m["inl:cyg-off"], m["inl:cyg-on"] = inl[key]
    m["inl:sel-off"], m["inl:sel-on"] = inl["kept under PATHPROF_FUNCTIONS"]
    tail = bench_table("tailinstr.sh", build)
    m["tail:xray-off"], m["tail:xray-on"] = tail["xray"]
    m["tail:xray-nt-off"], m["tail:xray-nt-on"] = tail["xray-no-tail-calls"]
    m["tail:cyg-off"], m["tail:cyg-on"] = tail["cyg"]
    return m


def G(*parts):
    return WS.join(parts)


# (doc, pattern with one group per figure, the measures in order)
FIGURES = []
for fe in ["raii", "cyg", "plugin"]:
    FIGURES.append(("docs/guides/injectors.md",
                    r"\| %s \| %s \| %s \| %s \| %s / %s \|" % (fe, NUM, NUM, NUM, NUM, NUM),
                    ["ns:%s-off" % fe, "ns:%s-on" % fe, "ns:%s-sample:64" % fe,
                     "instr:%s-off" % fe, "instr:%s-on" % fe]))
FIGURES += [
    ("docs/guides/injectors.md",
     r"\| xray \(armed\) \| %s \| %s \| %s \| %s / %s \|" % (NUM, NUM, NUM, NUM, NUM),
     ["ns:xray-off", "ns:xray-on", "ns:xray-sample:64", "instr:xray-off", "instr:xray-on"]),
    ("docs/guides/injectors.md",
     r"\| xray \(armed\), built `--xray-no-tail-calls` \| %s \| %s \| \| %s / %s \|"
     % (NUM, NUM, NUM, NUM),
     ["ns:xray-nt-off", "ns:xray-nt-on", "instr:xray-nt-off", "instr:xray-nt-on"]),
    ("docs/guides/injectors.md", r"\| xray \(built, not armed\) \| %s \|" % NUM, ["ns:xray-unarmed"]),
    ("docs/guides/injectors.md",
     r"\| uftrace record / XRay FDR, for comparison \| %s.%s / %s.%s \|" % (NUM, NUM, NUM, NUM),
     ["ns:uftrace-fin", "ns:uftrace-pg", "ns:xray-fdr-default", "ns:xray-fdr"]),
    ("docs/guides/getting-started-raii.md",
     G("about", NUM, "ns counting,", NUM, "ns timed,", NUM, r"ns sampled 1/64; in", "instructions",
       NUM, "counting,", NUM, "timed"),
     ["ns:raii-off", "ns:raii-on", "ns:raii-sample:64", "instr:raii-off", "instr:raii-on"]),
    ("docs/guides/getting-started-cyg.md",
     G("about", NUM, "ns counting,", NUM, r"ns timed over an uninstrumented build", r"\(bench/README.md,",
       r"`bench/run.sh`,", "the", "feed", r"example;", NUM, "and", NUM, r"instructions;", "on", "a", "parser",
       "whose", "small", "helpers", "gcc", r"inlines,", NUM, "and", NUM),
     ["ns:cyg-off", "ns:cyg-on", "instr:cyg-off", "instr:cyg-on", "inl:cyg-off", "inl:cyg-on"]),
    ("docs/guides/getting-started-plugin.md",
     G("about", NUM, "ns counting,", NUM, r"ns timed over an uninstrumented build", r"\(bench/README.md,",
       r"`bench/run.sh`,", "the", "feed", r"example;", NUM, "and", NUM, r"instructions\)"),
     ["ns:plugin-off", "ns:plugin-on", "instr:plugin-off", "instr:plugin-on"]),
    ("docs/guides/getting-started-xray.md",
     G("about", NUM, "ns counting,", NUM, "ns timed a gate over an uninstrumented", "build", "on", "the",
       "feed", "example", r"\(bench/README.md,", r"`bench/run.sh`;", NUM, "and", NUM, r"instructions\),",
       "and", NUM, "instructions a gate on a parser"),
     ["ns:xray-off", "ns:xray-on", "instr:xray-off", "instr:xray-on", "tail:xray-off"]),
    ("docs/guides/getting-started-xray.md",
     G(r"Built", r"`--xray-no-tail-calls`,", NUM, "and", NUM, "instructions", "on",
       "the", "feed", "example", "and", NUM, "on", "that", r"parser\."),
     ["instr:xray-nt-off", "instr:xray-nt-on", "tail:xray-nt-off"]),
    ("docs/guides/selection.md",
     G("on", "bench/inlparse.c", NUM, "instructions", "a", "gate", "counting", "only", "and", NUM,
       r"timed,", "against", NUM, "and", NUM, "without", "a", "selection"),
     ["inl:sel-off", "inl:sel-on", "inl:cyg-off", "inl:cyg-on"]),
    ("docs/guides/trace.md",
     G("about", NUM, "ns per gate counting only,", NUM, "ns timed,"),
     ["ns:raii-trace-off", "ns:raii-trace-on"]),
    ("docs/guides/trace.md", G("without", "the", "trace", NUM, "and", NUM + r"\)"),
     ["ns:raii-off", "ns:raii-on"]),
    ("docs/guides/getting-started-xray.md",
     G("about", NUM, "instructions", "a", "gate", "fewer", "on", "tail-calling", r"code,"),
     ["tail:xray-off-minus-nt"]),
    ("tools/pathprof-cc",
     G("about", NUM, "fewer", "instructions", "a", "gate", "on", "tail-calling"),
     ["tail:xray-off-minus-nt"]),
    ("docs/reference/xray.md",
     G("the", "lean", "shim", "costs", NUM, "instructions", "a", "gate", "counting", "only",
       "and", NUM, r"timed,", "and", NUM, "and", NUM, "built", r"`--xray-no-tail-calls`;", "cyg",
       "costs", NUM, "and", NUM),
     ["tail:xray-off", "tail:xray-on", "tail:xray-nt-off", "tail:xray-nt-on", "tail:cyg-off",
      "tail:cyg-on"]),
]


def matches(name, doc, got):
    if name.startswith("ns:"):
        return abs(doc - got) <= max(0.15 * got, 0.3)
    return abs(doc - got) <= max(0.02 * got, 0.5)


def formatted(doc_text, value):
    """value written with as many decimals as the documented figure has."""
    decimals = len(doc_text.split(".")[1]) if "." in doc_text else 0
    return "%.*f" % (decimals, value)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="the Meson build the parser benches run from")
    ap.add_argument("--overhead", help="bench/run.sh's overhead.json (default: "
                    "$PATHPROF_BENCH_BUILD or /tmp/pathprof-build-bench, bench/overhead.json)")
    ap.add_argument("--write", action="store_true",
                    help="rewrite every figure that is off with the measured value")
    a = ap.parse_args()
    overhead = a.overhead or os.path.join(
        os.environ.get("PATHPROF_BENCH_BUILD", os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                            "pathprof-build-bench")),
        "bench", "overhead.json")
    if not os.path.exists(overhead):
        sys.exit("docfigures: %s: not found (run bench/run.sh first)" % overhead)
    m = measures(overhead, os.path.abspath(a.build))
    m["tail:xray-off-minus-nt"] = m["tail:xray-off"] - m["tail:xray-nt-off"]
    bad = written = 0
    print("| doc | measure | documented | measured | |")
    print("|---|---|---:|---:|---|")
    for doc, pattern, names in FIGURES:
        path = os.path.join(ROOT, doc)
        text = open(path).read()
        hit = re.search(pattern, text)
        if not hit:
            print("| %s | %s | not found | | the prose changed: update bench/docfigures.py |"
                  % (doc, ", ".join(names)))
            bad += 1
            continue
        edits = []
        for i, (name, val) in enumerate(zip(names, hit.groups()), 1):
            doc_v = float(val)
            got = m.get(name)
            ok = got is not None and matches(name, doc_v, got)
            state = "ok" if ok else "MISMATCH"
            if not ok and a.write and got is not None:
                edits.append((hit.span(i), formatted(val, got)))
                state = "written: " + edits[-1][1]
            else:
                bad += not ok
            print("| %s | %s | %g | %s | %s |" % (doc, name, doc_v,
                                                  "-" if got is None else "%.1f" % got, state))
        # from the last figure back, so the earlier spans stay where they are
        for (start, end), new_text in reversed(edits):
            text = text[:start] + new_text + text[end:]
        if edits:
            with open(path, "w") as f:
                f.write(text)
            written += len(edits)
    if written:
        print("\n%d figure(s) rewritten" % written)
    print("\n%d figure(s) off" % bad if bad else "\nevery figure matches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
