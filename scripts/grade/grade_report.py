#!/usr/bin/env python3
"""scripts/grade/grade_report.py -- the reports of a grade, written by encoders.

Run by scripts/grade/grade_table.sh (after its checks of the results) and by
scripts/grade/grade_class.sh; python3 -I, standard library only.

  grade_report.py report DIR MANIFEST RUNNER...
      The grade of `make check-all` from the results in DIR (RUNNER's
      <runner>.tsv, or <runner>.fail: why its results do not count, every
      test of MANIFEST then FAILED with that reason, or <runner>.skip: why
      the build left it out, every test SKIPPED; <runner>.tsv and
      <runner>.json are rewritten so).  Prints the notices, the failures
      (each once, where it failed and the handout's section to read; at
      most MAX_FAILURES_SHOWN), the points table and last the closing line
      "check-all: N passed, N failed, N skipped";
      writes DIR/summary.json and DIR/gradescope.json (json module, each
      read back and compared before it replaces the old one).  DIR/.integrity
      (written by scripts/grade/check_all.sh: the kit's hashes, the checks made,
      "tampered": what changed during the run) makes a run whose kit files
      or programs changed TAMPERED: its score is 0 everywhere.
      Exit 1 if a test failed or the run was tampered with, else 0.
  grade_report.py class-row [--report-dir DIR --logs LOGS] RESULTS STUDENT ROWS STEP... -- FLAG...
      One student of `make grade-class`: the points of each STEP from the
      results (the kit's checks and the common runner left out), the
      during-run tamper record (RESULTS/.integrity/tampered: every point 0,
      flagged), appended as a JSON line to ROWS; prints the console line.
      --report-dir: also the student's report, DIR/<name>.html (HTML, every
      text of theirs escaped): each test that lost points, its points and
      its message; the tests not graded; the optional exercises apart; the
      flags; a runner's build log (at most 200 lines and 64 KiB: its first
      and its last lines)
      where it could not be built, and LOGS (where grade_class.sh keeps
      the student's logs) named for the rest.
  grade_report.py class-csv [--reports DIR] ROWS OUT STEP...
      The gradebook OUT (csv module): student, each STEP, total,
      not_graded, flags, and with --reports a last column "report": the
      student's report in DIR, as a path relative to OUT's folder.

The text columns of a runner's TSV are escaped as inside a JSON string (the
runner's json_esc, tests/nb_grade.c): they are decoded here, and written
again only by encoders (json, csv, the same escape for a TSV).  What is
printed on the console has its control characters made harmless ('?'),
so that a test's output cannot drive the instructor's terminal.
"""
import csv
import hashlib
import html
import io
import json
import os
import re
import stat
import sys
import tempfile

# ---------------------------------------------------------------- text

_SURR = re.compile('[\ud800-\udfff]')


def fix_surrogates(s):
    """Pairs of surrogates joined, a lone one replaced (U+FFFD)."""
    if not _SURR.search(s):
        return s
    return s.encode('utf-16', 'surrogatepass').decode('utf-16', 'replace')


_ESC = re.compile(r'\\(u[0-9a-fA-F]{4}|.)', re.S)
_SIMPLE = {'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', '"': '"', '\\': '\\', '/': '/'}


def unescape(s):
    """A TSV text column (escaped as inside a JSON string) -> its text.
    Lenient: an escape that JSON does not know is kept as it is."""
    if '\\' not in s:
        return s

    def one(m):
        g = m.group(1)
        if len(g) == 5 and g[0] == 'u':
            return chr(int(g[1:], 16))
        return _SIMPLE.get(g, '\\' + g)
    return fix_surrogates(_ESC.sub(one, s))


def escape(s):
    """Text -> a TSV text column (as the runner writes it: no tab, no newline)."""
    return json.dumps(s, ensure_ascii=False)[1:-1].replace('\x7f', '\\u007f')


_BIDI = dict.fromkeys(list(range(0x202a, 0x202f)) + list(range(0x2066, 0x206a)), '?')


def con(s):
    """Text for the console: newlines and tabs as spaces, other control
    characters (C0, DEL, C1, the bidirectional overrides) as '?'."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch in '\n\r\t':
            out.append(' ')
        elif o < 0x20 or 0x7f <= o < 0xa0:
            out.append('?')
        else:
            out.append(ch)
    return ''.join(out).translate(_BIDI)


def clean(o):
    """A decoded JSON value with every string made encodable (surrogates)."""
    if isinstance(o, str):
        return fix_surrogates(o)
    if isinstance(o, list):
        return [clean(v) for v in o]
    if isinstance(o, dict):
        return {fix_surrogates(k): clean(v) for k, v in o.items()}
    return o


def read_text(path):
    """A file as text (UTF-8; a byte that is not, U+FFFD); None if absent."""
    try:
        with open(path, 'rb') as f:
            return f.read().decode('utf-8', 'replace')
    except FileNotFoundError:
        return None


def first_line(path):
    t = read_text(path)
    return None if t is None else t.split('\n', 1)[0]


def umask_mode(base=0o666):
    """base less the process's umask: the mode open(path, 'w') would give."""
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def write_atomic(path, text, check=None):
    """Write text (UTF-8) to path through a temporary file in its directory,
    renamed over it, mode 0666 less the umask.  check(text) must not raise
    first."""
    if check:
        check(text)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.' + os.path.basename(path) + '.')
    try:
        with os.fdopen(fd, 'w', encoding='utf-8', newline='') as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, umask_mode())            # mkstemp's 0600: as open(path, 'w') would make it
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def dumps(o):
    return json.dumps(o, ensure_ascii=False)


def json_checked(obj):
    """A check for write_atomic: the text parses back to obj."""
    def check(text):
        if json.loads(text) != obj:
            raise ValueError('the JSON written does not read back the same')
    return check


# ---------------------------------------------------------------- results

FIELDS = ('runner', 'suite', 'test', 'status', 'earned', 'possible', 'detail', 'output', 'kind')


def to_int(s):
    try:
        return int(s)
    except ValueError:
        return 0


def read_tsv(path):
    """(header fields, rows) of a runner's TSV; each row a dict, its text
    columns decoded.  Lines are split on '\\n' alone."""
    text = read_text(path) or ''
    lines = text.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    header, rows = [], []
    for k, line in enumerate(lines):
        if line.startswith('#'):
            if k == 0:
                header = line.split('\t')
            continue
        f = line.split('\t')
        f += [''] * (len(FIELDS) - len(f))
        rows.append({'runner': unescape(f[0]), 'suite': unescape(f[1]), 'test': unescape(f[2]),
                     'status': f[3], 'earned': to_int(f[4]), 'possible': to_int(f[5]),
                     'detail': unescape(f[6]), 'output': unescape(f[7]), 'kind': f[8]})
    return header, rows


def read_manifest(path):
    rows = []
    text = read_text(path) or ''
    for line in text.split('\n'):
        if not line or line.startswith('#'):
            continue
        f = line.split('\t') + [''] * 5
        rows.append((unescape(f[0]), unescape(f[1]), unescape(f[2]), to_int(f[3]), f[4]))
    return rows


def write_rows_tsv(d, r, rows, nonce):
    """The runner's TSV, as its grader writes it, for rows made here (a
    runner that did not run, or a step the build left out)."""
    tsv = ['#nb-grade\t%s\tnonce=%s\tsandbox=boxed\n' % (escape(r), nonce or 'none')]
    for x in rows:
        tsv.append('\t'.join([escape(x['runner']), escape(x['suite']), escape(x['test']), x['status'],
                              str(x['earned']), str(x['possible']), escape(x['detail']),
                              escape(x['output']), x['kind']]) + '\n')
    write_atomic(os.path.join(d, r + '.tsv'), ''.join(tsv))


def tests_of(rows):
    """The JSON report's tests for rows made here: none earned anything."""
    return [{'suite': x['suite'], 'test': x['test'], 'kind': x['kind'], 'status': x['status'],
             'points': x['possible'], 'earned': 0, 'detail': x['detail'], 'output': ''} for x in rows]


def kit_at_fault(r, why, manifest):
    """Whether the kit's own checks failed with the runner: when the runner
    runs no student test (nothing of a student's could have stopped it), or
    when its tests are not the manifest's (the manifest is the kit's: a
    stale one, `make -C tests manifest`).  Else a student's code may have
    stopped the runner, and its kit checks only could not run."""
    if 'the tests differ from the manifest' in why:
        return True
    return not any(mr == r and kind == 'student' for (mr, _s, _t, _p, kind) in manifest)


def fail_all(d, r, why, manifest, nonce):
    """Every test of the manifest FAILED with the reason (the kit's checks
    SKIPPED: they could not run, which is not the kit's failure -- unless
    kit_at_fault()); the runner's TSV and JSON report rewritten so."""
    rows = []
    kit_fails = kit_at_fault(r, why, manifest)
    for (mr, suite, test, points, kind) in manifest:
        if mr != r:
            continue
        if kind == 'kit' and not kit_fails:
            rows.append(dict(runner=r, suite=suite, test=test, status='SKIP', earned=0, possible=points,
                             detail='SKIPPED (not run: %s)' % why, output='', kind=kind))
        else:
            rows.append(dict(runner=r, suite=suite, test=test, status='FAIL', earned=0, possible=points,
                             detail=why, output='', kind=kind))
    if not rows:
        rows.append(dict(runner=r, suite='(runner)', test='(no tests in the manifest)', status='FAIL',
                         earned=0, possible=0, detail=why, output='', kind='student'))
    write_rows_tsv(d, r, rows, nonce)
    student = [x for x in rows if x['kind'] == 'student']
    rep = {'runner': r, 'graded': True, 'not_graded_reason': None, 'runner_error': why,
           'passed': 0, 'failed': sum(x['status'] == 'FAIL' for x in rows),
           'skipped': sum(x['status'] == 'SKIP' for x in rows), 'points': 0,
           'possible': sum(x['possible'] for x in student), 'not_graded_points': 0,
           'tests': tests_of(rows)}
    write_atomic(os.path.join(d, r + '.json'), layout_lines(rep, 'tests', ' ', '  '), json_checked(rep))
    return rows


def skip_all(d, r, why, manifest, nonce):
    """Every test of the manifest SKIPPED with the reason (a runner of a step
    the build left out: no nvcc, no NCCL); the runner's TSV and JSON report
    written so."""
    rows = [dict(runner=r, suite=suite, test=test, status='SKIP', earned=0, possible=points,
                 detail='SKIPPED (%s)' % why, output='', kind=kind)
            for (mr, suite, test, points, kind) in manifest if mr == r]
    write_rows_tsv(d, r, rows, nonce)
    student = [x for x in rows if x['kind'] == 'student']
    rep = {'runner': r, 'graded': False, 'not_graded_reason': why, 'runner_error': None,
           'passed': 0, 'failed': 0, 'skipped': len(rows), 'points': 0,
           'possible': sum(x['possible'] for x in student),
           'not_graded_points': sum(x['possible'] for x in student),
           'tests': tests_of(rows)}
    write_atomic(os.path.join(d, r + '.json'), layout_lines(rep, 'tests', ' ', '  '), json_checked(rep))
    return rows


# ---------------------------------------------------------------- failures

MAX_FAILURES_SHOWN = 20
_HEADING = re.compile(r'^## (\d+)\. (.*?)\s*$')


def handout_section(top, runner, suite):
    """'handouts/NN_x.md \u00a7N Title': the section of the runner's handout
    that says what the student writes (the precision suite: handouts/08's
    grade; a tuned runner: its handout's tuned section); None without one."""
    m = re.match(r'step(\d\d)', runner)
    if not m or not top:
        return None
    nn, want = m.group(1), r'What you write|What changes'
    if suite == 'precision':
        nn, want = '08', r'The grade'
    elif runner.endswith('_tuned'):
        want = r'tuned|Going further'
    try:
        names = sorted(n for n in os.listdir(os.path.join(top, 'handouts'))
                       if n.startswith(nn + '_') and n.endswith('.md'))
    except OSError:
        return None
    if not names:
        return None
    text = read_text(os.path.join(top, 'handouts', names[0])) or ''
    heads = [h for h in (_HEADING.match(line) for line in text.split('\n')) if h]
    for pat in (want, r'Exercises'):
        for h in heads:
            if re.search(pat, h.group(2)):
                return 'handouts/%s \u00a7%s %s' % (names[0], h.group(1), h.group(2).replace('`', ''))
    return 'handouts/%s' % names[0]


FAILURE_TEXT_MAX = 300


def clip_words(s, n):
    """s cut to at most n characters at a word (at the last space in its
    second half, else at a character), ending in '...'; s if it fits."""
    if len(s) <= n:
        return s
    k = s.rfind(' ', n // 2, n - 2)
    k = k if k > 0 else n - 3
    return s[:k].rstrip(' ,;:(') + '...'


_WHERE = re.compile(r' \([^()]*\.[A-Za-z]+:\d+[^()]*\)$')


def clip_detail(d, n):
    """A failure's detail cut at a word, where it failed (' (file.c:12)',
    at its end) kept whole."""
    m = _WHERE.search(d)
    return clip_words(d, n) if not m else clip_words(d[:m.start()], n) + d[m.start():]


def failure_lines(top, runners, results, fails):
    """The failed tests, each once: 'FAIL runner/suite/test: detail (file:line)
    -- the handout's section'; the tests a failed gate kept from running one
    line for all; a runner that left no results is a notice of its own."""
    lines, shown, more = [], 0, {}
    for r in runners:
        if r in fails:
            continue
        gated = {}
        for x in results[r]:
            if x['status'] != 'FAIL':
                continue
            if x['detail'].startswith('not run: '):      # behind a failed gate: said once
                gated.setdefault(x['detail'], []).append(x)
                continue
            if shown >= MAX_FAILURES_SHOWN:
                more[r] = more.get(r, 0) + 1
                continue
            sec = None if x['kind'] == 'kit' else handout_section(top, x['runner'], x['suite'])
            lines.append('  FAIL %s/%s/%s: %s%s' % (con(x['runner']), con(x['suite']), con(x['test']),
                                                    con(clip_detail(x['detail'], FAILURE_TEXT_MAX)),
                                                    ' -- read %s' % sec if sec else ''))
            shown += 1
        for detail, xs in gated.items():
            lines.append('  FAIL %s: %d test%s %s' % (con(r), len(xs), '' if len(xs) == 1 else 's',
                                                     con(clip_words(detail, FAILURE_TEXT_MAX))))
    for r, n in more.items():
        lines.append('  ... and %d more failure%s of %s: tests/results/%s.log (make check-all V=1 prints every test)'
                     % (n, '' if n == 1 else 's', con(r), con(r)))
    return lines


def report_from_rows(r, rows, why):
    """A runner's report made from its checked results (its own JSON report
    is missing or cannot be read)."""
    student = [x for x in rows if x['kind'] == 'student']
    return {'runner': r, 'report_error': why,
            'passed': sum(x['status'] == 'PASS' for x in rows),
            'failed': sum(x['status'] not in ('PASS', 'SKIP') for x in rows),
            'skipped': sum(x['status'] == 'SKIP' for x in rows),
            'points': sum(x['earned'] for x in student), 'possible': sum(x['possible'] for x in student),
            'not_graded_points': sum(x['possible'] for x in student if x['status'] == 'SKIP'),
            'tests': [{'suite': x['suite'], 'test': x['test'], 'kind': x['kind'], 'status': x['status'],
                       'points': x['possible'], 'earned': x['earned'], 'detail': x['detail'],
                       'output': x['output']} for x in rows]}


def runner_report(d, r, rows):
    path = os.path.join(d, r + '.json')
    text = read_text(path)
    if text is None:
        return report_from_rows(r, rows, 'no JSON report: made from its results (%s.tsv)' % r)
    try:
        rep = clean(json.loads(text))
    except ValueError as e:
        return report_from_rows(r, rows, 'its JSON report does not parse (%s): made from its results' % e)
    if not isinstance(rep, dict) or rep.get('runner') != r:
        return report_from_rows(r, rows, 'its JSON report is not this runner\'s: made from its results')
    return rep


# ---------------------------------------------------------------- layout

def layout_lines(head, key, indent, item_indent):
    """head (a dict) with head[key] (a list) as JSON: the other keys on the
    first line, each item of the list on a line of its own."""
    rest = {k: v for k, v in head.items() if k != key}
    items = head[key]
    h = dumps(rest)
    text = h[:-1] + (', ' if rest else '') + '\n' + indent + dumps(key) + ': [\n'
    text += ',\n'.join(item_indent + dumps(i) for i in items)
    text += ('\n' if items else '') + indent + ']}\n'
    return text


def layout_gradescope(obj):
    """Gradescope's results.json: a key a line, a test a line."""
    lines = ['{']
    keys = [k for k in obj if k != 'tests']
    for k in keys:
        lines.append('  %s: %s,' % (dumps(k), dumps(obj[k])))
    lines.append('  "tests": [')
    tests = obj['tests']
    for k, t in enumerate(tests):
        lines.append('    ' + dumps(t) + (',' if k + 1 < len(tests) else ''))
    lines.append('  ]')
    lines.append('}')
    return '\n'.join(lines) + '\n'


# ---------------------------------------------------------------- integrity

def read_integrity(d):
    """What scripts/grade/check_all.sh recorded in DIR/.integrity: None when it
    did not (grade_table.sh run on its own), else a dict."""
    idir = os.path.join(d, '.integrity')
    if not os.path.isdir(idir):
        return None

    def count(name):
        t = read_text(os.path.join(idir, name))
        return None if t is None else len([x for x in t.split('\n') if x])
    checks = [x for x in (read_text(os.path.join(idir, 'checks')) or '').split('\n') if x]
    changes, added, seen = [], [], set()
    for line in (read_text(os.path.join(idir, 'tampered')) or '').split('\n'):
        if not line:
            continue
        f = line.split('\t', 3)
        if len(f) < 4:
            f = ['?', '?', 'changed', line]
        when, what, change, path = f
        if (what, change, path) in seen:
            continue
        seen.add((what, change, path))
        c = {'file': path, 'change': change, 'seen': when}
        if what == 'kit' and change == 'added':
            added.append(c)          # a new file in the kit's folders: nothing of the grade reads it
        else:
            changes.append(c)
    files = count('kit.sha256')
    problems = []
    if not files:
        problems.append('no hashes of the kit\'s files were taken')
    return {'checked': True, 'kit_files': files or 0, 'programs': count('programs.sha256') or 0,
            'checks': checks, 'changes': changes, 'added': added, 'problems': problems}


def tamper_note(c):
    return '%s %s (seen %s)' % (c['file'], c['change'], c['seen'])


# ---------------------------------------------------------------- report

def skip_reason(detail):
    why = detail
    if why.startswith('SKIPPED ('):
        why = why[len('SKIPPED ('):]
    if why.endswith(')'):
        why = why[:-1]
    return why


def report(argv):
    if len(argv) < 2:
        print('grade_report: report DIR MANIFEST RUNNER...', file=sys.stderr)
        return 2
    d, manifest_path, runners = argv[0], argv[1], argv[2:]
    manifest = read_manifest(manifest_path)
    nonce = os.environ.get('NB_GRADE_NONCE', '')
    out = []                                   # the console, printed at the end at once

    top = os.path.dirname(os.path.dirname(os.path.abspath(manifest_path)))
    results, fails, degraded = {}, {}, []
    for r in runners:
        why = first_line(os.path.join(d, r + '.fail'))
        left_out = first_line(os.path.join(d, r + '.skip'))
        if why is not None:
            fails[r] = why
            results[r] = fail_all(d, r, why, manifest, nonce)
        elif left_out is not None and not os.path.exists(os.path.join(d, r + '.tsv')):
            results[r] = skip_all(d, r, left_out, manifest, nonce)
        else:
            header, rows = read_tsv(os.path.join(d, r + '.tsv'))
            results[r] = rows
            if '\tsandbox=degraded' in '\t'.join(header):
                degraded.append(r)

    integ = read_integrity(d)
    changes = integ['changes'] if integ else []
    problems = integ['problems'] if integ else []
    tampered = bool(changes or problems)

    # ---- notices, before the table ----
    for r in runners:
        if r in fails:
            possible = sum(x['possible'] for x in results[r] if x['kind'] == 'student')
            out.append('check-all: %s: %s: %s scored 0/%d points' % (con(r), con(fails[r]), con(r), possible))
    for r in degraded:
        out.append("check-all: %s: the sandbox was DEGRADED: student code ran unboxed "
                   "(see the runner's 'sandbox:' line)" % con(r))
    for c in changes:
        out.append('check-all: TAMPERED: %s' % con(tamper_note(c)))
    for p in problems:
        out.append('check-all: TAMPERED: %s' % con(p))
    added = integ['added'] if integ else []
    if added:    # nothing of the grade reads them: said, not failed
        out.append('check-all: note: %d file%s added to the kit\'s folders during the run (not read by the grade): %s'
                   % (len(added), '' if len(added) == 1 else 's',
                      con(', '.join(tamper_note(c) for c in added[:10]) + (', ...' if len(added) > 10 else ''))))

    out.extend(failure_lines(top, runners, results, fails))

    # ---- the table ----
    order, per = [], {}
    for r in runners:
        for x in results[r]:
            rr = x['runner']
            if rr not in per:
                order.append(rr)
                per[rr] = dict(p=0, f=0, s=0, e=0, pos=0, ke=0, kpos=0, kf=0, oe=0, opos=0, ngp=0, ng=None)
            t = per[rr]
            if x['kind'] == 'kit':
                t['kpos'] += x['possible']
                t['ke'] += x['earned']
                if x['status'] == 'FAIL':
                    t['kf'] += 1
            elif x['kind'] == 'optional':          # an optional exercise: its points apart
                t['opos'] += x['possible']
                t['oe'] += x['earned']
            else:
                t['pos'] += x['possible']
                t['e'] += x['earned']
                if x['status'] == 'SKIP':
                    t['ngp'] += x['possible']
                    if t['ng'] is None:
                        t['ng'] = x['detail']
            if x['status'] == 'PASS':
                t['p'] += 1
            elif x['status'] == 'SKIP':
                t['s'] += 1
            else:
                t['f'] += 1
    out.append('')
    out.append('== grade ==')
    out.append('%-20s %7s %7s %8s %10s %10s' % ('runner', 'passed', 'failed', 'skipped', 'points', 'kit'))
    T = dict(p=0, f=0, s=0, e=0, pos=0, ke=0, kpos=0, kf=0, oe=0, opos=0)
    NG = NGR = 0
    for rr in order:
        t = per[rr]
        note = ''
        if t['ng'] is not None:
            note = '  NOT GRADED: %d points (%s)' % (t['ngp'], con(skip_reason(t['ng'])))
            NG += t['ngp']
            NGR += 1
        pts = '%6d/%-4d' % (t['e'], t['pos']) if t['pos'] else '%10s' % '-'
        kit = '%6d/%-4d' % (t['ke'], t['kpos']) if t['kpos'] else '%10s' % '-'
        out.append('%-20s %7d %7d %8d %s %s%s' % (con(rr), t['p'], t['f'], t['s'], pts, kit, note))
        for k in T:
            T[k] += t[k]
    optional_line = ''
    if T['opos']:
        optional_line = 'optional exercises: %d/%d points (%s; apart: not part of the score)' % (
            T['oe'], T['opos'], ', '.join('%s %d/%d' % (con(rr), per[rr]['oe'], per[rr]['opos'])
                                          for rr in order if per[rr]['opos']))
    # the reason of the total: "no usable GPU" when that is every row's
    gpu_only = all('usable CUDA device' in per[rr]['ng'] for rr in order if per[rr]['ng'] is not None)
    measured = T['e']
    score = 0 if tampered else measured
    nchanged = len(changes)
    if tampered:
        what = ('%d kit file%s or program%s changed during the run' % (nchanged, '' if nchanged == 1 else 's',
                                                                        '' if nchanged == 1 else 's')
                if changes else 'the kit could not be checked')
        out.append('%-20s %7d %7d %8d %10s %10s  TAMPERED: %s (see above): this run scores 0'
                   % ('tampered', 0, 1, 0, '-', '-', what))
    fails_all = T['f'] + (1 if tampered else 0)
    out.append('%-20s %7d %7d %8d %6d/%-4d %6d/%-4d%s%s' % (
        'total', T['p'], fails_all, T['s'], score, T['pos'], T['ke'], T['kpos'],
        ('  (NOT GRADED: %d points of %d runner%s: %s)' % (NG, NGR, 's' if NGR > 1 else '',
                                                          'no usable GPU' if gpu_only else 'see their rows')
         if NGR else ''),
        ('  TAMPERED: %d points measured, 0 given' % measured if tampered else '')))
    out.append("student score: %d/%d points%s%s; the kit's own checks: %d/%d%s" % (
        score, T['pos'], (' (%d NOT GRADED)' % NG if NGR else ''),
        (' -- TAMPERED: the kit changed during the run, the grade of this run is 0' if tampered else ''),
        T['ke'], T['kpos'],
        (", %d FAILED (not part of the score): a broken kit, or a printf or a crash in the student's code "
         "(each runner's line says which can be)" % T['kf'] if T['kf']
         else ' (not part of the score)')))
    if optional_line:
        out.append(optional_line)
    out.append('check-all: %d passed, %d failed, %d skipped' % (T['p'], fails_all, T['s']))

    # ---- the counts, the student's, the kit's and the optional exercises' apart ----
    def counts(kind):
        xs = [x for r in runners for x in results[r] if x['kind'] == kind]
        return {'tests': len(xs), 'passed': sum(x['status'] == 'PASS' for x in xs),
                'failed': sum(x['status'] not in ('PASS', 'SKIP') for x in xs),
                'skipped': sum(x['status'] == 'SKIP' for x in xs)}
    cs, ck, co = counts('student'), counts('kit'), counts('optional')

    # ---- summary.json ----
    reports = [runner_report(d, r, results[r]) for r in runners]
    tampered_files = sorted({c['file'] for c in changes})
    summary = {'score': score, 'max_score': T['pos'], 'not_graded_points': NG,
               'passed': T['p'], 'failed': fails_all, 'skipped': T['s'],
               'kit': {'score': T['ke'], 'max_score': T['kpos'], 'failed': T['kf']},
               'optional': {'score': T['oe'], 'max_score': T['opos']},
               'sandbox': 'degraded' if degraded else 'boxed',
               'tampered': tampered_files + problems,
               'measured_score': measured,
               'counts': {'student': cs, 'kit': ck, 'optional': co, 'tamper_check_failed': 1 if tampered else 0},
               'integrity': integ if integ else {'checked': False},
               'runners': reports}
    write_atomic(os.path.join(d, 'summary.json'), layout_lines(summary, 'runners', ' ', '  '),
                 json_checked(summary))

    # ---- gradescope.json ----
    tests = []
    NGT = NGP = 0
    ngwhy = None
    for r in runners:
        for x in results[r]:
            kit = x['kind'] == 'kit'
            opt = x['kind'] == 'optional'          # reported, worth nothing in the score
            name = ('kit: ' if kit else 'optional: ' if opt else '') + '%s/%s/%s' % (
                x['runner'], x['suite'], x['test'])
            if x['status'] == 'SKIP':
                why = skip_reason(x['detail'])
                o = 'not graded: %s (%s)' % (why, 'grade where the build has what it lacks here'
                                             if why.startswith('left out: ') else
                                             'this test needs a GPU; grade on a machine with one')
                if not kit and not opt:
                    NGT += 1
                    NGP += x['possible']
                    if ngwhy is None:
                        ngwhy = why
            else:
                o = x['detail'] + ('\n' if x['detail'] and x['output'] else '') + x['output']
            if opt:
                o = 'optional exercise, apart from the score: %d of %d points\n' % (x['earned'], x['possible']) + o
            tests.append({'name': name, 'score': 0 if kit or opt or tampered else x['earned'],
                          'max_score': 0 if kit or opt else x['possible'],
                          'status': 'passed' if x['status'] == 'PASS' else 'failed', 'output': o})
    msg = ''
    if tampered:
        msg = ('TAMPERED: the kit changed during the run (%s): this run is not graded, its score is 0 '
               '(its tests measured %d of %d points). '
               % ('; '.join([tamper_note(c) for c in changes] + problems), measured, T['pos']))
        tests.insert(0, {'name': 'tampered: the kit changed during the run', 'score': 0, 'max_score': 0,
                         'status': 'failed',
                         'output': 'Files or programs of the kit changed while check-all ran:\n'
                                   + '\n'.join([tamper_note(c) for c in changes] + problems)
                                   + '\nThe grade of this run is 0.'})
    # first the tests as the console's closing line counts them (every test:
    # the student's, the kit's checks, the optional exercises; and what
    # Gradescope counts in "tests"), then the student's, which make the score
    msg += '%d tests, as the console\'s closing line counts them: %d passed, %d failed, %d skipped. ' % (
        cs['tests'] + ck['tests'] + co['tests'] + (1 if tampered else 0), T['p'], fails_all, T['s'])
    msg += 'Score: %d of %d points, from the student\'s %d tests: %d passed, %d failed, %d not graded (skipped). ' % (
        score, T['pos'], cs['tests'], cs['passed'], cs['failed'], cs['skipped'])
    msg += 'The kit\'s own %d checks ("kit: ...", worth nothing): %d passed, %d failed, %d skipped.' % (
        ck['tests'], ck['passed'], ck['failed'], ck['skipped'])
    if co['tests']:
        msg += (' The optional exercises\' %d tests ("optional: ...", apart from the score): %d of %d points, '
                '%d passed, %d failed, %d skipped.' % (co['tests'], T['oe'], T['opos'], co['passed'],
                                                      co['failed'], co['skipped']))
    if tampered:
        msg += ' The check that the kit did not change during the run: FAILED.'
    if NGT:
        msg += (' NOT GRADED: %d tests (%d points) did not run (%s); they count as failed with 0 points here.'
                % (NGT, NGP, ngwhy))
    if T['kf']:
        msg += (' The kit\'s own checks ("kit: ...", worth nothing) FAILED %d times: they run each step\'s '
                'program, so a printf or a crash in the student\'s code can fail them, as a kit broken on this '
                'machine can; their messages say which.' % T['kf'])
    gs = {'score': score, 'output': msg, 'tests': tests}
    write_atomic(os.path.join(d, 'gradescope.json'), layout_gradescope(gs), json_checked(gs))

    sys.stdout.write('\n'.join(out) + '\n')
    sys.stdout.flush()
    bad = tampered or any(x['status'] == 'FAIL' for r in runners for x in results[r])
    return 1 if bad else 0


# ---------------------------------------------------------------- the class

def arg_text(s):
    """An argument (bytes the shell gave) as text: a byte that is not UTF-8
    written \\xNN."""
    return os.fsencode(s).decode('utf-8', 'backslashreplace')


# ---------------------------------------------------------------- a student's report

def read_log(path, cap=64 << 10, lines=200):
    """(text, cut) of the regular file at path, never through a symbolic
    link: whole if it has at most 'lines' lines and cap bytes, else its
    first lines (a compiler's first error) and its last ones, about half
    each, a line between saying how much was left out (text: UTF-8, a byte
    that is not, U+FFFD); (None, False) if it is absent or not a regular
    file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, 'O_CLOEXEC', 0))
    except OSError:
        return None, False
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, False

        def read_at(off, n):
            os.lseek(fd, off, os.SEEK_SET)
            data = b''
            while len(data) < n:
                b = os.read(fd, n - len(data))
                if not b:
                    break
                data += b
            return data
        size = st.st_size
        if size <= cap:
            head, tail, gap = read_at(0, size), b'', 0
        else:
            head, tail = read_at(0, cap // 2), read_at(size - cap // 2, cap // 2)
            gap = size - len(head) - len(tail)
    finally:
        os.close(fd)

    def split(b):
        ls = b.decode('utf-8', 'replace').split('\n')
        if ls and ls[-1] == '':
            ls.pop()
        return ls
    if gap == 0:
        ls = split(head)
        if len(ls) <= lines:
            return '\n'.join(ls) + ('\n' if ls else ''), False
        first, last = ls[:lines // 2], ls[-(lines // 2):]
        left = '... %d lines left out ...' % (len(ls) - len(first) - len(last))
    else:
        first = split(head)[:-1][:lines // 2]          # whole lines only
        last = split(tail)[1:][-(lines // 2):]
        left = '... %d bytes left out ...' % gap
    return '\n'.join(first + [left] + last) + '\n', True


_UNSAFE = re.compile('[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]')


def h(text, cap=None):
    """Text of the student's (or of their tests) as HTML: escaped (quotes
    too), control characters but newlines and tabs as U+FFFD, cut to cap
    characters (the cut said)."""
    text = fix_surrogates(text)
    more = ''
    if cap is not None and len(text) > cap:
        more = '\n... (%d more characters)' % (len(text) - cap)
        text = text[:cap]
    return html.escape(_UNSAFE.sub('\ufffd', text + more), quote=True)


def report_name(student, taken):
    """A file name for the student's report: the name where it is plain
    (letters, digits, '.', '_', '-', not starting with '.' or '-'), else a
    plain form of it and a hash of the name; a hash too where another
    student's report has the name (the case ignored)."""
    safe = re.sub(r'[^A-Za-z0-9._-]', '_', student)[:80]
    digest = hashlib.sha256(student.encode('utf-8', 'surrogateescape')).hexdigest()[:12]
    if safe != student or not safe or safe[0] in '.-':
        safe = (safe.lstrip('.-')[:60] or 'student') + '-' + digest
    if safe.lower() + '.html' in taken:
        safe = safe + '-' + digest
    return safe + '.html'


CSS = ('body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}'
       'table{border-collapse:collapse;margin:.6em 0;font-size:.9em}'
       'td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}'
       'th{background:#f0f0f0}td.n{text-align:right;white-space:nowrap}'
       'pre{white-space:pre-wrap;word-break:break-all;margin:0;font-size:.85em}'
       'pre.log{background:#f6f6f6;border:1px solid #ddd;padding:.5em}'
       '.full{color:#060;font-weight:bold}.lost{color:#a00;font-weight:bold}')


def class_report(res, student, logs, reports_dir, flags, tamper):
    """The student's report (HTML) in reports_dir; returns its file name."""
    names = []
    try:
        names = sorted(os.listdir(res))
    except OSError:
        pass
    runners = sorted({n[:-4] for n in names if n.endswith('.tsv')} |
                     {n[:-5] for n in names if n.endswith('.fail')})
    lost, skipped, optional, kitfail = [], [], [], []
    E = P = 0
    graded = os.path.isfile(os.path.join(res, 'summary.json'))
    for r in runners:
        _, rows = read_tsv(os.path.join(res, r + '.tsv')) if (r + '.tsv') in names else ([], [])
        for x in rows:
            x['runner'] = r if not x['runner'] else x['runner']
            if x['kind'] == 'kit':
                if x['status'] == 'FAIL':
                    kitfail.append(x)
            elif x['kind'] == 'optional':
                optional.append(x)
            elif r != 'common':
                E += x['earned']
                P += x['possible']
                if x['status'] == 'SKIP':
                    skipped.append(x)
                elif x['status'] != 'PASS' or x['earned'] < x['possible']:
                    lost.append(x)
    score = 0 if tamper else E
    out = ['<!DOCTYPE html>', '<html lang="en"><head><meta charset="utf-8">',
           '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
           '<title>grade report: %s</title>' % h(student, 200), '<style>%s</style></head><body>' % CSS,
           '<h1>Grade report: %s</h1>' % h(student, 500)]
    fails = {}
    for r in runners:
        if (r + '.fail') in names:
            fails[r] = first_line(os.path.join(res, r + '.fail')) or ''

    def here(text, r):
        """A message with the paths of the scratch copy (tests/results/, gone
        once graded) made those of this page or of the logs kept."""
        if 'build.log' in fails.get(r, ''):
            text = text.replace('see tests/results/%s.build.log' % r, 'see its build log below')
        return text.replace('see tests/results/', 'see %s/' % logs)

    def msg(x):
        return here(x['detail'] + ('\n' if x['detail'] and x['output'] else '') + x['output'], x['runner'])
    if not graded and not lost and not P:
        out.append('<p class="lost">No grade: the tests did not run to their end (see the flags below).</p>')
    elif tamper:
        out.append('<p class="lost">TAMPERED: the kit changed during the run: this run scores 0 '
                   '(its tests measured %d of %d points).</p>' % (E, P))
    elif score == P and P > 0 and not skipped:
        out.append('<p class="full">Full marks: %d/%d points.</p>' % (score, P))
    else:
        out.append('<p class="lost">%d/%d points: %d lost in %d test%s%s.</p>' % (
            score, P, sum(x['possible'] - x['earned'] for x in lost), len(lost), '' if len(lost) == 1 else 's',
            '; %d not graded (%d tests)' % (sum(x['possible'] for x in skipped), len(skipped)) if skipped else ''))
    if flags:
        out.append('<h2>Flags</h2><ul>')
        out += ['<li><pre>%s</pre></li>' % h(f, 8000) for f in flags]
        out.append('</ul>')
    if fails:
        out.append('<h2>Runners that scored 0</h2><ul>')
        for r, why in fails.items():
            why = here(why, r)
            out.append('<li><b>%s</b>: %s</li>' % (h(r, 200), h(why, 2000)))
        out.append('</ul>')
    out.append('<h2>Tests that lost points</h2>')
    if lost:
        out.append('<table><tr><th>test</th><th>points lost</th><th>status</th><th>message</th></tr>')
        for x in lost:
            out.append('<tr><td>%s/%s/%s</td><td class="n">%d of %d</td><td>%s</td><td><pre>%s</pre></td></tr>' % (
                h(x['runner'], 200), h(x['suite'], 200), h(x['test'], 200), x['possible'] - x['earned'],
                x['possible'], h(x['status'], 20), h(msg(x), 4000)))
        out.append('</table>')
    else:
        out.append('<p>None.</p>')
    if skipped:
        out.append('<h2>Tests not graded</h2><p>They did not run here (no usable GPU, or a tool missing): '
                   'they earn nothing in this grade; grade them on a machine that can run them.</p>')
        out.append('<table><tr><th>test</th><th>points</th><th>why</th></tr>')
        for x in skipped:
            out.append('<tr><td>%s/%s/%s</td><td class="n">%d</td><td><pre>%s</pre></td></tr>' % (
                h(x['runner'], 200), h(x['suite'], 200), h(x['test'], 200), x['possible'],
                h(skip_reason(x['detail']), 2000)))
        out.append('</table>')
    if optional:
        oe, op = sum(x['earned'] for x in optional), sum(x['possible'] for x in optional)
        out.append('<h2>Optional exercises (apart: not part of the score)</h2>')
        out.append('<p>%d/%d points.</p>' % (oe, op))
        out.append('<table><tr><th>test</th><th>points</th><th>status</th><th>message</th></tr>')
        for x in optional:
            out.append('<tr><td>%s/%s/%s</td><td class="n">%d/%d</td><td>%s</td><td><pre>%s</pre></td></tr>' % (
                h(x['runner'], 200), h(x['suite'], 200), h(x['test'], 200), x['earned'], x['possible'],
                h(x['status'], 20), h(msg(x), 2000)))
        out.append('</table>')
    if kitfail:
        out.append('<h2>The kit\'s own checks that failed</h2><p>Not part of the score.  They run each '
                   'step\'s program: a printf or a crash in the student\'s code can fail them, as a kit broken '
                   'on the grading machine can; the messages say which.</p><ul>')
        out += ['<li>%s/%s/%s: <pre>%s</pre></li>' % (h(x['runner'], 200), h(x['suite'], 200), h(x['test'], 200),
                                                      h(msg(x), 1000)) for x in kitfail]
        out.append('</ul>')
    for r in runners:
        if 'build.log' not in fails.get(r, ''):
            continue
        text, cut = read_log(os.path.join(res, r + '.build.log'))
        out.append('<h2>Build log: %s</h2>' % h(r, 200))
        if text is None:
            out.append('<p>No build log was kept.</p>')
        else:
            out.append('<p>%s (kept whole in <code>%s</code>):</p>' % (
                'Its first and last lines' if cut else 'The whole log', h(os.path.join(logs, r + '.build.log'), 2000)))
            out.append('<pre class="log">%s</pre>' % h(text))
    if not graded:
        text, cut = read_log(os.path.join(logs, 'check-all.log'), 32 << 10, 120)
        if text:
            out.append('<h2>The end of check-all\'s log</h2><p>%s:</p><pre class="log">%s</pre>' % (
                h(os.path.join(logs, 'check-all.log'), 2000), h(text)))
    out.append('<p>Every log of this student: <code>%s</code>.</p>' % h(logs, 2000))
    out.append('</body></html>')
    taken = set()
    try:
        taken = {n.lower() for n in os.listdir(reports_dir)}
    except OSError:
        pass
    name = report_name(student, taken)
    write_atomic(os.path.join(reports_dir, name), '\n'.join(out) + '\n')
    return name


def class_row(argv):
    opts = {}
    while argv and argv[0] in ('--report-dir', '--logs') and len(argv) > 1:
        opts[argv[0]] = argv[1]
        argv = argv[2:]
    if '--' not in argv or argv.index('--') < 3 or ('--report-dir' in opts) != ('--logs' in opts):
        print('grade_report: class-row [--report-dir DIR --logs LOGS] RESULTS STUDENT ROWS STEP... -- FLAG...',
              file=sys.stderr)
        return 2
    k = argv.index('--')
    res, student, rows_path = argv[0], arg_text(argv[1]), argv[2]
    steps = [arg_text(s) for s in argv[3:k]]
    flags = [arg_text(f) for f in argv[k + 1:] if f]
    e, p = {}, {}
    E = P = NG = 0
    try:
        names = sorted(os.listdir(res))
    except OSError:
        names = []
    for n in names:
        if not n.endswith('.tsv') or n == 'common.tsv':
            continue
        _, rows = read_tsv(os.path.join(res, n))
        for x in rows:
            if x['kind'] != 'student':            # the kit's checks, the optional exercises: apart
                continue
            e[x['runner']] = e.get(x['runner'], 0) + x['earned']
            p[x['runner']] = p.get(x['runner'], 0) + x['possible']
            E += x['earned']
            P += x['possible']
            if x['status'] == 'SKIP':
                NG += x['possible']
    integ = read_integrity(res)
    changes = integ['changes'] if integ else []
    if changes:
        # the grade of a run whose kit changed is 0
        e = {s: 0 for s in e}
        E = 0
        flags.append('TAMPERED: kit files changed during the run, scored 0: '
                     + ', '.join(tamper_note(c) for c in changes))
    row = {'student': student,
           'steps': {s: '%d/%d' % (e.get(s, 0), p.get(s, 0)) for s in steps},
           'total': '%d/%d' % (E, P), 'not_graded': NG, 'flags': '; '.join(flags)}
    if '--report-dir' in opts:
        row['report'] = class_report(res, student, opts['--logs'], opts['--report-dir'], flags, bool(changes))
    with open(rows_path, 'a', encoding='utf-8') as f:
        f.write(json.dumps(row) + '\n')
    line = ','.join([row['steps'][s] for s in steps] + [row['total'], str(NG)])
    sys.stdout.write('grade-class: %s: %s%s\n' % (con(student), line,
                                                  (' -- ' + con(row['flags'])) if row['flags'] else ''))
    return 0


def class_csv(argv):
    if len(argv) < 2:
        print('grade_report: class-csv ROWS OUT STEP...', file=sys.stderr)
        return 2
    reports = None
    if len(argv) > 1 and argv[0] == '--reports':
        reports, argv = argv[1], argv[2:]
    if len(argv) < 2:
        print('grade_report: class-csv [--reports DIR] ROWS OUT STEP...', file=sys.stderr)
        return 2
    rows_path, out_path, steps = argv[0], argv[1], [arg_text(s) for s in argv[2:]]
    link = None
    if reports is not None:
        link = os.path.relpath(os.path.abspath(reports), os.path.dirname(os.path.abspath(out_path)))
    rows = []
    for line in (read_text(rows_path) or '').split('\n'):
        if line:
            rows.append(json.loads(line))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator='\n')
    head = ['student'] + steps + ['total', 'not_graded', 'flags'] + (['report'] if link is not None else [])
    w.writerow(head)
    want = [head]
    for r in rows:
        fields = [r['student']] + [r['steps'].get(s, '0/0') for s in steps] + \
                 [r['total'], str(r['not_graded']), r['flags']]
        if link is not None:
            fields.append(os.path.join(link, r['report']) if r.get('report') else '')
        w.writerow(fields)
        want.append(fields)

    def check(text):
        if list(csv.reader(io.StringIO(text, newline=''))) != want:
            raise ValueError('the CSV written does not read back the same')
    write_atomic(out_path, buf.getvalue(), check)
    return 0


def main():
    try:
        sys.stdout.reconfigure(encoding='utf-8', errors='backslashreplace')
    except AttributeError:
        pass
    if len(sys.argv) < 2:
        print(__doc__.strip().split('\n\n')[0], file=sys.stderr)
        return 2
    cmd, argv = sys.argv[1], sys.argv[2:]
    if cmd == 'report':
        return report(argv)
    if cmd == 'class-row':
        return class_row(argv)
    if cmd == 'class-csv':
        return class_csv(argv)
    print('grade_report: unknown command %r' % cmd, file=sys.stderr)
    return 2


if __name__ == '__main__':
    try:
        rc = main()
    except Exception:                    # not 1, which says "a test failed"
        import traceback
        traceback.print_exc()
        rc = 3
    sys.exit(rc)
