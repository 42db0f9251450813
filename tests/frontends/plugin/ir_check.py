#!/usr/bin/env python3
"""Run the pathprof pass on one source through clang -S -emit-llvm and check
which functions it gated: the module's name table must hold exactly the
expected names, every inserted key must be in that table, and with --own each
gated function must carry its own key (FNV-1a of its mangled name, as
docs/reference/plugin.md defines it) and leave before each of its returns and resumes.
With --fail-with, the compile must fail and say the given text instead."""
import argparse
import re
import subprocess
import sys

ENTER = re.compile(r'call void @pp_plugin_enter\(i64 (-?\d+)\)')
LEAVE = 'call void @pp_plugin_leave(i64 '
NAME = re.compile(r'^@(pp\.plugin\.name(?:\.\d+)?) = .*? c"(.*)\\00"')
ROW = re.compile(r'\{ i64 (-?\d+), (?:ptr |i8\* getelementptr inbounds \(\[\d+ x i8\], '
                 r'\[\d+ x i8\]\* )@(pp\.plugin\.name(?:\.\d+)?)\b')
DEFINE = re.compile(r'^define .*?@("(?:[^"\\]|\\.)*"|[-\w.$]+)\(')


def fnv1a(name):
    h = 0xcbf29ce484222325
    for c in name.split('.')[0].encode():
        h = ((h ^ c) * 0x100000001b3) & 0xffffffffffffffff
    return h or 1


def unescape(s):
    return re.sub(r'\\([0-9A-Fa-f]{2})', lambda m: chr(int(m.group(1), 16)), s)


def parse(ll):
    names, table, funcs = {}, {}, {}
    cur = None
    for line in ll.splitlines():
        m = NAME.match(line)
        if m:
            names[m.group(1)] = unescape(m.group(2))
        if line.startswith('@pp.plugin.names '):
            for key, ref in ROW.findall(line):
                table[int(key) & 0xffffffffffffffff] = ref
        m = DEFINE.match(line)
        if m:
            cur = funcs.setdefault(m.group(1).strip('"'), [])
        elif line.startswith('}'):
            cur = None
        elif cur is not None:
            s = line.strip()
            # Debug records are not instructions (LLVM 19 prints them inline).
            if s and not s.startswith('#dbg_') and 'call void @llvm.dbg.' not in s:
                cur.append(s)
    return {k: names.get(v, '?' + v) for k, v in table.items()}, funcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--clang', required=True)
    ap.add_argument('--plugin', required=True)
    ap.add_argument('--src', required=True)
    ap.add_argument('--flag', action='append', default=[])
    ap.add_argument('--expect', action='append', default=[])
    ap.add_argument('--own', action='store_true')
    ap.add_argument('--fail-with')
    ap.add_argument('--stderr-has', action='append', default=[])
    ap.add_argument('--stderr-lacks', action='append', default=[])
    a = ap.parse_args()

    cmd = [a.clang, '-fplugin=' + a.plugin, '-fpass-plugin=' + a.plugin] + a.flag + \
          ['-S', '-emit-llvm', '-o', '-', a.src]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if a.fail_with is not None:
        if r.returncode == 0 or a.fail_with not in r.stderr:
            sys.exit('ir_check: expected failure with %r, got status %d and:\n%s'
                     % (a.fail_with, r.returncode, r.stderr))
        return
    if r.returncode != 0:
        sys.exit('ir_check: %s failed:\n%s' % (' '.join(cmd), r.stderr))

    table, funcs = parse(r.stdout)
    errors = []
    errors += ['stderr lacks %r: %r' % (t, r.stderr) for t in a.stderr_has if t not in r.stderr]
    errors += ['stderr has %r: %r' % (t, r.stderr) for t in a.stderr_lacks if t in r.stderr]
    got, want = sorted(table.values()), sorted(a.expect)
    if got != want:
        errors.append('name table holds %s, expected %s' % (got, want))
    if table and ('@pp_register_names(i32 4, ' not in r.stdout or
                  ', i32 %d)' % len(table) not in r.stdout):
        errors.append('no constructor registering %d names' % len(table))
    keys = set()
    for fn, body in funcs.items():
        entered = [int(k) & 0xffffffffffffffff for s in body for k in ENTER.findall(s)]
        keys.update(entered)
        if not a.own:
            continue
        if entered and entered != [fnv1a(fn)]:
            errors.append('%s: enter keys %s, expected [%d]' % (fn, entered, fnv1a(fn)))
        leaves = sum(s.startswith(LEAVE) for s in body)
        if not entered and leaves:
            errors.append('%s: %d leave calls but not gated' % (fn, leaves))
        for i, s in enumerate(body):
            if entered and re.match(r'(ret|resume)\b', s) and (i == 0 or not body[i - 1].startswith(LEAVE)):
                errors.append('%s: no leave before %r' % (fn, s))
    if keys != set(table):
        errors.append('inserted keys %s differ from table keys %s' % (sorted(keys), sorted(table)))
    for e in errors:
        print('ir_check: %s: %s' % (a.src, e), file=sys.stderr)
    sys.exit(1 if errors else 0)


main()
