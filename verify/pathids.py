#!/usr/bin/env python3
"""Reads `pathprof report --format json` and prints one line per path,
`<name sequence as JSON> <stable id>`, sorted, so verify can diff the ids of
two builds name sequence by name sequence (C++ names hold '>', so the
canonical listing's text is not a safe key). With --events/--frontend it
also checks the profile's counters and exits 1 naming what is wrong."""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('json_file')
    ap.add_argument('--events', type=int, help='expected number of events')
    ap.add_argument('--frontend', help='expected front-end name')
    a = ap.parse_args()
    try:
        with open(a.json_file, encoding='utf-8') as f:
            prof = json.load(f)
    except (OSError, ValueError) as e:
        print(f'pathids: {a.json_file}: {e}', file=sys.stderr)
        return 1

    bad = []
    if a.frontend is not None and prof.get('frontend') != a.frontend:
        bad.append(f"frontend is {prof.get('frontend')!r}, expected {a.frontend!r}")
    if a.events is not None and prof.get('events') != a.events:
        bad.append(f"events is {prof.get('events')}, expected {a.events}")
    if a.events is not None:
        for k in ('drops_table', 'drops_depth', 'unmatched'):
            if prof.get(k) != 0:
                bad.append(f'{k} is {prof.get(k)}, expected 0')
        if prof.get('records') != prof.get('total_count'):
            bad.append(f"records {prof.get('records')} != sum of path counts {prof.get('total_count')}")

    lines, seen = [], {}
    for p in prof.get('paths', []):
        key = json.dumps(p['path'], ensure_ascii=False)
        if p['id'] in seen and seen[p['id']] != key:
            bad.append(f"id {p['id']} names two paths: {seen[p['id']]} and {key}")
        seen[p['id']] = key
        lines.append(f"{key} {p['id']}")
    for b in bad:
        print(f'pathids: {a.json_file}: {b}', file=sys.stderr)
    sys.stdout.write(''.join(line + '\n' for line in sorted(lines)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
