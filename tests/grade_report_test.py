#!/usr/bin/env python3
"""tests/grade_report_test.py -- the grade's reports survive hostile text
(run by the common runner: harness/grade_reports_survive_hostile_text).

scripts/grade/grade_table.sh grades a results directory whose TSV text columns
hold quotes, backslashes, newlines, tabs, every control character, ESC
sequences, escapes JSON knows but the runner never writes (a surrogate
pair, a lone surrogate), an escape JSON does not know, bytes that are not
UTF-8, and 1 MB of text; a runner's results are rejected for a reason that
holds the same; a kit check fails (its message quotes "kit: ..."); a GPU
test is SKIPPED for such a reason; a runner's own JSON report is broken.
Then:
  - summary.json and gradescope.json are UTF-8 and parse (json, strict);
  - every text reads back as it was meant (decoded from the TSV's escapes;
    a byte that is not UTF-8 as U+FFFD), the 1 MB whole;
  - the console has no control character but newlines, the closing line
    is its last line, and gradescope.json's summary counts the same tests;
  - the rejected runner's rewritten TSV has its 9 columns on every line;
and scripts/grade/grade_report.py class-row / class-csv (grade_class.sh's
grades.csv) with such a student name and flags: the csv module reads the
same fields back.  Then a quiet grade as on a machine without a GPU, a step
left out and three failures (quiet_grade): at most 60 lines, each failure
and skip reason once, the handout's section, nothing cut inside a word.  Exit 0 if every check passed, else 1.
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NONCE = '0123456789abcdef0123456789abcdef'
failed = 0
checks = 0


def check(what, ok, detail=''):
    global failed, checks
    checks += 1
    if ok:
        print('ok   ' + what)
    else:
        failed += 1
        print('FAIL ' + what + (': ' + detail[:2000] if detail else ''))


def runner_esc(s):
    """The runner's escape (json_esc, tests/nb_grade.c) of text s -> bytes."""
    out = bytearray()
    for ch in s:
        c = ord(ch)
        if ch in '"\\':
            out += b'\\' + ch.encode()
        elif ch == '\n':
            out += b'\\n'
        elif ch == '\t':
            out += b'\\t'
        elif ch == '\r':
            out += b'\\r'
        elif c < 0x20 or c == 0x7f:
            out += b'\\u%04x' % c
        else:
            out += ch.encode('utf-8')
    return bytes(out)


BIG = ''.join('line %06d of a test that talks a lot: "x" \\ \t\n' % k for k in range(22000))   # > 1 MB
TEXTS = {
    'quotes': 'he said "hi" and \'bye\' ""',
    'backslashes': 'C:\\path\\to\\ \\u0041 is not an escape here, nor \\n, and a trailing \\',
    'newlines': 'line 1\nline 2\r\nline 3\n\n',
    'tabs': 'a\tb\t\tc\t',
    'controls': ''.join(chr(c) for c in range(1, 0x20)) + '\x7f',
    'esc': '\x1b[31mred\x1b[0m \x1b]0;a title\x07 \x1b[2J\x1b[H cleared',
    'unicode': 'pi \u03c0 <= 1e-6 \u2014 \U0001F600 \u2028 \u202e reversed',
    'big': BIG,
}
assert len(BIG.encode()) > 1 << 20

# escapes the runner never writes, and bytes that are not UTF-8: (field bytes, the text meant)
ODD = {
    'json_escapes': (b'\\/ \\b \\f \\ud83d\\ude00 pair, lone \\udc00, unknown \\x41, end \\',
                     '/ \b \f \U0001F600 pair, lone \ufffd, unknown \\x41, end \\'),
    'not_utf8': (b'bad \xff\xfe bytes \xc3 cut \xe2\x82 end \x80',
                 b'bad \xff\xfe bytes \xc3 cut \xe2\x82 end \x80'.decode('utf-8', 'replace')),
}
REASON = b'runner killed by "SIG\x1b[31mKILL" \\ \xff\t(exit status 137)'
REASON_TEXT = REASON.decode('utf-8', 'replace')
SKIP_WHY = 'no "usable" CUDA device: \x1b[31mfake\x1b[0m \\ here'


def tsv_row(runner, suite, test, status, earned, points, detail, output, kind):
    return b'\t'.join([runner.encode(), suite, test, status.encode(), str(earned).encode(),
                       str(points).encode(), detail, output, kind.encode()]) + b'\n'


def main():
    tmp = tempfile.mkdtemp(prefix='nbgrade_report_')
    d = os.path.join(tmp, 'results')
    os.mkdir(d)
    manifest = []
    hostile = [b'#nb-grade\thostile\tnonce=' + NONCE.encode() + b'\tsandbox=boxed\n']
    want = {}                      # gradescope name -> (status, output as meant)
    want_report = {}               # test -> (detail, output) in summary.json

    def add(test_raw, test_text, status, earned, points, detail_raw, detail, out_raw, out, kind='student'):
        hostile.append(tsv_row('hostile', b's', test_raw, status, earned, points, detail_raw, out_raw, kind))
        manifest.append(b'hostile\ts\t' + test_raw + b'\t%d\t' % points + kind.encode() + b'\n')
        name = ('kit: ' if kind == 'kit' else 'optional: ' if kind == 'optional' else '') + 'hostile/s/' + test_text
        if status == 'SKIP':
            why = detail[len('SKIPPED ('):-1]
            want[name] = ('failed', 'not graded: %s (this test needs a GPU; grade on a machine with one)' % why)
        else:
            want[name] = ('passed' if status == 'PASS' else 'failed',
                          ('optional exercise, apart from the score: %d of %d points\n' % (earned, points)
                           if kind == 'optional' else '') + detail + ('\n' if detail and out else '') + out)
        want_report[test_text] = (detail, out)

    add(b'ok', 'ok', 'PASS', 2, 2, b'', '', b'', '')
    for k, text in TEXTS.items():
        add(k.encode(), k, 'FAIL', 0, 1, runner_esc('detail: ' + text), 'detail: ' + text,
            runner_esc(text), text)
    for k, (raw, text) in ODD.items():
        add(k.encode(), k, 'FAIL', 0, 1, raw, text, raw, text)
    add(b'name_\\"q\\\\', 'name_"q\\', 'FAIL', 0, 1, b'x', 'x', b'', '')     # a test name with escapes
    add(b'kit_check', 'kit_check', 'FAIL', 0, 1, runner_esc('the kit says "no" \x1b[1m'),
        'the kit says "no" \x1b[1m', b'', '', kind='kit')
    add(b'extra', 'extra', 'PASS', 3, 3, b'', '', b'', '', kind='optional')   # apart from the score
    add(b'gpu', 'gpu', 'SKIP', 0, 4, runner_esc('SKIPPED (%s)' % SKIP_WHY), 'SKIPPED (%s)' % SKIP_WHY,
        b'', '')
    with open(os.path.join(d, 'hostile.tsv'), 'wb') as f:
        f.write(b''.join(hostile))
    # a runner whose own JSON report is broken, and one rejected (killed) for a hostile reason
    with open(os.path.join(d, 'broken.tsv'), 'wb') as f:
        f.write(b'#nb-grade\tbroken\tnonce=' + NONCE.encode() + b'\tsandbox=boxed\n'
                + tsv_row('broken', b's', b'one', 'PASS', 1, 1, b'', runner_esc('said "x"\n'), 'student'))
    with open(os.path.join(d, 'broken.json'), 'wb') as f:
        f.write(b'{"runner": "broken", "tests": [ {"output": "raw " quote"} ]')
    manifest.append(b'broken\ts\tone\t1\tstudent\n')
    with open(os.path.join(d, 'killed.fail'), 'wb') as f:
        f.write(REASON + b'\nsecond line\n')
    manifest += [b'killed\tconformance\tone\t3\tstudent\n', b'killed\tcli\thelp\t1\tkit\n']
    with open(os.path.join(d, '.expected'), 'w') as f:
        f.write('hostile\nbroken\nkilled\n')
    mpath = os.path.join(tmp, 'manifest.tsv')
    with open(mpath, 'wb') as f:
        f.write(b'# runner\tsuite\ttest\tpoints\tkind\n' + b''.join(manifest))

    env = dict(os.environ, NB_GRADE_NONCE=NONCE)
    # (a umask that is not the usual 022: the files written must follow it)
    p = subprocess.run(['bash', os.path.join(TOP, 'scripts', 'grade', 'grade_table.sh'), d, mpath],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=lambda: os.umask(0o007))
    out = p.stdout
    check('grade_table.sh exits 1 (tests failed; got %d)' % p.returncode, p.returncode == 1,
          p.stderr.decode('utf-8', 'replace'))
    try:
        console = out.decode('utf-8')
        check('the console is UTF-8', True)
    except UnicodeDecodeError as e:
        console = out.decode('utf-8', 'replace')
        check('the console is UTF-8', False, str(e))
    bad = [hex(ord(c)) for c in console if (ord(c) < 0x20 and c != '\n') or 0x7f <= ord(c) < 0xa0]
    check('the console has no control character but newlines', not bad, 'found %s' % bad[:10])
    lines = console.rstrip('\n').split('\n')
    # hostile: 1 PASS, 11 FAIL, a kit FAIL, an optional PASS, a SKIP; broken: a PASS; killed: a FAIL, a kit check SKIPPED
    closing = 'check-all: 3 passed, 13 failed, 2 skipped'
    check('the closing line is the last line: ' + closing, lines[-1] == closing, repr(lines[-3:]))
    check('the rejected runner\'s notice, its reason made harmless',
          'check-all: killed: runner killed by "SIG?[31mKILL" \\ \ufffd (exit status 137): killed scored 0/3 points'
          in lines, repr([x for x in lines if x.startswith('check-all: killed')]))
    check('the NOT GRADED reason on the console, made harmless',
          any(x.startswith('hostile ') and x.endswith('NOT GRADED: 4 points (no "usable" CUDA device: ?[31mfake?[0m \\ here)')
              for x in lines), repr([x for x in lines if x.startswith('hostile ')]))

    docs = {}
    for name in ('summary.json', 'gradescope.json'):
        try:
            with open(os.path.join(d, name), 'rb') as f:
                raw = f.read()
            docs[name] = json.loads(raw.decode('utf-8'))
            # every string encodable: no lone surrogate came through
            json.dumps(docs[name], ensure_ascii=False).encode('utf-8')
            check(name + ' is UTF-8 and parses (json, strict)', True)
        except (OSError, ValueError) as e:
            check(name + ' is UTF-8 and parses (json, strict)', False, str(e))
    if len(docs) < 2:
        return finish()
    gs, summary = docs['gradescope.json'], docs['summary.json']
    modes = {n: os.stat(os.path.join(d, n)).st_mode & 0o777 for n in ('summary.json', 'gradescope.json', 'killed.tsv')}
    check('summary.json, gradescope.json and a rewritten TSV: mode 0666 less the umask 007 (%s; mkstemp makes 0600)'
          % ', '.join('%s %o' % kv for kv in sorted(modes.items())), set(modes.values()) == {0o660})

    got = {t.get('name'): t for t in gs.get('tests', [])}
    for name, (status, text) in want.items():
        t = got.get(name)
        check('gradescope.json: %s reads back as it was meant' % name[:40],
              t is not None and t.get('status') == status and t.get('output') == text,
              'got ' + repr(None if t is None else (t.get('status'), t.get('output', '')[:300])))
    big = got.get('hostile/s/big', {}).get('output', '')
    check('gradescope.json: the 1 MB output whole (%d characters)' % len(big), big.endswith('\n' + BIG))
    check('gradescope.json: the kit check scores nothing, named "kit: "',
          got.get('kit: hostile/s/kit_check', {}).get('max_score') == 0)
    for t in ('one',):
        g = got.get('killed/conformance/' + t, {})
        check('gradescope.json: the rejected runner\'s test says why', g.get('output') == REASON_TEXT,
              repr(g.get('output')))
    check('gradescope.json: its kit check (SKIPPED, not run) is the kit\'s',
          got.get('kit: killed/cli/help', {}).get('output', '').startswith('not graded: not run: runner killed by'))
    o = gs.get('output', '')
    check('gradescope.json: the summary names the kit\'s failed checks ("kit: ...")',
          'The kit\'s own checks ("kit: ...", worth nothing) FAILED 1 times' in o, o)
    check('gradescope.json: the summary counts what the console counts, the student\'s and the kit\'s apart',
          'Score: 3 of 21 points, from the student\'s 15 tests: 2 passed, 12 failed, 1 not graded (skipped).' in o and
          'The kit\'s own 2 checks ("kit: ...", worth nothing): 0 passed, 1 failed, 1 skipped.' in o, o)
    # the summary's first count is the console's closing line's (the student's
    # own 2 passed come after, named as theirs), and so is Gradescope's own
    # count of its "tests"
    m = re.match(r'check-all: (\d+) passed, (\d+) failed, (\d+) skipped$', lines[-1])
    p_, f_, s_ = (int(x) for x in m.groups()) if m else (-1, -1, -1)
    check('gradescope.json: the summary opens with the console\'s count (%d tests: %d passed, %d failed, %d skipped)'
          % (p_ + f_ + s_, p_, f_, s_),
          o.startswith('%d tests, as the console\'s closing line counts them: %d passed, %d failed, %d skipped. '
                       % (p_ + f_ + s_, p_, f_, s_)) and
          re.search(r'(\d+) passed', o).group(1) == str(p_), o[:300])
    gt = gs.get('tests', [])
    check('gradescope.json: its tests are the console\'s (%d listed, %d passed)'
          % (len(gt), sum(t.get('status') == 'passed' for t in gt)),
          len(gt) == p_ + f_ + s_ and sum(t.get('status') == 'passed' for t in gt) == p_)
    check('gradescope.json: score 3 (ok 2, broken 1; the optional exercise apart)', gs.get('score') == 3,
          repr(gs.get('score')))
    ex = got.get('optional: hostile/s/extra', {})
    check('gradescope.json: the optional exercise listed, worth nothing in the score',
          ex.get('max_score') == 0 and ex.get('score') == 0, repr(ex))
    check('summary.json: the optional exercise\'s points apart (3/3), not in the score',
          summary.get('optional') == {'score': 3, 'max_score': 3} and summary.get('score') == 3,
          repr((summary.get('optional'), summary.get('score'))))
    check('the console says the optional points on their own line',
          'optional exercises: 3/3 points (hostile 3/3; apart: not part of the score)' in lines,
          repr([x for x in lines if x.startswith('optional')]))

    reports = {r.get('runner'): r for r in summary.get('runners', [])}
    h = reports.get('hostile', {})
    tests = {t.get('test'): t for t in h.get('tests', [])}
    for name, (detail, text) in want_report.items():
        t = tests.get(name, {})
        check('summary.json: %s reads back as it was meant' % name[:40],
              t.get('detail') == detail and t.get('output') == text,
              'got ' + repr((t.get('detail', '')[:200], t.get('output', '')[:200])))
    check('summary.json: a report made from the TSV where the runner wrote none',
          'no JSON report' in h.get('report_error', ''))
    b = reports.get('broken', {})
    check('summary.json: a broken JSON report replaced, with the reason',
          'does not parse' in b.get('report_error', '') and b.get('tests', [{}])[0].get('output') == 'said "x"\n',
          repr(b)[:500])
    k = reports.get('killed', {})
    check('summary.json: the rejected runner\'s runner_error', k.get('runner_error') == REASON_TEXT,
          repr(k.get('runner_error')))
    check('summary.json: its totals', (summary.get('score'), summary.get('max_score'), summary.get('passed'),
                                       summary.get('failed'), summary.get('skipped'),
                                       summary.get('not_graded_points')) == (3, 21, 3, 13, 2, 4),
          repr({x: summary.get(x) for x in ('score', 'max_score', 'passed', 'failed', 'skipped')}))
    with open(os.path.join(d, 'killed.tsv'), 'rb') as f:
        rows = f.read().decode('utf-8').split('\n')[1:-1]
    check('the rejected runner\'s TSV: 9 columns a line, the reason decodes back',
          rows and all(len(r.split('\t')) == 9 for r in rows) and
          json.loads('"' + rows[0].split('\t')[6] + '"') == REASON_TEXT, repr(rows)[:500])

    # ---- grades.csv: class-row, class-csv ----
    rows_path = os.path.join(tmp, 'rows.jsonl')
    open(rows_path, 'w').close()
    name = b'o"brien, jr\n\xff \x1b[31mred'
    name_text = 'o"brien, jr\n\\xff \x1b[31mred'
    flags = [b'a "quoted", flag', b'line\nbreak\ttab', b'esc \x1b[2J', b'bytes \xff\xfe', BIG[:5000].encode()]
    flags_text = '; '.join(f.decode('utf-8', 'backslashreplace') for f in flags)
    py = [sys.executable, '-I', os.path.join(TOP, 'scripts', 'grade', 'grade_report.py')]
    r = subprocess.run(py + ['class-row', d, name, rows_path, 'hostile', 'killed', '--'] + flags,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check('class-row exits 0', r.returncode == 0, r.stderr.decode('utf-8', 'replace'))
    line = r.stdout.decode('utf-8', 'replace')
    check('class-row\'s console line has no control character', not re.search('[\x00-\x09\x0b-\x1f\x7f]', line),
          repr(line[:200]))
    out_csv = os.path.join(tmp, 'grades.csv')
    r = subprocess.run(py + ['class-csv', rows_path, out_csv, 'hostile', 'killed'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check('class-csv exits 0', r.returncode == 0, r.stderr.decode('utf-8', 'replace'))
    try:
        with open(out_csv, encoding='utf-8', newline='') as f:
            back = list(csv.reader(f))
    except (OSError, UnicodeDecodeError) as e:
        back = []
        check('grades.csv is UTF-8', False, str(e))
    check('grades.csv: the header', back[:1] == [['student', 'hostile', 'killed', 'total', 'not_graded', 'flags']],
          repr(back[:1]))
    check('grades.csv: the student\'s fields read back (csv module)',
          back[1:] == [[name_text, '2/17', '0/3', '3/21', '4', flags_text]], repr(back[1:])[:600])

    # ---- the student's report (class-row --report-dir), a link to it in grades.csv ----
    reports = os.path.join(tmp, 'reports')
    os.mkdir(reports)
    rows2 = os.path.join(tmp, 'rows2.jsonl')
    open(rows2, 'w').close()
    name2 = name + b' <script>alert(1)</script> &amp;'
    flags2 = flags + [b'<img src=x onerror=alert(2)>']
    r = subprocess.run(py + ['class-row', '--report-dir', reports, '--logs', '/grades/of/x', d, name2, rows2,
                             'hostile', 'killed', '--'] + flags2, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=lambda: os.umask(0o027))
    check('class-row --report-dir exits 0', r.returncode == 0, r.stderr.decode('utf-8', 'replace'))
    made = os.listdir(reports)
    check('one report, its file name plain (%r)' % made,
          len(made) == 1 and re.match(r'^[A-Za-z0-9_][A-Za-z0-9._-]*\.html$', made[0]) is not None)
    page = ''
    if len(made) == 1:
        path = os.path.join(reports, made[0])
        mode = os.stat(path).st_mode & 0o777
        check('the report\'s mode is 0666 less the umask 027 (%o)' % mode, mode == 0o640)
        with open(path, 'rb') as f:
            page = f.read().decode('utf-8')
    check('the report: no element of the student\'s (their text escaped)',
          '<script' not in page and '<img' not in page and '&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp;' in page
          and '&lt;img src=x onerror=alert(2)&gt;' in page, page[:300])
    check('the report: no control character but newlines and tabs',
          not re.search('[\x00-\x08\x0b-\x1f\x7f\x1b]', page))
    import html as html_mod
    text = html_mod.unescape(re.sub(r'<[^>]*>', '', page))
    lost_rows = re.findall(r'<tr><td>([^<]*)</td><td class="n">(\d+) of (\d+)</td>', page)
    lost = {html_mod.unescape(t): (int(a), int(b)) for t, a, b in lost_rows}
    want_lost = {'hostile/s/' + k: (1, 1) for k in list(TEXTS) + list(ODD)}
    want_lost['hostile/s/name_"q\\'] = (1, 1)
    want_lost['killed/conformance/one'] = (3, 3)
    check('the report lists every test that lost points, with its points (%d)' % len(lost), lost == want_lost,
          repr(sorted(set(lost.items()) ^ set(want_lost.items())))[:500])
    check('the report: the message of a lost test, escaped and whole up to its cap',
          html_mod.escape('detail: ' + TEXTS['quotes'], quote=True) in page)
    check('the report: the rejected runner\'s reason', 'runner killed by "SIG\ufffd[31mKILL"' in text, text[:500])
    check('the report: the test not graded apart, with its 4 points',
          re.search(r'<td>hostile/s/gpu</td><td class="n">4</td>', page) is not None)
    check('the report: the optional exercise apart, 3/3',
          'Optional exercises (apart: not part of the score)' in page and
          re.search(r'<td>hostile/s/extra</td><td class="n">3/3</td>', page) is not None)
    check('the report: the kit\'s failed check named as the kit\'s', 'hostile/s/kit_check' in text and
          'The kit\'s own checks that failed' in text)
    check('the report: the score and what was lost', '3/21 points: 14 lost in 12 tests; 4 not graded (1 tests)' in text,
          re.findall(r'<p class="[a-z]+">[^<]*</p>', page)[:3])
    out2 = os.path.join(tmp, 'grades2.csv')
    r = subprocess.run(py + ['class-csv', '--reports', reports, rows2, out2, 'hostile', 'killed'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(out2, encoding='utf-8', newline='') as f:
        back2 = list(csv.reader(f))
    check('grades.csv --reports: a last column "report", the page relative to grades.csv',
          r.returncode == 0 and back2[0][-1] == 'report' and len(made) == 1 and
          back2[1][-1] == 'reports/' + made[0], repr(back2[:2])[:400])

    quiet_grade()
    return finish(tmp)


GPU_WHY = ('no usable CUDA device: CUDA driver version is insufficient for CUDA runtime version '
           '(cudaGetDeviceCount: this machine has no NVIDIA driver loaded)')
NVCC_WHY = ('left out: no CUDA compiler (nvcc) found (looked for /nonexistent/bin/nvcc); '
            'install the CUDA toolkit or set CUDA_HOME')
LONG = ' '.join('word%03d' % k for k in range(200))         # 1600 characters, a word every 8


def quiet_grade():
    """The console of a whole check-all's grade, as on a machine without a GPU
    where a step is left out and some tests fail: a line a runner, each
    failure once with where it failed and the handout's section, each skip
    reason once a runner, the total; no text cut inside a word; at most 60
    lines with check_all.sh's two lines a runner (building, ran)."""
    tmp = tempfile.mkdtemp(prefix='nbgrade_quiet_')
    d = os.path.join(tmp, 'tests', 'results')
    os.makedirs(d)
    os.symlink(os.path.join(TOP, 'handouts'), os.path.join(tmp, 'handouts'))
    manifest, expected = [], []
    gpu = ['step02_naive', 'step03_float4', 'step04_shared', 'step04_tuned', 'step05_barneshut',
           'step05_tuned']
    fails = {('step01_cpu', 'conformance', 't3'): 'energy drift 0.5 > 1e-3 (suite_conformance.c:120)',
             ('step01_cpu', 'precision', 't1'): LONG + ' (suite_precision.c:320; 2 more failed checks)',
             ('step03_float4', 'cli', 't0'): 'exit 4, no check line (suite_conformance.c:700)'}

    def runner(r, tests, status_of, kind_of=lambda suite: 'student'):
        rows = [b'#nb-grade\t%s\tnonce=%s\tsandbox=boxed\n' % (r.encode(), NONCE.encode())]
        for suite, test in tests:
            st, detail = status_of(suite, test)
            kind = kind_of(suite)
            rows.append(tsv_row(r, suite.encode(), test.encode(), st, 2 if st == 'PASS' else 0, 2,
                                runner_esc(detail), runner_esc('the test said a lot\n' * 3), kind))
            manifest.append(('%s\t%s\t%s\t2\t%s\n' % (r, suite, test, kind)).encode())
        with open(os.path.join(d, r + '.tsv'), 'wb') as f:
            f.write(b''.join(rows))
        expected.append(r)

    def status(r):
        def of(suite, test):
            if (r, suite, test) in fails:
                return 'FAIL', fails[(r, suite, test)]
            if r in gpu and suite != 'cli':
                return 'SKIP', 'SKIPPED (%s)' % GPU_WHY
            return 'PASS', ''
        return of
    runner('common', [('harness', 't%d' % k) for k in range(80)], status('common'), lambda suite: 'kit')
    runner('step01_cpu', [(s_, 't%d' % k) for s_ in ('conformance', 'asan', 'precision') for k in range(12)],
           status('step01_cpu'), lambda suite: 'optional' if suite == 'precision' else 'student')
    for r in gpu:
        runner(r, [(s_, 't%d' % k) for s_ in ('cli', 'conformance', 'gpu') for k in range(20)], status(r),
               lambda suite: 'kit' if suite == 'cli' else 'student')
    # a step the build left out: its tests in the manifest, no results, a .skip
    for k in range(25):
        manifest.append(b'step06_multigpu\tmultigpu\tt%d\t2\tstudent\n' % k)
    with open(os.path.join(d, 'step06_multigpu.skip'), 'w') as f:
        f.write(NVCC_WHY + '\n')
    expected.append('step06_multigpu')
    with open(os.path.join(d, '.expected'), 'w') as f:
        f.write('\n'.join(expected) + '\n')
    mpath = os.path.join(tmp, 'tests', 'manifest.tsv')
    with open(mpath, 'wb') as f:
        f.write(b''.join(manifest))
    p = subprocess.run(['bash', os.path.join(TOP, 'scripts', 'grade', 'grade_table.sh'), d, mpath],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, NB_GRADE_NONCE=NONCE))
    console = p.stdout.decode('utf-8', 'replace')
    lines = console.rstrip('\n').split('\n')
    n = len(lines) + 2 * len(expected)
    check('quiet: the grade and check-all\'s two lines a runner: %d lines, at most 60' % n, n <= 60, console)
    check('quiet: a row a runner, the left-out one too',
          all(sum(x.startswith(r + ' ') for x in lines) == 1 for r in expected), console)
    for key, detail in fails.items():
        name = '/'.join(key)
        got = [x for x in lines if name + ':' in x]
        check('quiet: the failure %s said once, with its file:line' % name,
              len(got) == 1 and re.search(r'\(suite_[a-z]+\.c:\d+', got[0]) is not None, repr(got))
    sec = [x for x in lines if 'step01_cpu/conformance/t3:' in x]
    check('quiet: a step\'s failure names its handout\'s section',
          sec and sec[0].endswith('-- read handouts/01_cpu.md \u00a72 What you write'), repr(sec))
    sec = [x for x in lines if 'step01_cpu/precision/t1:' in x]
    check('quiet: a long message cut at a word, "..." then where it failed, the precision handout\'s grade',
          sec and re.search(r' word\d{3}\.\.\. \(suite_precision\.c:320; 2 more failed checks\) -- read '
                            r'handouts/08_precision\.md \u00a7\d+ The grade$', sec[0]) is not None, repr(sec))
    check('quiet: the no-GPU reason once a runner that skipped for it (%d runners)' % (len(gpu)),
          console.count(GPU_WHY) == len(gpu), console)
    check('quiet: the left-out runner\'s reason once, its row SKIPPED, never passed',
          console.count('no CUDA compiler (nvcc) found') == 1 and
          any(re.match(r'step06_multigpu +0 +0 +25 .*NOT GRADED: 50 points \(left out: no CUDA compiler', x)
              for x in lines), console)
    check('quiet: no test\'s output on the console', 'the test said a lot' not in console, console)
    check('quiet: the closing line last', lines[-1] == 'check-all: 233 passed, 3 failed, 265 skipped', lines[-1])
    try:
        with open(os.path.join(d, 'summary.json'), encoding='utf-8') as f:
            rep = {r['runner']: r for r in json.load(f)['runners']}
        s6 = rep.get('step06_multigpu', {})
        check('quiet: summary.json: the left-out runner not graded, with its reason',
              s6.get('graded') is False and s6.get('not_graded_reason') == NVCC_WHY and s6.get('skipped') == 25
              and s6.get('passed') == 0, repr(s6)[:300])
    except (OSError, ValueError, KeyError) as e:
        check('quiet: summary.json parses', False, str(e))
    if not failed:
        subprocess.run(['rm', '-rf', tmp])
    else:
        print('grade_report_test: kept ' + tmp)


def finish(tmp=None):
    if tmp and not failed and os.environ.get('KEEP_TMP') != '1':
        subprocess.run(['rm', '-rf', tmp])
    elif tmp:
        print('grade_report_test: kept ' + tmp)
    print('grade_report_test: %s (%d of %d checks failed)' % ('FAIL' if failed else 'PASS', failed, checks))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
