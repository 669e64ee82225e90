#!/usr/bin/env bash
# scripts/tables/multigpu_from_logs.sh DIR SCALING:LOG... -- table 4's rows from
# logs of runs already made (a lent GPU host's, brought back): each LOG holds
# runs, each a line "$ COMMAND" then the program's output (`--bench` with its
# per-GPU phases: step06's lesson, its tuned build, by one process or
# under mpirun -np P), then "exit N".  Every run with per-GPU lines becomes
# a row of DIR/table4_multigpu.{csv,md}, in table 4's columns
# (scripts/tables/multigpu_tables.sh), its scaling the SCALING given with
# its LOG (strong or weak; "tuned strong" where the program is a tuned
# build, "... θ T" where the command sets --theta), P from --gpus or -np;
# speed-up against the row of the same SCALING (and N, for strong) at P =
# 1, the first in the logs.  The figure: multigpu_tables.sh --plot DIR.
# Exit: 0 ok; 2 bad usage or a log without such runs.
set -uo pipefail
. "$(dirname "$0")/../common.sh"
[ $# -ge 2 ] || { echo "usage: scripts/tables/multigpu_from_logs.sh DIR SCALING:LOG..." >&2; exit 2; }
out=$1; shift
[ -d "$out" ] || { echo "multigpu_from_logs: no folder $out" >&2; exit 2; }
csv=$out/table4_multigpu.csv
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "scaling,n,gpus,step_ms,force_ms,speedup,efficiency,gather_x_ms,build_ms,walk_ms,gather_a_ms,integrate_ms,walk_min_ms,walk_max_ms,g_interactions_per_s,device,nccl,command" > "$tmp"
for a in "$@"; do
  scaling=${a%%:*} log=${a#*:}
  [ -r "$log" ] || { echo "multigpu_from_logs: cannot read $log" >&2; exit 2; }
  awk -v scaling="$scaling" -f "$NB_TOP/scripts/tables/bench_rows.awk" "$log" >> "$tmp"
done
# speed-up and efficiency: against P = 1 of the same scaling (and N, strong)
awk -F, -v OFS=, 'NR == 1 { print; next }
  { key = $1 ($1 ~ /strong/ ? "/" $2 : ""); rows[NR] = $0; k[NR] = key
    if ($3 == 1 && !(key in base)) base[key] = $4 }
  END { for (r = 2; r <= NR; r++) { split(rows[r], f, ","); $0 = rows[r]
          b = base[k[r]]; sp = b ? b / $4 : 0; if ($1 ~ /weak/) sp *= $3
          $6 = b ? sprintf("%.3g", sp) : ""; $7 = b ? sprintf("%.3g", sp / $3) : ""; print } }' "$tmp" > "$tmp.2" && mv "$tmp.2" "$tmp"
[ "$(wc -l < "$tmp")" -gt 1 ] || { echo "multigpu_from_logs: no run with per-GPU phases in the logs" >&2; exit 2; }
mv "$tmp" "$csv"; trap - EXIT
{
  echo "# Table 4 — step06 over 1, 2, 4 GPUs of one host: the lesson and its tuned build"
  echo
  echo "Milliseconds per leapfrog step, the median of the timed steps after 1 warm-up step (CUDA events; a step is as slow as its slowest GPU), from the logs named below. Plummer, seed 1; the lesson at θ = 0.5, the tuned build at its θ = 1 (quadrupoles, p99 ≤ 1e-3 in its \`--check\`). Phases: the slowest GPU's median of each (gather x: the positions' all-gather, the lesson's only: the tuned build integrates every body on every GPU and gathers no positions; build: the tree, built or refitted, on every GPU (tuned: with the bodies moved into tree order at each build); walk: its share of the groups (tuned: split by cost); gather a: the accelerations' exchange and scatter; integrate: the lesson's own slice, the tuned build's every body). Walk min: the fastest GPU's walk (the spread). Strong: speedup = T(P = 1) / T(P) of the same program, efficiency = speedup / P; weak: P · T(P = 1) / T(P). The tuned build keeps its tree 4 steps: its median step is a refit step, and its mean over the timed steps (in the logs) is higher by a build's share."
  echo
  echo "| scaling | N | P | step ms | force ms | speedup | efficiency | gather x | build | walk (max) | gather a | integrate | walk min | G interactions/s |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                     $1, $2, $3, $4, $5, $6 == "" ? "" : $6 "×", $7 == "" ? "" : sprintf("%.0f%%", 100 * $7),
                     $8, $9, $10, $11, $12, $13, $15 }' "$csv"
  echo
  echo "Commands: the \`command\` column of \`table4_multigpu.csv\`; logs:$(for a in "$@"; do printf ' `%s`' "${a#*:}"; done)"
} > "$out/table4_multigpu.md"
gpu=$(awk -F'"' 'NR == 2 { sub(/^[0-9]+ x /, "", $2); print $2 }' "$csv")
maxp=$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' "$csv")
for f in table4_multigpu.md table4_multigpu.csv; do
  nb_provenance "$out" "$f" "scripts/tables/multigpu_from_logs.sh DIR $*" "as the logs: one run per row" \
    "$gpu (up to $maxp of them)" "the logs' (provenance.tsv)"
done
echo "multigpu_from_logs: wrote $out/table4_multigpu.md and .csv" >&2
