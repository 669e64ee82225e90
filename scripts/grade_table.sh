#!/usr/bin/env bash
# scripts/grade_table.sh [RESULTS_DIR] -- the points table of `make check-all`:
# one row per runner, a total, a machine-readable summary.json, and the plain
# closing line "check-all: N passed, N failed, N skipped". Exit 1 if any test
# failed or a runner left no results (it crashed).
set -euo pipefail
dir=${1:-tests/results}
shopt -s nullglob
files=("$dir"/*.tsv)
if [ ${#files[@]} -eq 0 ]; then echo "grade_table: no results in $dir" >&2; exit 1; fi
printf '\n== grade ==\n'
printf '%-20s %7s %7s %8s %10s\n' runner passed failed skipped points
awk -F'\t' '
  { r=$1; if (!(r in seen)) { seen[r]=1; order[++n]=r }
    if ($4=="PASS") p[r]++; else if ($4=="FAIL") f[r]++; else { s[r]++; sp[r]+=$6 }
    if ($4!="SKIP") { e[r]+=$5; pos[r]+=$6 } }
  END {
    for (k=1;k<=n;k++) { r=order[k]
      printf "%-20s %7d %7d %8d %6d/%-4d%s\n", r, p[r], f[r], s[r], e[r], pos[r], (s[r] ? sprintf("  (%d points skipped)", sp[r]) : "")
      P+=p[r]; F+=f[r]; S+=s[r]; E+=e[r]; POS+=pos[r] }
    printf "%-20s %7d %7d %8d %6d/%-4d\n", "total", P, F, S, E, POS
    printf "check-all: %d passed, %d failed, %d skipped\n", P, F, S
  }' "${files[@]}"
# summary.json: the runners' JSON reports in one array
{ printf '['; first=1
  for j in "$dir"/*.json; do [ "$(basename "$j")" = summary.json ] && continue
    [ $first = 1 ] || printf ','; first=0; cat "$j"; done
  printf ']\n'; } > "$dir/summary.json"
status=0
awk -F'\t' '$4=="FAIL"{bad=1} END{exit bad}' "${files[@]}" || status=1
if [ -f "$dir/.expected" ]; then
  while read -r r; do
    [ -f "$dir/$r.tsv" ] || { echo "grade_table: runner $r left no results (crashed?)" >&2; status=1; }
  done < "$dir/.expected"
fi
exit $status
