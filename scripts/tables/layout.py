#!/usr/bin/env python3
"""scripts/tables/layout.py -- how the tree shows its lesson, measured (`make layout`).

  layout.py [--before REV] [--write FILE] [--check FILE | --targets]

Measures the tree (its git-tracked files, as they are in the working tree)
and, with --before, the commit REV too (extracted with `git archive` into a
scratch folder; its own scripts/setup/diff_step.sh counts its `make diff`):

  code lines        tracked C/CUDA sources (.c .h .cu .cuh), scripts (.sh .py
                    .awk .gp) and makefiles (Makefile, *.mk)
  lesson lines      the C/CUDA sources of the step folders, without their
                    "going further" folders (tuned/, precision/)
  make diff         the lines `make diff STEP=NN` prints, steps 02 to 06
  top level         the tracked entries at the top of the tree (dot files aside)
  core              common/'s own C/CUDA sources (not its view/ folder), and
                    its longest function (from the first line of its signature
                    to its closing brace; the kit's style: a function's "{" and
                    "}" in column 0)
  largest           the largest C/CUDA source of each folder
  circles           C/CUDA files of common/ and of the step folders that reach
                    themselves again through the headers they include and the
                    functions they call (a call leads to the file that defines
                    the function): strongly connected components of more than
                    one file

--write FILE writes the Markdown table (FILE: docs/layout.md); --check FILE
measures the tree again and compares it with FILE's "now" column, and checks
the targets: `make diff` STEP=05 <= 1300 lines, STEP=06 <= 700, the core
<= 4500 lines and no function of it over 80, no lesson folder holds a tuned
build's file, no circle; --targets checks the targets but
the `make diff` counts (for the student kit, whose tree is not the table's
and whose blanked sources make other diffs).  Exit 0, 1 (a check failed),
2 (bad usage or REV unknown).
"""
import os
import re
import subprocess
import sys
import tempfile

CODE_EXT = ('.c', '.h', '.cu', '.cuh')
SCRIPT_EXT = ('.sh', '.py', '.awk', '.gp', '.mk')
FURTHER = ('tuned', 'precision')
TARGETS = {'05': 1300, '06': 700}
CORE_MAX_LINES, CORE_MAX_FUNC = 4500, 80


def tracked(top):
    if os.path.isdir(os.path.join(top, '.git')) or os.path.isfile(os.path.join(top, '.git')):
        out = subprocess.run(['git', '-C', top, 'ls-files', '-z'], capture_output=True, check=True).stdout
        return [f for f in out.decode().split('\0') if f and os.path.isfile(os.path.join(top, f))]
    files = []
    for d, _, fs in os.walk(top):
        for f in fs:
            files.append(os.path.relpath(os.path.join(d, f), top))
    return sorted(files)


def nlines(path):
    with open(path, 'rb') as f:
        return f.read().count(b'\n')


def is_code(f):
    return f.endswith(CODE_EXT)


def is_lesson(f):
    parts = f.split('/')
    return (re.match(r'step\d\d_', parts[0]) is not None and is_code(f)
            and not (len(parts) > 2 and parts[1] in FURTHER))


def diff_lines(top, nn):
    script = next((s for s in ('scripts/setup/diff_step.sh', os.path.join('scripts', 'diff_step.sh'))  # (older)
                   if os.path.isfile(os.path.join(top, s))), 'scripts/setup/diff_step.sh')
    r = subprocess.run(['bash', script, nn], cwd=top, capture_output=True)
    if r.returncode != 0:
        return None
    return r.stdout.count(b'\n')


# ---- circles: calls and includes between modules ----
DEF_RE = re.compile(r'^(?!static\b)[A-Za-z_][\w \t\*]*?\b([a-z_]\w*)\s*\([^;{]*\)\s*\{', re.M)
INC_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT_RE = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def sources(top, files):
    """the C/CUDA files of common/ and of the step folders -> their text,
    comments removed"""
    out = {}
    for f in files:
        top_dir = f.split('/')[0]
        if not is_code(f) or (top_dir != 'common' and not re.match(r'step\d\d_', top_dir)):
            continue
        with open(os.path.join(top, f), encoding='utf-8', errors='replace') as fh:
            out[f] = COMMENT_RE.sub(' ', fh.read())
    return out


def graph(srcs):
    """file -> the files it needs: the headers it includes, and for a .c/.cu
    the files that define the functions it calls (main() aside; a function
    it defines itself is its own)"""
    defined = {}                                    # function name -> the files defining it
    for f, text in srcs.items():
        if f.endswith(('.c', '.cu')):
            for name in DEF_RE.findall(text):
                if name != 'main':
                    defined.setdefault(name, set()).add(f)
    by_name = {}                                    # header name -> its files
    for f in srcs:
        if f.endswith(('.h', '.cuh')):
            by_name.setdefault(os.path.basename(f), []).append(f)
    edges = {f: set() for f in srcs}
    call_re = re.compile(r'\b(' + '|'.join(map(re.escape, sorted(defined))) + r')\s*\(') if defined else None
    for f, text in srcs.items():
        for inc in INC_RE.findall(text):
            cands = by_name.get(os.path.basename(inc), [])
            near = [c for c in cands if os.path.dirname(c) == os.path.dirname(f)] or \
                   [c for c in cands if c.split('/')[0] == 'common'] or cands
            edges[f] |= set(near) - {f}
        if f.endswith(('.c', '.cu')) and call_re:
            for name in call_re.findall(text):
                if f not in defined[name]:
                    edges[f] |= defined[name]
    return edges


def circles(edges):
    """strongly connected components of more than one module (Tarjan)"""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def longest_function(top, files):
    """(lines, 'file:line name') of the longest function of the core"""
    best = (0, '-')
    for f in files:
        if not (f.startswith('common/') and f.count('/') == 1 and f.endswith(('.c', '.cu'))):
            continue
        sig = start = 0
        inside = False
        name = ''
        with open(os.path.join(top, f), encoding='utf-8', errors='replace') as fh:
            lines = fh.read().split('\n')
        for i, l in enumerate(lines, 1):
            if not inside:
                if re.match(r'[A-Za-z_].*\)\s*\{\s*$', l):
                    inside, start, name = True, i, l
                    continue
                if re.match(r'[A-Za-z_].*\(', l) and not re.search(r';\s*$', l) and not sig:
                    sig, name = i, l
                elif l.startswith('{') and sig:
                    inside, start = True, sig
                    continue
                if re.search(r';\s*$', l):
                    sig = 0
            elif l.startswith('}'):
                n = i - start + 1
                if n > best[0]:
                    fn = re.split(r'[\s*]+', name.split('(')[0].strip())[-1]
                    best = (n, '%s:%d %s' % (f, start, fn))
                inside, sig = False, 0
    return best


def tuned_in_lesson(top, files):
    """files of a lesson folder that belong to a tuned build"""
    bad = []
    for f in files:
        parts = f.split('/')
        if not re.match(r'step\d\d_', parts[0]) or len(parts) != 2:
            continue
        if 'tuned' in parts[1]:
            bad.append(f)
        elif parts[1] == 'Makefile':
            with open(os.path.join(top, f), encoding='utf-8') as fh:
                if any('tuned' in l for l in fh if not l.lstrip().startswith('#')):
                    bad.append(f + ' (names the tuned build)')
    return bad


def measure(top):
    files = tracked(top)
    code = [f for f in files if is_code(f) or f.endswith(SCRIPT_EXT) or os.path.basename(f) == 'Makefile']
    total = sum(nlines(os.path.join(top, f)) for f in code)
    lesson = sum(nlines(os.path.join(top, f)) for f in files if is_lesson(f))
    core = sum(nlines(os.path.join(top, f)) for f in files
               if f.startswith('common/') and f.count('/') == 1 and is_code(f))
    largest = {}
    for f in files:
        if not is_code(f):
            continue
        d = os.path.dirname(f) or '.'
        n = nlines(os.path.join(top, f))
        if n > largest.get(d, ('', -1))[1]:
            largest[d] = (os.path.basename(f), n)
    m = {
        'code lines': str(total),
        'lesson lines (share of code)': '%d (%.0f %%)' % (lesson, 100.0 * lesson / total if total else 0),
        'top-level entries': str(len({f.split('/')[0] for f in files if not f.startswith('.')})),
        'core (common/ without view/)': str(core),
    }
    n, where = longest_function(top, files)
    m["core's longest function"] = '%d (%s)' % (n, where)
    for nn in ('02', '03', '04', '05', '06'):
        n = diff_lines(top, nn)
        m['make diff STEP=%s' % nn] = '-' if n is None else str(n)
    circ = circles(graph(sources(top, files)))
    m['circles'] = '; '.join(' -> '.join(os.path.basename(x) for x in c) for c in circ) or 'none'
    m['tuned files in lesson folders'] = ', '.join(tuned_in_lesson(top, files)) or 'none'
    for d in sorted(largest):
        if d.startswith(('common', 'step', 'tests')) and d.count('/') <= 2:
            m['largest in %s/' % d] = '%s (%d)' % largest[d]
    return m


def table(before, now, rev):
    keys = list(now) + [k for k in (before or {}) if k not in now]
    head = '| measure | before (%s) | now |\n|---|---|---|\n' % rev if before else '| measure | now |\n|---|---|\n'
    rows = []
    for k in keys:
        if before:
            rows.append('| %s | %s | %s |' % (k, before.get(k, '-'), now.get(k, '-')))
        else:
            rows.append('| %s | %s |' % (k, now.get(k, '-')))
    return head + '\n'.join(rows) + '\n'


def main(argv):
    top = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
    rev = write = check = None
    targets_only = False
    i = 0
    while i < len(argv):
        if argv[i] == '--targets':
            targets_only = True
            i += 1
        elif argv[i] in ('--before', '--write', '--check') and i + 1 < len(argv):
            val = argv[i + 1]
            if argv[i] == '--before':
                rev = val
            elif argv[i] == '--write':
                write = val
            else:
                check = val
            i += 2
        else:
            print('layout.py: usage: layout.py [--before REV] [--write FILE] [--check FILE | --targets]',
                  file=sys.stderr)
            return 2
    now = measure(top)
    if check or targets_only:
        ok = True
        doc = ''
        if check:
            try:
                with open(check, encoding='utf-8') as f:
                    doc = f.read()
            except OSError as e:
                print('layout.py: cannot read %s: %s' % (check, e.strerror), file=sys.stderr)
                return 1
        for k, v in (now.items() if check else ()):
            row = re.search(r'(?m)^\| ' + re.escape(k) + r' \|(?: [^|]* \|)? ([^|]*) \|$', doc)
            if not row or row.group(1) != v:
                print('layout.py: %s says %s = %s; the tree: %s (make layout)'
                      % (check, k, row.group(1) if row else '(no row)', v), file=sys.stderr)
                ok = False
        for nn, most in (TARGETS.items() if check else ()):
            got = now['make diff STEP=%s' % nn]
            if not got.isdigit() or int(got) > most:
                print('layout.py: make diff STEP=%s prints %s lines; at most %d (one idea per step)'
                      % (nn, got, most), file=sys.stderr)
                ok = False
        core = int(now['core (common/ without view/)'])
        longest = int(now["core's longest function"].split()[0])
        if core > CORE_MAX_LINES or longest > CORE_MAX_FUNC:
            print('layout.py: the core is %d lines (at most %d), its longest function %s (at most %d)'
                  % (core, CORE_MAX_LINES, now["core's longest function"], CORE_MAX_FUNC), file=sys.stderr)
            ok = False
        for k in ('tuned files in lesson folders', 'circles'):
            if now[k] != 'none':
                print('layout.py: %s: %s' % (k, now[k]), file=sys.stderr)
                ok = False
        return 0 if ok else 1
    before = None
    if rev:
        with tempfile.TemporaryDirectory(prefix='nblayout.') as tmp:
            arch = subprocess.run(['git', '-C', top, 'archive', rev], capture_output=True)
            if arch.returncode != 0:
                print('layout.py: no commit %s here (%s)' % (rev, arch.stderr.decode().strip()), file=sys.stderr)
                return 2
            subprocess.run(['tar', '-x', '-C', tmp], input=arch.stdout, check=True)
            before = measure(tmp)
    out = table(before, now, rev)
    if write:
        intro = ('# The layout, measured\n\n'
                 'Generated by `make layout` (scripts/tables/layout.py, whose header defines each measure);\n'
                 '`tests/suite_docs.c` measures the tree again and compares it with the "now" column,\n'
                 'and checks the targets: `make diff` STEP=05 at most %d lines, STEP=06 at most %d,\n'
                 'the core at most %d lines and no function of it over %d, no tuned build\'s file in a\n'
                 'lesson folder, no circle.\n\n' % (TARGETS['05'], TARGETS['06'], CORE_MAX_LINES, CORE_MAX_FUNC))
        tmpf = write + '.tmp'
        with open(tmpf, 'w', encoding='utf-8') as f:
            f.write(intro + out)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmpf, 0o666 & ~mask)          # as open() makes a new file, whatever an old .tmp had
        os.replace(tmpf, write)
    else:
        sys.stdout.write(out)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
