#!/usr/bin/env bash
# scripts/grade_table.sh [RESULTS_DIR [MANIFEST]] -- the grade of `make check-all`.
#
# Reads RESULTS_DIR (default tests/results): <runner>.tsv and <runner>.json
# written by each runner, .expected (the runners that must appear, in order)
# and <runner>.fail (why a runner left no results, written by
# scripts/check_all.sh).
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
# Prints the notices, then one row per runner and a total, and last the
# closing line
#   check-all: N passed, N failed, N skipped
# Every student point counts in every total (console, summary.json,
# gradescope.json): a SKIPPED test (no usable GPU) earns nothing; the rows and
# the total say how many points were NOT GRADED and why.  The kit's checks
# have their own column and total ("kit health").
# Writes summary.json ({"score", "max_score", "not_graded_points", counts,
# "kit": {...}, "sandbox", "runners": [each runner's JSON report]}) and
# gradescope.json (Gradescope's results.json format, the kit's checks with
# max_score 0; see handouts/instructor.md).
# Exit status 1 if any test failed (or no results at all), else 0.
#
# TSV: a header line "#nb-grade<TAB>runner<TAB>nonce=...<TAB>sandbox=boxed|degraded",
# then columns runner suite test status(PASS|FAIL|SKIP) earned possible
# detail output kind -- text columns escaped as inside a JSON string; kind
# is "student", or "kit" for the kit's own checks (the common runner, the
# steps' cli suites), which are reported as the kit's health, apart from the
# student's score.  MANIFEST: runner suite test points kind.
set -uo pipefail
dir=${1:-tests/results}
manifest=${2:-$(dirname "$0")/../tests/manifest.tsv}
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

# awk: escape a string for JSON (the reasons written by the scripts)
JESC='function jesc(s,  o, i, c) { o = ""; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1)
          if (c == "\\" || c == "\"") o = o "\\" c; else if (c == "\t") o = o "\\t"; else if (c == "\n") o = o "\\n"
          else if (c < " ") o = o "?"; else o = o c }
        return o }
      function unesc(s,  o, i, c) { o = ""; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1)
          if (c == "\\" && i < length(s)) { c = substr(s, ++i, 1); if (c == "t") c = "\t"; else if (c == "n") c = " " }
          o = o c }
        return o }'

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

# Every test of the manifest FAILED with the reason why (and the JSON report).
fail_all() {
  local r=$1 why=$2
  { printf '#nb-grade\t%s\tnonce=%s\tsandbox=boxed\n' "$r" "${NB_GRADE_NONCE:-none}"
    awk -F'\t' -v r="$r" -v why="$why" "$JESC"'
      !/^#/ && $1 == r && $5 == "kit" {   # the kit'"'"'s checks could not run: not the kit'"'"'s failure
        printf "%s\t%s\t%s\tSKIP\t0\t%d\tSKIPPED (not run: %s)\t\t%s\n", r, $2, $3, $4, jesc(why), $5; n++ }
      !/^#/ && $1 == r && $5 != "kit" { printf "%s\t%s\t%s\tFAIL\t0\t%d\t%s\t\t%s\n", r, $2, $3, $4, jesc(why), $5; n++ }
      END { if (!n) printf "%s\t(runner)\t(no tests in the manifest)\tFAIL\t0\t0\t%s\t\tstudent\n", r, jesc(why) }' \
      "$manifest"; } > "$dir/$r.tsv"
  awk -F'\t' -v r="$r" -v why="$why" "$JESC"'
    /^#/ { next }
    { t[++n] = sprintf("  {\"suite\": \"%s\", \"test\": \"%s\", \"kind\": \"%s\", \"status\": \"%s\", \"points\": %d, \"earned\": 0, \"detail\": \"%s\", \"output\": \"\"}", $2, $3, $9, $4, $6, $7)
      if ($9 != "kit") { pos += $6; nf++ } else ns++ }
    END { printf "{\"runner\": \"%s\", \"graded\": true, \"not_graded_reason\": null, \"runner_error\": \"%s\",\n", jesc(r), jesc(why)
          printf " \"passed\": 0, \"failed\": %d, \"skipped\": %d, \"points\": 0, \"possible\": %d, \"not_graded_points\": 0,\n \"tests\": [\n", nf, ns, pos
          for (k = 1; k <= n; k++) printf "%s%s\n", t[k], (k < n ? "," : "")
          printf " ]}\n" }' "$dir/$r.tsv" > "$dir/$r.json"
}

degraded=()
for r in "${runners[@]}"; do
  if [ -f "$dir/$r.tsv" ] && [ ! -f "$dir/$r.fail" ]; then
    why=$(check_results "$r")
    if [ -n "$why" ]; then
      echo "results rejected: $why" > "$dir/$r.fail"
      fail_all "$r" "results rejected: $why"
    else
      head -n 1 "$dir/$r.tsv" | grep -q $'\tsandbox=degraded' && degraded+=("$r")
      continue
    fi
  else
    why=$(head -n 1 "$dir/$r.fail" 2>/dev/null)
    [ -n "$why" ] || { why="runner left no results"; echo "$why" > "$dir/$r.fail"; }
    fail_all "$r" "$why"
  fi
done

tsvs=()
for r in "${runners[@]}"; do tsvs+=("$dir/$r.tsv"); done

# ---- notices, before the table ----
for r in "${runners[@]}"; do
  [ -f "$dir/$r.fail" ] || continue
  possible=$(awk -F'\t' '!/^#/ && $9 != "kit" { p += $6 } END { print p + 0 }' "$dir/$r.tsv")
  echo "check-all: $r: $(head -n 1 "$dir/$r.fail"): $r scored 0/$possible points"
done
for r in "${degraded[@]}"; do
  echo "check-all: $r: the sandbox was DEGRADED: student code ran unboxed (see the runner's 'sandbox:' line)"
done

# ---- the table and the closing line ----
printf '\n== grade ==\n'
printf '%-20s %7s %7s %8s %10s %10s\n' runner passed failed skipped points kit
awk -F'\t' "$JESC"'
  /^#/ { next }
  { r = $1; if (!(r in seen)) { seen[r] = 1; order[++n] = r }
    if ($9 == "kit") { kpos[r] += $6; ke[r] += $5; if ($4 == "FAIL") kf[r]++ }
    else { pos[r] += $6; e[r] += $5; if ($4 == "SKIP") { ngp[r] += $6; if (!(r in ng)) ng[r] = $7 } }
    if ($4 == "PASS") p[r]++
    else if ($4 == "SKIP") s[r]++
    else f[r]++ }
  END {
    for (k = 1; k <= n; k++) { r = order[k]
      note = ""
      if (r in ng) {
        why = unesc(ng[r]); sub(/^SKIPPED \(/, "", why); sub(/\)$/, "", why)
        note = sprintf("  NOT GRADED: %d points (%s)", ngp[r], why)
        NG += ngp[r]; NGR++
      }
      pts = pos[r] ? sprintf("%6d/%-4d", e[r], pos[r]) : sprintf("%10s", "-")
      kit = kpos[r] ? sprintf("%6d/%-4d", ke[r], kpos[r]) : sprintf("%10s", "-")
      printf "%-20s %7d %7d %8d %s %s%s\n", r, p[r], f[r], s[r], pts, kit, note
      E += e[r]; POS += pos[r]; KE += ke[r]; KPOS += kpos[r]; KF += kf[r]
      P += p[r]; F += f[r]; S += s[r] }
    printf "%-20s %7d %7d %8d %6d/%-4d %6d/%-4d%s\n", "total", P, F, S, E, POS, KE, KPOS, \
      (NGR ? sprintf("  (NOT GRADED: %d points of %d runner%s: no usable GPU)", NG, NGR, NGR > 1 ? "s" : "") : "")
    printf "student score: %d/%d points%s; the kit'"'"'s own checks: %d/%d%s\n", E, POS, \
      (NGR ? sprintf(" (%d NOT GRADED)", NG) : ""), KE, KPOS, \
      (KF ? sprintf(", %d FAILED: the kit itself is broken here, not the student'"'"'s code", KF) : " (not part of the score)")
    printf "check-all: %d passed, %d failed, %d skipped\n", P, F, S
  }' "${tsvs[@]}" > "$dir/.table"

# ---- summary.json: the totals and the runners' JSON reports ----
{ awk -F'\t' -v degraded="${#degraded[@]}" '
    /^#/ { next }
    $9 == "kit" { ke += $5; kpos += $6; if ($4 == "FAIL") kf++ }
    $9 != "kit" { e += $5; pos += $6; if ($4 == "SKIP") ng += $6 }
    { if ($4 == "PASS") p++; else if ($4 == "SKIP") s++; else f++ }
    END { printf "{\"score\": %d, \"max_score\": %d, \"not_graded_points\": %d,\n \"passed\": %d, \"failed\": %d, \"skipped\": %d,\n", e, pos, ng, p, f, s
          printf " \"kit\": {\"score\": %d, \"max_score\": %d, \"failed\": %d},\n \"sandbox\": \"%s\",\n \"runners\": [", ke, kpos, kf, degraded ? "degraded" : "boxed" }' "${tsvs[@]}"
  first=1
  for r in "${runners[@]}"; do
    [ -f "$dir/$r.json" ] || continue
    [ $first = 1 ] || printf ','; first=0; cat "$dir/$r.json"; done
  printf ']}\n'; } > "$dir/summary.json"

# ---- gradescope.json: Gradescope's results.json ----
# Every test is there with its points as max_score.  A SKIPPED test (no
# usable GPU) is "failed" with score 0 and the output "not graded: <reason>",
# so that a run without a GPU never shows the GPU points as earned.
awk -F'\t' "$JESC"'
  /^#/ { next }
  { kit = $9 == "kit"                  # the kit'"'"'s own check: listed, worth nothing
    name = (kit ? "kit: " : "") $1 "/" $2 "/" $3
    if ($4 == "SKIP") { why = $7; sub(/^SKIPPED \(/, "", why); sub(/\)$/, "", why)   # still escaped
                        out = "not graded: " why " (this test needs a GPU; grade on a machine with one)"
                        if (!kit) { NG++; NGP += $6; if (ngwhy == "") ngwhy = why } }
    else out = $7 ($7 != "" && $8 != "" ? "\\n" : "") $8
    status = $4 == "PASS" ? "passed" : "failed"
    if (kit && $4 == "FAIL") KF++
    t[++n] = sprintf("    {\"name\": \"%s\", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", \"output\": \"%s\"}",
                     name, kit ? 0 : $5, kit ? 0 : $6, status, out)
    if (!kit) { score += $5; max += $6; if ($4 == "PASS") P++; else if ($4 == "FAIL") F++ } }
  END {
    msg = sprintf("%d of %d points: %d tests passed, %d failed", score, max, P, F)
    if (NG) msg = msg sprintf(". NOT GRADED: %d tests (%d points) did not run (%s); they count as failed with 0 points here.", NG, NGP, ngwhy)
    if (KF) msg = msg sprintf(" The kit'"'"'s own checks (\"kit: ...\", worth nothing) FAILED %d times: the kit is broken on this machine.", KF)
    printf "{\n  \"score\": %d,\n  \"output\": \"%s\",\n  \"tests\": [\n", score, msg
    for (k = 1; k <= n; k++) printf "%s%s\n", t[k], (k < n ? "," : "")
    printf "  ]\n}\n"
  }' "${tsvs[@]}" > "$dir/gradescope.json"

cat "$dir/.table"
rm -f "$dir/.table"
awk -F'\t' '!/^#/ && $4 == "FAIL" { bad = 1 } END { exit bad }' "${tsvs[@]}"
