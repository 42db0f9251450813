#!/usr/bin/env python3
"""Checks of the folded, dot and pprof report formats against the JSON export
of the same profile, through the tools that read them.

usage: check_formats.py folded|dot|pprof PATHPROF MKPROF WORKDIR

folded: every line parses back (frames;...;leaf value) to the JSON's paths
        (count: leaf returns; leaf: the leaf node's self time) or nodes
        (time: each node's self time, so widths add up to inclusive times),
        and totals agree.
dot:    `dot -Tsvg` accepts the graph; every node and edge has an id that
        reaches the SVG; each edge's count is the sum of the counts of the
        paths through its child; --min-count prunes.
pprof:  the file is gzip; `go tool pprof -top` lists every function with the
        flat and cum totals the JSON implies (a sample per node of the path
        tree: the leaf returns that end there, its self time), for both
        sample types.
"""
import gzip
import os
import re
import shutil
import subprocess
import sys

failures = 0


def fail(msg):
    global failures
    print('FAIL: ' + msg)
    failures += 1


def eq(what, got, want):
    if got != want:
        fail('%s: got %r, expected %r' % (what, got, want))


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, **kw)
    if r.returncode != 0:
        fail('%s: exit %d: %s' % (' '.join(cmd), r.returncode, r.stderr.decode(errors='replace')))
    return r.stdout


def report(pp, prof, *args):
    return run([pp, 'report', *args, prof])


def load_json(pp, prof, *args):
    import json
    return json.loads(report(pp, prof, '--format', 'json', *args))


def ns(v):
    """%.0f rounding, as the renderers round (Python's round is half-even)."""
    return int(round(v))


def tree(data):
    """(prefix, leaf returns ending there, self ns) for every prefix of every path."""
    tpn = data['ticks_per_ns']
    nodes = {tuple(n['path']): n for n in data['nodes']}
    out = {}
    for p in data['paths']:
        for d in range(1, len(p['path']) + 1):
            pre = tuple(p['path'][:d])
            leaves, _ = out.get(pre, (0, 0))
            self = ns(nodes[pre]['self_ticks'] / tpn) if pre in nodes else 0
            out[pre] = (leaves + (p['count'] if d == len(p['path']) else 0), self)
    return out


def folded(pp, prof):
    data = load_json(pp, prof)
    nodes = {tuple(n['path']): n for n in data['nodes']}
    for value in ('count', 'time', 'leaf'):
        want = {}
        if value == 'time':
            for pre, (_, self) in tree(data).items():
                if self:
                    want[';'.join(pre)] = self
        for p in data['paths'] if value != 'time' else []:
            if value == 'count':
                v = p['count']
            else:
                leaf = nodes.get(tuple(p['path']))
                v = ns(leaf['self_ticks'] / data['ticks_per_ns']) if leaf else 0
            if v:
                want[';'.join(p['path'])] = v
        got = {}
        out = report(pp, prof, '--format', 'folded', '--value', value).decode()
        for line in out.splitlines():
            m = re.fullmatch(r'(.+) (\d+)', line)
            if not m:
                fail('folded --value %s: bad line %r' % (value, line))
                continue
            if m.group(1) in got:
                fail('folded --value %s: stack twice: %r' % (value, m.group(1)))
            got[m.group(1)] = int(m.group(2))
        eq('folded --value %s lines' % value, got, want)
        eq('folded --value %s total' % value, sum(got.values()), sum(want.values()))
    eq('folded count total = profile total', sum(
        int(l.rsplit(' ', 1)[1]) for l in
        report(pp, prof, '--format', 'folded').decode().splitlines()), data['total_count'])


mkprof_path = [None]


def dot(pp, prof, work):
    if not shutil.which('dot'):
        fail('dot (Debian graphviz) not found: cannot check the DOT output')
        return
    for args in ([], ['--min-count', '100']):
        data = load_json(pp, prof, *args)
        text = report(pp, prof, '--format', 'dot', *args).decode()
        svg = run(['dot', '-Tsvg'], input=text.encode()).decode()
        nodes = re.findall(r'^\t"(p[0-9a-f]{16})" \[id="(p[0-9a-f]{16})", label="([^"]*)"', text, re.M)
        edges = re.findall(r'^\t"(p[0-9a-f]{16})" -> "(p[0-9a-f]{16})" \[id="(e[0-9a-f_]+)", '
                           r'label="(\d+)', text, re.M)
        for name, nid, _ in nodes:
            eq('node id', nid, name)
        for a, b, eid, _ in edges:
            eq('edge id', eid, 'e%s_%s' % (a[1:], b[1:]))
        for i in [n[1] for n in nodes] + [e[2] for e in edges]:
            if 'id="%s"' % i not in svg:
                fail('dot %s: id %s not in the SVG' % (' '.join(args), i))
        # Edge counts from the JSON: the tree of name prefixes.
        want, label = {}, {}
        for p in data['paths']:
            for d in range(1, len(p['path'])):
                key = (tuple(p['path'][:d]), tuple(p['path'][:d + 1]))
                want[key] = want.get(key, 0) + p['count']
        # Map node ids to prefixes through the labels' first line (names are
        # plain in this profile), walking edges from the roots.
        for name, nid, lab in nodes:
            label[nid] = lab.split('"')[0]
        parent = {b: a for a, b, _, _ in edges}

        def prefix(nid):
            return (prefix(parent[nid]) if nid in parent else ()) + (label[nid],)
        got = {(prefix(a), prefix(b)): int(c) for a, b, _, c in edges}
        eq('dot %s edge counts' % ' '.join(args), got, want)
        roots = {(label[n[1]],) for n in nodes if n[1] not in parent}
        eq('dot %s roots' % ' '.join(args), roots, {(p['path'][0],) for p in data['paths']})
    with open(os.path.join(work, 'demo.svg'), 'w') as f:
        f.write(svg)
    dot_wide(pp, mkprof_path[0], work)


def dot_wide(pp, mkprof, work):
    """1000 paths, 1041 nodes: the default graph keeps about 100 of them,
    says so, and sums the rest under each shown node in a '...' box so that
    every shown node's leaf returns are its children's plus its box's;
    --min-share 0 keeps all; Graphviz lays out both."""
    prof = os.path.join(work, 'wide.pathprof')
    run([mkprof, 'wide', prof])
    node_re = r'^\t"(p[0-9a-f]{16})" \[id="p[0-9a-f]{16}", label="[^"]*" \+ "\\n(\d+) leaf returns'
    for args, want_nodes in (([], None), (['--min-share', '0'], 1041)):
        text = report(pp, prof, '--format', 'dot', *args).decode()
        run(['dot', '-Tsvg'], input=text.encode())
        nodes = dict(re.findall(node_re, text, re.M))
        boxes = dict(re.findall(r'^\t"q([0-9a-f]{16})" \[id="q[0-9a-f]{16}", label="\.\.\. \d+ nodes'
                                r'\\n(\d+) leaf returns', text, re.M))
        edges = re.findall(r'^\t"(p[0-9a-f]{16})" -> "(p[0-9a-f]{16})"', text, re.M)
        if want_nodes is None:
            m = re.search(r'(\d+) of 1041 nodes shown', text)
            if not m or int(m.group(1)) != len(nodes) or not 90 <= len(nodes) <= 110:
                fail('dot wide: %d nodes shown, label %r' % (len(nodes), m and m.group(0)))
            if not boxes:
                fail('dot wide: nothing summed in a box')
        else:
            eq('dot wide --min-share 0 nodes', len(nodes), want_nodes)
            eq('dot wide --min-share 0 boxes', len(boxes), 0)
        kids = {}
        for a, b in edges:
            kids.setdefault(a, []).append(b)
        for nid, count in nodes.items():
            if nid in kids or nid[1:] in boxes:
                got = sum(int(nodes[k]) for k in kids.get(nid, [])) + int(boxes.get(nid[1:], 0))
                if got != int(count):
                    fail('dot wide %s: %s has %s leaf returns, children and box %d'
                         % (' '.join(args), nid, count, got))


def pprof_top(path, index, env):
    out = run(['go', 'tool', 'pprof', '-top', '-sample_index=%d' % index, '-unit=ns',
               '-nodecount=100000', '-nodefraction=0', '-edgefraction=0', path], env=env).decode()
    rows = {}
    for line in out.splitlines():
        m = re.fullmatch(r'\s*(\d+)(?:ns)?\s+\S+%\s+\S+%\s+(\d+)(?:ns)?\s+\S+%\s+(.+)', line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows


def pprof(pp, prof, work):
    if not shutil.which('go'):
        fail('go (Debian golang-go) not found: cannot check the pprof export')
        return
    data = load_json(pp, prof)
    out = os.path.join(work, 'demo.pb.gz')
    report(pp, prof, '--format', 'pprof', '-o', out)
    with open(out, 'rb') as f:
        raw = f.read()
    eq('gzip magic', raw[:2], b'\x1f\x8b')
    gzip.decompress(raw)  # raises on a bad stream or checksum
    env = dict(os.environ, HOME=work, PPROF_TMPDIR=work, GOCACHE=os.path.join(work, 'gocache'))
    for index, value in ((0, 'count'), (1, 'time')):
        want = {}
        for pre, (leaves, self) in tree(data).items():
            v = leaves if value == 'count' else self
            for name in set(pre):
                flat, cum = want.get(name, (0, 0))
                want[name] = (flat + (v if name == pre[-1] else 0), cum + v)
        want = {k: v for k, v in want.items() if v != (0, 0)}
        eq('pprof -top %s' % value, pprof_top(out, index, env), want)
    # who wrote it: labels on every sample (profile stores select by them)
    lab = os.path.join(work, 'labelled.pathprof')
    run([mkprof_path[0], 'labelled', lab])
    out = os.path.join(work, 'labelled.pb.gz')
    report(pp, lab, '--format', 'pprof', '-o', out)
    tags = run(['go', 'tool', 'pprof', '-tags', out], env=env).decode()
    for key, val in (('service', 'checkout'), ('host', 'db-7'),
                     ('build_id', '0123456789abcdef0123456789abcdef01234567')):
        if not re.search(r'^\s*%s: Total .+\n\s+\S+ \(\s*100%%\): %s$' % (key, val), tags, re.M):
            fail('pprof -tags: no %s: %s on every sample:\n%s' % (key, val, tags))
    if not re.search(r'^\s*pid: Total .+\n\s+\S+ \(\s*100%\): 77$', tags, re.M):
        fail('pprof -tags: no pid 77 on every sample:\n%s' % tags)


def main():
    what, pp, mkprof, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    prof = os.path.join(work, 'demo.pathprof')
    run([mkprof, 'demo', prof])
    mkprof_path[0] = mkprof
    if what == 'folded':
        folded(pp, prof)
    elif what == 'dot':
        dot(pp, prof, work)
    elif what == 'pprof':
        pprof(pp, prof, work)
    else:
        sys.exit('unknown check ' + what)
    print('%s: %s' % (what, '%d failure(s)' % failures if failures else 'ok'))
    sys.exit(1 if failures else 0)


main()
