#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of "make bench": a table, results.json, plots, the goals.

Usage: report.py [--native] OUTDIR

Reads OUTDIR/kernel.tap (kslot_bench.ko and kslot_ioctl_bench in the VM;
not needed with --native, as "make bench-native" runs no VM),
OUTDIR/native.tap (bench/native) and OUTDIR/callgrind.txt (callgrind
inclusive counts of the native --count run).  Writes OUTDIR/results.json,
a list of {"name", "size", "kslot_ns", "anchor", "anchor_ns", "ratio"}
with ratio = anchor_ns / kslot_ns (bigger is better for kslot); a row may
carry more figures (the 2-CPU rows: XArray's own "xa_1cpu_ns",
"xa_2cpu_ns" and "xa_ratio").  Rows named native_instr_* count
instructions per call, not ns.  With gnuplot installed it also writes
OUTDIR/summary.png, one chart of the headline ratios with each goal drawn
as a line, and OUTDIR/results.png, that chart above one panel per
benchmark (ns/op against size).
"""
import json
import os
import re
import shutil
import subprocess
import sys

ROW = re.compile(r'^ok \d+ (\S+) size=(\d+) kslot_ns=([\d.]+) '
                 r'anchor=(\S+) anchor_ns=([\d.]+)((?: \w+=[\d.]+)*)')
EXTRA = re.compile(r'(\w+)=([\d.]+)')
COUNT = 1048576
BASE_KEYS = ('name', 'size', 'kslot_ns', 'anchor', 'anchor_ns', 'ratio',
             'unit')
M1 = 1048576
SIZES = (('1K', 1024), ('64K', 65536), ('1M', 1048576), ('16M', 16777216))
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
            row = {'name': m.group(1), 'size': int(m.group(2)),
                   'kslot_ns': k, 'anchor': m.group(4), 'anchor_ns': a,
                   'ratio': round(a / k, 3) if k else None}
            for key, value in EXTRA.findall(m.group(6)):
                row[key] = float(value)
            rows.append(row)
        elif line.startswith('not ok'):
            notes.append('FAILED: ' + line)
        elif line.startswith(('# kernel', '# ioctl', '# native',
                              '# iommufd')):
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
        if calls == COUNT or func.startswith(('kn_hive', 'kn_dense',
                                               'kn_packed')):
            per[func] = ir / calls
        elif calls == COUNT // BULK:
            bulk[func] = ir / calls
    # Loops with the lookup inlined, one call each over COUNT keys: per
    # key, less the same loop without the lookup (see kn_count_inline_*).
    loops = {}
    for m in re.finditer(r'^\s*([\d,]+) \([^)]*\)\s+=> \S*:'
                         r'((?:kn|sn)_count_inline_\w+) \(1x\)', text, re.M):
        loops[m.group(2)] = int(m.group(1).replace(',', '')) / COUNT
    for side in ('kn', 'sn'):
        base = loops.get(side + '_count_inline_base')
        for func, ir in loops.items():
            if func.startswith(side) and base is not None and \
                    not func.endswith('_base'):
                per[func] = ir - base
    # One walk each over the COUNT - COUNT / 2 elements left.
    for func in ('kn_hive_iter_pass', 'kn_packed_pass'):
        if func in per:
            per[func] /= COUNT - COUNT // 2
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
    add('native_instr_map_lookup_rcu', 'kslot_slots_lookup', 'xa_load',
        'xa_load')
    add('native_instr_lookup', 'kn_lookup_one', 'slotmap::SlotMap',
        'sn_slotmap_get_one')
    # The same, inlined into the caller's loop (no call or return).
    add('native_instr_lookup_inlined', 'kn_count_inline_lookup',
        'flat_floor', 'kn_count_inline_floor')
    add('native_instr_lookup_inlined', 'kn_count_inline_lookup',
        'slotmap::SlotMap', 'sn_count_inline_get')
    # Growth scheme (b): the two-level tables (kn_tl_fill()), inlined.
    for name, loop, one in (('twolevel', 'kn_count_inline_tl', 'kn_tl_one'),
                            ('chunked', 'kn_count_inline_fc', 'kn_fc_one')):
        add('native_instr_%s_lookup' % name, one, 'flat_floor',
            'kn_floor_one')
        add('native_instr_%s_lookup_inlined' % name, loop, 'flat_floor',
            'kn_count_inline_floor')
        add('native_instr_%s_lookup_inlined' % name, loop, 'map_lookup',
            'kn_count_inline_lookup')
    add('native_instr_hive_insert', 'kn_hive_insert_one', 'dense_insert',
        'kn_dense_insert_one')
    add('native_instr_hive_erase_rand', 'kn_hive_erase_one',
        'dense_erase_rand', 'kn_dense_erase_one')
    add('native_instr_hive_iter_50', 'kn_hive_iter_pass', 'packed_array',
        'kn_packed_pass')
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


CHURN_COUNT = 65536


def churn_rows(outdir):
    """Instructions per alloc+remove pair (callgrind-churn*.out), one at
    a time, in bulk, and the pair's floor (the core's fast paths inlined
    into the loop)."""
    rows = []
    for flavour in ('', 'bulk', 'floor'):
        path = os.path.join(outdir, 'callgrind-churn%s.out' % flavour)
        try:
            text = open(path, errors='replace').read()
        except OSError:
            continue
        m = re.search(r'^summary: (\d+)', text, re.M)
        if m:
            name = {'': 'native_instr_map_alloc_remove',
                    'bulk': 'native_instr_map_alloc_remove_bulk',
                    'floor': 'native_instr_map_alloc_remove_floor'}[flavour]
            rows.append({'name': name, 'size': CHURN_COUNT,
                'kslot_ns': round(int(m.group(1)) / CHURN_COUNT, 2),
                'anchor': 'none', 'anchor_ns': 0, 'ratio': None,
                'unit': 'instructions'})
    return rows


def find(rows, name, size, anchor):
    for r in rows:
        if r['name'] == name and r['size'] == size and r['anchor'] == anchor:
            return r
    return None


def size_label(size):
    for label, n in SIZES:
        if n == size:
            return label
    return str(size)


# The headline ratios: one column each in the summary chart, with its goal
# as a line; those with an id are also checked under "Goals" at the sizes
# given (None: every size measured).  A ratio is anchor / kslot as in
# results.json, or what 'ratio' computes from the rows.
def derived_lookup_rcu(prefix):
    """Inline lookup ns / kslot_map_lookup() ns, per size."""
    def ratio(rows):
        out = {}
        for r in rows:
            if r['name'] == prefix + 'map_lookup_rand':
                i = [x for x in rows if x['name'] == prefix +
                     'map_lookup_inline_rand' and x['size'] == r['size']]
                if i and r['kslot_ns']:
                    out[r['size']] = i[0]['kslot_ns'] / r['kslot_ns']
        return out
    return ratio


def field_ratio(name, anchor, field):
    def ratio(rows):
        return {r['size']: r[field] for r in rows if r['name'] == name and
                r['anchor'] == anchor and field in r}
    return ratio


HEADLINE = [
    {'label': 'lookup vs flat floor (goal: 1K, 1M, 16M)', 'name': 'native_map_lookup_inline_rand',
     'anchor': 'flat_floor_inline', 'goal': 1 / 1.1,
     'id': 'G1a', 'sizes': (1024, 1048576, 16777216),
     'what': "native lookup under the caller's RCU within 1.1x of the flat "
             "floor (random)"},
    {'label': 'lookup vs SlotMap', 'name': 'native_map_lookup_inline_rand',
     'anchor': 'slotmap::SlotMap', 'goal': 1.0, 'id': 'G1b',
     'what': "native lookup under the caller's RCU >= 1.0x "
             "slotmap::SlotMap (random, every size)"},
    {'label': 'kslot_map_lookup() vs inline', 'goal': 1 / 1.3, 'id': 'G2',
     'ratio': derived_lookup_rcu('native_'),
     'what': 'native kslot_map_lookup() within 1.3x of the inline lookup '
             '(random)'},
    {'label': 'kslot_map_lookup() vs inline (TCG)', 'goal': 1 / 1.3,
     'id': 'G2\'', 'ratio': derived_lookup_rcu(''),
     'what': 'in-kernel kslot_map_lookup() within 1.3x of the inline lookup '
             '(random)'},
    {'label': 'two-level lookup vs flat floor (scheme b)',
     'name': 'native_twolevel_lookup_inline_rand',
     'anchor': 'flat_floor_inline', 'goal': 1 / 1.1},
    {'label': 'lookup vs xa_load', 'name': 'native_map_lookup_rand',
     'anchor': 'xa_load', 'goal': 10},
    {'label': 'alloc+remove vs SlotMap', 'name': 'native_map_alloc_remove',
     'anchor': 'slotmap::SlotMap', 'goal': 1.0, 'id': 'G4a',
     'what': 'native alloc+remove >= 1.0x slotmap::SlotMap (every size)'},
    {'label': 'alloc+remove vs XArray (goal: 1M)', 'name': 'native_map_alloc_remove',
     'anchor': 'xa_alloc+xa_erase', 'goal': 8, 'id': 'G4b',
     'sizes': (1048576,),
     'what': 'native alloc+remove >= 8x xa_alloc+xa_erase'},
    {'label': 'alloc+remove 2 CPUs / 1 CPU (locked map)',
     'name': 'native_smp2_map_alloc_remove', 'anchor': 'kslot_map_1cpu'},
    {'label': 'XArray 2 CPUs / 1 CPU',
     'ratio': field_ratio('native_smp2_map_alloc_remove', 'kslot_map_1cpu',
                          'xa_ratio')},
    {'label': 'dense iteration vs packed', 'name': 'native_dense_iter',
     'anchor': 'packed_array', 'goal': 0.8, 'id': 'G6',
     'what': "dense iteration at about a packed array's speed (within "
             '1.25x)'},
    {'label': 'dense iteration vs xa_for_each', 'name': 'native_dense_iter',
     'anchor': 'xa_for_each', 'goal': 5},
    {'label': 'hive iteration (50% erased) vs packed',
     'name': 'native_hive_iter_50', 'anchor': 'packed_array',
     'goal': 1 / 1.5},
    {'label': 'pool 64 B vs malloc', 'name': 'native_pool_hot_64',
     'anchor': 'malloc+free'},
    {'label': 'pool 64 B vs kmem_cache (TCG)', 'name': 'pool_hot_64',
     'anchor': 'kmem_cache_alloc+free', 'goal': 2},
    {'label': 'batch ioctl (256) vs single (TCG)',
     'name': 'ioctl_get_batch256', 'anchor': 'ioctl_get_single', 'goal': 10},
    {'label': 'batch ioctl (256) vs single (-icount)',
     'name': 'ioctl_icount_get_batch256', 'anchor': 'ioctl_icount_get_single',
     'goal': 10},
    {'label': 'copy-only batch vs batch GET (256) (-icount)',
     'name': 'ioctl_icount_get_batch256_copy', 'anchor': 'copy_only_batch256',
     'goal': 0.5},
]


def headline_ratios(rows, h):
    """{size: ratio} of one headline entry."""
    if 'ratio' in h:
        return h['ratio'](rows)
    return {r['size']: r['ratio'] for r in rows if r['name'] == h['name'] and
            r['anchor'] == h['anchor'] and r['ratio']}


def headline_goals(rows):
    out = []
    for h in HEADLINE:
        if 'id' not in h:
            continue
        got = headline_ratios(rows, h)
        sizes = [n for n in (h.get('sizes') or sorted(got)) if n in got]
        label = '%s %s' % (h['id'], h['what'])
        if not sizes:
            out.append(('n/a', label, 'no measurement'))
            continue
        ok = all(got[n] >= h['goal'] for n in sizes)
        if h.get('sizes') and len(sizes) < len(h['sizes']):
            status = 'MISSED' if not ok else 'partial'
        else:
            status = 'met' if ok else 'MISSED'
        out.append((status, label, 'goal %.2f; ratio %s' % (
            h['goal'], ', '.join('%s %.2f%s' % (
                size_label(n), got[n], '' if got[n] >= h['goal'] else '!')
                for n in sizes))))
    return out


def goals(rows):
    # The in-kernel goals are at the largest in-kernel size (1M); the
    # native ones at 1M too, though native rows go to 16M.
    big = max([r['size'] for r in rows if not r['name'].startswith(
        ('native', 'ioctl'))] or [0])
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
    r = find(rows, 'hive_iter_50', big, 'packed_array')
    check('8a hive iteration (50% erased) >= 0.35x packed, in-kernel', r,
          lambda r: r['ratio'] >= 0.35, 'ratio %(ratio).2f')
    for size in (65536, 1048576):
        r = find(rows, 'native_hive_erase_rand', size, 'dense_erase_rand')
        check('8b native hive random erase no slower than kslot_dense '
              '(%dK)' % (size // 1024), r, lambda r: r['ratio'] >= 1,
              'ratio %(ratio).2f')
    for size in (65536, 1048576):
        r = find(rows, 'native_hive_iter_50', size, 'packed_array')
        check('8c native hive iteration (50%% erased) >= 0.26x packed '
              '(%dK)' % (size // 1024), r, lambda r: r['ratio'] >= 0.26,
              'ratio %(ratio).2f')
    # The ioctl rows: under TCG (timed), and under -icount (instructions);
    # 8-byte records (op get), then the other record sizes measured
    # (op get_rec<SIZE>, kslot_ioctl_bench -s).
    recs = sorted({int(m.group(1)) for m in (
        re.match(r'ioctl_(?:icount_)?get_rec(\d+)_batch256$', x['name'])
        for x in rows) if m})
    for label, prefix in (('', 'ioctl_'), ('-icount', 'ioctl_icount_')):
        for rec in [None] + recs:
            op = prefix + ('get_rec%d' % rec if rec else 'get')
            what = ', '.join(x for x in (
                label, '%d B records' % rec if rec else '') if x)
            what = ' (%s)' % what if what else ''
            ioc = [x for x in rows if x['name'] == op + '_batch256']
            if rec and not ioc:
                continue
            check('6 batched ioctl (256) >= 10x single ioctls' + what,
                  ioc[0] if ioc else None, lambda r: r['ratio'] >= 10,
                  'ratio %(ratio).2f')
            ioc = [dict(x, cost=x['kslot_ns'] / x['anchor_ns'])
                   for x in rows if x['name'] == op + '_batch256_copy' and
                   x['anchor_ns']]
            check('6b batched GET (256) per entry <= 2x a copy-only batch' +
                  what, ioc[0] if ioc else None, lambda r: r['ratio'] >= 0.5,
                  'per entry %(kslot_ns).2f against %(anchor_ns).2f '
                  '(%(cost).2fx)')
    r = find(rows, 'native_instr_lookup_inlined', COUNT, 'flat_floor')
    check('7a native lookup <= 15 instructions (inlined into the caller)',
          r, lambda r: r['kslot_ns'] <= 15, '%(kslot_ns).1f instructions')
    r = find(rows, 'native_instr_lookup', COUNT, 'flat_floor')
    check('7a\' native lookup <= 15 instructions (a noinline call, with '
          'its return)', r, lambda r: r['kslot_ns'] <= 15,
          '%(kslot_ns).1f instructions')
    nsizes = [r['size'] for r in rows if r['name'].startswith('native_map')]
    nbig = M1 if M1 in nsizes else max(nsizes or [0])
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
    write_goals(rows, check)
    stall_goals(rows, check)
    return out + headline_goals(rows)


def write_goals(rows, check):
    """The write path's goals (W, from the floor: one atomic and one exposed
    miss per operation; docs/benchmarks.rst): counts, then native ratios at
    every size measured, each through @check."""
    sn = 'slotmap::SlotMap'
    nsizes = sorted({r['size'] for r in rows
                     if r['name'] == 'native_map_alloc_remove'})
    # The per-CPU map (W1) is gone with the chunked core (issue 31).
    r = find(rows, 'native_instr_map_alloc_remove', CHURN_COUNT, 'none')
    # The pair's floor: what no call layout goes below (the core inlined).
    f = find(rows, 'native_instr_map_alloc_remove_floor', CHURN_COUNT, 'none')
    how = '%(kslot_ns).1f instructions'
    if f:
        how += ', %.1f with the core inlined' % f['kslot_ns']
    check('W2a locked map: <= 80 instructions per alloc+remove pair', r,
          lambda r: r['kslot_ns'] <= 80, how)
    for n in nsizes:
        if n == M1:
            r = find(rows, 'native_map_alloc_remove', n, 'xa_alloc+xa_erase')
            check('W2c locked alloc+remove >= 4x xa_alloc+xa_erase (1M)',
                  r, lambda r: r['ratio'] >= 4, 'ratio %(ratio).2f')
        if n == 1024:
            r = find(rows, 'native_map_alloc_remove', n, sn)
            check('W2b locked alloc+remove >= 0.3x SlotMap (1K)', r,
                  lambda r: r['ratio'] >= 0.3, 'ratio %(ratio).2f')
        r = find(rows, 'native_map_alloc_remove_bulk', n, sn)
        goal = 1.0 if n >= M1 else 0.5 if n == 1024 else None
        if goal:
            check('W3 bulk alloc+remove per entry >= %.1fx SlotMap (%s)' % (
                goal, size_label(n)), r,
                lambda r, goal=goal: r['ratio'] >= goal, 'ratio %(ratio).2f')
        for order in ('seq', 'rand'):
            r = find(rows, 'native_map_read_batch_%s' % order, n, sn)
            check('W4b batch reads >= 1.0x SlotMap (%s, %s)' % (
                order, size_label(n)), r, lambda r: r['ratio'] >= 1.0,
                'ratio %(ratio).2f')
        out_of_line = find(rows, 'native_map_lookup_rand', n, 'xa_load')
        inline = find(rows, 'native_map_lookup_inline_rand', n, 'xa_load')
        r = None
        if out_of_line and inline:
            r = dict(out_of_line, anchor='inline lookup',
                     anchor_ns=inline['kslot_ns'],
                     cost=out_of_line['kslot_ns'] / inline['kslot_ns'])
        check('W4c kslot_map_lookup() within 1.3x of the inline lookup '
              '(rand, %s)' % size_label(n), r, lambda r: r['cost'] <= 1.3,
              '%(cost).2fx')


def stall_goals(rows, check):
    """Issue 31's goal 6: the worst single allocation (kslot_map) and
    the worst kslot_dense insert while a table grows, at every size, at
    most 10x XArray's worst xa_alloc() of the same run (the grow_stall
    rows)."""
    for r in rows:
        if r['name'] != 'native_grow_stall_alloc_max':
            continue
        n, xa = r['size'], r['anchor_ns']
        check('S1 worst alloc while growing <= 10x worst xa_alloc (%s)' %
              size_label(n), r, lambda r: r['kslot_ns'] <= 10 * xa,
              '%(kslot_ns).0f ns')
        d = find(rows, 'native_dense_grow_stall_insert_max', n, 'map_alloc')
        if d:
            d = dict(d, anchor='xa_alloc_worst', anchor_ns=xa)
        check('S2 worst dense insert while growing <= 10x worst xa_alloc '
              '(%s)' % size_label(n), d,
              lambda d: d['kslot_ns'] <= 10 * xa, '%(kslot_ns).0f ns')


def gnuplot_term(gp):
    terms = subprocess.run([gp, '-e', 'set terminal'], capture_output=True,
                           text=True)
    return 'pngcairo' if 'pngcairo' in terms.stdout + terms.stderr else 'png'


COLOURS = ('#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#666666')


def summary_script(rows, prefix=''):
    """The headline chart: a column per ratio, a point per size, the goal
    as a red line across its column, parity as a dashed line."""
    cols = [(h, headline_ratios(rows, h)) for h in HEADLINE]
    cols = [(h, got) for h, got in cols if got]
    if not cols:
        return []
    sizes = sorted({n for _, got in cols for n in got})
    vals = [v for _, got in cols for v in got.values()] + \
        [h['goal'] for h, _ in cols if h.get('goal')]
    lo = min(min(vals), 0.5) / 1.5
    hi = max(max(vals), 2.0) * 1.5
    script = ['set title "kslot against its anchors: ratio = anchor time / '
              'kslot time (above 1: kslot faster); red: the goal"',
              'set logscale y', 'unset logscale x', 'set grid ytics',
              'set yrange [%g:%g]' % (lo, hi),
              'set xrange [-0.6:%g]' % (len(cols) - 0.4),
              'set ylabel "ratio (log scale)"', 'unset xlabel',
              'set xtics rotate by 30 right font ",8" (%s)' % ', '.join(
                  '"%s" %d' % (h['label'].replace('%', '%%'), i)
                  for i, (h, _) in
                  enumerate(cols)),
              'set key top right font ",8"', 'set lmargin 16',
              'set arrow 1 from -0.6,1 to %g,1 nohead dt 2 lc rgb "#888888"'
              % (len(cols) - 0.4)]
    for i, (h, _) in enumerate(cols):
        if h.get('goal'):
            script.append('set arrow %d from %g,%g to %g,%g nohead lw 3 '
                          'lc rgb "red" front' % (
                              i + 2, i - 0.4, h['goal'], i + 0.4, h['goal']))
    plots = []
    for j, n in enumerate(sizes):
        block = '$%ss%d' % (prefix, j)
        script.append('%s << EOD' % block)
        for i, (_, got) in enumerate(cols):
            if n in got:
                off = (j - (len(sizes) - 1) / 2) * 0.12
                script.append('%g %g' % (i + off, max(got[n], 1e-3)))
        script.append('EOD')
        plots.append('%s using 1:2 with points pt 7 ps 1.3 lc rgb "%s" '
                     'title "%s"' % (block, COLOURS[j % len(COLOURS)],
                                     size_label(n)))
    script.append('plot ' + ', '.join(plots))
    for i in range(len(cols) + 1):
        script.append('unset arrow %d' % (i + 1))
    script += ['unset xtics', 'set xtics', 'unset yrange', 'unset xrange',
               'unset title']
    return script


def panel_script(rows):
    """ns/op against size, one panel per benchmark, kslot and anchors."""
    panels = {}
    for r in rows:
        if r.get('unit') or r['name'].startswith('ioctl'):
            continue
        p = panels.setdefault(r['name'], {})
        p.setdefault('kslot', {})[r['size']] = r['kslot_ns']
        p.setdefault(r['anchor'], {})[r['size']] = r['anchor_ns']
    panels = {k: v for k, v in panels.items() if len(v['kslot']) > 1}
    names = sorted(panels, key=lambda n: (n.startswith('native'), n))
    script = ['set logscale xy', 'set xlabel "live entries"',
              'set xrange [600:30000000]',
              'set xtics (%s)' % ', '.join('"%s" %d' % s for s in SIZES),
              'set ylabel "ns/op"', 'set key top left font ",7"', 'set grid']
    out = []
    for i, name in enumerate(names):
        series = panels[name]
        plots = []
        body = []
        for j, (label, pts) in enumerate(series.items()):
            block = '$d%d_%d' % (i, j)
            body.append('%s << EOD' % block)
            for size in sorted(pts):
                body.append('%d %f' % (size, max(pts[size], 0.01)))
            body.append('EOD')
            plots.append('%s using 1:2 with linespoints lw %d title "%s"' % (
                block, 3 if label == 'kslot' else 1, label))
        body.append('set title "%s"' % name)
        body.append('plot ' + ', '.join(plots))
        out.append(body)
    return script, out


def plot(rows, outdir):
    """OUTDIR/summary.png, and OUTDIR/results.png: the summary above the
    per-benchmark panels."""
    gp = shutil.which('gnuplot')
    if not gp:
        print('(gnuplot not installed: no plot)')
        return
    term = gnuplot_term(gp)
    summary = summary_script(rows)
    setup, panels = panel_script(rows)
    cols = 4
    nrows = (len(panels) + cols - 1) // cols
    pw, ph, sh = 420, 300, 560
    script = ['set termoption noenhanced']
    if summary:
        script += ['set terminal %s size 1400,%d' % (term, sh),
                   'set output "%s"' % os.path.join(outdir, 'summary.png'),
                   'set termoption noenhanced', 'set bmargin 9'] + \
            summary + ['unset bmargin', 'unset lmargin', 'unset output']
    if summary or panels:
        top = sh if summary else 0
        width, height = cols * pw, top + nrows * ph
        script += ['set terminal %s size %d,%d' % (term, width, height),
                   'set output "%s"' % os.path.join(outdir, 'results.png'),
                   'set termoption noenhanced', 'set multiplot']
        if summary:
            script += ['set origin 0,%g' % (1 - top / height),
                       'set size 1,%g' % (top / height), 'set bmargin 9'] + \
                summary + ['unset bmargin', 'unset lmargin']
        script += setup
        for i, body in enumerate(panels):
            r, c = divmod(i, cols)
            script += ['set origin %g,%g' % (
                c / cols, 1 - (top + (r + 1) * ph) / height),
                'set size %g,%g' % (1 / cols, ph / height)] + body
        script.append('unset multiplot')
    path = os.path.join(outdir, 'results.gp')
    with open(path, 'w') as f:
        f.write('\n'.join(script) + '\n')
    res = subprocess.run([gp, path], capture_output=True, text=True)
    if res.returncode:
        print('gnuplot failed: ' + res.stderr[-500:])
    else:
        for f in ('summary.png', 'results.png'):
            print('plot: %s' % os.path.join(outdir, f))


def main():
    args = sys.argv[1:]
    native_only = args[:1] == ['--native']
    outdir = args[-1]
    krows, knotes = rows_of(os.path.join(outdir, 'kernel.tap'))
    # iommufd, stock module against the kslot conversion (scripts/bench.sh).
    irows, inotes = rows_of(os.path.join(outdir, 'iommufd.tap'))
    krows += irows
    knotes += inotes
    if native_only:
        krows, knotes = [], []
    nrows, nnotes = rows_of(os.path.join(outdir, 'native.tap'))
    crows = callgrind_rows(os.path.join(outdir, 'callgrind.txt'))
    crows += churn_rows(outdir)
    # Atomic read-modify-writes per operation (the counting build).
    arows, anotes = rows_of(os.path.join(outdir, 'atomics.tap'))
    for r in arows:
        r['unit'] = 'atomics'
        r['ratio'] = None
    crows += arows
    nnotes += [n for n in anotes if n not in nnotes and
               not n.startswith('missing')]
    rows = krows + nrows + crows
    with open(os.path.join(outdir, 'results.json'), 'w') as f:
        json.dump(rows, f, indent=1)
        f.write('\n')

    for n in knotes + nnotes:
        print(n)
    print('%-32s %8s %10s  %-38s %10s %7s' % (
        'benchmark', 'size', 'kslot', 'anchor', 'anchor', 'ratio'))
    for r in rows:
        unit = {'instructions': ' instr', 'atomics': ' atomics'}.get(
            r.get('unit'), ' ' + r['unit'] if r.get('unit') else '')
        extra = ''.join(' %s=%g' % (k, v) for k, v in r.items()
                        if k not in BASE_KEYS)
        print('%-32s %8d %10.2f  %-38s %10.2f %7s%s%s' % (
            r['name'], r['size'], r['kslot_ns'], r['anchor'],
            r['anchor_ns'], '%.2f' % r['ratio'] if r['ratio'] else '-',
            unit, extra))
    print('(ns/op unless marked instr or atomics; ratio = anchor / kslot, '
          'bigger is better for kslot; in-kernel rows run under QEMU TCG)')
    print()
    print('Goals:')
    for status, label, how in goals(rows):
        print('  [%s] %s: %s' % (status, label, how))
    plot(rows, outdir)
    print('results: %s' % os.path.join(outdir, 'results.json'))
    bad = [n for n in knotes + nnotes if n.startswith(('FAILED', 'missing'))]
    if (not krows and not native_only) or not nrows or bad:
        sys.exit(1)


if __name__ == '__main__':
    main()
