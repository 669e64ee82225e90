#!/usr/bin/env bash
# scripts/gpu/gpu_precision_check.sh [PHASE...] -- the precision lesson on a GPU
# host (handouts/08_precision.md): build, measure the targets, run the tuned
# runner's suites.  Phases (default: build targets suites, ~6-8 min on an
# H100; run the others in a second call):
#   build     step01, step04 (lesson and tuned) and their runners, ARCH=sm_90
#   targets   the figures of the targets, each printed on a line "TARGET ...":
#               double, N = 262144: rate >= 1.3 x NVIDIA's nbody -fp64 (the
#                 sample is not built here: its H100 figure, 675 G
#                 interactions/s, is the comparison -- or NBODY_SAMPLE=path
#                 to a built cuda-samples nbody, run side by side)
#               mixed, offset clusters (--ic clusters, N = 30000): p99 <= 1e-6
#               mixed, N = 4194304: p99 <= 5e-7, rate >= 0.8 x single's
#             and sweeps of the tunings of double (N = 262144) and mixed
#             (N = 1048576) for the picker (NB_TUNE), the lesson kernel and
#             single beside them
#   suites    tests/run_step04_tuned (conformance, gpu all-pairs, tuned,
#             precision) and step01's precision suite
#   tables    scripts/tables/precision_table.sh (table5: every code and N, the
#             energy drift) into $OUT/results  (~4-5 min)
#   drift     scripts/tables/drift.sh with the GPU variants into $OUT/results (~2 min;
#             no gnuplot on the host: the figure is drawn later, from the
#             CSVs, by make plots or scripts/tables/drift.sh --plot DIR)
#   mutants   the GPU mutants of the precision lesson (tests/mutants/step04tuned_*
#             double and mixed: each must lose points)  (~4 min)
# Logs in $OUT (default /tmp/gpu_precision_check); the summary at the end
# lists every PASS, FAIL and TARGET line.  CUnit: the system's,
# CUNIT_PREFIX=DIR/usr, or .carry/debs/*.deb unpacked.  ARCH (sm_90), JOBS.
# Exit: 0 every check and target passed, 1 some failed, 2 cannot build,
# 77 no usable GPU.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
OUT=${OUT:-/tmp/gpu_precision_check}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-$(nproc)}
PHASES=${*:-build targets suites}
SAMPLE_FP64_GIPS=675          # NVIDIA nbody -fp64, H100, N = 262144 (the issue's figure)
t0=$(date +%s)
pass=0 fail=0
summary=()
ok()  { pass=$((pass + 1)); summary+=("PASS    $*"); echo "PASS    $*"; }
bad() { fail=$((fail + 1)); summary+=("FAIL    $*"); echo "FAIL    $*"; }
target() {  # met(0|1) text
  if [ "$1" = 1 ]; then pass=$((pass + 1)); summary+=("TARGET  met: $2"); echo "TARGET  met: $2"
  else fail=$((fail + 1)); summary+=("TARGET  MISSED: $2"); echo "TARGET  MISSED: $2"; fi
}
finish() {
  echo
  echo "== gpu_precision_check summary ($(( $(date +%s) - t0 )) s; phases: $PHASES; logs in $OUT)"
  printf '%s\n' "${summary[@]}"
  echo "gpu_precision_check: $pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit $?
}
has() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv 2>&1 | tee "$OUT/gpu.txt"
nvcc --version 2>&1 | tail -2 | tee -a "$OUT/gpu.txt"

. scripts/setup/carry_debs.sh
carry_cunit
cu=()
[ -n "${CUNIT_PREFIX:-}" ] && cu=(CUNIT_PREFIX="$CUNIT_PREFIX")

if has build; then
  echo "== build (ARCH=$ARCH)"
  if make -j"$JOBS" ARCH="$ARCH" "${cu[@]}" -C step01_cpu > "$OUT/build.log" 2>&1 &&
     make -j"$JOBS" ARCH="$ARCH" "${cu[@]}" -C step01_cpu/precision >> "$OUT/build.log" 2>&1 &&
     make -j"$JOBS" ARCH="$ARCH" "${cu[@]}" -C step04_shared/tuned >> "$OUT/build.log" 2>&1 &&
     make -j"$JOBS" ARCH="$ARCH" "${cu[@]}" -C tests run_step04_tuned run_step01_cpu >> "$OUT/build.log" 2>&1; then
    ok "step01, step04 (lesson, tuned) and their runners build ($(grep -ci 'warning' "$OUT/build.log") warning lines)"
  else
    tail -30 "$OUT/build.log"; bad "build"; finish
  fi
fi
T=step04_shared/tuned/nbody_tuned
L=step04_shared/nbody
[ -x "$T" ] || { echo "gpu_precision_check: $T is not built (phase build)"; exit 2; }
"$T" -n 64 -s 1 > "$OUT/probe.txt" 2>&1
rc=$?
[ "$rc" != 77 ] || { cat "$OUT/probe.txt"; echo "gpu_precision_check: no usable GPU"; exit 77; }

# run LOGNAME ENV... -- PROGRAM ARGS...: the program's output into $OUT/LOGNAME.txt
run() {
  local name=$1; shift
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  { echo "\$ ${envs[*]} $*"; env "${envs[@]}" timeout 300 "$@"; echo "[exit $?]"; } > "$OUT/$name.txt" 2>&1
}
get() { sed -n "s/$2/\\1/p" "$OUT/$1.txt" | head -1; }             # LOGNAME SED-REGEX-WITH-GROUP
rate() { get "$1" '.*interactions\/step, \([0-9.e+]*\) G interactions\/s.*'; }
p99() { get "$1" '.*check: .*p99 \([0-9.e+-]*\), max.*'; }
fge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b + 0) }' && echo 1 || echo 0; }
fle() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }' && echo 1 || echo 0; }

if has targets; then
  echo "== targets"
  # 1. double at N = 262144 against NVIDIA's nbody -fp64
  run double_262144 -- "$T" -n 262144 -s 5 --warmup 1 --bench --precision double
  run double_262144_check -- "$T" -n 262144 -s 0 --check --precision double
  rd=$(rate double_262144)
  grep -E "force|rate|tuning" "$OUT/double_262144.txt"; grep check "$OUT/double_262144_check.txt"
  ref=$SAMPLE_FP64_GIPS refwhat="NVIDIA nbody -fp64 on an H100, the issue's figure (not run here)"
  if [ -n "${NBODY_SAMPLE:-}" ] && [ -x "$NBODY_SAMPLE" ]; then
    run sample_fp64 -- "$NBODY_SAMPLE" -benchmark -fp64 -numbodies=262144 -iterations=10
    s=$(sed -n 's/.*= *\([0-9.]*\) billion interactions per second.*/\1/p' "$OUT/sample_fp64.txt" | head -1)
    if [ -n "$s" ]; then ref=$s refwhat="NVIDIA nbody -fp64, this run"; fi
    cat "$OUT/sample_fp64.txt" | tail -5
  fi
  target "$(fge "$rd" "$(awk -v r="$ref" 'BEGIN { print 1.3 * r }')")" \
    "double, N = 262144: $rd G interactions/s = $(awk -v a="$rd" -v r="$ref" 'BEGIN { printf "%.2f", a / r }')x $ref G ($refwhat); target >= 1.3x"
  target "$(fle "$(p99 double_262144_check)" 1e-10)" "double, N = 262144: --check p99 $(p99 double_262144_check) (the double tolerance: max <= 1e-10)"
  for tune in newton=1,block=128,r=2 newton=1,block=256,r=2 newton=1,block=256,r=4 newton=1,block=512,r=2 \
              newton=1,block=128,r=4 newton=0; do
    run "double_262144_$tune" NB_TUNE="$tune" -- "$T" -n 262144 -s 3 --warmup 1 --bench --precision double
    echo "sweep double N=262144 NB_TUNE=$tune: $(rate "double_262144_$tune") G interactions/s"
  done
  # 2. mixed on the offset clusters
  for p in single mixed double; do run "clusters_$p" -- "$T" -n 30000 --ic clusters -s 0 --check --precision "$p"; done
  run clusters_lesson -- "$L" -n 30000 --ic clusters -s 0 --check
  for p in lesson single mixed double; do echo "offset clusters, $p: $(grep 'check:' "$OUT/clusters_$p.txt")"; done
  target "$(fle "$(p99 clusters_mixed)" 1e-6)" "mixed, offset clusters (N = 30000): p99 $(p99 clusters_mixed) (lesson $(p99 clusters_lesson), tuned single $(p99 clusters_single)); target <= 1e-6"
  # 3. mixed at N = 4M: accuracy and rate against single
  run mixed_4M_check -- "$T" -n 4194304 -s 0 --check --precision mixed
  run mixed_4M -- "$T" -n 4194304 -s 1 --warmup 0 --bench --precision mixed
  run single_4M -- "$T" -n 4194304 -s 1 --warmup 0 --bench --precision single
  rm_=$(rate mixed_4M) rs=$(rate single_4M)
  grep -E "check|tuning" "$OUT/mixed_4M_check.txt"; grep -E "force|rate|tuning" "$OUT/mixed_4M.txt" "$OUT/single_4M.txt"
  target "$(fle "$(p99 mixed_4M_check)" 5e-7)" "mixed, N = 4194304: p99 $(p99 mixed_4M_check); target <= 5e-7"
  target "$(fge "$(awk -v a="$rm_" -v b="$rs" 'BEGIN { if (b > 0) print a / b }')" 0.8)" \
    "mixed, N = 4194304: $rm_ G interactions/s = $(awk -v a="$rm_" -v b="$rs" 'BEGIN { if (b > 0) printf "%.3f", a / b }')x single's $rs G (same run); target >= 0.8x"
  # the picker's choice for mixed at 1M, against the other tunings and single
  run single_1M -- "$T" -n 1048576 -s 2 --warmup 1 --bench --precision single
  echo "single N=1M (picked): $(rate single_1M) G interactions/s"
  for tune in "" newton=1,block=256,r=4 newton=1,block=512,r=4 newton=1,block=256,r=2 newton=1,block=512,r=2 \
              newton=1,block=128,r=4; do
    run "mixed_1M_${tune:-picked}" ${tune:+NB_TUNE=$tune} -- "$T" -n 1048576 -s 2 --warmup 1 --bench --precision mixed
    echo "sweep mixed N=1M ${tune:-(picked)}: $(rate "mixed_1M_${tune:-picked}") G interactions/s ($(awk -v a="$(rate "mixed_1M_${tune:-picked}")" -v b="$(rate single_1M)" 'BEGIN { if (b > 0) printf "%.3f", a / b }')x single)"
  done
fi

if has suites; then
  echo "== suites"
  (cd tests && NB_TEST_TIMEOUT=300 timeout 900 ./run_step04_tuned) > "$OUT/run_step04_tuned.log" 2>&1
  rc=$?
  grep -E '^  (FAIL|SKIP)' "$OUT/run_step04_tuned.log" | head -20
  line=$(grep -E '^step04_tuned: [0-9]+ passed' "$OUT/run_step04_tuned.log" | tail -1)
  [ "$rc" = 0 ] && ok "tests/run_step04_tuned: $line" || bad "tests/run_step04_tuned (exit $rc): $line"
  grep -E '^  (PASS|FAIL)   .*(precision|double|mixed)' "$OUT/run_step04_tuned.log"
  (cd tests && timeout 600 ./run_step01_cpu precision) > "$OUT/run_step01_precision.log" 2>&1
  rc=$?
  line=$(grep -E '^step01_cpu: [0-9]+ passed' "$OUT/run_step01_precision.log" | tail -1)
  [ "$rc" = 0 ] && ok "tests/run_step01_cpu precision: $line" || bad "tests/run_step01_cpu precision (exit $rc): $line"
fi

if has tables; then
  echo "== tables"
  if RESULTS_DIR="$OUT/results" timeout 900 bash scripts/tables/precision_table.sh > "$OUT/precision_table.log" 2>&1; then
    ok "scripts/tables/precision_table.sh: $OUT/results/table5_precision.md, table5_energy.md"
    cat "$OUT/results/table5_precision.md" "$OUT/results/table5_energy.md"
  else tail -5 "$OUT/precision_table.log"; bad "scripts/tables/precision_table.sh"; fi
  codes=$(awk -F, 'NR > 1 && $7 != "" && !s[$4]++ { printf "%s ", $4 }' "$OUT/results/table5_precision.csv" 2>/dev/null)
  [ -z "$codes" ] || gnuplot -e "t5='$OUT/results/table5_precision.csv'; out='$OUT/results/precision.png'; fmt='png'; codes='$codes'; sub='$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)'" \
    scripts/tables/precision.gp 2>> "$OUT/precision_table.log" || true
fi

if has drift; then
  echo "== drift"
  if RESULTS_DIR="$OUT/results" timeout 900 bash scripts/tables/drift.sh > "$OUT/drift.log" 2>&1; then
    ok "scripts/tables/drift.sh: $OUT/results/drift.md$([ -f "$OUT/results/drift.png" ] && echo ", drift.png")"
    cat "$OUT/results/drift.md"
  else tail -5 "$OUT/drift.log"; bad "scripts/tables/drift.sh"; fi
fi

if has mutants; then
  echo "== mutants"
  MUTANTS=gpu MUTANT='step04tuned_*[dm][oi][ux]*' MUTANTS_REQUIRE_GPU=1 ARCH="$ARCH" "${cu[@]}" \
    timeout 1200 bash scripts/grade/mutants.sh > "$OUT/mutants.log" 2>&1
  rc=$?
  grep -E 'KILLED|SURVIVED|STALE|BUILD-FAILED|TIMED-OUT|^mutants:' "$OUT/mutants.log"
  [ "$rc" = 0 ] && ok "the precision mutants of the tuned build are killed" || bad "mutants (exit $rc)"
fi
finish
