#!/usr/bin/env python3
"""Live view end to end: a multi-threaded writer polled by `pathprof top
--once --format json` (every snapshot consistent, exact totals at the end),
lookup by pid, removal at exit and PATHPROF_SHM_KEEP, pp_shm_export after
gates ran, fork (parent and child each exactly their own counts, in their
own segments and profile files), damaged segments through the CLI, and
`pathprof merge` on real profiles.

usage: live_test.py PATHPROF LIVE_WRITER
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

PATHPROF, WRITER = sys.argv[1], sys.argv[2]
TAG = "pptest-%d" % os.getpid()
TMP = tempfile.mkdtemp(prefix="pp-live-")
BASE_ENV = dict(os.environ, PATHPROF_TIMING="on", PATHPROF_ARENA_MB="64",
                PATHPROF_SHM_KEEP="0", PATHPROF_DEPTH="", PATHPROF_PATHS="")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def top(target, *extra):
    r = subprocess.run([PATHPROF, "top", target, "--once", "--format", "json", *extra],
                       capture_output=True, text=True)
    return r


def snap(target):
    r = top(target)
    if r.returncode != 0:
        raise RuntimeError("top %s failed (%d): %s" % (target, r.returncode, r.stderr))
    return json.loads(r.stdout)


def counts(d):
    return {">".join(p["names"]): p["count"] for p in d["paths"]}


def shm_exists(name):
    return os.path.exists("/dev/shm/" + name)


def wait_named(target, want_paths):
    for _ in range(200):
        d = snap(target)
        if d["unnamed_records"] == 0 and len(d["paths"]) >= want_paths:
            return d
        time.sleep(0.02)
    return d


def test_concurrent():
    name = TAG + "-conc"
    threads, iters = 4, 100000
    env = dict(BASE_ENV, PATHPROF_SHM=name, PATHPROF_OUT=os.path.join(TMP, "conc.pp"))
    # "hold": the threads wait half-way until the reader has looked ten
    # times, however long its looks take
    w = subprocess.Popen([WRITER, "threads", str(threads), str(iters), "hold"], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    done = threading.Event()
    line = []

    def reader():
        line.append(w.stdout.readline())
        done.set()
    threading.Thread(target=reader, daemon=True).start()
    while not shm_exists(name) and not done.is_set():
        time.sleep(0.005)
    prev, polls, grew = {}, 0, 0
    prev_events = 0
    total = {"outer>a>leaf1": 10 * iters, "outer>b>leaf2": 20 * iters}
    while not done.is_set():
        d = snap(name)
        polls += 1
        c = counts(d)
        for k, v in prev.items():
            check(c.get(k, 0) >= v, "count of %s went down: %d -> %d" % (k, v, c.get(k, 0)))
        for k, v in c.items():
            check(k in total and v <= total[k], "unexpected count %s=%d" % (k, v))
        check(d["events"] >= prev_events, "events went down")
        check(d["records"] == sum(c.values()) + d["unnamed_records"] + d["drops_table"],
              "records != paths + unnamed + drops in a snapshot")
        check(d["state"] == "running", "state %s while running" % d["state"])
        grew += sum(c.values()) > sum(prev.values())
        prev, prev_events = c, d["events"]
        if polls == 10:
            check(sum(c.values()) < sum(total.values()), "the writer ended while held")
            w.stdin.write("go\n")
            w.stdin.flush()
    print("concurrent: %d snapshots, %d saw growth" % (polls, grew))
    check(polls >= 10, "only %d snapshots while the writer ran" % polls)
    d = wait_named(name, 2)
    check(counts(d) == total, "final counts %s, expected %s" % (counts(d), total))
    check(d["events"] == 10 * iters, "events %d" % d["events"])
    check(d["records"] == 30 * iters, "records %d" % d["records"])
    check(d["threads"] == threads, "threads %d" % d["threads"])
    check(d["drops_table"] == 0 and d["drops_depth"] == 0, "drops")
    for p in d["paths"]:
        check(len(p.get("nodes", [])) == 3 and p["nodes"][2]["count"] == p["count"],
              "timed nodes of %s" % p["names"])
    # the pid finds the same segment
    pid = int(line[0].split()[1])
    dp = snap(str(pid))
    check(dp["segment"] == "/" + name and counts(dp) == total, "lookup by pid")
    # text output works over a pipe too
    r = subprocess.run([PATHPROF, "top", name, "--once", "--top", "1"], capture_output=True,
                       text=True)
    check(r.returncode == 0 and "outer>b>leaf2" in r.stdout and "outer>a>leaf1" not in r.stdout,
          "text --top 1: %r" % r.stdout)
    w.stdin.close()
    check(w.wait() == 0, "writer exit status")
    check(not shm_exists(name), "segment left after a normal exit")
    r = top(name)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and r.stderr.startswith("pathprof: "),
          "top on a removed segment: %d %r" % (r.returncode, r.stderr))


def test_killed():
    """SIGKILL: the segment stays behind, its counts readable, and top says
    the writer is dead even while the killed process is an unreaped zombie
    (its pid still exists)."""
    name = TAG + "-killed"
    threads, iters = 2, 1000
    env = dict(BASE_ENV, PATHPROF_SHM=name, PATHPROF_OUT=os.path.join(TMP, "killed.pp"))
    w = subprocess.Popen([WRITER, "threads", str(threads), str(iters)], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    w.stdout.readline()  # the writer's threads are done; it waits on stdin
    total = {"outer>a>leaf1": 3 * iters, "outer>b>leaf2": 6 * iters}
    d = wait_named(name, 2)
    check(d["state"] == "running", "killed: state %s before the kill" % d["state"])
    # The gate's cost, measured by the writer after its first naming pass
    # with timing on, is in the segment before the kill.
    for _ in range(200):
        if d["gate_cost"]:
            break
        time.sleep(0.02)
        d = snap(name)
    g = d["gate_cost"]
    check(g and g["compensated"] and g["inside_ns"] + g["outside_ns"] > 0,
          "killed: gate cost before the kill %r" % g)
    w.kill()
    # not reaped yet: the zombie keeps the pid
    for _ in range(200):
        with open("/proc/%d/stat" % w.pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                break
        time.sleep(0.005)
    d = snap(name)
    check(d["state"] == "dead", "killed, unreaped: state %s" % d["state"])
    check(counts(d) == total, "killed: counts %s" % counts(d))
    w.wait()
    d = snap(name)
    check(d["state"] == "dead", "killed, reaped: state %s" % d["state"])
    # top takes that cost out of the times as reports do; --raw leaves it:
    # no segment's p50 is higher compensated, and the leaves' are lower
    r = top(name, "--raw")
    raw = json.loads(r.stdout) if r.returncode == 0 else {}
    check(raw.get("gate_cost") and raw["gate_cost"]["compensated"] is False,
          "killed: --raw gate cost %r" % raw.get("gate_cost"))
    by_id = lambda x: {p["id"]: p["nodes"] for p in x.get("paths", [])}
    comp, meas = by_id(d), by_id(raw)
    pairs = [(c["p50_ns"], m["p50_ns"]) for k in comp if k in meas for c, m in zip(comp[k], meas[k])]
    check(len(comp) == 2 and comp.keys() == meas.keys() and all(c <= m for c, m in pairs) and
          all(comp[k][-1]["p50_ns"] < meas[k][-1]["p50_ns"] for k in comp),
          "killed: p50 compensated / raw %r" % pairs)
    # A dead writer's rates are its lifetime's, at every refresh: they do
    # not decay with the time since it died.
    r = subprocess.run([PATHPROF, "top", name, "-n", "2", "-i", "0.3", "--format", "json"],
                       capture_output=True, text=True)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    check(r.returncode == 0 and len(rows) == 2, "dead: top -n 2: %d %r" % (r.returncode, r.stderr))
    if len(rows) == 2:
        check(rows[0]["events_per_s"] > 0 and rows[0]["events_per_s"] == rows[1]["events_per_s"],
              "dead: rates %s then %s (%s)" % (rows[0]["events_per_s"], rows[1]["events_per_s"],
                                               [(r["state"], r["span_s"], r["first"], r.get("time_ns")) for r in rows]))
    # Listed as left by a dead process, not as live; with no live one at
    # all, `top` without a target says where the left ones are.
    left = subprocess.run([PATHPROF, "recover", "--list"], capture_output=True, text=True)
    check(left.returncode == 0 and "%d live_writer /%s" % (w.pid, name) in left.stdout.splitlines(),
          "killed: recover --list: %d %r %r" % (left.returncode, left.stdout, left.stderr))
    live = subprocess.run([PATHPROF, "top", "--list"], capture_output=True, text=True)
    check(live.returncode == 0 and not any(l.split(" ")[0] == str(w.pid) for l in live.stdout.splitlines()),
          "killed: top --list shows the dead writer: %r" % live.stdout)
    if live.returncode == 0 and not live.stdout:
        r = subprocess.run([PATHPROF, "top", "--once"], capture_output=True, text=True)
        n = len(left.stdout.splitlines())
        want = ("pathprof: top: no live profiled process of yours in /dev/shm; %d segment%s left by "
                "processes that died ('pathprof recover --list')\n" % (n, "" if n == 1 else "s"))
        check(r.returncode == 1 and r.stderr == want, "killed: top without a target: %d %r" % (r.returncode, r.stderr))
    os.unlink("/dev/shm/" + name)


def test_keep_and_export():
    name = TAG + "-keep"
    env = dict(BASE_ENV, PATHPROF_SHM=name, PATHPROF_SHM_KEEP="1",
               PATHPROF_OUT=os.path.join(TMP, "keep.pp"))
    subprocess.run([WRITER, "threads", "2", "1000"], env=env, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, check=True)
    check(shm_exists(name), "kept segment missing")
    d = snap(name)
    check(d["state"] == "exited", "kept segment state %s" % d["state"])
    check(counts(d) == {"outer>a>leaf1": 3000, "outer>b>leaf2": 6000}, "kept counts %s" % counts(d))
    check(d["unnamed_records"] == 0, "names published at exit")
    # Damaged copies of it, through the CLI: one line, status 1, no signal.
    raw = open("/dev/shm/" + name, "rb").read()
    cases = {
        "magic": (lambda b: b"X" + b[1:], "bad magic"),
        "version": (lambda b: b[:8] + (7).to_bytes(4, "little") + b[12:], "layout version 7"),
        "short": (lambda b: b[:100], "truncated: 100 bytes"),
        "arena": (lambda b: b[:65536], "truncated: the header says"),
        "used": (lambda b: b[:48] + (len(b) + 4096).to_bytes(8, "little") + b[56:],
                 "outside the"),
        "slabs": (lambda b: b[:104] + (int.from_bytes(b[56:64], "little") + len(b) + 8)
                  .to_bytes(8, "little") + b[112:], "lies outside"),
    }
    for what, (edit, want) in cases.items():
        bad = "%s-bad-%s" % (TAG, what)
        with open("/dev/shm/" + bad, "wb") as f:
            f.write(edit(raw))
        r = top(bad)
        ok = (r.returncode == 1 and r.stderr.count("\n") == 1 and want in r.stderr
              and r.stderr.startswith("pathprof: /" + bad + ": "))
        check(ok, "bad segment %s: status %d, %r" % (what, r.returncode, r.stderr))
        os.unlink("/dev/shm/" + bad)
    os.unlink("/dev/shm/" + name)

    # pp_shm_export() after gates ran: what ran before is in the segment too.
    name = TAG + "-api"
    env = dict(BASE_ENV, PATHPROF_OUT=os.path.join(TMP, "api.pp"))
    env.pop("PATHPROF_SHM", None)
    subprocess.run([WRITER, "export", name, "500"], env=env, check=True)
    d = snap(name)
    check(counts(d) == {"outer>a>leaf1": 1000, "outer>b>leaf2": 2000}, "api counts %s" % counts(d))
    os.unlink("/dev/shm/" + name)


def listing(path):
    r = subprocess.run([PATHPROF, "report", "--format", "paths", path], capture_output=True,
                       text=True, check=True)
    return r.stdout


def test_fork_and_merge():
    name = TAG + "-fork"
    out = os.path.join(TMP, "fork.pp")
    env = dict(BASE_ENV, PATHPROF_SHM=name, PATHPROF_SHM_KEEP="1", PATHPROF_OUT=out)
    # a hang (a child that inherited a lock held, runtime/gate_cost.c) is
    # a failure, not a stalled suite
    r = subprocess.run([WRITER, "fork", "1000", "500", "300"], env=env, capture_output=True,
                       text=True, check=True, timeout=120)
    child = int(r.stdout.split()[1])
    parent_want = {"outer>a>leaf1": 2000, "outer>b>leaf2": 4000, "forker>inparent": 300}
    child_want = {"cwork>leaf1": 500, "forker": 1}
    dp, dc = snap(name), snap("%s.%d" % (name, child))
    check(counts(dp) == parent_want, "parent segment %s" % counts(dp))
    check(counts(dc) == child_want, "child segment %s" % counts(dc))
    check(dc["pid"] == child and dc["events"] == 500 and dc["threads"] == 1, "child header")
    check(dp["events"] == 2001, "parent events %d" % dp["events"])
    os.unlink("/dev/shm/" + name)
    os.unlink("/dev/shm/%s.%d" % (name, child))
    check(listing(out) == "300|forker>inparent\n2000|outer>a>leaf1\n4000|outer>b>leaf2\n",
          "parent profile")
    cout = "%s.%d" % (out, child)
    check(listing(cout) == "500|cwork>leaf1\n1|forker\n", "child profile")

    # merge: sums, self-merge doubles, associativity on three inputs
    api = os.path.join(TMP, "api.pp")

    def merge(dst, *srcs):
        subprocess.run([PATHPROF, "merge", *srcs, "-o", dst], check=True)
        return dst
    m = merge(os.path.join(TMP, "m.pp"), out, cout)
    check(listing(m) == "500|cwork>leaf1\n1|forker\n300|forker>inparent\n"
          "2000|outer>a>leaf1\n4000|outer>b>leaf2\n", "merged listing %r" % listing(m))
    mm = merge(os.path.join(TMP, "mm.pp"), out, out)
    check(listing(mm) == "600|forker>inparent\n4000|outer>a>leaf1\n8000|outer>b>leaf2\n",
          "self merge %r" % listing(mm))
    # as measured: compensation rounds each node's removal to a tick, so a
    # doubled node can differ from its half by a fraction of a tick per call
    j1 = json.loads(subprocess.run([PATHPROF, "report", "--raw", "--format", "json", out],
                                   capture_output=True, check=True).stdout)
    j2 = json.loads(subprocess.run([PATHPROF, "report", "--raw", "--format", "json", mm],
                                   capture_output=True, check=True).stdout)
    check(strip_counts(j1["nodes"]) == strip_counts(j2["nodes"]),
          "self merge changed a percentile")
    l = merge(os.path.join(TMP, "l.pp"), merge(os.path.join(TMP, "ab.pp"), out, cout), api)
    rr = merge(os.path.join(TMP, "r.pp"), out, merge(os.path.join(TMP, "bc.pp"), cout, api))
    check(open(l, "rb").read() == open(rr, "rb").read(), "merge is not associative")
    r = subprocess.run([PATHPROF, "merge", out], capture_output=True, text=True)
    check(r.returncode == 2 and "-o OUT" in r.stderr, "merge without -o")
    junk = os.path.join(TMP, "junk")
    open(junk, "w").write("not a profile")
    r = subprocess.run([PATHPROF, "merge", out, junk, "-o", os.path.join(TMP, "x.pp")],
                       capture_output=True, text=True)
    check(r.returncode == 1 and r.stderr.count("\n") == 1 and
          not os.path.exists(os.path.join(TMP, "x.pp")), "merge with a bad input")


def strip_counts(paths):
    """Everything but the counts, which a self-merge doubles."""
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()
                    if k not in ("count", "calls", "self_ticks", "self_ns", "sum_ticks", "bins")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return strip(paths)


def test_pick():
    """top without a target (#32): --list names this user's live profiled
    processes (the writer among them, with its program); with no target and
    no terminal, top watches the only one or lists them and exits 2."""
    name = TAG + "-pick"
    env = dict(BASE_ENV, PATHPROF_SHM=name, PATHPROF_OUT=os.path.join(TMP, "pick.pp"))
    w = subprocess.Popen([WRITER, "threads", "1", "10"], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    w.stdout.readline()
    wait_named(name, 2)
    r = subprocess.run([PATHPROF, "top", "--list"], capture_output=True, text=True)
    mine = [l for l in r.stdout.splitlines() if l.split()[0] == str(w.pid)]
    check(r.returncode == 0 and mine == ["%d live_writer /%s" % (w.pid, name)],
          "top --list: %d %r" % (r.returncode, r.stdout))
    n = len(r.stdout.splitlines())
    r = subprocess.run([PATHPROF, "top", "--once", "--format", "json"], capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    if n == 1:
        check(r.returncode == 0 and json.loads(r.stdout)["pid"] == w.pid,
              "top without a target, one process: %d %r" % (r.returncode, r.stderr))
    else:
        check(r.returncode == 2 and ("%d live_writer" % w.pid) in r.stderr,
              "top without a target, %d processes: %d %r" % (n, r.returncode, r.stderr))
    w.stdin.close()
    w.wait()


try:
    test_pick()
    test_concurrent()
    test_killed()
    test_keep_and_export()
    test_fork_and_merge()
finally:
    for f in os.listdir("/dev/shm"):
        if f.startswith(TAG):
            os.unlink("/dev/shm/" + f)
if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
