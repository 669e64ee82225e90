#!/usr/bin/env bash
# scripts/tables/multigpu_tables.sh -- table 4: step06_multigpu on 1, 2, 4 GPUs of
# one host, with the per-phase split of every run, into
# handouts/results/<slug>/table4_multigpu.{md,csv}.
#
#   strong scaling  Plummer N = 5M and 20M on P = 1, 2, 4 GPUs
#   weak scaling    5M bodies per GPU: N = 5M, 10M, 20M on P = 1, 2, 4
#
# Each run: step06_multigpu/nbody -n N --gpus P -s STEPS --warmup 1 --bench
# (seed 1, θ = 0.5, default dt and ε); the program's report gives, per GPU,
# the median of each phase (gather x, build, walk, gather a, integrate).
# The table gives the slowest GPU's figure for each phase (a step waits for
# it) and the spread of the walk over the GPUs (the load balance).
# It needs as many GPUs as the largest P: with fewer it says how many it
# needs and exits 2 (77 without any usable GPU); nothing is written then.
#
# Variables: GPUS ("1 2 4"), STRONG_NS ("5000000 20000000"), WEAK_PER_GPU
# (5000000), STEPS (5), SLUG, RESULTS_DIR, NB_BIN_DIR, RUN_LIMIT_S (600).
# Exit: 0 ok; 2 step06 not built or too few GPUs; 3 a run failed; 77 no GPU.
#
#   scripts/tables/multigpu_tables.sh --plot DIR   draws DIR/scaling.{png,svg} from
#   DIR/table4_multigpu.csv (gnuplot, here or on another machine: the GPU
#   hosts may have none); the tables run draws it too when gnuplot is there.
set -uo pipefail
# shellcheck source=scripts/common.sh
. "$(dirname "$0")/../common.sh"

gp_q() { printf '%s' "$1" | sed "s/'/''/g"; }     # a gnuplot single-quoted string
# plot DIR: scaling.{png,svg} beside table4_multigpu.csv (exit 2: no gnuplot
# or no table there; 3: gnuplot failed)
plot() {
  local dir=$1 csv=$1/table4_multigpu.csv gp=${GNUPLOT:-gnuplot} fmt maxp sub
  [ -r "$csv" ] || { echo "multigpu_tables: no $csv to plot" >&2; return 2; }
  command -v "$gp" >/dev/null 2>&1 ||
    { echo "multigpu_tables: gnuplot is not installed (sudo apt-get install -y gnuplot-nox); the figure is not drawn" >&2; return 2; }
  maxp=$(awk -F, 'NR > 1 && $3 > m { m = $3 } END { print m + 0 }' "$csv")
  sub=$(awk -F'"' 'NR == 2 { sub(/^[0-9]+ x /, "", $2); print $2 }' "$csv" | sed "s/'/''/g")
  for fmt in png svg; do
    "$gp" -e "t4='$(gp_q "$csv")'; out='$(gp_q "$dir/scaling.$fmt")'; fmt='$fmt'; sub='$sub'; maxp=$maxp" \
      "$NB_TOP/scripts/tables/scaling.gp" || { echo "multigpu_tables: gnuplot failed" >&2; return 3; }
    IFS=$'\t' read -r pgpu pdrv < <(awk -F'\t' '$1 == "table4_multigpu.csv" { print $4 "\t" $5 }' "$dir/provenance.tsv" 2>/dev/null) || true
    nb_provenance "$dir" "scaling.$fmt" "scripts/tables/multigpu_tables.sh --plot (from table4_multigpu.csv)" \
      "as the table: one run per row" "${pgpu:-unknown}" "${pdrv:-unknown}"
  done
  echo "multigpu_tables: wrote $dir/scaling.{png,svg}" >&2
}
if [ "${1:-}" = --plot ]; then
  [ -n "${2:-}" ] || { echo "usage: scripts/tables/multigpu_tables.sh [--plot DIR]" >&2; exit 2; }
  plot "$2"; exit $?
fi
GPUS=${GPUS:-"1 2 4"}
STRONG_NS=${STRONG_NS:-"5000000 20000000"}
WEAK_PER_GPU=${WEAK_PER_GPU:-5000000}
STEPS=${STEPS:-5}
RUN_LIMIT_S=${RUN_LIMIT_S:-600}
bin=$(nb_bin step06_multigpu)
need=0
for p in $GPUS; do [ "$p" -gt "$need" ] && need=$p; done

if [ ! -x "$bin" ]; then
  echo "multigpu_tables: $bin is not built (make; step06 needs NCCL: see README)" >&2
  exit 2
fi
# How many GPUs the program sees: ask it for the largest P on a tiny run.
probe=$("$bin" -n 64 -s 0 --gpus "$need" 2>&1 >/dev/null); rc=$?
case $rc in
  0) ;;
  77) echo "multigpu_tables: needs $need GPUs (P = ${GPUS// /, }); this machine has none usable: $probe" >&2
      exit 77 ;;
  2) echo "multigpu_tables: needs $need GPUs (P = ${GPUS// /, }); $probe" >&2
     exit 2 ;;
  *) echo "multigpu_tables: the probe run failed (exit $rc): $probe" >&2
     exit 3 ;;
esac

nb_init_tmp
csv=$NB_TMP/table4.csv
echo "scaling,n,gpus,step_ms,force_ms,speedup,efficiency,gather_x_ms,build_ms,walk_ms,gather_a_ms,integrate_ms,walk_min_ms,walk_max_ms,g_interactions_per_s,device,nccl,command" > "$csv"
# run SCALING N P BASE_MS: one configuration, one CSV row; prints its step ms
run() {
  local scaling=$1 n=$2 p=$3 base=$4 log=$NB_TMP/run.log
  local args=(-n "$n" --gpus "$p" -s "$STEPS" --warmup 1 --bench)
  local cmd="$bin ${args[*]}"
  printf 'multigpu_tables: %-6s N = %-9s P = %s ... ' "$scaling" "$n" "$p" >&2
  if ! timeout "$RUN_LIMIT_S" "$bin" "${args[@]}" > "$log" 2>&1; then
    echo "FAILED: $(tail -n 1 "$log")" >&2
    return 3
  fi
  # one row (scripts/tables/bench_rows.awk), then its speed-up against BASE
  { printf '$ %s\n' "${cmd#"$NB_BIN_DIR"/}"; cat "$log"; } |
    awk -v scaling="$scaling" -f "$NB_TOP/scripts/tables/bench_rows.awk" > "$NB_TMP/row"
  [ -s "$NB_TMP/row" ] || { echo "FAILED: no bench lines in the output" >&2; return 3; }
  awk -F, -v OFS=, -v base="$base" -v p="$p" -v scaling="$scaling" '{
      sp = base > 0 ? base / $4 : 1
      if (scaling == "weak") sp = base > 0 ? base / $4 * p : 1   # work grows with P
      $6 = sprintf("%.3g", sp); $7 = sprintf("%.3g", sp / p); print }' "$NB_TMP/row" >> "$csv"
  tail -n 1 "$csv" | awk -F, '{ print $4 }'
}

status=0
for n in $STRONG_NS; do
  base=0
  for p in $GPUS; do
    ms=$(run strong "$n" "$p" "$base") || { status=3; continue; }
    echo "$ms ms/step" >&2
    [ "$base" = 0 ] && [ "$p" = 1 ] && base=$ms
  done
done
base=0
for p in $GPUS; do
  n=$((WEAK_PER_GPU * p))
  ms=$(run weak "$n" "$p" "$base") || { status=3; continue; }
  echo "$ms ms/step" >&2
  [ "$base" = 0 ] && [ "$p" = 1 ] && base=$ms
done
[ "$(wc -l < "$csv")" -gt 1 ] || { echo "multigpu_tables: nothing was measured" >&2; exit 3; }

device=$(awk -F'"' 'NR == 2 { print $2 }' "$csv")
gpu_name=${device#* x }
slug=$(nbs_slug "$gpu_name")
out=${RESULTS_DIR:-$NB_TOP/handouts/results/$slug}
mkdir -p "$out"
cp "$csv" "$out/table4_multigpu.csv"
{
  echo "# Table 4 — step06_multigpu: the tree code over 1, 2, 4 GPUs of one host"
  echo
  echo "Milliseconds per leapfrog step, the median of $STEPS timed steps after 1 warm-up step (CUDA events; a step is as slow as its slowest GPU). Plummer, seed 1, θ = 0.5. Phases: the slowest GPU's median of each (gather x: all-gather of the positions; build: step05's bbox + build + summarize + sort, on every GPU; walk: its slice of the tree order; gather a: all-gather of the accelerations + scatter; integrate: kick + drift + kick of its own bodies). Walk min/max: the spread over the GPUs (load balance). Strong scaling: speedup = T(P = 1) / T(P), efficiency = speedup / P. Weak scaling (${WEAK_PER_GPU} bodies per GPU): speedup = P · T(P = 1) / T(P)."
  echo
  echo "| scaling | N | P | step ms | force ms | speedup | efficiency | gather x | build | walk (max) | gather a | integrate | walk min | G interactions/s |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
  awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s× | %.0f%% | %s | %s | %s | %s | %s | %s | %s |\n",
                     $1, $2, $3, $4, $5, $6, 100 * $7, $8, $9, $10, $11, $12, $13, $15 }' "$csv"
  echo
  echo "Commands: the \`command\` column of \`table4_multigpu.csv\`."
  nbs_stamp_md "$gpu_name (up to $need of them)" "" "scripts/tables/multigpu_tables.sh"
  echo "- NCCL $(awk -F, 'NR == 2 { print $17 }' "$csv"), NCCL_NVLS_ENABLE=0 (the program sets it when unset)"
} > "$out/table4_multigpu.md"
for f in table4_multigpu.md table4_multigpu.csv; do
  nb_provenance "$out" "$f" "scripts/tables/multigpu_tables.sh (GPUS=\"$GPUS\" STRONG_NS=\"$STRONG_NS\" WEAK_PER_GPU=$WEAK_PER_GPU STEPS=$STEPS)" \
    "not measured: one run per row" "$gpu_name (up to $need of them)"
done
echo "multigpu_tables: wrote $out/table4_multigpu.md and .csv" >&2
if command -v "${GNUPLOT:-gnuplot}" >/dev/null 2>&1; then plot "$out" || status=3
else echo "multigpu_tables: no gnuplot here: draw the figure elsewhere with scripts/tables/multigpu_tables.sh --plot $out" >&2; fi
exit $status
