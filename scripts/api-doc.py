#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel API document: docs/kslot.rst and its kernel-doc directives.

docs/kslot.rst is written by hand and pulls the kernel-doc comments in
with ".. kernel-doc::" directives, as the kernel's own Documentation/
does.  This script expands each directive with the kernel tree's
scripts/kernel-doc, passing the options the way the tree's Sphinx
extension (Documentation/sphinx/kerneldoc.py) does, so the document reads
the same here and in-tree.

Usage: scripts/api-doc.py KSRC render OUTDIR
           OUTDIR/kslot.rst: the document with every directive expanded;
           and, when sphinx-build is installed, OUTDIR/html/ rendered by
           Sphinx with the tree's kerneldoc extension
       scripts/api-doc.py KSRC tap OUTDIR
           the same expansion, then checks (TAP, for make check): every
           directive resolves, every API header is pulled in, every
           EXPORT_SYMBOL*() of module/ is documented exactly once, and
           kernel-doc -Wall is clean on every pulled-in file
  KSRC  a kernel source tree (its scripts/kernel-doc is used)
"""
import glob
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = 'docs/kslot.rst'
DIRECTIVE = re.compile(r'^\.\. kernel-doc::\s+(\S+)\s*$')
OPTION = re.compile(r'^\s+:([a-z-]+):\s*(.*)$')
OPTIONS = {'export', 'internal', 'doc', 'identifiers', 'functions',
           'no-identifiers'}
EXPORT = re.compile(r'^\s*EXPORT_SYMBOL\w*\(\s*(\w+)', re.M)


class Directive:
    def __init__(self, lineno, path):
        self.lineno = lineno
        self.path = path
        self.options = {}
        self.errors = []
        self.output = ''

    def describe(self):
        opts = ' '.join(':%s: %s' % (k, v) if v else ':%s:' % k
                        for k, v in self.options.items())
        return '%s:%d %s%s' % (DOC, self.lineno, self.path,
                               ' ' + opts if opts else '')


def parse(lines):
    """Split the document into text lines and directives, in order."""
    items = []
    d = None
    last = None
    for i, line in enumerate(lines, 1):
        m = DIRECTIVE.match(line)
        if m:
            d = Directive(i, m.group(1))
            items.append(d)
            last = None
            continue
        if d is not None and line.strip() and line[0].isspace():
            m = OPTION.match(line)
            if m:
                last = m.group(1)
                d.options[last] = m.group(2).strip()
            elif last is not None:
                d.options[last] = (d.options[last] + ' ' +
                                   line.strip()).strip()
            else:
                d.errors.append('line %d: content in a kernel-doc directive'
                                % i)
            continue
        d = None
        items.append(line)
    return items


def command(kdoc, d):
    """kernel-doc's arguments for a directive, as kerneldoc.py builds them."""
    cmd = [kdoc, '-rst', '-sphinx-version', '3.0']
    opts = dict(d.options)
    if 'functions' in opts:
        opts['identifiers'] = opts['functions']
    patterns = []
    if 'export' in opts:
        cmd.append('-export')
        patterns = opts['export'].split()
    elif 'internal' in opts:
        cmd.append('-internal')
        patterns = opts['internal'].split()
    elif 'doc' in opts:
        cmd += ['-function', opts['doc']]
    elif 'identifiers' in opts:
        ids = opts['identifiers'].split()
        for i in ids:
            cmd += ['-function', i]
        if not ids:
            cmd.append('-no-doc-sections')
    for i in opts.get('no-identifiers', '').split():
        cmd += ['-nosymbol', i]
    for p in patterns:
        for f in sorted(glob.glob(os.path.join(TOP, p))):
            cmd += ['-export-file', os.path.relpath(f, TOP)]
    return cmd + [d.path]


def expand(kdoc, d):
    for k in d.options:
        if k not in OPTIONS:
            d.errors.append('unknown option :%s:' % k)
    if not os.path.isfile(os.path.join(TOP, d.path)):
        d.errors.append('no such file')
        return
    p = subprocess.run(command(kdoc, d), cwd=TOP, capture_output=True,
                       text=True)
    d.output = p.stdout
    if p.returncode:
        d.errors.append('kernel-doc exited with %d' % p.returncode)
    for line in p.stderr.splitlines():
        if 'arning' in line or 'rror' in line:
            d.errors.append(line)
    if not d.output.strip():
        d.errors.append('pulls in nothing')
    ids = d.options.get('identifiers', d.options.get('functions', ''))
    for i in ids.split():
        if not re.search(r'^\.\. c:\w+:: (.*[ *])?%s\b' % re.escape(i),
                         d.output, re.M):
            d.errors.append('%s is not documented there' % i)


def render(ksrc, out):
    kdoc = os.path.join(ksrc, 'scripts', 'kernel-doc')
    with open(os.path.join(TOP, DOC)) as f:
        items = parse(f.read().splitlines())
    text = []
    directives = []
    for it in items:
        if isinstance(it, Directive):
            expand(kdoc, it)
            directives.append(it)
            text.append('.. From %s' % it.describe().split(' ', 1)[1])
            text.append('')
            text.extend(it.output.splitlines())
        else:
            text.append(it)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, 'kslot.rst'), 'w') as f:
        f.write('\n'.join(text) + '\n')
    return directives, '\n'.join(text)


def sphinx(ksrc, out):
    """HTML through the tree's kerneldoc extension, if Sphinx is there."""
    if not shutil.which('sphinx-build'):
        print('api-doc: sphinx-build is not installed; no HTML '
              '(apt-get install python3-sphinx)', file=sys.stderr)
        return 0
    conf = os.path.join(out, 'sphinx')
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, 'conf.py'), 'w') as f:
        f.write('import sys\n'
                'sys.path.insert(0, %r)\n'
                "project = 'kslot'\n"
                "extensions = ['kerneldoc']\n"
                'kerneldoc_bin = %r\n'
                'kerneldoc_srctree = %r\n'
                "root_doc = master_doc = 'kslot'\n"
                "exclude_patterns = ['*.tmp']\n"
                % (os.path.join(ksrc, 'Documentation', 'sphinx'),
                   os.path.join(ksrc, 'scripts', 'kernel-doc'), TOP))
    html = os.path.join(out, 'html')
    p = subprocess.run(['sphinx-build', '-q', '-b', 'html', '-c', conf,
                        '-d', os.path.join(out, 'doctrees'),
                        os.path.join(TOP, 'docs'), html])
    if p.returncode == 0:
        print('api-doc: %s' % os.path.join(html, 'kslot.html'),
              file=sys.stderr)
    return p.returncode


def tap(ksrc, out):
    kdoc = os.path.join(ksrc, 'scripts', 'kernel-doc')
    directives, text = render(ksrc, out)
    results = []

    bad = ['%s: %s' % (d.describe(), e) for d in directives
           for e in d.errors]
    results.append((not bad and directives,
                    '%s: all %d kernel-doc directives resolve'
                    % (DOC, len(directives)), bad))

    pulled = {d.path for d in directives}
    headers = sorted(os.path.relpath(h, TOP) for h in
                     glob.glob(os.path.join(TOP, 'include/linux/kslot_*.h')))
    missing = [h for h in headers if h not in pulled]
    results.append((not missing,
                    'every API header (%d) is pulled in' % len(headers),
                    missing))

    exports = {}
    for c in sorted(glob.glob(os.path.join(TOP, 'module', '*.c'))):
        with open(c) as f:
            for sym in EXPORT.findall(f.read()):
                exports[sym] = os.path.relpath(c, TOP)
    bad = []
    for sym, c in sorted(exports.items()):
        n = len(re.findall(r'^\.\. c:function:: (.*[ *])?%s \(' % sym,
                           text, re.M))
        if n != 1:
            bad.append('%s (%s): documented %d times' % (sym, c, n))
    results.append((not bad and exports,
                    'every exported symbol of module/ (%d) is documented '
                    'exactly once' % len(exports), bad))

    bad = []
    for path in sorted(pulled):
        if not os.path.isfile(os.path.join(TOP, path)):
            continue
        p = subprocess.run([kdoc, '-none', '-Wall', path], cwd=TOP,
                           capture_output=True, text=True)
        bad += p.stderr.splitlines()
        if p.returncode:
            bad.append('%s: kernel-doc exited with %d' % (path, p.returncode))
    results.append((not bad, 'kernel-doc -Wall is clean on the %d pulled-in '
                    'files' % len(pulled), bad))

    print('TAP version 13')
    print('1..%d' % len(results))
    for n, (ok, what, notes) in enumerate(results, 1):
        print('%sok %d %s' % ('' if ok else 'not ', n, what))
        for line in notes[:40]:
            print('# ' + line)
    return 0


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ('render', 'tap'):
        print(__doc__.split('\n\n', 2)[2], file=sys.stderr)
        return 2
    ksrc = os.path.abspath(sys.argv[1])
    out = os.path.abspath(sys.argv[3])
    if sys.argv[2] == 'tap':
        return tap(ksrc, out)
    directives, _ = render(ksrc, out)
    bad = ['%s: %s' % (d.describe(), e) for d in directives
           for e in d.errors]
    for line in bad:
        print('api-doc: ' + line, file=sys.stderr)
    print('api-doc: %s (%d directives expanded)'
          % (os.path.join(out, 'kslot.rst'), len(directives)),
          file=sys.stderr)
    if bad:
        return 1
    return sphinx(ksrc, out)


if __name__ == '__main__':
    sys.exit(main())
