#!/usr/bin/env bash
# scripts/tables/doc_counts.sh [--check] -- the counts the documents quote, from
# the tree itself, so that none goes stale (`make doc-counts` rewrites them;
# tests/suite_docs.c runs --check).
#
# In README.md, docs/*.md and handouts/*.md:
#  - a number right after a marker <!--count:KEY--> is the value of KEY:
#      points:RUNNER   the student's points of a runner (tests/manifest.tsv;
#                      its score: not the kit's checks, not the optional exercises)
#      optional:RUNNER the points of its optional exercises, apart from the score
#      points:RUNNER/SUITE   the points of one of its suites
#      kit:RUNNER      the points of its kit checks (its cli suite; common: all)
#      tests:RUNNER    its tests, the student's and the kit's
#      points:total, kit:total, tests:total   the same over every runner
#      runners         the runners of the manifest
#      mutants, mutants:cpu, mutants:gpu, mutants:hostile   the catalog
#      regions         the solution regions of the step sources
#  - the lines between <!--generated:regions--> and <!--end--> are the
#    marked files and their region counts, one "path (N)" line each, inside
#    a fenced block;
#  - "`make diff STEP=NN` prints N lines" (the handouts) is what
#    scripts/setup/diff_step.sh NN prints (tests/suite_docs.c checks it too);
#  - and the facts of scripts/tables/doc_facts.py: every test a document
#    names is in tests/manifest.tsv, every program message it quotes is one
#    the sources print, every figure after a <!--figure:PATH:REGEX--> marker
#    is PATH's and its paragraph names PATH, every quoted grade line with
#    counts is in a file its paragraph names, every measured figure (ms,
#    frames/s, ...) has a file its paragraph names, and the example grades of
#    handouts/results/examples/ (make examples) have the manifest's points
#    and tests.
# --check: print every quote that differs and exit 1; without it the files
# are rewritten in place (temporary file + rename).  In the student kit
# (.student_kit) --check leaves out the counts of the step sources (make
# diff's lines, the solution regions): they are the kit's as it was handed
# out, and change as the student writes the code.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
check=0
[ "${1:-}" = --check ] && check=1

manifest=tests/manifest.tsv
values=$(mktemp)
trap 'rm -f "$values" "$values".*' EXIT
awk -F'\t' '!/^#/ { r = $1; t[r]++; T++; runs[r] = 1; su[r "/" $2] += $4
                     if ($5 == "kit") { k[r] += $4; K += $4 } else if ($5 == "optional") o[r] += $4
                     else { p[r] += $4; P += $4 } }
  END { for (r in runs) printf "points:%s\t%d\nkit:%s\t%d\ntests:%s\t%d\noptional:%s\t%d\n", r, p[r], r, k[r], r, t[r], r, o[r]
        for (x in su) printf "points:%s\t%d\n", x, su[x]
        printf "points:total\t%d\nkit:total\t%d\ntests:total\t%d\n", P, K, T
        n = 0; for (r in runs) n++; printf "runners\t%d\n", n }' "$manifest" > "$values"
kind_count() { grep -l "^# kind: $1" tests/mutants/*.patch 2>/dev/null | wc -l; }
# the step sources: git's list, or (the student kit has no .git) what is there
sources() {
  # a checkout's own files; a tree that is not the top of a checkout (the
  # student kit in dist/, which git ignores) is read as it is
  if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then git ls-files 'step0*'
  else find step0* -type f ! -path '*/asan/*'; fi | grep -E '\.(c|h|cu|cuh)$' | sort
}
# a solution region: its BEGIN marker, or in the student kit the TODO line it became
regions_in() { grep -cE '^[[:space:]]*/\* (BEGIN SOLUTION|TODO: )' "$1" || true; }
{ if [ -d mutants ]; then                  # the kit leaves the catalog out: not checked there
    printf 'mutants\t%d\n' "$(ls tests/mutants/*.patch 2>/dev/null | wc -l)"
    printf 'mutants:cpu\t%d\n' "$(kind_count cpu)"
    printf 'mutants:gpu\t%d\n' "$(kind_count gpu)"
    printf 'mutants:hostile\t%d\n' "$(ls tests/mutants/*hostile*.patch 2>/dev/null | wc -l)"
  else printf 'mutants\tn/a\nmutants:cpu\tn/a\nmutants:gpu\tn/a\nmutants:hostile\tn/a\n'; fi
  total=0
  for f in $(sources); do total=$((total + $(regions_in "$f"))); done
  printf 'regions\t%d\n' "$total"
} >> "$values"
# the marked files, "path (N)", in the kit's order
sources | while read -r f; do
  n=$(regions_in "$f")
  if [ "$n" -gt 0 ]; then printf "  %s (%d)\n" "$f" "$n"; fi
done > "$values.regions"

# make diff's line counts: "diff:NN"
sources_vary=0
[ $check = 1 ] && [ -e .student_kit ] && sources_vary=1
for d in step0*/; do
  nn=${d#step}; nn=${nn%%_*}
  [ "$nn" = 01 ] && continue
  if [ $sources_vary = 1 ]; then printf 'diff:%s\tn/a\n' "$nn"
  else printf 'diff:%s\t%d\n' "$nn" "$(bash scripts/setup/diff_step.sh "$nn" 2>/dev/null | wc -l)"; fi
done >> "$values"
if [ $sources_vary = 1 ]; then
  sed -i 's/^regions\t.*/regions\tn\/a/' "$values"
  echo n/a > "$values.regions"
fi

status=0
for f in README.md docs/*.md handouts/*.md; do
  [ -f "$f" ] || continue
  grep -q '<!--count:\|<!--generated:\|`make diff STEP=' "$f" || continue
  awk -v check=$check -v file="$f" -v vals="$values" -v regions="$values.regions" '
    BEGIN { while ((getline l < vals) > 0) { split(l, a, "\t"); v[a[1]] = a[2] }
            nr = 0; while ((getline l < regions) > 0) reg[++nr] = l }
    function bad(what) { printf "doc_counts: %s:%d: %s\n", file, FNR, what > "/dev/stderr"; status = 1 }
    /<!--generated:regions-->/ { print; gen = 1; seen = ""; next }
    gen && $0 == "<!--end-->" {
      want = ""; for (k = 1; k <= nr; k++) want = want reg[k] "\n"
      if (check && seen != want && reg[1] != "n/a") bad("the list of solution regions is out of date")
      print "```"; for (k = 1; k <= nr; k++) print reg[k]; print "```"; print; gen = 0; next }
    gen { if ($0 !~ /^```/) seen = seen $0 "\n"; next }
    match($0, /`make diff STEP=[0-9][0-9]` prints [0-9]+ lines/) {
      tok = substr($0, RSTART, RLENGTH); nn = substr(tok, 17, 2); num = tok
      sub(/^.* prints /, "", num); sub(/ lines$/, "", num)
      if (("diff:" nn) in v && v["diff:" nn] != "n/a" && num != v["diff:" nn]) {
        if (check) bad(sprintf("make diff STEP=%s is quoted as %s lines, it prints %s", nn, num, v["diff:" nn]))
        else $0 = substr($0, 1, RSTART - 1) "`make diff STEP=" nn "` prints " v["diff:" nn] " lines" substr($0, RSTART + RLENGTH) } }
    { line = $0; out = ""
      while (match(line, /<!--count:[a-z0-9_:\/ ()]+-->[0-9]*/)) {
        tok = substr(line, RSTART, RLENGTH); key = tok; sub(/^<!--count:/, "", key); sub(/-->.*/, "", key)
        num = tok; sub(/^.*-->/, "", num)
        if (!(key in v)) bad("unknown count " key)
        else if (v[key] != "n/a" && num != v[key]) { if (check) bad(sprintf("%s is quoted as %s, it is %s", key, num, v[key])) }
        out = out substr(line, 1, RSTART - 1) "<!--count:" key "-->" ((key in v) && v[key] != "n/a" ? v[key] : num)
        line = substr(line, RSTART + RLENGTH) }
      print out line }
    END { exit status }' "$f" > "$f.doc_counts.tmp" || status=1
  if [ $check = 1 ]; then rm -f "$f.doc_counts.tmp"
  elif cmp -s "$f" "$f.doc_counts.tmp"; then rm -f "$f.doc_counts.tmp"
  else mv "$f.doc_counts.tmp" "$f" && echo "doc_counts: $f updated"; fi
done
if [ $check = 1 ]; then python3 -I scripts/tables/doc_facts.py --check || status=1
else python3 -I scripts/tables/doc_facts.py || echo "doc_counts: facts that do not hold (above): fix the text" >&2; fi
exit $status
