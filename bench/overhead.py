#!/usr/bin/env python3
"""The overhead table: what each pathprof front-end and timing mode, and each
peer a user would pick instead (uftrace record, XRay FDR), costs the feed
example over an uninstrumented baseline, measured side by side in one run.

Builds one feed variant per row against a pathprof Meson build, counts the
gates per event exactly (a counting build, checked against feed --expect),
then runs baseline and row alternately (A B A B ...) pinned to one CPU and
reports medians and IQRs; adds instructions from callgrind, the scaling run
and the memory figures (bench/scale). Writes overhead.md and overhead.json.
Usage: overhead.py --build DIR [--quick] [--out DIR] [--cpu N] [--rounds N]
"""
import argparse
import fnmatch
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FEED = os.path.join(ROOT, "examples", "feed")
FEED_SRC = ["book.c", "decode.c", "expect.c", "gen.c", "strategy.c"]  # main.c apart
SEED = "1"
MODES = [("off", "count-only"), ("on", "timed"), ("sample:64", "sampled 1/64")]
FDR_OPTS = "patch_premain=true xray_mode=xray-fdr verbosity=0 xray_logfile_base="


def log(msg):
    print("overhead: " + msg, file=sys.stderr, flush=True)


def die(msg):
    print("overhead: " + msg, file=sys.stderr)
    sys.exit(1)


def quantiles(v):
    """(q1, median, q3) of v, by the same interpolation for every row."""
    if len(v) == 1:
        return v[0], v[0], v[0]
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


class Tools:
    """Compilers, libraries and peers; a missing one disables its rows with a reason."""

    def __init__(self, build):
        self.build = build
        self.clang = os.environ.get("BENCH_CLANG", "clang")
        self.rt = os.path.join(build, "runtime", "libpathprof.a")
        # the hooks built for executables, as pathprof-cc links a program
        self.cyg = os.path.join(build, "frontends", "cyg", "libpathprof-cyg-exe.a")
        self.xray = os.path.join(build, "frontends", "xray", "libpathprof-xray.a")
        self.shim = os.path.join(build, "frontends", "plugin", "libpathprof-plugin-exe.a")
        self.plugin = os.path.join(build, "frontends", "plugin", "pathprof-plugin.so")
        self.cli = os.path.join(build, "tools", "pathprof")
        self.scale = os.path.join(build, "bench", "scale")
        self.pclang = os.environ.get("BENCH_PLUGIN_CLANG") or self._plugin_clang()
        self.missing = {}
        for what, path in [("runtime", self.rt), ("cyg", self.cyg), ("xray", self.xray),
                           ("plugin", self.plugin), ("plugin", self.shim), ("cli", self.cli),
                           ("scale", self.scale)]:
            if not os.path.exists(path):
                self.missing.setdefault(what, "%s not built" % path)
        if not shutil.which(self.clang):
            self.missing["clang"] = "%s not found" % self.clang
        for tool, pkg in [("uftrace", "uftrace"), ("valgrind", "valgrind"), ("taskset", "util-linux")]:
            if not shutil.which(tool):
                self.missing[tool] = "%s not found (Debian package %s)" % (tool, pkg)

    def _plugin_clang(self):
        # The plugin loads only into the clang of the LLVM it was built against.
        try:
            bindir = subprocess.run(["llvm-config", "--bindir"], capture_output=True,
                                    text=True, check=True).stdout.strip()
            if os.path.exists(os.path.join(bindir, "clang")):
                return os.path.join(bindir, "clang")
        except (OSError, subprocess.CalledProcessError):
            pass
        return "clang"


def recipe(name, plugin=""):
    """An injector's compile and link flags from frontends/recipes.txt, the
    table the pkg-config modules and the CMake package are made from."""
    with open(os.path.join(ROOT, "frontends", "recipes.txt"), encoding="utf-8") as f:
        for line in f:
            fields = [x.strip() for x in line.split("|")]
            if not line.lstrip().startswith("#") and len(fields) == 5 and fields[0] == name:
                return ([w.replace("@plugin@", plugin) for w in fields[2].split()],
                        fields[3].split())
    raise SystemExit("overhead: no injector %r in frontends/recipes.txt" % name)


def variants(t):
    """Feed builds: name -> (compiler, compile flags, extra sources, link flags)."""
    libs = [t.rt, "-ldw", "-lelf", "-lpthread", "-ldl", "-lm"]
    whole = lambda a: ["-Wl,--whole-archive", a, "-Wl,--no-whole-archive"]
    xr, xr_link = recipe("xray")
    cyg = recipe("cyg")[0]
    bench = os.path.join(ROOT, "bench")
    v = {
        "base": (t.clang, [], [], []),
        "raii": (t.clang, ["-DFEED_RAII"] + recipe("raii")[0], [], libs),
        "cyg": (t.clang, ["-DFEED_PATHPROF"] + cyg, [], whole(t.cyg) + libs),
        "xray": (t.clang, ["-DFEED_PATHPROF"] + xr, [], xr_link + whole(t.xray) + libs),
        # as `pathprof-cc --xray-no-tail-calls` builds it: no tail sled, so
        # the shim leaves out its tail tests (docs/reference/xray.md)
        "xraynt": (t.clang, ["-DFEED_PATHPROF", "-fno-optimize-sibling-calls"] + xr, [],
                   xr_link + whole(t.xray) + libs),
        # -fplugin as well: clang knows the plugin's -mllvm options only then
        "plugin": (t.pclang, ["-DFEED_PATHPROF", "-fplugin=" + t.plugin] + recipe("plugin", t.plugin)[0] +
                   ["-mllvm", "-pathprof-mode=all"], [], whole(t.shim) + libs),
        "pg": (t.clang, ["-pg"], [], []),
        "fin": (t.clang, cyg, [], []),
        "fdr": (t.clang, ["-DBENCH_XRAY_FDR"] + xr, [], []),
        "count": (t.clang, ["-DFEED_PATHPROF", "-DBENCH_COUNT"] + cyg,
                  [os.path.join(bench, "gatecount.c")], []),
    }
    need = {"raii": "runtime", "cyg": "cyg", "xray": "xray", "xraynt": "xray", "plugin": "plugin"}
    for name, what in need.items():
        if what in t.missing or "runtime" in t.missing:
            del v[name]
    return v


def build_one(t, name, spec, outdir):
    cc, flags, extra, link = spec
    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    # DWARF 4: valgrind 3.19 cannot read clang 14's DWARF 5
    common = [cc, "-std=gnu11", "-O2", "-gdwarf-4", "-Wall", "-Wextra", "-Werror",
              "-I" + os.path.join(ROOT, "runtime", "include"),
              "-I" + os.path.join(ROOT, "frontends", "raii"),
              "-I" + os.path.join(ROOT, "frontends", "plugin"), "-I" + FEED] + flags
    mainobj = os.path.join(d, "feed-main.o")
    steps = [common + ["-Dmain=feed_main", "-c", os.path.join(FEED, "main.c"), "-o", mainobj],
             common + [os.path.join(FEED, s) for s in FEED_SRC] + extra +
             [os.path.join(ROOT, "bench", "feedbench.c"), mainobj, "-o", os.path.join(d, "feed")] + link]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            return name, "build failed: %s\n%s" % (" ".join(cmd), r.stderr[-2000:])
    return name, None


def build_all(t, outdir):
    vs = variants(t)
    log("building %d feed variants (%s) in %s" % (len(vs), " ".join(vs), outdir))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        res = list(ex.map(lambda kv: build_one(t, kv[0], kv[1], outdir), vs.items()))
    failed = {n: e for n, e in res if e}
    for n, e in failed.items():
        log("%s: %s" % (n, e))
    if "base" in failed or "count" in failed:
        die("the baseline and the counting build are needed")
    return {n: os.path.join(outdir, n, "feed") for n in vs if n not in failed}, failed


def rows_for(exes, t, work):
    """The table's rows: id, label, front-end, mode, program, env, command prefix."""
    rows = [dict(id="base", label="baseline (no instrumentation)", fe="-", mode="-", exe=exes["base"],
                 env={}, pre=[])]
    for fe in ["raii", "cyg", "xray", "plugin"]:
        if fe not in exes:
            continue
        for val, mode in MODES:
            env = {"PATHPROF_TIMING": val, "PATHPROF_OUT": os.path.join(work, "%s-%s.pathprof" % (fe, val))}
            if fe == "xray":
                env["PATHPROF_XRAY"] = "all"
            rows.append(dict(id="%s-%s" % (fe, val), label="pathprof %s, %s" % (fe, mode), fe=fe, mode=mode,
                             exe=exes[fe], env=env, pre=[]))
    # what recording every gate event costs on top (docs/guides/trace.md)
    if "raii" in exes:
        for val, mode in MODES[:2]:
            env = {"PATHPROF_TIMING": val, "PATHPROF_OUT": os.path.join(work, "raii-trace-%s.pathprof" % val),
                   "PATHPROF_TRACE": os.path.join(work, "raii-trace-%s.pptrace" % val)}
            rows.append(dict(id="raii-trace-%s" % val, label="pathprof raii, %s, recorded (PATHPROF_TRACE)" % mode,
                             fe="raii", mode=mode + ", recorded", exe=exes["raii"], env=env, pre=[]))
    if "xraynt" in exes:
        for val, mode in MODES[:2]:
            env = {"PATHPROF_TIMING": val, "PATHPROF_XRAY": "all",
                   "PATHPROF_OUT": os.path.join(work, "xraynt-%s.pathprof" % val)}
            rows.append(dict(id="xray-nt-%s" % val, label="pathprof xray, %s, no tail calls" % mode,
                             fe="xray", mode=mode + ", no tail calls", exe=exes["xraynt"], env=env, pre=[]))
    if "xray" in exes:
        rows.append(dict(id="xray-unarmed", label="pathprof xray, built, not armed", fe="xray", mode="unarmed",
                         exe=exes["xray"], env={"PATHPROF_OUT": os.path.join(work, "unarmed.pathprof")}, pre=[]))
    if "uftrace" not in t.missing:
        for v, how in [("pg", "-pg"), ("fin", "-finstrument-functions")]:
            if v in exes:
                rows.append(dict(id="uftrace-" + v, label="uftrace record (%s)" % how, fe="peer", mode="trace",
                                 exe=exes[v], env={},
                                 pre=["uftrace", "record", "--no-libcall", "-d", os.path.join(work, "uftrace." + v)]))
    if "fdr" in exes:
        base = os.path.join(work, "fdr") + "/"
        rows.append(dict(id="xray-fdr", label="XRay FDR mode (every call kept)", fe="peer", mode="trace",
                         exe=exes["fdr"], env={"XRAY_OPTIONS": FDR_OPTS + base,
                                               "XRAY_FDR_OPTIONS": "func_duration_threshold_us=0"}, pre=[]))
        rows.append(dict(id="xray-fdr-default", label="XRay FDR mode (default: calls < 5 us dropped)", fe="peer",
                         mode="trace", exe=exes["fdr"], env={"XRAY_OPTIONS": FDR_OPTS + base}, pre=[]))
    return rows


def run_feed(row, cpu, warm, n, wrap=None, check=True, passes=1):
    """Runs one row's program; returns its stderr's feedbench figures, ns
    being the fastest of its timed passes."""
    env = dict(os.environ)
    for k in ("PATHPROF_TIMING", "PATHPROF_XRAY", "PATHPROF_OUT", "PATHPROF_SHM", "PATHPROF_TRACE",
              "XRAY_OPTIONS", "XRAY_FDR_OPTIONS"):
        env.pop(k, None)
    env.update(row["env"])
    cmd = (wrap or ["taskset", "-c", str(cpu)]) + row["pre"] + [row["exe"], str(warm), str(n), SEED, str(passes)]
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if "XRAY_OPTIONS" in row["env"]:  # FDR writes a log per run: keep none
        d = row["env"]["XRAY_OPTIONS"].rsplit("=", 1)[1]
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
    figs = {}
    ns = [int(v) for v in re.findall(r"^feedbench: ns=(\d+)", r.stderr, re.M)]
    if len(ns) == passes:
        figs["ns"] = min(ns)
    figs.update(re.findall(r"^feedbench: .*?\b(gates)=(\d+) (?:leaves)=\d+", r.stderr, re.M))
    figs.update(re.findall(r"^feedbench: .*?\b(leaves)=(\d+) (?:events)=\d+", r.stderr, re.M))
    figs.update(re.findall(r"^feedbench: .*?\b(events)=(\d+)$", r.stderr, re.M))
    if check and (r.returncode or "ns" not in figs):
        die("%s failed (exit %d):\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return {k: int(v) for k, v in figs.items()}, r


def expect(exes, n):
    r = subprocess.run([exes["base"], "--expect", str(n), SEED], capture_output=True, text=True, check=True)
    paths = {}
    for line in r.stdout.splitlines():
        c, p = line.split("|", 1)
        paths[p] = int(c)
    return paths


def exact_counts(exes, warm, n):
    """Gates, leaf returns and events of the timed pass, counted, and the leaf
    returns checked against feed's own oracle."""
    figs, _ = run_feed(dict(exe=exes["count"], env={}, pre=[]), 0, warm, n, wrap=[])
    want = sum(expect(exes, n).values())
    if figs["leaves"] != want or figs["events"] != n:
        die("counting build: %d leaf returns, %d events; feed --expect says %d, %d"
            % (figs["leaves"], figs["events"], want, n))
    return figs


def check_profile(t, row, exes, warm, n, passes):
    """A pathprof row must have counted right: its listing equals --expect for
    the warm-up plus the timed passes (an unarmed xray build records nothing)."""
    path = row["env"].get("PATHPROF_OUT")
    if not path or not os.path.exists(path):
        return False
    r = subprocess.run([t.cli, "report", "--format", "paths", path], capture_output=True, text=True)
    got = {}
    for line in r.stdout.splitlines():
        c, p = line.split("|", 1)
        got[p] = int(c)
    want = {}
    if row["mode"] != "unarmed":
        want = {p: c * passes for p, c in expect(exes, n).items()}
        for p, c in expect(exes, warm).items():
            want[p] = want.get(p, 0) + c
    return r.returncode == 0 and got == want


def timing(rows, cpu, warm, n, gates, rounds, passes):
    """rounds x (baseline, row) for every row, rows shuffled per round; each
    row's run is paired with the baseline run just before it."""
    base_ns, pairs = [], {r["id"]: [] for r in rows[1:]}
    rng = random.Random(12345)
    t0 = time.time()
    for k in range(rounds):
        order = rows[1:]
        rng.shuffle(order)
        for row in order:
            b = run_feed(rows[0], cpu, warm, n, passes=passes)[0]["ns"]
            x = run_feed(row, cpu, warm, n, passes=passes)[0]["ns"]
            base_ns.append(b)
            pairs[row["id"]].append((b, x))
        el = time.time() - t0
        log("timing round %d/%d (%.0f s, ~%.0f s left)" % (k + 1, rounds, el, el / (k + 1) * (rounds - k - 1)))
    out = {}
    q = quantiles([b / n for b in base_ns])
    out["base"] = dict(ns_event=q[1], ns_event_iqr=q[2] - q[0], runs=len(base_ns))
    for rid, ps in pairs.items():
        ev = quantiles([x / n for _, x in ps])
        gate = quantiles([(x - b) / gates for b, x in ps])
        ratio = quantiles([x / b for b, x in ps])
        out[rid] = dict(ns_event=ev[1], ns_event_iqr=ev[2] - ev[0], ns_gate=gate[1], ns_gate_q1=gate[0],
                        ns_gate_q3=gate[2], ns_gate_iqr=gate[2] - gate[0], ratio=ratio[1],
                        ratio_iqr=ratio[2] - ratio[0], runs=len(ps))
    return out


def rep_string_ir(out):
    """Instructions callgrind charged to the C library's string functions.
    valgrind counts every iteration of `rep stos`/`rep movs` as one
    instruction, so the feed's memset of each message looked like ~2 600
    instructions a message (3 093 in all) where the CPU runs one: the
    per-event figure leaves these functions out (the per-gate figure, a
    difference against the baseline, is the same either way)."""
    r = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
                       capture_output=True, text=True)
    total = 0
    for line in r.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s.*:(__)?(mem(set|cpy|move)|str\w+)_\w*\s", line)
        if m and "libc" in line:
            total += int(m.group(1).replace(",", ""))
    return total


def callgrind(rows, t, warm, n, gates, work):
    """Instructions of the timed pass only (--toggle-collect=timed_run)."""
    if "valgrind" in t.missing:
        return {}, t.missing["valgrind"]
    todo = [r for r in rows if not r["pre"]]

    def one(row):
        out = os.path.join(work, "callgrind.%s" % row["id"])
        wrap = ["valgrind", "--tool=callgrind", "--toggle-collect=timed_run", "--callgrind-out-file=" + out]
        # valgrind caps the address space; the runtime's arena shrinks to fit.
        figs, r = run_feed(row, 0, warm, n, wrap=wrap, check=False)
        if r.returncode or "ns" not in figs:
            return row["id"], None, "valgrind failed: " + r.stderr.strip().splitlines()[-1][:200]
        if re.search(r"^pathprof:", r.stderr, re.M):
            return row["id"], None, "pathprof warned under valgrind: " + \
                re.search(r"^pathprof:.*$", r.stderr, re.M).group(0)
        with open(out) as f:
            m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
        return row["id"], int(m.group(1)) - rep_string_ir(out), None

    log("callgrind: %d rows, %d messages each" % (len(todo), n))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        res = list(ex.map(one, todo))
    ir = {rid: v for rid, v, _ in res if v is not None}
    errs = {rid: e for rid, _, e in res if e}
    out = {}
    for rid, v in ir.items():
        d = dict(instr_event=v / n)
        if rid != "base" and "base" in ir:
            d["instr_gate"] = (v - ir["base"]) / gates
        out[rid] = d
    for rid, e in errs.items():
        out[rid] = dict(error=e)
        log("callgrind %s: %s" % (rid, e))
    return out, None


def run_scale(t, cpu, quick):
    if "scale" in t.missing:
        return [], t.missing["scale"]
    log("scaling run (bench/scale%s)" % (" --quick" if quick else ""))
    r = subprocess.run(["taskset", "-c", str(cpu), t.scale] + (["--quick"] if quick else []),
                       capture_output=True, text=True)
    m = subprocess.run(["taskset", "-c", str(cpu), t.scale, "--memory"], capture_output=True, text=True)
    if r.returncode or m.returncode:
        die("bench/scale failed:\n" + r.stderr[-1000:] + m.stderr[-1000:])
    return [json.loads(l) for l in (r.stdout + m.stdout).splitlines() if l.strip()], None


def sh(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, shell=True).stdout.strip()
    except OSError:
        return ""


def machine():
    cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read())
    flags = open("/proc/cpuinfo").read()
    return dict(cpu=cpu.group(1) if cpu else platform.processor(), cores=os.cpu_count(),
                tsc=" ".join(f for f in ("constant_tsc", "nonstop_tsc") if f in flags),
                kernel=platform.release(), os=sh(". /etc/os-release && echo $PRETTY_NAME"),
                clang=sh("clang --version | head -1"), uftrace=sh("uftrace --version | head -1"),
                valgrind=sh("valgrind --version"),
                commit=sh("git -C '%s' rev-parse --short HEAD" % ROOT) +
                ("+dirty" if sh("git -C '%s' status --porcelain -uno" % ROOT) else ""),
                load=os.getloadavg())


def fmt(x, d=2):
    return "-" if x is None else ("%.*f" % (d, x))


def targets(res, scale):
    """The issue's targets against this run's figures: information, not a test."""
    tm, out = res["timing"], []
    rdtsc = next((s["ns"] for s in scale if s["kind"] == "rdtsc pair"), None)
    g = lambda rid: tm.get(rid, {}).get("ns_gate")

    def add(what, value, limit, ok, note=""):
        out.append(dict(target=what, value=value, limit=limit, met=ok, note=note))

    for val, mode, lim in [("off", "count-only", 3.0), ("on", "timed", (rdtsc or 0) + 3.0),
                           ("sample:64", "sampled 1/64", 4.0)]:
        for fe in ["raii", "cyg", "xray", "plugin"]:
            v = g("%s-%s" % (fe, val))
            if v is not None:
                what = "%s, %s: ns/gate over baseline <= %s" % (fe, mode,
                                                                "rdtsc pair + 3" if val == "on" else "%g" % lim)
                add(what, v, lim, v <= lim)
    if g("xray-off") is not None and g("raii-off"):
        add("xray armed <= 2x the inline gate (count-only, xray/raii)", g("xray-off") / g("raii-off"), 2.0,
            g("xray-off") / g("raii-off") <= 2.0)
    u, b = tm.get("xray-unarmed"), tm.get("base")
    if u and b:
        # noise = the baseline's own spread between runs
        d = u["ns_event"] - b["ns_event"]
        add("xray unarmed within noise of baseline: ns/event, abs(unarmed - baseline) <= baseline IQR",
            abs(d), b["ns_event_iqr"], abs(d) <= b["ns_event_iqr"],
            "%.2f ns/gate; the unarmed sleds are jumps: see instr/gate" % u["ns_gate"])
    timed = [(g(r), r) for r in tm if r.endswith("-on") and g(r) is not None]
    sampled = [(g(r), r) for r in tm if r.endswith("-sample:64") and g(r) is not None]
    if timed:
        best, bid = min(timed)
        for peer in ["uftrace-pg", "uftrace-fin", "xray-fdr", "xray-fdr-default"]:
            if g(peer) is not None:
                s = min(sampled)[0] if sampled else None
                note = "cheapest timed-every-event row: %s" % bid
                if s:
                    note += "; cheapest sampled row is %.1fx cheaper" % (g(peer) / s)
                add("cheapest pathprof timed mode >= 5x cheaper per gate than %s" % peer,
                    g(peer) / best, 5.0, g(peer) / best >= 5.0, note)
    idle = next((s["bytes"] for s in scale if s["kind"] == "memory" and s["what"] == "idle thread"), None)
    if idle is not None:
        add("resident bytes per idle thread <= 64 KiB", idle, 65536, idle <= 65536)
    return out


def markdown(res):
    m, c = res["machine"], res["config"]
    L = []
    L.append("Machine: %s, %s cores (%s), %s, kernel %s; %s; load average %.1f at start, %.1f at end; "
             "pathprof %s." % (m["cpu"], m["cores"], m["tsc"], m["os"], m["kernel"], m["clang"],
                               m["load"][0], res["load_end"][0], m["commit"]))
    L.append("")
    L.append("Feed example, seed %s, one process per run pinned to CPU %d: %d messages of warm-up, then %d "
             "timed passes of %d messages (the fastest kept); %d rounds, each row run right after a baseline "
             "run (A B A C ...), rows in a new random order every round. Gates per event counted exactly: "
             "%.4f (%d gates, %d leaf returns = feed --expect, %d events per pass). ns/gate over baseline = "
             "(row - baseline) / gates, per pair; medians and IQRs over the rounds."
             % (c["seed"], c["cpu"], c["warmup"], c["passes"], c["messages"], c["rounds"],
                c["gates"] / c["messages"], c["gates"], c["leaves"], c["messages"]))
    L.append("")
    L.append("| row | ns/event | IQR | ns/gate over baseline | IQR | x baseline | instr/event | instr/gate | counts |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for row in res["rows"]:
        t = res["timing"].get(row["id"], {})
        cg = res["callgrind"].get(row["id"], {})
        ok = {True: "exact", False: "WRONG", None: ""}[row.get("counts_ok")]
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            row["label"], fmt(t.get("ns_event"), 1), fmt(t.get("ns_event_iqr"), 1), fmt(t.get("ns_gate")),
            fmt(t.get("ns_gate_iqr")), fmt(t.get("ratio")), fmt(cg.get("instr_event"), 1),
            fmt(cg.get("instr_gate"), 1), ok))
    L.append("")
    L.append("instr/*: valgrind --tool=callgrind on the timed pass alone (%d messages, --toggle-collect), "
             "deterministic; uftrace does not run under valgrind (-). counts: the profile's path listing "
             "equals feed --expect (for the unarmed build: is empty)." % c["callgrind_messages"])
    if res["skipped"]:
        L.append("")
        L.append("Not measured: " + "; ".join("%s (%s)" % kv for kv in sorted(res["skipped"].items())))
    sc = [s for s in res["scale"] if s["kind"] == "scale"]
    if sc:
        rd = next(s for s in res["scale"] if s["kind"] == "rdtsc pair")
        L.append("")
        L.append("Scaling (bench/scale: raii gates on synthetic chains, in-process A B batches, %d pairs): "
                 "ns per gate over baseline, median [IQR]; one leaf return per event." % sc[0]["reps"])
        L.append("")
        modes = [m for _, m in MODES]
        L.append("| depth | distinct paths | baseline ns/event | " + " | ".join(modes) + " |")
        L.append("|---:|---:|---:|" + "---:|" * len(modes))
        for d in (2, 8, 32):
            for p in (1, 100, 10000):
                cells = {s["mode"]: s for s in sc if s["depth"] == d and s["paths"] == p}
                if not cells:
                    continue
                base = statistics.median(s["base_ns_per_event"] for s in cells.values())
                L.append("| %d | %d | %.1f | %s |" % (d, p, base, " | ".join(
                    "%.2f [%.2f]" % (cells[m]["ns_per_gate"], cells[m]["q3"] - cells[m]["q1"]) if m in cells
                    else "-" for m in modes)))
        L.append("")
        L.append("rdtsc pair (two back-to-back reads) over an empty loop: %.2f ns." % rd["ns"])
    mem = [s for s in res["scale"] if s["kind"] == "memory"]
    if mem:
        L.append("")
        L.append("Memory (resident, /proc/self/statm): " + "; ".join(
            "%s: %.0f bytes" % (s["what"], s["bytes"]) for s in mem) + ".")
    if res["targets"]:
        L.append("")
        L.append("| target | measured | limit | |")
        L.append("|---|---:|---:|---|")
        for t in res["targets"]:
            L.append("| %s | %s | %s | %s%s |" % (t["target"], fmt(t["value"]), fmt(t["limit"]),
                                                   "met" if t["met"] else "missed",
                                                   (": " + t["note"]) if t["note"] else ""))
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="a built pathprof Meson build directory")
    ap.add_argument("--out", help="where overhead.md/.json and the variants go (default BUILD/bench)")
    ap.add_argument("--quick", action="store_true", help="fewer rounds and messages (under a minute)")
    ap.add_argument("--cpu", type=int, help="CPU to pin to (default: the last one)")
    ap.add_argument("--rounds", type=int, help="interleaved rounds (default 81, quick 5)")
    ap.add_argument("--messages", type=int, help="messages per timed pass (default 20000, quick 10000)")
    ap.add_argument("--passes", type=int, help="timed passes per run, the fastest kept (default 7, quick 3)")
    ap.add_argument("--rows", help="only the rows whose id matches one of these comma-separated globs "
                    "(e.g. 'raii-*,xray-off'; the baseline always runs)")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts")
    ap.add_argument("--no-scale", action="store_true", help="skip the scaling run and memory figures")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.abspath(a.out or os.path.join(build, "bench"))
    n = a.messages or (10000 if a.quick else 20000)
    passes = a.passes or (3 if a.quick else 7)
    warm = max(n // 4, 1)
    rounds = a.rounds or (5 if a.quick else 81)
    cpu = a.cpu if a.cpu is not None else (os.cpu_count() or 1) - 1
    cg_n = 2000 if a.quick else 10000
    t0 = time.time()

    t = Tools(build)
    if "clang" in t.missing or "taskset" in t.missing:
        die("; ".join(t.missing[k] for k in ("clang", "taskset") if k in t.missing))
    res = dict(machine=machine())
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="overhead.", dir=out)
    os.makedirs(os.path.join(work, "fdr"))
    exes, failed = build_all(t, os.path.join(out, "feed"))
    rows = rows_for(exes, t, work)
    if a.rows:
        pats = a.rows.split(",")
        rows = rows[:1] + [r for r in rows[1:] if any(fnmatch.fnmatchcase(r["id"], p) for p in pats)]
    skipped = {k: v for k, v in t.missing.items() if k in ("cyg", "xray", "plugin", "uftrace")}
    skipped.update({k: v.splitlines()[0] for k, v in failed.items()})

    counts = exact_counts(exes, warm, n)
    log("gates per event %.4f (%d gates, %d leaf returns, %d events)"
        % (counts["gates"] / n, counts["gates"], counts["leaves"], n))
    # Every row once before timing: a broken row stops the run here, and the
    # pathprof rows' listings are checked against the oracle.
    for row in rows[1:]:
        run_feed(row, cpu, warm, n, passes=passes)
        if row["fe"] != "peer":
            row["counts_ok"] = check_profile(t, row, exes, warm, n, passes)
            if not row["counts_ok"]:
                log("%s: path counts differ from feed --expect" % row["id"])
    tm = timing(rows, cpu, warm, n, counts["gates"], rounds, passes)
    cg_gates = exact_counts(exes, 0, cg_n)["gates"] if not a.no_callgrind else 0
    cg, why = ({}, "--no-callgrind") if a.no_callgrind else callgrind(rows, t, 0, cg_n, cg_gates, work)
    if why:
        skipped["callgrind"] = why
    scale, why = ([], "--no-scale") if a.no_scale else run_scale(t, cpu, a.quick)
    if why:
        skipped["scale"] = why

    res.update(config=dict(seed=int(SEED), messages=n, passes=passes, warmup=warm, rounds=rounds, cpu=cpu,
                           gates=counts["gates"], leaves=counts["leaves"], callgrind_messages=cg_n,
                           callgrind_gates=cg_gates, quick=a.quick),
               rows=[{k: v for k, v in r.items() if k in ("id", "label", "fe", "mode", "env", "pre", "counts_ok")}
                     for r in rows],
               timing=tm, callgrind=cg, scale=scale, skipped=skipped, load_end=os.getloadavg())
    res["targets"] = targets(res, scale)
    res["seconds"] = time.time() - t0
    md = markdown(res)
    with open(os.path.join(out, "overhead.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, "overhead.md"), "w") as f:
        f.write(md)
    shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write(md)
    log("done in %.0f s: %s/overhead.md, %s/overhead.json" % (res["seconds"], out, out))
    if any(r.get("counts_ok") is False for r in rows):
        die("some pathprof rows counted wrong (see 'counts')")


if __name__ == "__main__":
    main()
