#!/usr/bin/env bash
# scripts/grade_table.sh [RESULTS_DIR [MANIFEST]] -- the grade of `make check-all`.
#
# Reads RESULTS_DIR (default tests/results): <runner>.tsv and <runner>.json
# written by each runner, .expected (the runners that must appear, in order)
# and <runner>.fail (why a runner left no results, written by
# scripts/check_all.sh).  An expected runner without results gets every test
# that MANIFEST (default tests/manifest.tsv) lists for it, FAILED with that
# reason, so it always appears with its full possible points.
#
# Prints the notices (runners that could not be built or crashed), then one
# row per runner and a total, and last the closing line
#   check-all: N passed, N failed, N skipped
# A runner with SKIPPED tests (no usable GPU) is "not graded": its row says
# so instead of a score and the total leaves its points out.
# Writes summary.json (the runners' JSON reports in one array) and
# gradescope.json (Gradescope's results.json format; see handouts/instructor.md).
# Exit status 1 if any test failed (or no results at all), else 0.
#
# TSV columns: runner suite test status(PASS|FAIL|SKIP) earned possible
# detail output -- detail and output escaped as inside a JSON string.
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
          if (c == "\\" || c == "\"") o = o "\\" c; else if (c == "\t") o = o "\\t"; else o = o c }
        return o }
      function unesc(s,  o, i, c) { o = ""; for (i = 1; i <= length(s); i++) { c = substr(s, i, 1)
          if (c == "\\" && i < length(s)) { c = substr(s, ++i, 1); if (c == "t") c = "\t"; else if (c == "n") c = " " }
          o = o c }
        return o }'

# ---- runners without results: every manifest test FAILED with the reason ----
for r in "${runners[@]}"; do
  [ -f "$dir/$r.tsv" ] && continue
  why=$(head -n 1 "$dir/$r.fail" 2>/dev/null)
  [ -n "$why" ] || { why="runner left no results"; echo "$why" > "$dir/$r.fail"; }
  awk -F'\t' -v r="$r" -v why="$why" "$JESC"'
    !/^#/ && $1 == r { printf "%s\t%s\t%s\tFAIL\t0\t%d\t%s\t\n", r, $2, $3, $4, jesc(why); n++ }
    END { if (!n) printf "%s\t(runner)\t(no tests in the manifest)\tFAIL\t0\t0\t%s\t\n", r, jesc(why) }' \
    "$manifest" > "$dir/$r.tsv"
  awk -F'\t' -v r="$r" -v why="$why" "$JESC"'
    { t[++n] = sprintf("  {\"suite\": \"%s\", \"test\": \"%s\", \"status\": \"FAIL\", \"points\": %d, \"earned\": 0, \"detail\": \"%s\", \"output\": \"\"}", jesc($2), jesc($3), $6, $7)
      pos += $6 }
    END { printf "{\"runner\": \"%s\", \"graded\": true, \"not_graded_reason\": null, \"runner_error\": \"%s\",\n", jesc(r), jesc(why)
          printf " \"passed\": 0, \"failed\": %d, \"skipped\": 0, \"points\": 0, \"possible\": %d,\n \"tests\": [\n", n, pos
          for (k = 1; k <= n; k++) printf "%s%s\n", t[k], (k < n ? "," : "")
          printf " ]}\n" }' "$dir/$r.tsv" > "$dir/$r.json"
done

tsvs=()
for r in "${runners[@]}"; do tsvs+=("$dir/$r.tsv"); done

# ---- notices, before the table ----
for r in "${runners[@]}"; do
  [ -f "$dir/$r.fail" ] && echo "check-all: $r: $(head -n 1 "$dir/$r.fail")"
done

# ---- the table and the closing line ----
printf '\n== grade ==\n'
printf '%-20s %7s %7s %8s %10s\n' runner passed failed skipped points
awk -F'\t' "$JESC"'
  { r = $1; if (!(r in seen)) { seen[r] = 1; order[++n] = r }
    pos[r] += $6; e[r] += $5
    if ($4 == "PASS") p[r]++
    else if ($4 == "SKIP") { s[r]++; if (!(r in ng)) ng[r] = $7 }
    else f[r]++ }
  END {
    for (k = 1; k <= n; k++) { r = order[k]
      if (r in ng) {
        why = unesc(ng[r]); sub(/^SKIPPED \(/, "", why); sub(/\)$/, "", why)
        printf "%-20s %7d %7d %8d     not graded (%s)\n", r, p[r], f[r], s[r], why
        NG += pos[r]; NGR++
      } else {
        printf "%-20s %7d %7d %8d %6d/%-4d\n", r, p[r], f[r], s[r], e[r], pos[r]
        E += e[r]; POS += pos[r]
      }
      P += p[r]; F += f[r]; S += s[r] }
    printf "%-20s %7d %7d %8d %6d/%-4d%s\n", "total", P, F, S, E, POS, \
      (NGR ? sprintf("  (%d points of %d runner%s not graded: no usable GPU)", NG, NGR, NGR > 1 ? "s" : "") : "")
    printf "check-all: %d passed, %d failed, %d skipped\n", P, F, S
  }' "${tsvs[@]}" > "$dir/.table"

# ---- summary.json: the runners' JSON reports in one array ----
{ printf '['; first=1
  for r in "${runners[@]}"; do
    [ -f "$dir/$r.json" ] || continue
    [ $first = 1 ] || printf ','; first=0; cat "$dir/$r.json"; done
  printf ']\n'; } > "$dir/summary.json"

# ---- gradescope.json: Gradescope's results.json ----
# Every test is there with its points as max_score.  A SKIPPED test (no
# usable GPU) is "failed" with score 0 and the output "not graded: <reason>",
# so that a run without a GPU never shows the GPU points as earned.
awk -F'\t' "$JESC"'
  { name = $1 "/" $2 "/" $3
    if ($4 == "SKIP") { why = $7; sub(/^SKIPPED \(/, "", why); sub(/\)$/, "", why)   # still escaped
                        out = "not graded: " why " (this test needs a GPU; grade on a machine with one)"
                        NG++; NGP += $6; if (ngwhy == "") ngwhy = why }
    else out = $7 ($7 != "" && $8 != "" ? "\\n" : "") $8
    status = $4 == "PASS" ? "passed" : "failed"
    t[++n] = sprintf("    {\"name\": \"%s\", \"score\": %d, \"max_score\": %d, \"status\": \"%s\", \"output\": \"%s\"}",
                     jesc(name), $5, $6, status, out)
    score += $5; max += $6; if ($4 == "PASS") P++; else if ($4 == "FAIL") F++ }
  END {
    msg = sprintf("%d of %d points: %d tests passed, %d failed", score, max, P, F)
    if (NG) msg = msg sprintf(". NOT GRADED: %d tests (%d points) did not run (%s); they count as failed with 0 points here.", NG, NGP, ngwhy)
    printf "{\n  \"score\": %d,\n  \"output\": \"%s\",\n  \"tests\": [\n", score, msg
    for (k = 1; k <= n; k++) printf "%s%s\n", t[k], (k < n ? "," : "")
    printf "  ]\n}\n"
  }' "${tsvs[@]}" > "$dir/gradescope.json"

cat "$dir/.table"
rm -f "$dir/.table"
awk -F'\t' '$4 == "FAIL" { bad = 1 } END { exit bad }' "${tsvs[@]}"
