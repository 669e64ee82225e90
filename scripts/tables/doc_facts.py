#!/usr/bin/env python3
"""scripts/tables/doc_facts.py [--check] -- the facts the documents state,
checked against the tree (run by scripts/tables/doc_counts.sh, so by
`make doc-counts` and by tests/suite_docs.c).

In README.md, docs/*.md, handouts/*.md and handouts/results/*/README.md:

 - a test named as `SUITE/TEST` (in backticks; TEST may hold a * wildcard)
   is a test of tests/manifest.tsv;
 - a program message quoted in backticks, or on a line of a fenced block,
   that starts with a program's name (`step02_naive: ...`) is one the sources
   print: an nb_todo() call's message exactly, otherwise a format string of
   the sources (common/, the steps, tests/), each conversion (%d, %s, ...)
   standing for any text, placeholders of the document (N, ...) included;
 - a figure after a marker <!--figure:PATH:REGEX--> is the first group of
   the first match of the Python regular expression REGEX in the file PATH
   (from the top of the tree), and the paragraph, list item or table row
   that holds it names that file (its path or its name, outside the
   marker);
 - the example outputs of a grade (handouts/results/examples/*.txt, which
   `make examples` captures) give each runner the possible points and the
   tests of tests/manifest.tsv;
 - a quote in backticks with the counts of a grade in it (`check-all: 541
   passed, ...`, `student score: 0/461 ...`, `step01_cpu: score 49/49 points`)
   is in a file that its paragraph, list item or table row names (a link or
   a path in backticks); with placeholders instead (`score N/N points`) it
   is only checked as a message.

--check: print each fact that does not hold and exit 1; without it the
figures after the markers are rewritten from their files (temporary file
and rename) and the other facts are checked the same way.
Every measured figure has its source: a paragraph, list item or table row
with a measured figure (ms, µs, G interactions/s, frames/s, ...) names a
file (a link or a path in backticks, or `git show REV:PATH` for a file the
history keeps; a table row, list item or indented paragraph may lean on the
top-level paragraph above it), or one of its figures is after a marker; else
it is a fact that does not hold.  Not measurements: a figure after "≈" (an
estimate, worked out, not run) or after a limit ("at least", "at most",
"more than", "less than", ≤, ≥: a target or a rule).  A `git show REV:PATH`
must be in the history where git has REV (not checked in the student kit or
a shallow clone without REV).

--unsourced: also list the paragraphs, items and rows with a measured
figure and no source, with their count.
"""
import fnmatch
import glob
import os
import re
import sys

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
os.chdir(TOP)
CHECK = "--check" in sys.argv[1:]
UNSOURCED = "--unsourced" in sys.argv[1:]
IN_KIT = os.path.exists(".student_kit")
problems = []


def bad(path, line, what):
    problems.append("doc_facts: %s:%d: %s" % (path, line, what))


def documents():
    files = ["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("handouts/*.md"))
    files += sorted(glob.glob("handouts/results/*/README.md"))
    return [f for f in files if os.path.isfile(f)]


# ---- the tests of the manifest ---------------------------------------------------
TESTS = {}
SUITES = set()
SUMS = {}                      # (runner, kind): points; (runner, "tests"): tests
with open("tests/manifest.tsv", encoding="utf-8") as f:
    for row in f:
        if row.startswith("#") or not row.strip():
            continue
        cols = row.rstrip("\n").split("\t")
        if len(cols) >= 3:
            TESTS.setdefault(cols[1], set()).add(cols[2])
            SUITES.add(cols[1])
        if len(cols) >= 5 and cols[3].isdigit():
            SUMS[(cols[0], cols[4])] = SUMS.get((cols[0], cols[4]), 0) + int(cols[3])
            SUMS[(cols[0], "tests")] = SUMS.get((cols[0], "tests"), 0) + 1
# the tree's paths (a suite named like a folder: common/nb_physics.h is a file)
PATHS = set()
for d, _, fs in os.walk("."):
    if d.startswith("./.git"):
        continue
    for name in fs:
        p = os.path.join(d, name)[2:]
        PATHS.add(os.path.splitext(p)[0])
        PATHS.add(p)


def path_like(token):
    """token is (the end of) a path of the tree, or a program it builds"""
    if token.split("/")[-1].startswith("nbody"):
        return True
    return any(p == token or p.endswith("/" + token) for p in PATHS)


TEST_RE = re.compile(r"`(" + "|".join(re.escape(s) for s in sorted(SUITES, key=len, reverse=True)) +
                     r")/([A-Za-z0-9_*]+)`")

# ---- the messages of the sources ----------------------------------------------------
SOURCES = []
for pat in ("common/**/*.c", "common/**/*.h", "common/**/*.cu", "step0*/**/*.c", "step0*/**/*.h", "step0*/**/*.cu",
            "step0*/**/*.cuh", "tests/*.c", "tests/*.h"):
    SOURCES += glob.glob(pat, recursive=True)
SOURCES = sorted(set(s for s in SOURCES if "/asan/" not in s and "/tsan/" not in s))

TODO_RE = re.compile(r'nb_todo\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')
LITERAL_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
CONV_RE = re.compile(r"%[-+ #0']*(?:\*|[0-9]+)?(?:\.(?:\*|[0-9]+))?(?:hh|h|ll|l|j|z|t|L)?[diouxXeEfFgGaAcsp%]")

todo_messages = set()
formats = []
for src in SOURCES:
    try:
        text = open(src, encoding="utf-8", errors="replace").read()
    except OSError:
        continue
    prog = src.split("/")[0]
    for what, handout in TODO_RE.findall(text):
        todo_messages.add("%s: %s is not implemented yet (see handouts/%s.md)" % (prog, what, handout))
    # string literals, those side by side joined (C's concatenation)
    pieces, last_end = [], -1
    for m in LITERAL_RE.finditer(text):
        if pieces and text[last_end:m.start()].strip() == "":
            pieces[-1] += m.group(1)
        else:
            pieces.append(m.group(1))
        last_end = m.end()
    for s in pieces:
        s = s.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\\\", "\\")
        if "is not implemented yet (see handouts/" in s:
            continue                                # nb_todo's own format: its calls are checked
        for line in s.split("\n"):
            literal = CONV_RE.sub("", line)
            if sum(c.isalpha() for c in literal) < 10:
                continue                            # "%s: %s" would match anything
            rx = ""
            pos = 0
            for c in CONV_RE.finditer(line):
                rx += re.escape(line[pos:c.start()]) + ("%" if c.group() == "%%" else ".+?")
                pos = c.end()
            rx += re.escape(line[pos:])
            formats.append(re.compile(r"(?:[^:\n]{1,40}: ){0,2}" + rx.strip() + r"\s*", re.S))

PROG_RE = r"step0[0-9]_[a-z0-9]+(?:/[a-z_]+)?: "


def message_known(msg):
    msg = " ".join(msg.split())
    if "is not implemented yet (see handouts/" in msg:
        return msg in todo_messages
    return any(f.fullmatch(msg) for f in formats)


# ---- units: paragraphs, list items, table rows, fenced blocks ----------------------
def units(lines):
    """(first line number, text, kind) for each paragraph, list item, table row
    and fenced block; kind is 'text' or 'code'"""
    out, cur, start, fence = [], [], 0, False
    for i, line in enumerate(lines, 1):
        if fence:
            cur.append(line)
            if line.startswith("```"):
                out.append((start, "\n".join(cur), "code"))
                cur, fence = [], False
            continue
        if line.startswith("```"):
            if cur:
                out.append((start, "\n".join(cur), "text"))
            cur, start, fence = [line], i, True
            continue
        new_unit = (not line.strip() or line.startswith("|") or re.match(r"\s*(?:[-*]|[0-9]+\.) ", line)
                    or line.startswith("#"))
        if new_unit and cur:
            out.append((start, "\n".join(cur), "text"))
            cur = []
        if line.strip():
            if not cur:
                start = i
            cur.append(line)
            if line.startswith("|") or line.startswith("#"):
                out.append((start, "\n".join(cur), "text"))
                cur = []
    if cur:
        out.append((start, "\n".join(cur), "code" if fence else "text"))
    return out


GIT_SHOW_RE = re.compile(r"`git\s+show\s+([0-9a-f]{7,40}):([\w./-]+)`")
git_objects = {}


def git_has(rev, path=None):
    """True, False, or None where git cannot tell (no .git: the student kit;
    a shallow clone without that commit)"""
    import subprocess
    key = rev if path is None else rev + ":" + path
    if key not in git_objects:
        try:
            r = subprocess.run(["git", "cat-file", "-e", key + ("^{commit}" if path is None else "")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            git_objects[key] = r.returncode == 0
        except OSError:
            git_objects[key] = None
    return git_objects[key]


def named_files(doc, text):
    """the files a unit names: link targets and paths in backticks that exist,
    and files (or folders) of the history named as `git show REV:PATH`"""
    names = set()
    here = os.path.dirname(doc)
    for t in re.findall(r"\]\(([^)\s#]+)", text) + re.findall(r"`([^`\s]+\.[a-z]+)`", text):
        for base in (here, "."):
            p = os.path.normpath(os.path.join(base, t))
            if os.path.isfile(p):
                names.add(p)
    for rev, path in GIT_SHOW_RE.findall(text):
        names.add(rev + ":" + path)
    return names


def is_results_file(f):
    """f holds measurements: a file of a results folder, a log, a CSV or TSV,
    or a file of the history"""
    return (":" in f or f.startswith("handouts/results/")
            or os.path.splitext(f)[1] in (".csv", ".tsv", ".log", ".txt"))


def check_git_shows(doc, start, unit):
    """a `git show REV:PATH` a document names is in the history (where git
    has REV: not in the student kit, nor in a shallow clone without it)"""
    for m in GIT_SHOW_RE.finditer(unit):
        rev, path = m.group(1), m.group(2)
        if git_has(rev) and not git_has(rev, path.rstrip("/")):
            bad(doc, start + unit.count("\n", 0, m.start()), "names %s:%s, which the history does not have"
                % (rev, path))


FIGURE_RE = re.compile(r"<!--figure:([^:>]+):(.+?)-->(-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?)?")
OUTPUT_RE = re.compile(r"`([^`]+)`", re.S)


# the counts of a grade (points, tests): a figure of a run, from its log
COUNTS_RE = re.compile(r"\b[0-9]+/[0-9]+ points|\b[0-9]+ passed|\b[0-9]+ failed|\b[0-9]+ skipped|score [0-9]+/[0-9]+")


def figure_value(path, rx):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return None, "no file %s" % path
    try:
        m = re.search(rx, text, re.M)
    except re.error as e:
        return None, "a bad regular expression %r: %s" % (rx, e)
    if not m or not m.groups():
        return None, "%r matches nothing (with a group) in %s" % (rx, path)
    return m.group(1), None


MEASURED_RE = re.compile(r"(?<![\w.])[0-9][0-9.,]*\s?(?:ms|µs|s/step|[GT] interactions/s|GFLOP/s|frames/s|"
                         r"T pulls/s|G pulls/s)(?!\w)")
# not a measurement: an estimate (≈ 630 ms, ≈ 4–5 ms: worked out, not run) or
# a limit (at least 2 µs, ≤ 30 µs, more than 10 ms: a target or a rule)
NOT_MEASURED_RE = re.compile(r"(?:≈|\bat least|\bat most|\bmore than|\bless than|≤|≥|<=|>=)\s*"
                             r"(?:[0-9][0-9.,]*\s?[–-]\s?)?$")


def measured(text):
    """text states a measured figure (a time or a rate)"""
    return any(not NOT_MEASURED_RE.search(text[:m.start()]) for m in MEASURED_RE.finditer(text))


unsourced = []


def check_doc(doc):
    text = open(doc, encoding="utf-8").read()
    lines = text.split("\n")
    changed = False
    above = set()                      # the files named by the paragraph above a table or a list
    for start, unit, kind in units(lines):
        if kind == "text":
            check_git_shows(doc, start, unit)
            # a measured figure's source is a file of measurements (a results
            # folder's, a log, a table of figures) or one of the history
            # (`git show REV:PATH`), not any file the paragraph happens to name
            files_here = set(f for f in named_files(doc, unit) if is_results_file(f))
            # a top-level paragraph (or a heading) introduces the table rows,
            # list items and indented paragraphs that follow it
            top_level = not (unit.startswith("|") or unit[:1].isspace()
                             or re.match(r"(?:[-*]|[0-9]+\.) ", unit))
            if top_level:
                above = files_here
            if measured(unit) and not files_here and (top_level or not above) \
                    and "<!--figure:" not in unit:
                unsourced.append("%s:%d: %s" % (doc, start, " ".join(unit.split())[:100]))
        def lineno(offset):
            return start + unit.count("\n", 0, offset)
        # test names
        for m in TEST_RE.finditer(unit):
            suite, test = m.group(1), m.group(2)
            if "_" not in test and "*" not in test:
                continue
            if not any(fnmatch.fnmatchcase(t, test) for t in TESTS.get(suite, ())):
                if path_like(suite + "/" + test):
                    continue
                bad(doc, lineno(m.start()), "names the test %s/%s, which tests/manifest.tsv does not have"
                    % (suite, test))
        # program messages: backticks, or a line of a fenced block
        quotes = []
        if kind == "code":
            for k, line in enumerate(unit.split("\n")):
                if re.match(PROG_RE, line):
                    quotes.append((start + k, line))
        else:
            for m in re.finditer(r"`(" + PROG_RE + r"[^`]*)`", unit, re.S):
                quotes.append((lineno(m.start()), m.group(1)))
        for ln, q in quotes:
            # a kit with the solutions kept (make student-kit KEEP=1, a class's
            # submissions) has no blanks, so no nb_todo() message: not checked there
            if not message_known(q) and not (IN_KIT and "is not implemented yet" in q):
                bad(doc, ln, "quotes a message no source prints: %s" % " ".join(q.split()))
        if kind == "code":
            continue
        # figures after a marker
        files = named_files(doc, FIGURE_RE.sub("", unit))
        for m in FIGURE_RE.finditer(unit):
            path, rx, quoted = m.group(1), m.group(2), m.group(3)
            value, err = figure_value(path, rx)
            if err:
                bad(doc, lineno(m.start()), err)
                continue
            if os.path.normpath(path) not in files and os.path.basename(path) not in FIGURE_RE.sub("", unit):
                bad(doc, lineno(m.start()), "a figure from %s that its paragraph does not name" % path)
            if quoted != value:
                if CHECK:
                    bad(doc, lineno(m.start()), "the figure from %s is quoted as %s, it is %s"
                        % (path, quoted, value))
                else:
                    changed = True
        # quoted output with figures: in a file the unit names
        for m in OUTPUT_RE.finditer(unit):
            q = " ".join(m.group(1).split())
            if not COUNTS_RE.search(q) or "<!--" in q:
                continue
            if not files:
                bad(doc, lineno(m.start()), "quotes output with figures and names no file it is from: %s" % q)
                continue
            found = False
            for f in files:
                try:
                    if q in " ".join(open(f, encoding="utf-8", errors="replace").read().split()):
                        found = True
                        break
                except OSError:
                    pass
            if not found:
                bad(doc, lineno(m.start()), "quotes output that none of the files it names holds: %s (%s)"
                    % (q, ", ".join(sorted(files))))
    if changed and not CHECK:
        def repl(m):
            value, err = figure_value(m.group(1), m.group(2))
            return m.group(0) if err else "<!--figure:%s:%s-->%s" % (m.group(1), m.group(2), value)
        new = FIGURE_RE.sub(repl, text)
        tmp = doc + ".doc_facts.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(tmp, doc)
        print("doc_facts: %s updated" % doc)


# ---- the example outputs of a grade: the tree's tests and points ----------------------
GRADE_LINES = [
    (re.compile(r"^(\w+): score [0-9]+/([0-9]+) points"), "student", "points"),
    (re.compile(r"^(\w+): optional exercises [0-9]+/([0-9]+) points"), "optional", "optional points"),
    (re.compile(r"^(\w+): the kit's own checks [0-9]+/([0-9]+) points"), "kit", "kit points"),
]
PASSED_RE = re.compile(r"^(\w+): ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped")


def check_examples():
    """handouts/results/examples/*.txt show this tree's grade (make examples
    captures them again): each runner's possible points and test count there
    are tests/manifest.tsv's"""
    for path in sorted(glob.glob("handouts/results/examples/*.txt")):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            for rx, kind, what in GRADE_LINES:
                m = rx.match(line)
                if m and (m.group(1), "tests") in SUMS:
                    want = SUMS.get((m.group(1), kind), 0)
                    if int(m.group(2)) != want:
                        bad(path, n, "%s of %s: %s here, %d in tests/manifest.tsv (make examples)"
                            % (what, m.group(1), m.group(2), want))
            m = re.match(r"^student score: [0-9]+/([0-9]+) points", line)
            want = sum(v for (r, k), v in SUMS.items() if k == "student")
            if m and int(m.group(1)) != want and not os.path.exists(".student_kit"):
                bad(path, n, "the student's points: %s here, %d in tests/manifest.tsv (make examples)"
                    % (m.group(1), want))
            m = re.match(r"^check-all: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped", line)
            want = sum(v for (r, k), v in SUMS.items() if k == "tests")
            if m and sum(int(x) for x in m.groups()) != want and not os.path.exists(".student_kit"):
                bad(path, n, "tests: %d here, %d in tests/manifest.tsv (make examples)"
                    % (sum(int(x) for x in m.groups()), want))
            m = PASSED_RE.match(line)
            if m and (m.group(1), "tests") in SUMS:
                got = sum(int(m.group(k)) for k in (2, 3, 4))
                want = SUMS[(m.group(1), "tests")]
                if got != want:
                    bad(path, n, "tests of %s: %d here, %d in tests/manifest.tsv (make examples)"
                        % (m.group(1), got, want))


for d in documents():
    check_doc(d)
check_examples()
for u in unsourced:
    if UNSOURCED:
        print("doc_facts: unsourced: " + u)
    path, line, text = u.split(":", 2)
    bad(path, int(line), "a measured figure, and no file it is from:%s" % text)
if UNSOURCED:
    print("doc_facts: %d paragraphs, items or rows with measured figures that name no file" % len(unsourced))
for p in problems:
    print(p, file=sys.stderr)
sys.exit(1 if problems else 0)
