#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of an interleaved run of two builds (scripts/bench-ab.sh).

Usage: bench-ab-report.py OUTDIR

For every row (name, size, anchor) of both builds: kslot_ns of A (old)
and B (new), best over the rounds (the worst-case rows, grow_stall,
lock holds and copy batches, list every round instead), and B / A.
Then the issue 31 goals: the inline lookup against the flat floor
(run_size's rows and run_twolevel's, whose loops run in turn), and the
worst allocation and dense insert while growing against XArray's worst
xa_alloc of the same run.
"""
import glob
import os
import re
import sys

ROW = re.compile(r'^ok \d+ (\S+) size=(\d+) kslot_ns=([\d.]+) '
                 r'anchor=(\S+) anchor_ns=([\d.]+)')
WORST = ('grow_stall', 'lock_hold')


def load(outdir):
    runs = {}
    for path in sorted(glob.glob(os.path.join(outdir, '[AB]-*-*.tap'))):
        side, rnd = os.path.basename(path).split('-')[:2]
        for line in open(path):
            m = ROW.match(line)
            if not m:
                continue
            key = (m.group(1), int(m.group(2)), m.group(4))
            runs.setdefault(key, {}).setdefault(side, []).append(
                (int(rnd), float(m.group(3)), float(m.group(5))))
    return runs


def main():
    outdir = sys.argv[1]
    runs = load(outdir)
    print('%-44s %9s %-26s %12s %12s %6s' % ('row', 'size', 'anchor',
                                            'old', 'new', 'new/old'))
    for key in sorted(runs, key=lambda k: (k[1], k[0], k[2])):
        name, size, anchor = key
        a, b = runs[key].get('A', []), runs[key].get('B', [])
        if not a or not b:
            continue
        if any(w in name for w in WORST):
            for r in sorted({x[0] for x in a} | {x[0] for x in b}):
                ka = [x for x in a if x[0] == r]
                kb = [x for x in b if x[0] == r]
                if ka and kb:
                    print('%-44s %9d %-26s %12.0f %12.0f %6.2f  round %d '
                          '(anchor %.0f / %.0f)' % (
                              name, size, anchor, ka[0][1], kb[0][1],
                              kb[0][1] / ka[0][1] if ka[0][1] else 0, r,
                              ka[0][2], kb[0][2]))
            continue
        ka = min(x[1] for x in a)
        kb = min(x[1] for x in b)
        print('%-44s %9d %-26s %12.2f %12.2f %6.2f' % (
            name, size, anchor, ka, kb, kb / ka if ka else 0))
    print()
    print('Lookup / flat floor (inline, random), best of the rounds:')
    for side in 'AB':
        for key in sorted(runs):
            name, size, anchor = key
            if name == 'native_map_lookup_inline_rand' and \
               anchor == 'flat_floor_inline' and side in runs[key]:
                k = min(x[1] for x in runs[key][side])
                f = min(x[2] for x in runs[key][side])
                print('  %s run_size  %9d map %.2f floor %.2f ratio %.2f' %
                      (side, size, k, f, k / f))
        for key in sorted(runs):
            name, size, anchor = key
            if name == 'native_twolevel_lookup_inline_rand' and \
               anchor == 'flat_floor_inline' and side in runs[key]:
                other = runs.get((name, size, 'map_lookup_inline'), {})
                for (r, _, f), (r2, _, m) in zip(
                        sorted(runs[key][side]), sorted(other.get(side, []))):
                    print('  %s twolevel  %9d map %.2f floor %.2f ratio %.2f'
                          ' (round %d)' % (side, size, m, f, m / f, r))
    print()
    print('Growth stalls (worst call while a table grows, ns, per round):')
    for key in sorted(runs, key=lambda k: k[1]):
        name, size, anchor = key
        if name != 'native_grow_stall_alloc_max':
            continue
        dkey = ('native_dense_grow_stall_insert_max', size, 'map_alloc')
        for side in 'AB':
            for r, k, xa in sorted(runs[key].get(side, [])):
                d = [x[1] for x in runs.get(dkey, {}).get(side, [])
                     if x[0] == r]
                print('  %s %9d round %d: alloc %.0f (%.1fx xa), dense '
                      'insert %s, xa_alloc worst %.0f' % (
                          side, size, r, k, k / xa,
                          '%.0f (%.1fx xa)' % (d[0], d[0] / xa) if d else
                          '-', xa))


main()
