#!/usr/bin/env bash
# scripts/grade/grade_table.sh [RESULTS_DIR [MANIFEST]] -- the grade of `make check-all`.
#
# Reads RESULTS_DIR (default tests/results): <runner>.tsv and <runner>.json
# written by each runner, .expected (the runners that must appear, in order)
# and <runner>.fail (why a runner left no results) and <runner>.skip (why
# it was left out of the build: its tests SKIPPED), both written by
# scripts/grade/check_all.sh.
#
# A runner's results count only if they are this run's and whole:
#  - the first line of its TSV names the runner and carries the secret of
#    this check-all run (NB_GRADE_NONCE, checked when it is set);
#  - its tests are those MANIFEST (default tests/manifest.tsv) lists for it,
#    each once, in order, with the same points; a test earns all its points
#    if it PASSed, none otherwise.
# Results that fail either check, and a runner without results (not built,
# killed, timed out), get every test of the manifest FAILED with the reason:
# that runner scores 0 and the reason is printed ("check-all: step01_cpu:
# results rejected: ... : 0/64 points").
#
# Then scripts/grade/grade_report.py (python3, standard library) writes the
# grade: it prints the notices, then one row per runner and a total, and
# last the closing line
#   check-all: N passed, N failed, N skipped
# Every student point counts in every total (console, summary.json,
# gradescope.json): a SKIPPED test (no usable GPU) earns nothing; the rows and
# the total say how many points were NOT GRADED and why.  The kit's checks
# have their own column and total ("kit health").
# Writes summary.json ({"score", "max_score", "not_graded_points", counts,
# "kit": {...}, "sandbox", "tampered", "integrity", "runners": [each
# runner's JSON report]}) and gradescope.json (Gradescope's results.json
# format, the kit's checks with max_score 0; see handouts/instructor.md)
# with the json module: the texts of the results are decoded, never pasted.
# RESULTS_DIR/.integrity (scripts/grade/check_all.sh: the kit's files and
# programs hashed before the run and checked during it) makes a run whose
# kit changed TAMPERED, scored 0 in all three.
# Exit status 1 if any test failed, the run was tampered with (or no
# results at all), else 0.
#
# TSV: a header line "#nb-grade<TAB>runner<TAB>nonce=...<TAB>sandbox=boxed|degraded",
# then columns runner suite test status(PASS|FAIL|SKIP) earned possible
# detail output kind -- text columns escaped as inside a JSON string; kind
# is "student", "kit" for the kit's own checks (the common runner, the
# steps' cli suites), which are reported as the kit's health, apart from the
# student's score, or "optional" for an optional exercise (step01's
# precision suite), whose points have a line of their own and are no part
# of the score.  MANIFEST: runner suite test points kind.
set -uo pipefail
dir=${1:-tests/results}
manifest=${2:-$(dirname "$0")/../../tests/manifest.tsv}
shopt -s nullglob

runners=()
if [ -f "$dir/.expected" ]; then
  while read -r r; do [ -n "$r" ] && runners+=("$r"); done < "$dir/.expected"
fi
for t in "$dir"/*.tsv; do
  r=$(basename "$t" .tsv)
  [[ " ${runners[*]} " == *" $r "* ]] || runners+=("$r")
done
if [ ${#runners[@]} -eq 0 ]; then
  echo "grade_table: no results in $dir"
  echo "check-all: 0 passed, 0 failed, 0 skipped"
  exit 1
fi
[ -f "$manifest" ] || { echo "grade_table: no manifest $manifest (make -C tests manifest)"; manifest=/dev/null; }

# ---- this run's results, whole, or rejected ----
# The reason results of runner r cannot count, "" if they can.
check_results() {
  awk -F'\t' -v r="$1" -v nonce="${NB_GRADE_NONCE:-}" '
    FNR == NR { if (!/^#/ && $1 == r) { want[++nw] = $2 "\t" $3 "\t" $4 "\t" $5 } next }
    FNR == 1 { header = 1
               if ($1 != "#nb-grade" || $2 != r) { why = "no header line naming the runner"; exit }
               if (nonce != "" && $3 != "nonce=" nonce) { why = "not from this run (its secret differs)"; exit }
               next }
    { row = $2 "\t" $3 "\t" $6 "\t" $9; k++
      if ($1 != r) { why = "a row of another runner (" $1 ")"; exit }
      if (k > nw) { why = "a test the manifest does not list: " $2 "/" $3; exit }
      if (row != want[k]) {
        split(want[k], w, "\t")
        why = (seen[row] ? "a test twice: " : "the tests differ from the manifest at " w[1] "/" w[2] ": ") $2 "/" $3
        exit }
      seen[row] = 1
      if ($4 == "PASS") { if ($5 != $6) { why = "a PASS without its points: " $2 "/" $3; exit } }
      else if ($4 == "FAIL" || $4 == "SKIP") { if ($5 != 0) { why = "points for a " $4 ": " $2 "/" $3; exit } }
      else { why = "an unknown status " $4; exit } }
    END { if (why == "" && !header) why = "an empty results file"
          else if (why == "" && k < nw) { split(want[k + 1], w, "\t"); why = "a test missing: " w[1] "/" w[2] }
          printf "%s", why }' "$manifest" "$dir/$1.tsv"
}

# Each runner's results count, or its .fail says why not (the report then
# fails every test of the manifest with that reason).
for r in "${runners[@]}"; do
  # a runner of a step the build left out (<runner>.skip, written by
  # check_all.sh before anything ran): every test SKIPPED with its reason
  [ -f "$dir/$r.skip" ] && [ ! -f "$dir/$r.tsv" ] && [ ! -f "$dir/$r.fail" ] && continue
  if [ -f "$dir/$r.tsv" ] && [ ! -f "$dir/$r.fail" ]; then
    why=$(check_results "$r")
    [ -n "$why" ] && printf 'results rejected: %s\n' "$why" > "$dir/$r.fail"
  else
    why=$(head -n 1 "$dir/$r.fail" 2>/dev/null)
    [ -n "$why" ] || echo "runner left no results" > "$dir/$r.fail"
  fi
done

# ---- the notices, the table, summary.json, gradescope.json, the closing line ----
if ! command -v python3 >/dev/null 2>&1; then
  echo "grade_table: no python3 (scripts/setup/ensure_deps.sh grade installs it): no grade written"
  echo "check-all: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
PYTHONDONTWRITEBYTECODE=1 python3 -I "$(dirname "$0")/grade_report.py" report "$dir" "$manifest" "${runners[@]}"
rc=$?
[ $rc -le 1 ] && exit $rc
echo "grade_table: scripts/grade/grade_report.py failed (exit $rc): no grade written"
echo "check-all: 0 passed, 1 failed, 0 skipped"
exit 1
