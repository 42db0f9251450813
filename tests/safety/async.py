#!/usr/bin/env python3
"""Every asynchronous signal ends a gated program exactly as it ends the plain
build (#27): the same terminating signal and the same core-dump bit in the
wait status, and the profile is written on the way. Sources: a terminal (^C,
^\\ and the hang-up of a closed session, through tmux), kill(), tgkill(),
sigqueue(), a POSIX timer and the kernel at the CPU-time limit (SIGXCPU).
Core dumps are allowed (RLIMIT_CORE 1 GiB, in a scratch directory), so
SIGQUIT and SIGXCPU must dump core in both builds, and the gated core may
be at most 64 MiB larger than the plain one (the runtime reserves a 64 GiB
arena: a dump of it filled the disk once).
usage: async.py PLAIN GATED PATHPROF WORKDIR
"""
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time

PLAIN, GATED, PP, WORK = sys.argv[1:5]
failures = 0
libc = ctypes.CDLL(None, use_errno=True)
SYS_tgkill = 234  # x86_64


def fail(msg):
    global failures
    failures += 1
    print('FAIL: ' + msg, flush=True)


def describe(st):
    if os.WIFSIGNALED(st):
        return 'signal %d%s' % (os.WTERMSIG(st), ' (core)' if os.WCOREDUMP(st) else '')
    return 'exit %d' % os.WEXITSTATUS(st)


def child_setup():
    import resource
    resource.setrlimit(resource.RLIMIT_CORE, (1 << 30, 1 << 30))
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(s, signal.SIG_DFL)


def scratch(tag):
    d = os.path.join(WORK, tag)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def run_direct(prog, mode, sig, send, tag):
    """Start prog; send(pid) once it is ready (mode wait) or let it signal
    itself. Returns (wait status, cwd)."""
    d = scratch(tag)
    env = dict(os.environ, PATHPROF_OUT=os.path.join(d, 'out.pathprof'))
    p = subprocess.Popen([prog, mode, str(sig)], cwd=d, env=env, stdout=subprocess.PIPE,
                         stderr=open(os.path.join(d, 'stderr'), 'w'), preexec_fn=child_setup)
    if mode == 'wait':
        line = p.stdout.readline()
        if line != b'ready\n':
            fail('%s: no ready line (%r)' % (tag, line))
        send(p.pid, sig)
    _, st = os.waitpid(p.pid, 0)
    p.returncode = 0
    return st, d


def tmux(sock, *args):
    return subprocess.run(['tmux', '-L', sock] + list(args), capture_output=True, text=True)


def run_terminal(prog, sig, keys, tag):
    """prog in a tmux pane, as a user runs it; keys is the tmux key sent
    (C-c, C-\\\\) or None to close the session (SIGHUP)."""
    d = scratch(tag)
    runner = os.path.join(d, 'runner.py')
    with open(runner, 'w') as f:
        f.write('''import os, resource, signal, sys
resource.setrlimit(resource.RLIMIT_CORE, (1 << 30, 1 << 30))
for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
    signal.signal(s, signal.SIG_IGN)
pid = os.fork()
if pid == 0:
    for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)
    os.execv(sys.argv[1], sys.argv[1:])
_, st = os.waitpid(pid, 0)
with open('status.tmp', 'w') as f:
    f.write(str(st))
os.rename('status.tmp', 'status')
''')
    env_out = 'PATHPROF_OUT=' + os.path.join(d, 'out.pathprof')
    sock = 'pp-async-%d-%s' % (os.getpid(), tag)
    r = tmux(sock, 'new-session', '-d', '-s', 'pp', '-x', '100', '-y', '20', '-c', d,
             'env %s python3 %s %s wait %d > %s 2>&1' % (env_out, runner, prog, sig,
                                                          os.path.join(d, 'log')))
    if r.returncode != 0:
        fail('%s: tmux: %s' % (tag, r.stderr.strip()))
        return None, d
    log = os.path.join(d, 'log')
    for _ in range(200):
        if os.path.exists(log) and 'ready' in open(log).read():
            break
        time.sleep(0.05)
    else:
        fail('%s: the program never got ready in the terminal' % tag)
    if keys:
        tmux(sock, 'send-keys', '-t', 'pp', keys)
    else:
        tmux(sock, 'kill-server')
    status = os.path.join(d, 'status')
    for _ in range(400):
        if os.path.exists(status):
            break
        time.sleep(0.05)
    tmux(sock, 'kill-server')
    if not os.path.exists(status):
        fail('%s: the program still runs after the signal' % tag)
        return None, d
    return int(open(status).read()), d


def tgkill(pid, sig):
    if libc.syscall(SYS_tgkill, pid, pid, sig) != 0:
        fail('tgkill: errno %d' % ctypes.get_errno())


def core_bytes(d):
    """Bytes of the core files in d (removed): blocks really written."""
    n = 0
    for f in os.listdir(d):
        if f == 'core' or f.startswith('core.'):
            n += os.stat(os.path.join(d, f)).st_blocks * 512
            os.unlink(os.path.join(d, f))
    return n


def check(tag, run):
    want, dp = run(PLAIN, tag + '-plain')
    plain_core = core_bytes(dp)
    got, d = run(GATED, tag + '-gated')
    gated_core = core_bytes(d)
    if gated_core > plain_core + (64 << 20):
        fail('%s: the gated core is %d bytes, the plain one %d' % (tag, gated_core, plain_core))
    if want is None or got is None:
        return
    if not os.WIFSIGNALED(want):
        fail('%s: the plain build was not ended by a signal (%s)' % (tag, describe(want)))
    if got != want:
        fail('%s: gated ended with %s, the plain build with %s' % (tag, describe(got), describe(want)))
        print(open(os.path.join(d, 'stderr' if os.path.exists(os.path.join(d, 'stderr')) else 'log')).read())
    prof = os.path.join(d, 'out.pathprof')
    if not os.path.exists(prof):
        fail('%s: no profile written' % tag)
        return
    r = subprocess.run([PP, 'report', '--format', 'paths', prof], capture_output=True, text=True)
    if 'main>calls>leaf' not in r.stdout:
        fail('%s: the profile lacks main>calls>leaf: %r' % (tag, r.stdout))
    print('ok %s: %s' % (tag, describe(got)), flush=True)


S = signal
for sig in (S.SIGINT, S.SIGTERM, S.SIGHUP, S.SIGQUIT):
    check('kill-%s' % sig.name, lambda p, t, sig=sig: run_direct(p, 'wait', sig, os.kill, t))
    check('tgkill-%s' % sig.name, lambda p, t, sig=sig: run_direct(p, 'wait', sig, tgkill, t))
    check('sigqueue-%s' % sig.name, lambda p, t, sig=sig: run_direct(p, 'sigqueue', sig, None, t))
    check('timer-%s' % sig.name, lambda p, t, sig=sig: run_direct(p, 'timer', sig, None, t))
check('kernel-SIGXCPU', lambda p, t: run_direct(p, 'cpu', S.SIGXCPU, None, t))
check('self-tgkill-SIGTERM', lambda p, t: run_direct(p, 'tgkill', S.SIGTERM, None, t))
if shutil.which('tmux'):
    check('terminal-C-c', lambda p, t: run_terminal(p, S.SIGINT, 'C-c', t))
    check('terminal-C-backslash', lambda p, t: run_terminal(p, S.SIGQUIT, 'C-\\', t))
    check('terminal-hangup', lambda p, t: run_terminal(p, S.SIGHUP, None, t))
else:
    fail('tmux is not installed (scripts/deps.sh installs it)')
sys.exit(1 if failures else 0)
