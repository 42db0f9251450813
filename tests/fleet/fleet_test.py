#!/usr/bin/env python3
"""`pathprof serve` scraped by a real Prometheus server (Debian's package).

Two profiled services (fleet_app) handle a known number of requests and stop
at a quiet point; the exporter serves their live segments; Prometheus scrapes
it every second. Checked through Prometheus' HTTP API:
  - every path's counter equals, exactly, the count of the profile the
    process writes itself at the same quiet point;
  - histogram_quantile() of a node that sleeps a known time lies in the same
    le bucket as the node's own p50/p90;
  - a service restarts: the old pid's series go stale, the new pid's count is
    exact, and increase() over its samples is exact;
  - the exporter restarts: the next scrapes go on with the same values and no
    counter reset;
  - a foreign object and a damaged segment in /dev/shm are each warned about
    once and skipped, the others still served;
  - the exposition passes `promtool check metrics`, in both formats;
  - hostile clients (50 that trickle a request a byte at a time, others
    sending 1 MB headers) never make a scrape fail, and are cut (#27);
  - command lines are served only with --command-line;
  - the gate's cost the process measured is served as its profile has it.
usage: fleet_test.py PATHPROF FLEET_APP WORKDIR
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

PP, APP, WORK = sys.argv[1:4]
failures = 0
TAG = 'fleet-%d' % os.getpid()


def fail(msg):
    global failures
    failures += 1
    print('FAIL: ' + msg, flush=True)


def eq(what, got, want):
    if got != want:
        fail('%s: got %r, want %r' % (what, got, want))


def http_get(url, accept=None, timeout=5):
    req = urllib.request.Request(url, headers={'Accept': accept} if accept else {})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.headers.get('Content-Type'), r.read().decode()


class App:
    """One fleet_app process, driven line by line."""

    def __init__(self, service):
        env = dict(os.environ, PATHPROF_SERVICE=service, PATHPROF_TIMING='on',
                   PATHPROF_OUT=os.path.join(WORK, service + '.exit.pathprof'))
        env.pop('PATHPROF_SHM', None)
        self.service = service
        self.p = subprocess.Popen([APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=env)
        self.pid = self.p.pid

    def cmd(self, line):
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()
        got = self.p.stdout.readline().strip()
        if got != 'ok':
            raise RuntimeError('%s: %r answered %r' % (self.service, line, got))

    def profile(self):
        """The profile the process writes now, as report JSON."""
        path = os.path.join(WORK, '%s.%d.pathprof' % (self.service, self.pid))
        self.cmd('dump ' + path)
        out = subprocess.run([PP, 'report', '--format', 'json', '--top', '0', path],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def quit(self):
        self.p.stdin.write('quit\n')
        self.p.stdin.flush()
        self.p.wait(timeout=20)


class Exporter:
    def __init__(self, port=0):
        self.err = open(os.path.join(WORK, 'serve.err'), 'a+')
        self.p = subprocess.Popen([PP, 'serve', '--listen', '127.0.0.1:%d' % port],
                                  stderr=subprocess.PIPE, text=True)
        line = self.p.stderr.readline()
        self.err.write(line)
        self.port = int(line.rsplit(':', 1)[1].split('/')[0])
        # keep draining stderr into the file (warnings come later)
        self.drain = subprocess.Popen(['cat'], stdin=self.p.stderr, stdout=self.err)

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=10)
        self.drain.wait(timeout=10)
        eq('exporter exit status at SIGTERM', rc, 0)

    def warnings(self):
        self.err.flush()
        with open(self.err.name) as f:
            return [l for l in f.read().splitlines() if 'skipped' in l]


class Prometheus:
    def __init__(self, target_port):
        self.dir = tempfile.mkdtemp(dir=WORK)
        self.port = free_port()
        conf = os.path.join(self.dir, 'prometheus.yml')
        with open(conf, 'w') as f:
            f.write('global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n'
                    'scrape_configs:\n  - job_name: pathprof\n    static_configs:\n'
                    '      - targets: ["127.0.0.1:%d"]\n' % target_port)
        self.log = open(os.path.join(self.dir, 'prometheus.log'), 'w')
        self.p = subprocess.Popen(
            ['prometheus', '--config.file=' + conf,
             '--storage.tsdb.path=' + os.path.join(self.dir, 'data'),
             '--web.listen-address=127.0.0.1:%d' % self.port, '--log.level=warn'],
            stdout=self.log, stderr=self.log)
        self.url = 'http://127.0.0.1:%d' % self.port
        for _ in range(300):
            try:
                http_get(self.url + '/-/ready', timeout=1)
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError('prometheus did not become ready (see %s)' % self.log.name)

    def query(self, q, at=None):
        args = {'query': q}
        if at is not None:
            args['time'] = '%.3f' % at
        _, body = http_get(self.url + '/api/v1/query?' + urllib.parse.urlencode(args))
        doc = json.loads(body)
        if doc.get('status') != 'success':
            raise RuntimeError('query %s: %s' % (q, body))
        return doc['data']['result']

    def scrapes(self):
        r = self.query('prometheus_target_interval_length_seconds_count'
                       '{interval="1s"}')
        return sum(float(x['value'][1]) for x in r)

    def wait_scrapes(self, n):
        """Until the exporter has been scraped n more times."""
        r0 = self.up_count()
        for _ in range(200):
            if self.up_count() >= r0 + n:
                return
            time.sleep(0.1)
        raise RuntimeError('prometheus scraped less than %d times in 20 s' % n)

    def up_count(self):
        r = self.query('count_over_time(up{job="pathprof"}[10m])')
        return int(float(r[0]['value'][1])) if r else 0

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=30)


def free_port():
    import socket
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def counts_of(doc):
    # a label value is UTF-8: the exporter shows an ill-formed byte as '?'
    # where the JSON report has U+FFFD
    return {'>'.join(p['path']).replace('\ufffd', '?'): p['count'] for p in doc['paths']}


def series(prom, service):
    """{(pid, path): value} of the leaf-return counters of service now."""
    r = prom.query('pathprof_path_leaf_returns_total{service="%s"}' % service)
    return {(x['metric']['pid'], x['metric']['path']): int(x['value'][1]) for x in r}


def node_p(doc, name, q):
    for n in doc['nodes']:
        if n['path'][-1] == name:
            return n['incl']['p%d_ns' % q] / 1e9
    raise KeyError(name)


LE = [1e-9, 2.5e-9, 5e-9, 1e-8, 2.5e-8, 5e-8, 1e-7, 2.5e-7, 5e-7, 1e-6, 2.5e-6, 5e-6, 1e-5, 2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4,
      1e-3, 2.5e-3, 5e-3, 1e-2, 2.5e-2, 5e-2, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]


def bucket(v):
    """The (lower, upper] le bucket of v."""
    lo = 0
    for b in LE:
        if v <= b:
            return lo, b
        lo = b
    return lo, float('inf')


def check_exposition(port):
    for accept, fmt in ((None, 'text'), ('application/openmetrics-text; version=1.0.0', 'om')):
        ctype, body = http_get('http://127.0.0.1:%d/metrics' % port, accept)
        want = ('application/openmetrics-text' if fmt == 'om' else 'text/plain; version=0.0.4')
        if not ctype.startswith(want):
            fail('%s: content type %r' % (fmt, ctype))
        if fmt == 'om' and not body.endswith('# EOF\n'):
            fail('openmetrics exposition does not end with # EOF')
        path = os.path.join(WORK, 'metrics.' + fmt)
        with open(path, 'w') as f:
            f.write(body)
        if fmt == 'text':
            r = subprocess.run(['promtool', 'check', 'metrics'], input=body, text=True,
                               capture_output=True)
            if r.returncode != 0:
                fail('promtool check metrics: %s%s' % (r.stdout, r.stderr))
    # other paths and methods
    try:
        http_get('http://127.0.0.1:%d/nope' % port)
        fail('/nope answered 200')
    except urllib.error.HTTPError as e:
        eq('/nope status', e.code, 404)


def check_once(a):
    """serve --once on one process: --top cuts into "other", names are
    escaped, OpenMetrics names its counter families without _total."""
    r = subprocess.run([PP, 'serve', '--once', '--top', '1', str(a.pid)], capture_output=True,
                       text=True)
    eq('serve --once status', r.returncode, 0)
    lines = [l for l in r.stdout.splitlines() if l.startswith('pathprof_path_leaf_returns_total{')]
    eq('serve --once --top 1: series', len(lines), 2)
    other = [l for l in lines if 'path_id="other"' in l]
    kept = [l for l in lines if 'path_id="other"' not in l]
    # counts 1000 (parse), 1000 (encode), 40 (wait), 7 (odd): one 1000 kept
    eq('kept path count', kept[0].rsplit(' ', 1)[1] if kept else None, '1000')
    eq('other', other[0].rsplit(' ', 1)[1] if other else None, str(1000 + 40 + 7))
    if 'the others are summed in path="other"' not in r.stderr:
        fail('no warning about the cut: %r' % r.stderr)
    r = subprocess.run([PP, 'serve', '--once', str(a.pid)], capture_output=True, text=True)
    info = [l for l in r.stdout.splitlines() if l.startswith('pathprof_process_info{')]
    if not info or 'command=' in info[0]:
        fail('the command line is served without --command-line: %r' % info)
    r2 = subprocess.run([PP, 'serve', '--once', '--command-line', str(a.pid)],
                        capture_output=True, text=True)
    info = [l for l in r2.stdout.splitlines() if l.startswith('pathprof_process_info{')]
    if not info or 'command="%s"' % APP not in info[0]:
        fail('--command-line: no command label: %r' % info)
    want = 'path="we\\"ird\\\\na\\nme?"} 7'
    if want not in r.stdout:
        fail('escaped name %s not in the exposition' % want)
    p = subprocess.run(['promtool', 'check', 'metrics'], input=r.stdout, text=True,
                       capture_output=True)
    if p.returncode != 0:
        fail('promtool check metrics on escaped names: %s%s' % (p.stdout, p.stderr))
    r = subprocess.run([PP, 'serve', '--once', '--openmetrics', str(a.pid)], capture_output=True,
                       text=True)
    if '# TYPE pathprof_path_leaf_returns counter\n' not in r.stdout or \
            not r.stdout.endswith('# EOF\n'):
        fail('openmetrics: counter family or # EOF missing')
    r = subprocess.run([PP, 'serve'], capture_output=True, text=True)
    eq('serve without --listen: status', r.returncode, 2)
    eq('serve without --listen: one line', len(r.stderr.splitlines()), 1)


def hostile(port, prom):
    """50 slowloris clients (a request head a byte every 0.3 s) and four
    that send 1 MB of headers, for 8 s: every scrape in that time succeeds,
    each 1 MB client is refused without the exporter reading it all, and
    the slow ones are cut at the deadline (the exporter counts them)."""
    import socket
    import threading
    stop_at = time.time() + 8
    slow_cut = []
    big_refused = []

    def slowloris():
        s = socket.create_connection(('127.0.0.1', port), timeout=20)
        head = b'GET /metrics HTTP/1.1\r\nHost: x\r\n' + b'X-Pad: ' + b'a' * 200
        try:
            for ch in head:
                s.sendall(bytes([ch]))
                time.sleep(0.3)
                if time.time() > stop_at + 10:
                    return
        except OSError:
            slow_cut.append(1)  # the exporter cut it
        finally:
            s.close()

    def big():
        while time.time() < stop_at:
            s = socket.create_connection(('127.0.0.1', port), timeout=20)
            try:
                s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ' + b'b' * (1 << 20) +
                          b'\r\n\r\n')
                reply = s.recv(100)
                if not reply or not reply.startswith(b'HTTP/1.1 200'):
                    big_refused.append(1)
            except OSError:
                big_refused.append(1)
            finally:
                s.close()

    r0 = prom.up_count()
    t0 = time.time()
    threads = [threading.Thread(target=slowloris) for _ in range(50)] + \
        [threading.Thread(target=big) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(max(0, stop_at - time.time()))
    n = prom.up_count() - r0
    window = '%ds' % (time.time() - t0)
    r = prom.query('min_over_time(up{job="pathprof"}[%s])' % window)
    eq('up through the hostile clients (min over %s)' % window,
       r[0]['value'][1] if r else None, '1')
    if n < 5:
        fail('only %d scrapes in 8 s of hostile clients' % n)
    for t in threads:
        t.join(timeout=30)
    eq('slowloris connections cut', len(slow_cut), 50)
    if not big_refused:
        fail('a 1 MB header was answered 200')
    _, body = http_get('http://127.0.0.1:%d/metrics' % port)
    cut = [l for l in body.splitlines() if l.startswith('pathprof_exporter_connections_cut_total ')]
    if not cut or int(cut[0].split()[1]) < 50:
        fail('pathprof_exporter_connections_cut_total: %r' % cut)
    print('hostile clients: %d scrapes in %s; %d slow clients cut, %d big heads refused'
          % (n, window, len(slow_cut), len(big_refused)))


def main():
    if not shutil.which('prometheus') or not shutil.which('promtool'):
        print('SKIP: prometheus and promtool are not installed (apt-get install prometheus)')
        return 77
    os.makedirs(WORK, exist_ok=True)
    bogus = '/dev/shm/pathprof.bogus-%d' % os.getpid()
    damaged = '/dev/shm/pathprof.damaged-%d' % os.getpid()
    apps, exp, prom = [], None, None
    try:
        a = App(TAG + '-a')
        b = App(TAG + '-b')
        apps += [a, b]
        a.cmd('run 1000')
        a.cmd('sleep 30 2000')
        a.cmd('sleep 10 20000')
        a.cmd('odd 7')
        b.cmd('run 3000')
        check_once(a)
        exp = Exporter()
        check_exposition(exp.port)
        prom = Prometheus(exp.port)
        prom.wait_scrapes(2)

        # 1. exact counts at a quiet point
        for app in (a, b):
            want = {(str(app.pid), k): v for k, v in counts_of(app.profile()).items()}
            eq('%s: counters in Prometheus' % app.service, series(prom, app.service), want)
        eq('a: request>parse', series(prom, a.service).get((str(a.pid), 'request>parse')), 1000)
        eq('a: the escaped name', series(prom, a.service).get((str(a.pid), 'we"ird\\na\nme?')), 7)

        # 2. histogram_quantile within the bucket of the true quantile
        doc = a.profile()
        for q in (50, 90):
            r = prom.query('histogram_quantile(%g, pathprof_node_seconds_bucket{service="%s",'
                           'node="request>respond>wait"})' % (q / 100, a.service))
            got = float(r[0]['value'][1]) if r else float('nan')
            true = node_p(doc, 'wait', q)
            lo, hi = bucket(true)
            if not lo <= got <= hi:
                fail('histogram_quantile(%g): %g not in (%g, %g], the bucket of the node\'s own '
                     'p%d %g' % (q / 100, got, lo, hi, q, true))
            print('quantile %.2f of request>respond>wait: Prometheus %.6f s, profile %.6f s, '
                  'bucket (%g, %g]' % (q / 100, got, true, lo, hi))
        r = prom.query('pathprof_node_seconds_count{service="%s",node="request>respond>wait"}'
                       % a.service)
        eq('wait calls', int(r[0]['value'][1]) if r else None, 40)

        # 3. bad input: one warning each, the rest still served
        with open(bogus, 'wb') as f:
            f.write(b'not a pathprof segment at all' * 100)
        seg = '/dev/shm/pathprof.%d' % a.pid
        with open(seg, 'rb') as f:
            head = bytearray(f.read(8192))
        head[8:12] = (99).to_bytes(4, 'little')  # a layout version no one reads
        with open(damaged, 'wb') as f:
            f.write(head)
        prom.wait_scrapes(3)
        warned = exp.warnings()
        for obj in (bogus, damaged):
            name = '/' + os.path.basename(obj)
            n = sum(1 for w in warned if name + ':' in w)
            eq('warnings about %s after 3 scrapes' % name, n, 1)
        eq('a still served', series(prom, a.service).get((str(a.pid), 'request>parse')), 1000)
        # the gate's cost the process measured (for the dump above), as its
        # profile has it, to the segment's sixteenth of a tick
        for part, key in (('inside', 'inside_ns'), ('outside', 'outside_ns')):
            r = prom.query('pathprof_gate_cost_seconds{service="%s",part="%s"}' % (a.service, part))
            got = float(r[0]['value'][1]) * 1e9 if r else float('nan')
            want = doc['gate_cost'][key]
            if not abs(got - want) <= 1 / 16 / doc['ticks_per_ns'] + 0.001:
                fail('pathprof_gate_cost_seconds{part="%s"}: %g ns, the profile says %g' %
                     (part, got, want))
        r = prom.query('pathprof_exporter_segments_skipped')
        if not r or float(r[0]['value'][1]) < 2:
            fail('pathprof_exporter_segments_skipped: %r' % r)

        # 4. b restarts
        old = b.pid
        b.quit()
        b = App(TAG + '-b')
        apps.append(b)
        b.cmd('run 500')
        prom.wait_scrapes(3)
        got = series(prom, b.service)
        eq('b after the restart', got, {(str(b.pid), 'request>parse'): 500,
                                        (str(b.pid), 'request>respond>encode'): 500})
        if any(pid == str(old) for pid, _ in got):
            fail('the old pid %d is still served' % old)
        b.cmd('run 250')
        prom.wait_scrapes(3)
        sel = 'pathprof_path_leaf_returns_total{service="%s",pid="%d",path="request>parse"}' % (
            b.service, b.pid)
        samples = prom.query(sel + '[2m]')[0]['values']
        first = next(s for s in samples if s[1] == '500')
        last = samples[-1]
        eq('last sample', last[1], '750')
        w = last[0] - first[0]
        r = prom.query('increase(%s[%dms])' % (sel, round(w * 1000)), at=last[0])
        eq('increase() from 500 to 750', round(float(r[0]['value'][1]), 6), 250.0)

        # 5. the exporter restarts on the same port
        port = exp.port
        exp.stop()
        exp = Exporter(port)
        prom.wait_scrapes(3)
        eq('b after the exporter restart', series(prom, b.service).get((str(b.pid), 'request>parse')),
           750)
        r = prom.query('resets(%s[2m])' % sel)
        eq('counter resets across the exporter restart', r[0]['value'][1] if r else None, '0')
        r = prom.query('up{job="pathprof"}')
        eq('up', r[0]['value'][1] if r else None, '1')

        # 6. hostile clients while Prometheus scrapes
        hostile(exp.port, prom)
    finally:
        for obj in (bogus, damaged):
            if os.path.exists(obj):
                os.unlink(obj)
        for app in apps:
            if app.p.poll() is None:
                app.quit()
        if exp:
            exp.stop()
        if prom:
            prom.stop()
    print('fleet: %s' % ('%d failure(s)' % failures if failures else 'ok'))
    return 1 if failures else 0


sys.exit(main())
