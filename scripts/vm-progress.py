#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Show a kslot VM's progress while it runs (started by scripts/vm.sh).

Follows OUTDIR/results.log (the "@@" sections of scripts/init.sh) and
OUTDIR/console.log as QEMU writes them, and prints to stdout:

  - one line per finished section (KUnit suite, selftest program, iommufd
    or RDMA run, worked example, kmemleak scan, script, demo) with its
    counts, and a line for
    "@@fatal" and "@@done", each stamped with the time since boot:
        vm.sh: [ 3:12] kunit kslot_slots: 52 passed, 0 failed
  - at once, a console line that starts a kernel panic, Oops, BUG or
    WARNING (outside a report a test announced as expected);
  - a line saying the guest appears hung when neither file has grown for
    SILENCE seconds, with what the guest last reported (and a line when it
    reports again);
  - on SIGTERM (QEMU has exited), whatever is left unread, then the
    longest silence seen.

With $KSLOT_VM_LABEL set, each line names the VM: "vm.sh: rt [ 3:12] ...".

It only reads and prints: scripts/verdict.py judges the run, and the
exit status is always 0.  It exits by itself when its parent (vm.sh)
is gone.

Usage: vm-progress.py OUTDIR [SILENCE]   (SILENCE in seconds, default 300)
"""
import os
import re
import signal
import sys
import time

TAP_RE = re.compile(r'^(not ok|ok) \d+ .*?(?:\s+#\s*(SKIP|skip).*)?$')
KUNIT_TOTAL = re.compile(r'^# Totals: pass:(\d+) fail:(\d+) skip:(\d+)')
KUNIT_CASE = re.compile(r'^    (not ok|ok) \d+ .*?(?:\s+#\s*(SKIP|skip).*)?$')
SPLAT = re.compile(r'Kernel panic|\bOops\b|\bBUG:|kernel BUG at|'
                   r'general protection fault|WARNING:|'
                   r'rcu: INFO: .* detected stall|soft lockup|'
                   r'blocked for more than|possible circular locking|'
                   r'possible recursive locking|inconsistent lock state|'
                   r'suspicious RCU usage')
EXPECT_BEGIN = 'kslot: expected KASAN report begin'
EXPECT_END = 'kslot: expected KASAN report end'
MAX_SPLATS = 10


# Which VM, when several run at once (vm.sh passes $KSLOT_VM_LABEL on).
LABEL = os.environ.get('KSLOT_VM_LABEL', '') + \
    (' ' if os.environ.get('KSLOT_VM_LABEL') else '')


def mmss(secs):
    secs = int(secs)
    return '%2d:%02d' % (secs // 60, secs % 60)


def short(line, n=110):
    line = line.strip()
    return line if len(line) <= n else line[:n - 3] + '...'


class Follow:
    """Complete lines appended to a file; starts over if it is replaced."""

    def __init__(self, path):
        self.path = path
        self.f = None
        self.ino = None
        self.partial = b''
        self.grew = False

    def lines(self):
        self.grew = False
        try:
            st = os.stat(self.path)
        except OSError:
            return [], False
        if self.f is None or st.st_ino != self.ino or \
                st.st_size < self.f.tell():
            if self.f is not None:
                self.f.close()
            self.f = open(self.path, 'rb')
            self.ino = st.st_ino
            self.partial = b''
            restarted = True
        else:
            restarted = False
        data = self.f.read()
        self.grew = bool(data)
        if not data:
            return [], restarted
        data = self.partial + data
        parts = data.split(b'\n')
        self.partial = parts.pop()
        return [p.decode('utf-8', 'replace').rstrip('\r') for p in parts], \
            restarted


class Progress:
    def __init__(self, outdir, silence):
        self.t0 = time.monotonic()
        self.results = Follow(os.path.join(outdir, 'results.log'))
        self.console = Follow(os.path.join(outdir, 'console.log'))
        self.silence = silence
        self.last_activity = self.t0
        self.longest = 0.0
        self.hung_reported = False
        self.section = None
        self.body = []
        self.last_result = None
        self.last_console = None
        self.expected = False
        self.splats = 0

    def say(self, text):
        sys.stdout.write('vm.sh: %s[%s] %s\n' % (LABEL, mmss(
            time.monotonic() - self.t0), text))
        sys.stdout.flush()

    # ---- results.log: the sections of scripts/init.sh ----

    def tap_counts(self, regex):
        p = f = s = 0
        for line in self.body:
            m = regex.match(line)
            if not m:
                continue
            if m.group(2):
                s += 1
            elif m.group(1) == 'ok':
                p += 1
            else:
                f += 1
        return p, f, s

    @staticmethod
    def counts(p, f, s):
        text = '%d passed, %d failed' % (p, f)
        return text + (', %d skipped' % s if s else '')

    def close_section(self, exit_rc=None, unterminated=False):
        kind, _, rest = self.section.partition(' ')
        tail = ''
        if exit_rc not in (None, '0'):
            tail = ' (exit status %s)' % exit_rc
        if unterminated:
            tail += ' (stopped before its end)'
        if kind == 'kunit':
            total = None
            for line in self.body:
                m = KUNIT_TOTAL.match(line)
                if m:
                    total = tuple(int(x) for x in m.groups())
            if total is None:
                total = self.tap_counts(KUNIT_CASE)
            self.say('kunit %s: %s%s' % (rest, self.counts(*total), tail))
        elif kind in ('tap', 'iommufd'):
            name = ('selftest ' if kind == 'tap' else 'iommufd ') + rest
            self.say('%s: %s%s' % (name, self.counts(
                *self.tap_counts(TAP_RE)), tail))
        elif kind == 'rdma' and rest.endswith(' suite'):
            # unittest's verbose lines (clients/rdma/run.sh); the verdict
            # parses them properly.
            text = '\n'.join(self.body)
            self.say('rdma %s: %s%s' % (rest, self.counts(
                len(re.findall(r'(?:^|\.\.\. )ok$', text, re.M)),
                len(re.findall(r'(?:^|\.\.\. )(?:FAIL|ERROR)$', text,
                               re.M)),
                len(re.findall(r'(?:^|\.\.\. )skipped ', text, re.M))),
                tail))
        elif kind == 'rdma':
            self.say('rdma %s: %s%s' % (rest, self.counts(
                *self.tap_counts(TAP_RE)), tail))
        elif kind == 'kmemleak':
            leaks = sum(1 for l in self.body if 'unreferenced object' in l)
            self.say('kmemleak: %d suspected leaks%s' % (leaks, tail))
        elif kind == 'example':
            # The verdict checks each of its lines.
            ok = {'insmod 0', 'rmmod 0'} <= set(self.body) and \
                not any(l.endswith(': FAILED') for l in self.body)
            self.say('example %s: %s%s' % (rest, 'passed' if ok else
                                           'failed', tail))
        elif kind in ('demo', 'script'):
            self.say('%s: %s' % (kind, 'exit status %s' % exit_rc
                                 if exit_rc is not None
                                 else 'stopped before its end'))
        self.section, self.body = None, []

    def result_line(self, line):
        self.last_result = line
        if not line.startswith('@@'):
            if self.section is not None:
                self.body.append(line)
            return
        if self.section is not None:
            if line == '@@end':
                self.close_section()
                return
            if line.startswith('@@exit'):
                rc = line.split()[-1] if len(line.split()) >= 3 else '?'
                self.close_section(exit_rc=rc)
                return
        if line.startswith(('@@kunit', '@@tap', '@@kmemleak', '@@demo',
                            '@@script', '@@iommufd ', '@@rdma ',
                            '@@example ')):
            if self.section is not None:
                self.close_section(unterminated=True)
            self.section, self.body = line[2:], []
        elif line.startswith('@@fatal'):
            self.say('guest: %s' % line[2:])
        elif line == '@@done':
            self.say('guest finished')
        elif line.startswith('@@exit'):
            self.say('guest: %s' % line[2:])

    # ---- console.log: splats ----

    def console_line(self, line):
        self.last_console = line
        if EXPECT_BEGIN in line:
            self.expected = True
        elif EXPECT_END in line:
            self.expected = False
        elif not self.expected and SPLAT.search(line):
            self.splats += 1
            if self.splats <= MAX_SPLATS:
                self.say('console: %s' % short(line))
            if self.splats == MAX_SPLATS:
                self.say('(further console splat lines not shown here)')

    # ---- the loop ----

    def poll(self):
        console, restarted_console = self.console.lines()
        results, restarted_results = self.results.lines()
        now = time.monotonic()
        if self.console.grew or self.results.grew:
            if self.hung_reported:
                self.say('the guest reports again after %s of silence' %
                         mmss(now - self.last_activity).strip())
                self.hung_reported = False
            self.last_activity = now
        if restarted_console:
            self.expected = False
        for line in console:
            self.console_line(line)
        if restarted_results:
            self.section, self.body = None, []
        for line in results:
            self.result_line(line)
        quiet = now - self.last_activity
        self.longest = max(self.longest, quiet)
        if quiet >= self.silence and not self.hung_reported:
            self.hung_reported = True
            where = ('in section "%s"' % self.section) if self.section \
                else 'between sections'
            self.say('the guest appears hung: nothing on the console or '
                     'results for %s, %s' % (mmss(quiet).strip(), where))
            self.say('  last result:  %s' % short(self.last_result or
                                                 '(none)'))
            self.say('  last console: %s' % short(self.last_console or
                                                 '(none)'))

    def finish(self):
        self.poll()
        if self.section is not None:
            self.close_section(unterminated=True)
        self.say('VM exited; longest silence %s' %
                 mmss(self.longest).strip())


STOP = []


def on_signal(signum, _frame):
    STOP.append(signum)


def main():
    if len(sys.argv) not in (2, 3):
        print('usage: %s OUTDIR [SILENCE]' % sys.argv[0], file=sys.stderr)
        return 2
    try:
        silence = float(sys.argv[2]) if len(sys.argv) == 3 else 300.0
    except ValueError:
        silence = 300.0
    if silence <= 0:
        silence = 300.0
    parent = os.getppid()
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    prog = Progress(sys.argv[1], silence)
    while not STOP and os.getppid() == parent:
        prog.poll()
        time.sleep(1)
    if STOP and STOP[0] == signal.SIGTERM:
        prog.finish()
    return 0


if __name__ == '__main__':
    try:
        sys.exit(main())
    except Exception as e:  # never fail vm.sh for a progress line
        print('vm-progress.py: %s' % e, file=sys.stderr)
        sys.exit(0)
