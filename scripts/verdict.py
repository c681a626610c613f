#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a kslot VM run.

Reads OUTDIR/results.log (the "@@" sections written by scripts/init.sh)
and OUTDIR/console.log (the kernel console).  KUnit sections are parsed
with the kernel tree's own tools/testing/kunit/kunit.py; selftest sections
are TAP.  Any kernel splat on the console, or missing results, fails the
run.  The last line printed is "N passed, N failed" (", N skipped" when any
were skipped); the exit status is 0 only for a clean run.  The wall times
scripts/vm.sh (OUTDIR/vm-time) and make check (OUTDIR/host-checks.time)
record are shown beside the counts, and make check's OUTDIR/check.time
(the two lanes of VMs and host checks); they are never judged.

Usage: verdict.py MODE OUTDIR KERNEL_SOURCE [iommufd-cache=DIR]
                  [[debug=]OUTDIR...]
  MODE  check (KUnit results and the host checks required), debug or
        kcsan (the same VM run on another debug kernel: the PREEMPT_RT or
        the KCSAN one, no host checks), stock (selftests on a kernel
        without KUnit), host (OUTDIR holds host TAP files only, no VM
        run: make check-arm64), run or script
  iommufd-cache=DIR  where the stock iommufd module's results are kept
        (scripts/iommufd.sh names it after their key): a run of OUTDIR
        without them takes them from DIR/results.log, and says so; a
        clean run with them (every section complete, no test failing
        on the stock module that passed on the converted one, no splat
        on the console) stores them there
  OUTDIR  further runs to judge and count in the summary, each in a
        section of its own: debug=DIR a debug kernel's run (KUnit
        required), DIR a stock kernel's run
"""
import json
import os
import re
import subprocess
import sys
import time

SPLATS = [
    r'BUG:', r'WARNING:', r'KASAN:', r'UBSAN:', r'KFENCE:',
    r'unreferenced object 0x', r'suspected memory leak',
    r'possible circular locking', r'possible recursive locking',
    r'inconsistent lock state', r'lock held when returning',
    r'suspicious RCU usage', r'Oops', r'Call Trace:',
    r'general protection fault', r'Kernel panic', r'kernel BUG at',
    r'rcu: INFO: .* detected stall', r'detected stalls on CPU',
    r'soft lockup', r'hung_task', r'blocked for more than',
    r'DEBUG_LOCKS_WARN_ON', r'ODEBUG:',
]
SPLAT_RE = re.compile('|'.join(SPLATS))

# The host-side TAP files "make check" must have produced (the arm64
# lane's: compile-arm64, the W=1 cross build, and refuse32, the 32-bit
# refusal).
HOST_CHECKS = ['abi', 'lint', 'skip', 'compile', 'dkms', 'install', 'modinfo',
               'apidoc', 'compile-arm64', 'refuse32']


def sections(text):
    """Yield (header, body lines) for each @@ section of results.log."""
    header, body = None, []
    for line in text.splitlines():
        line = line.rstrip('\r')
        if line.startswith('@@'):
            if header is not None and line == '@@end':
                yield header, body
                header, body = None, []
                continue
            if header is not None and line.startswith('@@exit'):
                yield header, body
                header, body = None, []
            if line.startswith(('@@kunit', '@@tap', '@@kmemleak',
                                '@@demo', '@@script', '@@iommufd ',
                                '@@rdma ', '@@example ')):
                header, body = line[2:], []
            else:
                yield line[2:], []
        elif header is not None:
            body.append(line)
    if header is not None:
        yield header + ' (unterminated)', body


def walk_kunit(node, prefix, out):
    """Collect (name, status) of every leaf test case in kunit.py JSON."""
    subs = node.get('sub_groups') or []
    cases = node.get('test_cases') or []
    for c in cases:
        out.append((prefix + c['name'], c['status']))
    for s in subs:
        walk_kunit(s, prefix + s['name'] + '.', out)


def parse_kunit(name, body, ksrc, outdir):
    path = os.path.join(outdir, 'kunit-%s.ktap' % name)
    with open(path, 'w') as f:
        f.write('\n'.join(body) + '\n')
    jpath = path + '.json'
    proc = subprocess.run(
        [sys.executable, os.path.join(ksrc, 'tools/testing/kunit/kunit.py'),
         'parse', '--json=' + jpath, path],
        capture_output=True, text=True)
    results = []
    try:
        with open(jpath) as f:
            data = json.load(f)
        walk_kunit(data, '', results)
    except (OSError, ValueError, KeyError):
        pass
    return results, proc.returncode, proc.stdout + proc.stderr


KTAP_RESULT = re.compile(r'^\s*(?:not )?ok \d+ ')


KTAP_HEADER = re.compile(r'^\s*(?:KTAP version \d+|# Subtest: |1\.\.\d+)')


def kunit_case_log(body, case):
    """The lines a KUnit case printed before its "not ok" (its reasons).

    @case is the dotted name walk_kunit() gives: suite.case, or
    suite.case.param for a parameterized case, whose results are nested
    under "# Subtest: case" (parameter names repeat across cases, so the
    search starts there).  Up to 12 lines, for the CI log.
    """
    parts = case.split('.')
    if len(parts) < 2:
        return []
    parent, leaf = parts[-2], parts[-1]
    subtest = re.compile(r'^\s*# Subtest: %s$' % re.escape(parent))
    failed = re.compile(r'^\s*not ok \d+ %s(?:\s|$)' % re.escape(leaf))
    inside, lines = False, []
    for line in body:
        line = line.rstrip('\r')
        if subtest.match(line):
            inside, lines = True, []
            continue
        if not inside:
            continue
        if failed.match(line):
            return [x.strip() for x in lines if x.strip()][-12:]
        if KTAP_RESULT.match(line):
            lines = []
        elif not KTAP_HEADER.match(line):
            lines.append(line)
    return []


def parse_tap(body):
    results = []
    for line in body:
        m = re.match(r'^(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP|skip).*)?$',
                     line)
        if not m:
            continue
        status = 'PASS' if m.group(1) == 'ok' else 'FAIL'
        if m.group(3):
            status = 'SKIP'
        results.append((m.group(2).strip(), status))
    return results


def skip_reasons(body):
    """(reason, count) of the skipped TAP cases, in order of appearance."""
    counts = {}
    for line in body:
        m = re.match(r'^ok \d+ .*?\s#\s*(?:SKIP|skip)\s*(.*)$',
                     line.rstrip('\r'))
        if m:
            reason = m.group(1).strip() or 'no reason given'
            counts[reason] = counts.get(reason, 0) + 1
    return list(counts.items())


# The driver examples of docs/example/ that scripts/init.sh loads and
# unloads (check mode), with the stages at which each prints its own
# verdict, "NAME: STAGE: <counts>: passed" (the README's mydrv prints
# none: it must load and unload, and a WARN_ON() of it is a splat).
# make check builds them (make examples), so its debug VM must have run
# every one.
EXAMPLES = {'kslot_example': ('init', 'exit'), 'mydrv': ()}


def judge_example(name, body):
    """Why an example's section fails (empty when it passed)."""
    why = []
    for step in ('insmod', 'rmmod'):
        if '%s 0' % step not in body:
            why.append('%s failed' % step)
    for stage in EXAMPLES.get(name, ()):
        ok = re.compile(r'^%s: %s: .*: passed$' % (re.escape(name), stage))
        if not any(ok.match(l) for l in body):
            why.append('no "%s: %s: ...: passed" line' % (name, stage))
    if name not in EXAMPLES:
        why.append('an example verdict.py does not know')
    return why


# iommufd's own selftests (clients/iommufd/run.sh): every test that passes
# on the stock module must pass on the kslot conversion.
IOMMUFD_SUITES = ('iommufd', 'iommufd_fail_nth')
IOMMUFD_MODULES = ('stock', 'kslot')


# iommufd_fail_nth's loops assert that an operation succeeds within 400
# injected faults, "an arbitrary limit based on the current kernel
# situation ... if this hits it doesn't necessarily mean a test failure,
# just that the limit has to be made bigger" (its source).  On the debug
# kernel, KASAN, kmemleak and debug objects add fault sites, and the count
# moves around 400 from run to run on either module.  Such a case is LIMIT:
# neither a pass nor a failure, and said in the summary.
FAIL_NTH_LIMIT = re.compile(
    r'^# iommufd_fail_nth\.c:\d+:(\w+):Expected 400 \(400\) > '
    r'nth_state->iteration')


def parse_iommufd(prog, body):
    """parse_tap() of an iommufd selftest, with LIMIT cases."""
    results = parse_tap(body)
    if prog != 'iommufd_fail_nth':
        return results
    limit = set()
    for line in body:
        m = FAIL_NTH_LIMIT.match(line.rstrip('\r'))
        if m:
            limit.add(m.group(1))
    return [(c, 'LIMIT' if st == 'FAIL' and c.split('.')[-1] in limit
             else st) for c, st in results]


def stock_text(client, results):
    """@client's stock-module sections of results.log ("@@CLIENT stock
    ..." to "@@end", and "@@CLIENT-time stock"), as they were written."""
    out, inside = [], False
    for line in results.splitlines():
        line = line.rstrip('\r')
        if line.startswith(('@@%s stock ' % client,
                            '@@%s-time stock ' % client)):
            inside = line.startswith('@@%s ' % client)
            out.append(line)
        elif inside:
            out.append(line)
            if line == '@@end':
                inside = False
    return '\n'.join(out) + '\n'


def stock_cache_load(client, parse, cache, runs, times):
    """Take @client's stock-module results from the cache into @runs
    (each section through @parse(prog, body)) and @times: (note,
    problem, the cached splat keys)."""
    text = read(os.path.join(cache, 'results.log'))
    if not text:
        return (None, '%s: no stock run, and none cached in %s' %
                (client, cache), [])
    for header, body in sections(text):
        kind, _, rest = header.partition(' ')
        module, _, arg = rest.partition(' ')
        if kind == client:
            runs[(module, arg)] = parse(arg, body)
        elif kind == client + '-time':
            times[module] = arg + ' s (cached)'
    when = read(os.path.join(cache, 'recorded')).strip()
    keys = read(os.path.join(cache, 'splats'), lines=True)
    return ('note: %s: the stock module\'s results come from the cache, '
            'key %s (%s)' % (client, os.path.basename(cache), when)), None, keys


def stock_cache_store(client, cache, results, outdir, keys=None):
    """Keep @client's stock-module results of a clean run under their key
    (and, if given, the splat keys the stock module printed)."""
    files = [('results.log', stock_text(client, results)),
             ('recorded', 'recorded %s from %s\n' % (
                 time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
                 outdir))]
    if keys is not None:
        files.append(('splats', ''.join(k + '\n' for k in sorted(keys))))
    try:
        os.makedirs(cache, exist_ok=True)
        for name, text in files:
            tmp = os.path.join(cache, name + '.tmp')
            with open(tmp, 'w') as f:
                f.write(text)
            os.rename(tmp, os.path.join(cache, name))
    except OSError as e:
        print('note: %s: could not cache the stock results: %s' % (client, e))
        return
    key = os.path.basename(cache)
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    recorded = os.path.exists(os.path.join(top, 'clients', client,
                                           'stock-results', key,
                                           'results.log'))
    print('note: %s: the stock module\'s results cached, key %s (%s)' %
          (client, key, 'also recorded in the tree' if recorded else
           'not recorded in the tree: scripts/stock-results.sh record'))


def judge_iommufd(runs, times, tally, label):
    """Compare the stock and the kslot iommufd runs; return problems."""
    problems = []
    for m in IOMMUFD_MODULES:
        for prog in IOMMUFD_SUITES + ('iommufd_stale_id',):
            if (m, prog) not in runs:
                problems.append('iommufd: no %s run of %s' % (m, prog))
    summary = {}
    for m in IOMMUFD_MODULES:
        cases = [(prog, c, st) for prog in IOMMUFD_SUITES
                 for c, st in runs.get((m, prog), [])]
        summary[m] = (sum(1 for _, _, st in cases if st == 'PASS'),
                      len(cases))
    kslot = {(prog, c): st for prog in IOMMUFD_SUITES
             for c, st in runs.get(('kslot', prog), [])}
    for prog in IOMMUFD_SUITES:
        cases = runs.get(('stock', prog), [])
        if ('stock', prog) in runs and not cases:
            problems.append('iommufd: stock %s gave no TAP results' % prog)
        for c, st in cases:
            if st != 'PASS':
                continue
            got = kslot.get((prog, c))
            if got == 'LIMIT':
                print('note: iommufd: %s:%s reached the 400 fault limit on '
                      'the kslot module (not a failure, see its source): '
                      'skipped' % (prog, c))
            tally.count('%siommufd:%s:%s' % (label, prog, c),
                        {'PASS': 'PASS', 'LIMIT': 'SKIP'}.get(got, 'FAIL'))
    base_fail = ['%s:%s' % (prog, c) for prog in IOMMUFD_SUITES
                 for c, st in runs.get(('stock', prog), []) if st != 'PASS']
    if base_fail:
        print('note: iommufd: %d tests do not pass on the stock module '
              '(not counted): %s' % (len(base_fail), ' '.join(base_fail)))
    for m in IOMMUFD_MODULES:
        for c, st in runs.get((m, 'iommufd_stale_id'), []):
            tally.count('%siommufd:%s:stale_id:%s' % (label, m, c), st)
    print('iommufd selftests: stock %d/%d passed, kslot %d/%d passed' % (
        summary['stock'] + summary['kslot']))
    if times:
        print('iommufd: %s' % ', '.join('%s module %s' % (m, times[m])
                                        for m in IOMMUFD_MODULES
                                        if m in times))
    return problems


# RDMA verbs (clients/rdma/run.sh): rdma-core's suite (run_tests.py -v,
# unittest's verbose lines) and our stale-handle test (TAP) on the stock
# ib_uverbs and on ib_uverbs_kslot.  Every test that passes on the stock
# module must pass on the converted one.
RDMA_MODULES = ('stock', 'kslot')
RDMA_TEST = re.compile(r'^(test\w*) \(([\w.]+)\)')
RDMA_RESULT = re.compile(r'(?:^|\.\.\. )(ok|FAIL|ERROR|skipped|expected failure|'
                         r'unexpected success)\b', re.M)
RDMA_STATUS = {'ok': 'PASS', 'expected failure': 'PASS', 'skipped': 'SKIP'}
# Flaky on the stock module, so not compared: rxe completes sends
# asynchronously and the test shrinks the CQ at once (failed 7 of 8 runs
# on the stock module in a TCG VM).
RDMA_FLAKY = {'tests.test_cq.CQTest.test_resize_cq'}
# Lines of the console between these markers are a module's run
# (run.sh writes them to /dev/kmsg).
RDMA_MARK = re.compile(r'kslot-rdma: (begin|end) (\w+)')
SPLAT_PID = re.compile(r'\b(CPU|PID): ?\d+|\[ *\d+\.\d+\]|0x[0-9a-f]+|'
                       r'\b[0-9a-f]{8,}\b|\(\w+\)$|#\d+|\b\d+\b')


def parse_rdma_suite(body):
    """(test id, PASS/SKIP/FAIL) of unittest's verbose output."""
    results, cur, text = [], None, []

    def close():
        if cur is None:
            return
        m = RDMA_RESULT.search('\n'.join(text))
        results.append((cur, RDMA_STATUS.get(m.group(1), 'FAIL')
                        if m else 'FAIL'))

    for line in body:
        line = line.rstrip('\r')
        m = RDMA_TEST.match(line)
        if m or line.startswith(('=' * 20, '-' * 20)):
            close()
            cur, text = (m.group(2), [line[m.end():]]) if m else (None, [])
            continue
        if cur is not None:
            text.append(line)
    close()
    return results


def parse_rdma(prog, body):
    if prog == 'suite':
        return parse_rdma_suite(body)
    return parse_tap(body)


def rdma_splat_regions(console):
    """{module: set of console line numbers} between run.sh's markers."""
    regions, cur = {}, None
    for i, line in enumerate(console):
        m = RDMA_MARK.search(line)
        if m:
            cur = m.group(2) if m.group(1) == 'begin' else None
            continue
        if cur:
            regions.setdefault(cur, set()).add(i)
    return regions


def rdma_splat_key(line):
    """A splat line without its times, numbers and addresses."""
    line = re.sub(r'^.*?\]\s*', '', line, count=1)
    return SPLAT_PID.sub('#', line).strip()


def rdma_excuse_splats(console, stock_keys, excused):
    """Excuse the splat lines the stock module printed, and the same ones
    on the converted module; note each once as stock's.  Returns the keys
    of the stock module's splat lines (for the cache)."""
    regions = rdma_splat_regions(console)
    keys = set(stock_keys)
    for i in sorted(regions.get('stock', ())):
        if SPLAT_RE.search(console[i]):
            keys.add(rdma_splat_key(console[i]))
            excused.add(i)
    noted = set()
    for m in ('stock', 'kslot'):
        for i in sorted(regions.get(m, ())):
            if not SPLAT_RE.search(console[i]):
                continue
            k = rdma_splat_key(console[i])
            if k in keys:
                excused.add(i)
                if k not in noted:
                    noted.add(k)
                    print('note: rdma: the stock module prints this too '
                          '(stock\'s, not counted): %s' % console[i].strip())
    return keys


def judge_rdma(runs, times, tally, label):
    """Compare the stock and the kslot RDMA runs; return problems."""
    problems = []
    for m in RDMA_MODULES:
        for prog in ('rdma_stale', 'suite'):
            if (m, prog) not in runs:
                problems.append('rdma: no %s run of %s' % (m, prog))
    counts = {}
    for m in RDMA_MODULES:
        cases = runs.get((m, 'suite'), [])
        counts[m] = tuple(sum(1 for _, st in cases if st == s)
                          for s in ('PASS', 'SKIP', 'FAIL'))
        if (m, 'suite') in runs and not cases:
            problems.append('rdma: %s suite gave no results' % m)
    kslot = dict(runs.get(('kslot', 'suite'), []))
    base_fail = []
    for c, st in runs.get(('stock', 'suite'), []):
        if c in RDMA_FLAKY:
            print('note: rdma: %s is flaky on the stock module (not '
                  'compared): stock %s, kslot %s' % (c, st, kslot.get(c)))
            continue
        if st == 'FAIL':
            base_fail.append(c)
        if st != 'PASS':
            continue
        tally.count('%srdma:suite:%s' % (label, c),
                    'PASS' if kslot.get(c) == 'PASS' else 'FAIL')
    if base_fail:
        print('note: rdma: %d tests fail on the stock module (not '
              'counted): %s' % (len(base_fail), ' '.join(base_fail)))
    stale = {}
    for m in RDMA_MODULES:
        cases = runs.get((m, 'rdma_stale'), [])
        stale[m] = (sum(1 for _, st in cases if st == 'PASS'), len(cases))
        if (m, 'rdma_stale') in runs and not cases:
            problems.append('rdma: %s rdma_stale gave no TAP results' % m)
    # The converted module must pass every case; the stock module is
    # expected to fail them (its stale handles reach the next object).
    for c, st in runs.get(('kslot', 'rdma_stale'), []):
        tally.count('%srdma:kslot:stale:%s' % (label, c), st)
    print('rdma-core suite: stock %d passed, %d skipped, %d failed; '
          'kslot %d passed, %d skipped, %d failed' % (
              counts['stock'] + counts['kslot']))
    print('rdma stale handles: stock %d/%d passed (the stale handle reaches '
          'the next object), kslot %d/%d passed' % (stale['stock'] +
                                                     stale['kslot']))
    if times:
        print('rdma: %s' % ', '.join('%s module %s' % (m, times[m])
                                     for m in RDMA_MODULES if m in times))
    return problems


class Tally:
    """Counts of test cases across every run judged."""

    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.problems = []

    def count(self, name, status):
        if status == 'PASS':
            self.passed += 1
        elif status == 'SKIP':
            self.skipped += 1
        else:
            self.failed += 1
            print('  FAIL %s' % name)


EXPECT_BEGIN = re.compile(r'kslot: expected KASAN report begin')
EXPECT_END = re.compile(r'kslot: expected KASAN report end')
REPORT_RULE = re.compile(r'={40,}')


def expected_reports(console):
    """Lines of the KASAN reports a test announced (begin/end markers).

    Between the markers, only the lines of a KASAN report (from one rule
    of '=' to the next, starting with its "BUG: KASAN:" line) are excused;
    anything else there still counts as a splat.
    """
    excused = set()
    inside = False
    i = 0
    while i < len(console):
        line = console[i]
        if EXPECT_BEGIN.search(line):
            inside = True
        elif EXPECT_END.search(line):
            inside = False
        elif (inside and REPORT_RULE.search(line) and i + 1 < len(console)
              and 'BUG: KASAN:' in console[i + 1]):
            j = i + 1
            while j < len(console) and not REPORT_RULE.search(console[j]) \
                    and not EXPECT_END.search(console[j]):
                j += 1
            excused.update(range(i, j + 1))
            i = j
        i += 1
    return excused


KCSAN_RACE = re.compile(r'BUG: KCSAN: data-race in (\S+) / (\S+)')
KSLOT_FRAME = re.compile(r'\[kslot\w*\]|\bkslot_\w+\+0x')


def foreign_kcsan_reports(console):
    """Lines of KCSAN reports (KCSAN kernel) between two kernel functions.

    A report whose two racing accesses are both outside kslot, and whose
    access stacks (up to the first blank line after each "... by" line) do
    not start in kslot code, is a race of the kernel itself that a kslot
    test only happened to drive (e.g. hrtimer_wakeup against
    schedule_hrtimeout_range_clock under usleep_range()).  Those are
    listed, not counted; every report that names kslot code still fails.
    """
    excused = set()
    i = 0
    while i < len(console):
        m = KCSAN_RACE.search(console[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(console) and not REPORT_RULE.search(console[j]):
            j += 1
        names = (m.group(1).split('+')[0], m.group(2).split('+')[0])
        tops = []
        for k in range(i, j):
            if ' by ' in console[k] and k + 1 < j:
                tops.append(console[k + 1])
        ours = any('kslot' in n for n in names) or \
            any(KSLOT_FRAME.search(t) for t in tops)
        if not ours:
            print('note: KCSAN race outside kslot: %s / %s' % names)
            excused.update(range(max(0, i - 1), j + 1))
        i = j + 1
    return excused


def read(path, lines=False):
    try:
        with open(path, errors='replace') as f:
            text = f.read()
    except OSError:
        text = ''
    return text.splitlines() if lines else text


def judge(mode, outdir, ksrc, tally, label='', iommufd_cache=None):
    """Judge one VM run (and its host-*.tap files); return guest exits."""
    problems = []
    results = read(os.path.join(outdir, 'results.log'))
    console = read(os.path.join(outdir, 'console.log'), lines=True)
    if label:
        print('== %s' % label)

    done = False
    exits = {}
    suites = 0
    iommufd_runs, iommufd_times = {}, {}
    rdma_runs, rdma_times = {}, {}
    examples = set()
    for header, body in sections(results):
        kind, _, rest = header.partition(' ')
        if kind == 'kunit':
            suites += 1
            cases, rc, out = parse_kunit(rest, body, ksrc, outdir)
            npass = sum(1 for _, s in cases if s == 'PASS')
            print('kunit %-20s %d cases, %d passed' % (rest, len(cases),
                                                       npass))
            if not cases:
                problems.append('KUnit suite %s: no results parsed' % rest)
                print(out)
            for case, status in cases:
                tally.count('%skunit:%s' % (label, case),
                            {'PASS': 'PASS', 'SKIP': 'SKIP'}.get(status,
                                                                 'FAIL'))
                if status not in ('PASS', 'SKIP'):
                    for line in kunit_case_log(body, case):
                        print('    %s' % line)
            if rc != 0 and all(s != 'FAIL' for _, s in cases):
                problems.append('kunit.py parse failed for %s' % rest)
                print(out)
        elif kind == 'tap':
            cases = parse_tap(body)
            nskip = sum(1 for _, s in cases if s == 'SKIP')
            print('selftest %-17s %d cases, %d skipped' % (rest, len(cases),
                                                            nskip))
            for reason, n in skip_reasons(body):
                print('  skipped (%d): %s' % (n, reason))
            if not cases:
                problems.append('selftest %s: no TAP results' % rest)
                print('\n'.join(body[-30:]))
            for case, status in cases:
                tally.count('%sselftest:%s:%s' % (label, rest, case), status)
        elif kind == 'exit':
            prog, _, rc = rest.partition(' ')
            exits[prog] = int(rc or 1)
            if prog not in ('demo', 'script') and exits[prog] not in (0, 4):
                problems.append('%s exited with status %s' % (prog, rc))
        elif kind == 'example':
            why = judge_example(rest, body)
            examples.add(rest)
            print('example %s: %s' % (rest, 'failed: ' + '; '.join(why)
                                      if why else 'passed'))
            for line in body if why else body[2:][-1:]:
                print('  %s' % line)
            tally.count('%sexample:%s' % (label, rest),
                        'FAIL' if why else 'PASS')
        elif kind == 'kmemleak':
            leaks = [l for l in body if 'unreferenced object' in l]
            print('kmemleak: %d suspected leaks' % len(leaks))
            if leaks:
                problems.append('kmemleak reported %d leaks' % len(leaks))
                print('\n'.join(body[:60]))
        elif kind == 'iommufd':
            module, _, prog = rest.partition(' ')
            iommufd_runs[(module, prog)] = parse_iommufd(prog, body)
        elif kind == 'iommufd-time':
            module, _, secs = rest.partition(' ')
            iommufd_times[module] = secs + ' s'
        elif kind == 'rdma':
            module, _, prog = rest.partition(' ')
            rdma_runs[(module, prog)] = parse_rdma(prog, body)
        elif kind == 'rdma-time':
            module, _, secs = rest.partition(' ')
            rdma_times[module] = secs + ' s'
        elif kind in ('demo', 'script'):
            print('\n'.join(body))
        elif kind == 'done':
            done = True
        elif kind == 'timeout':
            problems.append('the VM timed out')
        elif kind == 'fatal':
            problems.append('guest: ' + rest)
        else:
            problems.append('unexpected section ' + header)

    if mode in ('check', 'host'):
        for name in HOST_CHECKS if mode == 'check' else []:
            if not os.path.exists(os.path.join(outdir, 'host-%s.tap' % name)):
                problems.append('host check %s did not run' % name)
        for name in sorted(os.listdir(outdir)):
            if not (name.startswith('host-') and name.endswith('.tap')):
                continue
            body = read(os.path.join(outdir, name), lines=True)
            cases = parse_tap(body)
            print('host %-21s %d cases' % (name[5:-4], len(cases)))
            if not cases:
                problems.append('%s: no TAP results' % name)
            for case, status in cases:
                tally.count('host:%s:%s' % (name[5:-4], case), status)
            if any(s == 'FAIL' for _, s in cases):
                print('\n'.join(l for l in body if l.startswith('#'))[:4000])
            else:
                # Notes a passing check wants read (e.g. refuse32's
                # warnings besides the #error).
                for l in body:
                    if l.startswith('# note: '):
                        print('note: %s: %s' % (name[5:-4], l[8:]))

    stock_fresh = any(m == 'stock' for m, _ in iommufd_runs)
    if iommufd_cache and not stock_fresh:
        note, problem, _ = stock_cache_load('iommufd', parse_iommufd,
                                            iommufd_cache, iommufd_runs,
                                            iommufd_times)
        if note:
            print(note)
        if problem:
            problems.append(problem)
    if iommufd_runs or mode == 'check':
        problems += judge_iommufd(iommufd_runs, iommufd_times, tally, label)

    # The RDMA client: the stock module's results may come from the cache
    # named in OUTDIR/rdma-cache (scripts/rdma.sh's key).
    rdma_cache = read(os.path.join(outdir, 'rdma-cache')).strip() or None
    rdma_fresh = any(m == 'stock' for m, _ in rdma_runs)
    rdma_keys = []
    if rdma_cache and not rdma_fresh and rdma_runs:
        note, problem, rdma_keys = stock_cache_load('rdma', parse_rdma,
                                                    rdma_cache, rdma_runs,
                                                    rdma_times)
        if note:
            print(note)
        if problem:
            problems.append(problem)
    if rdma_runs:
        problems += judge_rdma(rdma_runs, rdma_times, tally, label)

    if not done and mode != 'host':
        problems.append('the guest did not finish (crash, hang or timeout)')
    if mode in ('check', 'debug', 'kcsan') and suites == 0:
        problems.append('no KUnit results at all')
    if mode == 'check':
        for name in sorted(set(EXAMPLES) - examples):
            problems.append('example %s did not run' % name)

    excused = expected_reports(console)
    if rdma_runs:
        rdma_keys = rdma_excuse_splats(console, rdma_keys, excused)
    if mode == 'kcsan':
        excused |= foreign_kcsan_reports(console)
    splat = [i for i, l in enumerate(console)
             if SPLAT_RE.search(l) and i not in excused]
    if splat:
        problems.append('%d kernel splat line(s) on the console' % len(splat))
        shown = set()
        for i in splat[:8]:
            for j in range(max(0, i - 2), min(len(console), i + 12)):
                if j not in shown:
                    shown.add(j)
                    print('console: ' + console[j])

    # A clean run of the stock module: its results for the next runs.  Not
    # one where a test failed on the stock module but passed on the
    # converted one (a test the harness stopped for its time on a loaded
    # host): that test would not count against the converted module.
    if iommufd_cache and stock_fresh and not problems and \
            'stock' in iommufd_times:
        flaky = [(prog, c) for prog in IOMMUFD_SUITES
                 for c, st in iommufd_runs.get(('stock', prog), [])
                 if st != 'PASS' and
                 dict(iommufd_runs.get(('kslot', prog), [])).get(c) == 'PASS']
        if flaky:
            print('note: iommufd: not cached, %d tests failed on the stock '
                  'module only: %s' % (len(flaky), ' '.join(
                      '%s:%s' % f for f in flaky)))
        else:
            stock_cache_store('iommufd', iommufd_cache, results, outdir)

    if rdma_cache and rdma_fresh and not problems and 'stock' in rdma_times:
        stock_cache_store('rdma', rdma_cache, results, outdir, rdma_keys)

    for p in problems:
        print('PROBLEM: %s%s' % (label, p))
    tally.problems += problems
    return exits


def wall_time(path):
    """A wall time recorded in PATH (seconds) as "m:ss", or None."""
    try:
        with open(path) as f:
            secs = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return '%d:%02d' % (secs // 60, secs % 60)


def main():
    mode = sys.argv[1]
    outdir, ksrc = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    tally = Tally()

    if mode in ('run', 'script'):
        exits = judge(mode, outdir, ksrc, tally)
        vm = wall_time(os.path.join(outdir, 'vm-time'))
        if vm:
            print('time: VM %s' % vm)
        rc = exits.get('demo' if mode == 'run' else 'script', 1)
        if rc != 0:
            print('%s exited with status %d' % (mode, rc))
        sys.exit(1 if tally.problems else rc)

    runs = [(mode, outdir, '')]
    iommufd_cache = None
    for arg in sys.argv[4:]:
        kind, sep, path = arg.partition('=')
        if not sep:
            kind, path = 'stock', arg
        path = os.path.abspath(path)
        if kind == 'iommufd-cache':
            iommufd_cache = path
            continue
        runs.append((kind, path, os.path.basename(path.rstrip('/')) + ':'))
    for kind, path, label in runs:
        before = (tally.passed, tally.failed + len(tally.problems),
                  tally.skipped)
        if len(runs) > 1 and not label:
            print('== %s' % os.path.basename(path))
        judge(kind, path, ksrc, tally, label=label,
              iommufd_cache=None if label else iommufd_cache)
        vm = wall_time(os.path.join(path, 'vm-time'))
        if len(runs) > 1:
            print('-- %s: %d passed, %d failed, %d skipped%s' % (
                label[:-1] or os.path.basename(path), tally.passed - before[0],
                tally.failed + len(tally.problems) - before[1],
                tally.skipped - before[2], ' (VM %s)' % vm if vm else ''))
        elif vm:
            print('time: VM %s' % vm)
    def lane(claim):
        """Which lane of make check ran what @claim names, as words."""
        who = read(os.path.join(outdir, claim, 'lane')).strip()
        return {'debug': ", on the debug VM's lane",
                'host': ", on the host checks' lane"}.get(who, '')

    build = wall_time(os.path.join(outdir, 'build.time'))
    if mode == 'check' and build:
        print('time: build %s (both debug kernels unless cached, the '
              'modules, programs and clients)' % build)
    host = wall_time(os.path.join(outdir, 'host-checks.time'))
    if mode == 'check' and host:
        print('time: host checks %s (beside the debug VM)' % host)
    claims = os.path.join(outdir, 'stock-amd64.d')
    stock = []
    for series in sorted(os.listdir(claims)) if os.path.isdir(claims) else []:
        took = wall_time(os.path.join(claims, series, 'time'))
        if took:
            stock.append('%s %s%s' % (series, took,
                                      lane('stock-amd64.d/' + series)))
    if mode == 'check' and stock:
        print('time: stock kernels (W=1 build and VM): %s' % '; '.join(stock))
    arm64 = wall_time(os.path.join(outdir, 'arm64-lane.time'))
    if arm64:
        print('time: arm64 lane %s (fetch, W=1 cross build, VM, 32-bit '
              'refusal)%s' % (arm64, lane('arm64.claim')))
    lanes = wall_time(os.path.join(outdir, 'check.time'))
    if mode == 'check' and lanes:
        print('time: tests %s (the debug VM; beside it the host checks '
              'and the RT VM; the stock VMs and the arm64 lane on the '
              'lane free first)' % lanes)
    failed = tally.failed + len(tally.problems)
    line = '%d passed, %d failed' % (tally.passed, failed)
    if tally.skipped:
        line += ', %d skipped' % tally.skipped
    print(line)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
