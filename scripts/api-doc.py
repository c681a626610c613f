#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The documentation: docs/*.rst, their kernel-doc directives and links.

The pages of docs/ are written by hand (docs/index.rst is the table of
contents) and pull the kernel-doc comments in with ".. kernel-doc::"
directives, as the kernel's own Documentation/ does.  This script expands
each directive with the kernel tree's scripts/kernel-doc, passing the
options the way the tree's Sphinx extension
(Documentation/sphinx/kerneldoc.py) does, so the pages read the same here
and in-tree.

Usage: scripts/api-doc.py KSRC render OUTDIR
           OUTDIR/<page>.rst: each page with every directive expanded;
           and, when sphinx-build is installed, OUTDIR/html/ rendered by
           Sphinx with the tree's kerneldoc extension (a warning fails)
       scripts/api-doc.py KSRC tap OUTDIR
           the same expansion, then checks (TAP, for make check): every
           directive of every page resolves, every API header is pulled
           in, every EXPORT_SYMBOL*() of module/ is documented exactly
           once, kernel-doc -Wall is clean on every pulled-in file, every
           literalinclude finds its file and the lines it names, every
           cross-reference (toctree, :doc:, :ref:) resolves, the README's
           examples are the files make examples compiles and its links
           resolve, and make help lists every target of the Makefile
  KSRC  a kernel source tree (its scripts/kernel-doc is used)
"""
import glob
import os
import re
import shutil
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = 'docs'
# The README's fenced blocks that must equal a file of the tree: each is
# announced by an HTML comment naming the file.
README = 'README.md'
EXAMPLES = ['docs/example/mydrv.c', 'docs/example/stale.c']
EXAMPLE_MARK = re.compile(r'^<!-- example: (\S+) -->$')
DIRECTIVE = re.compile(r'^\.\. (kernel-doc|literalinclude)::\s+(\S+)\s*$')
OPTION = re.compile(r'^\s+:([a-z-]+):\s*(.*)$')
OPTIONS = {'export', 'internal', 'doc', 'identifiers', 'functions',
           'no-identifiers'}
# The options of Sphinx's literalinclude that render() applies (the
# worked example's excerpts in docs/kslot.rst): a file relative to the
# page, cut as Sphinx cuts it.
LITERAL_OPTIONS = {'language', 'start-at', 'start-after', 'end-at',
                   'end-before'}
EXPORT = re.compile(r'^\s*EXPORT_SYMBOL\w*\(\s*(\w+)', re.M)


class Directive:
    def __init__(self, doc, lineno, path, kind='kernel-doc'):
        self.kind = kind
        self.doc = doc
        self.lineno = lineno
        self.path = path
        self.options = {}
        self.errors = []
        self.output = ''

    def describe(self):
        opts = ' '.join(':%s: %s' % (k, v) if v else ':%s:' % k
                        for k, v in self.options.items())
        return '%s:%d %s%s' % (self.doc, self.lineno, self.path,
                               ' ' + opts if opts else '')


def pages():
    """The pages of docs/, as paths relative to the tree."""
    return sorted(os.path.relpath(p, TOP) for p in
                  glob.glob(os.path.join(TOP, DOCS, '*.rst')))


def parse(doc, lines):
    """Split a page into text lines and directives, in order."""
    items = []
    d = None
    last = None
    for i, line in enumerate(lines, 1):
        m = DIRECTIVE.match(line)
        if m:
            d = Directive(doc, i, m.group(2), m.group(1))
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
                d.errors.append('line %d: content in a %s directive'
                                % (i, d.kind))
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


def include(d):
    """A literalinclude's lines, cut by its options as Sphinx cuts them."""
    for k in d.options:
        if k not in LITERAL_OPTIONS:
            d.errors.append('unknown option :%s:' % k)
    path = os.path.join(TOP, os.path.dirname(d.doc), d.path)
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        d.errors.append(e.strerror)
        return
    for opt, first in (('start-at', True), ('start-after', True),
                       ('end-at', False), ('end-before', False)):
        if opt not in d.options:
            continue
        hit = [n for n, l in enumerate(lines) if d.options[opt] in l]
        if not hit:
            d.errors.append(':%s: %s: not found' % (opt, d.options[opt]))
            return
        n = hit[0]
        if first:
            lines = lines[n + (opt == 'start-after'):]
        else:
            lines = lines[:n + (opt == 'end-at')]
    if not lines:
        d.errors.append('includes nothing')
    lang = d.options.get('language', '')
    d.output = '\n'.join(['.. code-block:: %s' % lang, ''] +
                         ['   ' + l if l else '' for l in lines]) + '\n'


def render(ksrc, out):
    """Expand every page into OUTDIR; return the directives and texts."""
    kdoc = os.path.join(ksrc, 'scripts', 'kernel-doc')
    os.makedirs(out, exist_ok=True)
    directives = []
    texts = {}
    for doc in pages():
        with open(os.path.join(TOP, doc)) as f:
            items = parse(doc, f.read().splitlines())
        text = []
        for it in items:
            if isinstance(it, Directive):
                if it.kind == 'literalinclude':
                    include(it)
                else:
                    expand(kdoc, it)
                directives.append(it)
                text.append('.. From %s' % it.describe().split(' ', 1)[1])
                text.append('')
                text.extend(it.output.splitlines())
            else:
                text.append(it)
        texts[doc] = '\n'.join(text) + '\n'
        with open(os.path.join(out, os.path.basename(doc)), 'w') as f:
            f.write(texts[doc])
    return directives, texts


ROLE = re.compile(r':(doc|ref):`(?:[^`<]*<([^`>]+)>|([^`<]+))`')
LABEL = re.compile(r'^\.\. _([^:]+):\s*$', re.M)
TOCTREE = re.compile(r'^\.\. toctree::\s*$')


def toctree(lines):
    """The entries of the toctree directives of a page."""
    entries = []
    inside = False
    for line in lines:
        if TOCTREE.match(line):
            inside = True
            continue
        if inside:
            if not line.strip() or line.strip().startswith(':'):
                continue
            if not line[0].isspace():
                inside = False
                continue
            entries.append(line.strip())
    return entries


def crossrefs():
    """Broken cross-references of docs/*.rst (toctree, :doc:, :ref:)."""
    docs = {os.path.splitext(os.path.basename(d))[0]: d for d in pages()}
    text = {}
    for name, doc in docs.items():
        with open(os.path.join(TOP, doc)) as f:
            text[name] = f.read()
    labels = {}
    bad = []
    for name, t in text.items():
        for label in LABEL.findall(t):
            key = label.strip().lower()
            if key in labels:
                bad.append('%s: label %s also in %s' % (docs[name], label,
                                                        labels[key]))
            labels[key] = docs[name]
    refs = 0
    if 'index' not in docs:
        bad.append('%s/index.rst is missing' % DOCS)
    listed = set()
    for name, t in text.items():
        for entry in toctree(t.splitlines()):
            refs += 1
            listed.add(entry)
            if entry not in docs:
                bad.append('%s: toctree entry %s: no such page'
                           % (docs[name], entry))
        for role, target, bare in ROLE.findall(t):
            refs += 1
            target = (target or bare).strip()
            if role == 'doc':
                page = target.lstrip('/')
                if page not in docs:
                    bad.append('%s: :doc:`%s`: no such page'
                               % (docs[name], target))
            elif target.lower() not in labels:
                bad.append('%s: :ref:`%s`: no such label'
                           % (docs[name], target))
    for name, doc in sorted(docs.items()):
        if name != 'index' and name not in listed:
            bad.append('%s is in no toctree' % doc)
    return refs, bad


def readme_examples():
    """The README blocks announced as files, against the files."""
    with open(os.path.join(TOP, README)) as f:
        lines = f.read().splitlines()
    found = []
    bad = []
    i = 0
    while i < len(lines):
        m = EXAMPLE_MARK.match(lines[i])
        i += 1
        if not m:
            continue
        path = m.group(1)
        found.append(path)
        if i >= len(lines) or not lines[i].startswith('```'):
            bad.append('%s: no fenced block after the mark of %s'
                       % (README, path))
            continue
        end = i + 1
        while end < len(lines) and lines[end] != '```':
            end += 1
        block = lines[i + 1:end]
        i = end + 1
        try:
            with open(os.path.join(TOP, path)) as f:
                want = f.read().splitlines()
        except OSError as e:
            bad.append('%s: %s' % (path, e.strerror))
            continue
        if block != want:
            for n, (a, b) in enumerate(zip(block + [''] * len(want),
                                           want + [''] * len(block)), 1):
                if a != b:
                    bad.append('%s: the README block differs at line %d: '
                               '%r, the file has %r' % (path, n, a, b))
                    break
    for path in EXAMPLES:
        if path not in found:
            bad.append('%s: no README block shows it' % path)
    return found, bad


MDLINK = re.compile(r'\]\(([^)#\s]+)[^)]*\)')


def readme_links():
    """The README's links to files of the tree that do not exist."""
    with open(os.path.join(TOP, README)) as f:
        links = [l for l in MDLINK.findall(f.read()) if '://' not in l]
    return links, ['%s: link to %s: no such file' % (README, l)
                   for l in links if not os.path.exists(os.path.join(TOP, l))]


PHONY = re.compile(r'^\.PHONY:(.*)$', re.M)


def make_help():
    """Targets of the Makefile that its header ("make help") omits."""
    with open(os.path.join(TOP, 'Makefile')) as f:
        text = f.read()
    lines = text.splitlines()
    header = []
    for line in lines[2:]:
        if not line.startswith('#'):
            break
        header.append(line)
    words = set(re.findall(r'[\w-]+', '\n'.join(header)))
    targets = sorted({t for m in PHONY.findall(text) for t in m.split()})
    return targets, [t for t in targets if t not in words]


def sphinx(ksrc, out):
    """HTML through the tree's kerneldoc extension, if Sphinx is there."""
    if not shutil.which('sphinx-build'):
        print('api-doc: sphinx-build is not installed; no HTML '
              '(apt-get install python3-sphinx)', file=sys.stderr)
        return 0
    conf = os.path.join(out, 'sphinx')
    html = os.path.join(out, 'html')
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, 'conf.py'), 'w') as f:
        f.write('import sys\n'
                'sys.path.insert(0, %r)\n'
                "project = 'kslot'\n"
                "extensions = ['kerneldoc']\n"
                'kerneldoc_bin = %r\n'
                'kerneldoc_srctree = %r\n'
                "root_doc = master_doc = 'index'\n"
                "exclude_patterns = ['*.tmp', 'example']\n"
                % (os.path.join(ksrc, 'Documentation', 'sphinx'),
                   os.path.join(ksrc, 'scripts', 'kernel-doc'), TOP))
    p = subprocess.run(['sphinx-build', '-q', '-W', '--keep-going',
                        '-b', 'html', '-c', conf,
                        '-d', os.path.join(out, 'doctrees'),
                        os.path.join(TOP, DOCS), html])
    if p.returncode == 0:
        print('api-doc: %s' % os.path.join(html, 'index.html'),
              file=sys.stderr)
    return p.returncode


def tap(ksrc, out):
    kdoc = os.path.join(ksrc, 'scripts', 'kernel-doc')
    directives, texts = render(ksrc, out)
    literals = [d for d in directives if d.kind == 'literalinclude']
    directives = [d for d in directives if d.kind == 'kernel-doc']
    text = '\n'.join(texts.values())
    results = []

    bad = ['%s: %s' % (d.describe(), e) for d in directives
           for e in d.errors]
    results.append((not bad and directives,
                    'all %d kernel-doc directives of the %d pages of %s/ '
                    'resolve' % (len(directives), len(texts), DOCS), bad))

    bad = ['%s: %s' % (d.describe(), e) for d in literals for e in d.errors]
    results.append((not bad, 'all %d literalinclude directives of %s/ '
                    'resolve' % (len(literals), DOCS), bad))

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

    refs, bad = crossrefs()
    results.append((not bad and refs,
                    'all %d cross-references of %s/ resolve (toctree, '
                    ':doc:, :ref:)' % (refs, DOCS), bad))

    found, bad = readme_examples()
    results.append((not bad, "the README's %d examples are the files "
                    'make examples compiles' % len(found), bad))

    links, bad = readme_links()
    results.append((not bad and links, "the README's %d links resolve"
                    % len(links), bad))

    targets, bad = make_help()
    results.append((not bad, 'make help lists every target (%d)'
                    % len(targets), ['not listed: ' + t for t in bad]))

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
    directives, texts = render(ksrc, out)
    bad = ['%s: %s' % (d.describe(), e) for d in directives
           for e in d.errors]
    bad += crossrefs()[1]
    for line in bad:
        print('api-doc: ' + line, file=sys.stderr)
    print('api-doc: %s/ (%d pages, %d directives expanded)'
          % (out, len(texts), len(directives)), file=sys.stderr)
    if bad:
        return 1
    return sphinx(ksrc, out)


if __name__ == '__main__':
    sys.exit(main())
