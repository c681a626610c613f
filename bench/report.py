#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of "make bench": a table, results.json, a plot, the goals.

Usage: report.py OUTDIR

Reads OUTDIR/kernel.tap (kslot_bench.ko and kslot_ioctl_bench in the VM),
OUTDIR/native.tap (bench/native) and OUTDIR/callgrind.txt (callgrind
inclusive counts of the native --count run).  Writes OUTDIR/results.json,
a list of {"name", "size", "kslot_ns", "anchor", "anchor_ns", "ratio"}
with ratio = anchor_ns / kslot_ns (bigger is better for kslot), and
OUTDIR/results.png (gnuplot; skipped if gnuplot is missing).  Rows named
native_instr_* count instructions per call, not ns.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ROW = re.compile(r'^ok \d+ (\S+) size=(\d+) kslot_ns=([\d.]+) '
                 r'anchor=(\S+) anchor_ns=([\d.]+)')
COUNT = 1048576
BULK = 32


def rows_of(path):
    rows, notes = [], []
    try:
        lines = open(path, errors='replace').read().splitlines()
    except OSError:
        return rows, ['missing ' + os.path.basename(path)]
    for line in lines:
        m = ROW.match(line)
        if m:
            k, a = float(m.group(3)), float(m.group(5))
            rows.append({'name': m.group(1), 'size': int(m.group(2)),
                         'kslot_ns': k, 'anchor': m.group(4),
                         'anchor_ns': a,
                         'ratio': round(a / k, 3) if k else None})
        elif line.startswith('not ok'):
            notes.append('FAILED: ' + line)
        elif line.startswith('# kernel') or line.startswith('# ioctl'):
            notes.append(line[2:])
    return rows, notes


def callgrind_rows(path):
    """Instructions per call of each lookup, from callgrind_annotate."""
    try:
        text = open(path, errors='replace').read()
    except OSError:
        return []
    per, bulk = {}, {}
    for m in re.finditer(r'^\s*([\d,]+) \([^)]*\)\s+=> \S*:(\S+?) '
                         r'\(([\d,]+)x\)', text, re.M):
        ir = int(m.group(1).replace(',', ''))
        calls = int(m.group(3).replace(',', ''))
        func = m.group(2).split('.')[0]
        if calls == COUNT:
            per[func] = ir / calls
        elif calls == COUNT // BULK:
            bulk[func] = ir / calls
    rows = []

    def add(name, kfun, anchor, afun, table=per, size=COUNT):
        if kfun in table and afun in per:
            rows.append({'name': name, 'size': size,
                         'kslot_ns': round(table[kfun], 2), 'anchor': anchor,
                         'anchor_ns': round(per[afun], 2),
                         'ratio': round(per[afun] / table[kfun], 3),
                         'unit': 'instructions'})
    add('native_instr_lookup', 'kn_lookup_one', 'xa_load', 'xa_load')
    add('native_instr_lookup', 'kn_lookup_one', 'flat_floor', 'kn_floor_one')
    add('native_instr_map_lookup_rcu', 'kslot_map_lookup', 'xa_load',
        'xa_load')
    # The pool, one call per operation (a task-context pool of 64 B).
    add('native_instr_pool_alloc', 'kn_pool_alloc_one', 'malloc',
        'kn_malloc_one')
    add('native_instr_pool_free', 'kn_pool_free_one', 'free', 'kn_free_one')
    # Per call of BULK objects, against BULK single malloc()s.
    if 'kn_malloc_one' in per:
        per['kn_malloc_bulk'] = per['kn_malloc_one'] * BULK
        per['kn_free_bulk'] = per['kn_free_one'] * BULK
    add('native_instr_pool_alloc_bulk%d' % BULK, 'kn_pool_alloc_bulk_one',
        'malloc_x%d' % BULK, 'kn_malloc_bulk', bulk, COUNT // BULK)
    add('native_instr_pool_free_bulk%d' % BULK, 'kn_pool_free_bulk_one',
        'free_x%d' % BULK, 'kn_free_bulk', bulk, COUNT // BULK)
    return rows


def find(rows, name, size, anchor):
    for r in rows:
        if r['name'] == name and r['size'] == size and r['anchor'] == anchor:
            return r
    return None


def goals(rows):
    big = max([r['size'] for r in rows if not r['name'].startswith(
        ('native_instr', 'ioctl'))] or [0])
    out = []

    def check(label, r, ok, how):
        if r is None:
            out.append(('n/a', label, 'no measurement'))
        elif '%(kmem_ratio)' in how and 'kmem_ratio' not in r:
            out.append(('n/a', label, 'incomplete measurement'))
        else:
            out.append(('met' if ok(r) else 'MISSED', label,
                        how % r + ' (%s %d: kslot %.2f, %s %.2f)' % (
                            r['name'], r['size'], r['kslot_ns'],
                            r['anchor'], r['anchor_ns'])))

    r = find(rows, 'map_lookup_rand', big, 'xa_load')
    check('1a lookup >= 4x xa_load (1M random)', r,
          lambda r: r['ratio'] >= 4, 'ratio %(ratio).2f')
    r = find(rows, 'map_lookup_inline_rand', big, 'xa_load')
    check('1a\' caller-RCU lookup >= 4x xa_load (1M random)', r,
          lambda r: r['ratio'] >= 4, 'ratio %(ratio).2f')
    r = find(rows, 'map_lookup_inline_rand', big, 'flat_floor_inline')
    check('1b lookup within 1.3x of the flat floor (1M random)', r,
          lambda r: r['ratio'] >= 1 / 1.3, 'ratio %(ratio).2f')
    r = find(rows, 'map_alloc_remove', big, 'xa_alloc+xa_erase')
    check('2 alloc+remove >= 4x xa_alloc+xa_erase', r,
          lambda r: r['ratio'] >= 4, 'ratio %(ratio).2f')
    for size in (64, 512):
        r = find(rows, 'pool_hot_%d' % size, big, 'kmem_cache_alloc+free')
        check('3a pool hot pair >= 2x kmem_cache (%d B)' % size, r,
              lambda r: r['ratio'] >= 2, 'ratio %(ratio).2f')
        r = find(rows, 'pool_hot_%d' % size, big, 'objpool_pop+push')
        check('3a\' pool hot pair >= objpool (%d B)' % size, r,
              lambda r: r['ratio'] >= 1, 'ratio %(ratio).2f')
        r = find(rows, 'pool_bulk32_%d' % size, big,
                 'kmem_cache_alloc_bulk+free_bulk')
        check('3c pool bulk of 32 >= kmem_cache bulk (%d B)' % size, r,
              lambda r: r['ratio'] >= 1, 'ratio %(ratio).2f')
    r = find(rows, 'smp2_pool_hot_64', big, 'kslot_pool_1cpu')
    kmem = find(rows, 'smp2_cache_scaling_64', big, 'kmem_cache_1cpu')
    two = find(rows, 'smp2_pool_hot_64', big, 'kmem_cache_alloc+free')
    if r and kmem and two:
        # Slowdown from 1 to 2 CPUs, kslot against kmem_cache's own.
        r = dict(r, kmem_ratio=kmem['ratio'], vs=two['ratio'])
    check('3b no collapse on 2 CPUs (1->2 CPU slowdown no worse than '
          '1.25x kmem_cache\'s)', r,
          lambda r: 'kmem_ratio' in r and r['ratio'] >= r['kmem_ratio'] / 1.25,
          'kslot 1->2 CPU ratio %(ratio).2f, kmem_cache %(kmem_ratio).2f, '
          '2-CPU kslot vs kmem_cache %(vs).2f')
    r = find(rows, 'dense_iter', big, 'xa_for_each')
    check('4 dense iteration >= 5x xa_for_each', r,
          lambda r: r['ratio'] >= 5, 'ratio %(ratio).2f')
    r = find(rows, 'hive_iter_50', big, 'packed_array')
    check('5 hive iteration (50% erased) within 1.5x of packed', r,
          lambda r: r['ratio'] >= 1 / 1.5, 'ratio %(ratio).2f')
    ioc = [x for x in rows if x['name'] == 'ioctl_get_batch256']
    check('6 batched ioctl (256) >= 10x single ioctls', ioc[0] if ioc else
          None, lambda r: r['ratio'] >= 10, 'ratio %(ratio).2f')
    r = find(rows, 'native_instr_lookup', COUNT, 'xa_load')
    check('7a native lookup <= 15 instructions', r,
          lambda r: r['kslot_ns'] <= 15, '%(kslot_ns).1f instructions')
    nbig = max([r['size'] for r in rows if r['name'].startswith(
        'native_map')] or [0])
    r = find(rows, 'native_map_lookup_rand', nbig, 'xa_load')
    check('7b native lookup >= 10x xa_load (1M random)', r,
          lambda r: r['ratio'] >= 10, 'ratio %(ratio).2f')
    r = find(rows, 'native_map_lookup_inline_rand', nbig, 'xa_load')
    check('7b\' native caller-RCU lookup >= 10x xa_load (1M random)', r,
          lambda r: r['ratio'] >= 10, 'ratio %(ratio).2f')
    r = find(rows, 'native_map_lookup_inline_rand', nbig,
             'xas_load_caller_rcu')
    check('7b\'\' native caller-RCU lookup >= 10x xas_load under the '
          'caller\'s RCU (1M random)', r,
          lambda r: r['ratio'] >= 10, 'ratio %(ratio).2f')
    r = find(rows, 'native_map_alloc_remove', nbig, 'xa_alloc+xa_erase')
    check('7c native alloc+remove >= 8x xa_alloc+xa_erase', r,
          lambda r: r['ratio'] >= 8, 'ratio %(ratio).2f')
    return out


def plot(rows, outdir):
    """ns/op against size, one panel per benchmark, kslot and anchors."""
    gp = shutil.which('gnuplot')
    if not gp:
        print('(gnuplot not installed: no plot)')
        return
    panels = {}
    for r in rows:
        if r.get('unit') or r['name'].startswith('ioctl'):
            continue
        p = panels.setdefault(r['name'], {})
        p.setdefault('kslot', {})[r['size']] = r['kslot_ns']
        p.setdefault(r['anchor'], {})[r['size']] = r['anchor_ns']
    panels = {k: v for k, v in panels.items()
              if len(v['kslot']) > 1}
    if not panels:
        return
    names = sorted(panels, key=lambda n: (n.startswith('native'), n))
    cols = 4
    nrows = (len(names) + cols - 1) // cols
    terms = subprocess.run([gp, '-e', 'set terminal'], capture_output=True,
                           text=True)
    term = 'pngcairo' if 'pngcairo' in terms.stdout + terms.stderr else 'png'
    script = ['set terminal %s size %d,%d' % (term, cols * 420, nrows * 300),
        'set output "%s"' % os.path.join(outdir, 'results.png'),
        'set multiplot layout %d,%d' % (nrows, cols),
        'set termoption noenhanced',
        'set logscale xy', 'set xlabel "live entries"',
        'set xrange [600:1800000]',
        'set xtics ("1K" 1024, "64K" 65536, "1M" 1048576)',
        'set ylabel "ns/op"', 'set key top left font ",7"', 'set grid']
    for i, name in enumerate(names):
        series = panels[name]
        plots = []
        for j, (label, pts) in enumerate(series.items()):
            block = '$d%d_%d' % (i, j)
            script.append('%s << EOD' % block)
            for size in sorted(pts):
                script.append('%d %f' % (size, max(pts[size], 0.01)))
            script.append('EOD')
            plots.append('%s using 1:2 with linespoints lw %d title "%s"' % (
                block, 3 if label == 'kslot' else 1, label))
        script.append('set title "%s"' % name)
        script.append('plot ' + ', '.join(plots))
    script.append('unset multiplot')
    path = os.path.join(outdir, 'results.gp')
    with open(path, 'w') as f:
        f.write('\n'.join(script) + '\n')
    res = subprocess.run([gp, path], capture_output=True, text=True)
    if res.returncode:
        print('gnuplot failed: ' + res.stderr[-500:])
    else:
        print('plot: %s' % os.path.join(outdir, 'results.png'))


def main():
    outdir = sys.argv[1]
    krows, knotes = rows_of(os.path.join(outdir, 'kernel.tap'))
    nrows, nnotes = rows_of(os.path.join(outdir, 'native.tap'))
    crows = callgrind_rows(os.path.join(outdir, 'callgrind.txt'))
    rows = krows + nrows + crows
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump(rows, f, indent=1)
        f.write('\n')

    for n in knotes + nnotes:
        print(n)
    print('%-32s %8s %10s  %-38s %10s %7s' % (
        'benchmark', 'size', 'kslot', 'anchor', 'anchor', 'ratio'))
    for r in rows:
        unit = ' instr' if r.get('unit') else ''
        print('%-32s %8d %10.2f  %-38s %10.2f %7s%s' % (
            r['name'], r['size'], r['kslot_ns'], r['anchor'],
            r['anchor_ns'], '%.2f' % r['ratio'] if r['ratio'] else '-',
            unit))
    print('(ns/op unless marked instr; ratio = anchor / kslot, '
          'bigger is better for kslot; in-kernel rows run under QEMU TCG)')
    print()
    print('Goals:')
    for status, label, how in goals(rows):
        print('  [%s] %s: %s' % (status, label, how))
    plot(rows, outdir)
    print('results: %s' % os.path.join(outdir, 'results.json'))
    bad = [n for n in knotes + nnotes if n.startswith(('FAILED', 'missing'))]
    if not krows or not nrows or bad:
        sys.exit(1)


if __name__ == '__main__':
    main()
