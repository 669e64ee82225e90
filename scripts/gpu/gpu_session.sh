#!/usr/bin/env bash
# scripts/gpu/gpu_session.sh -- everything the kit checks and measures on a GPU
# host, in one run, logs in $OUT (default ./gpu-logs), packed at the end into
# $OUT/session.tgz (a lent GPU machine returns a few files only).
#
#   PHASES="build check sanitize step06 profile mutants"   (the default)
#   PHASES="build bench tables cpuscale"                   (timings: run alone)
#
#   build     make ARCH=sm_90 all, every test runner, tests/tune_step04
#   tuned     only step04 and its tuned runner, built and run (the quick
#             loop while working on tuned.cu), and the SASS of its kernels
#   check     make check-all (runners 8 at a time), and beside it:
#   sanitize  scripts/gpu/sanitize.sh on every GPU program, one process each
#             (SANITIZE_TOOLS, default synccheck initcheck: memcheck and
#             racecheck are graded tests of the runners)
#   step06    scripts/gpu/gpu_check_step06.sh (when step06 exists)
#   tune      tests/tune_step04 (every tuning of step04's tuned build, the
#             default N list or TUNE_N), CSV in tune.csv
#   bign      the tuned build at BIGN_N (default 4194304): the picker's
#             choice and NB_TUNE=newton=0, one timed step each
#   profile   Nsight Compute on step04 (lesson and tuned) at N = 4096, and on
#             the tuned build at PROFILE_BIG_N (default "65536 1048576")
#   mutants   MUTANTS=gpu make mutants (the GPU mutants), log in mutants_gpu.log
#   bench     make bench;  tables: make tables (TABLES_BUDGET_S, default 240)
#   cpuscale  scripts/tables/cpu_tree_scaling.sh (step05 --cpu, 1..all threads;
#             CPUSCALE_THREADS="1 16" picks the counts: THREADS is make tables')
#   cpuwidth  step05 --cpu at N = 1M on all cores, its force loop built with
#             and without 512-bit vectors (FORCE_VECTOR_WIDTH)
#
#   kit       the blank student kit (carried as dist/: make student-kit on
#             the instructor's clone, then carry dist), make check-all in
#             it: the score a student gets before writing a line
#
# CUnit comes from .carry/debs when it is not installed, GL and --serve (their
# tests in check-all) from .carry/gl and .carry/serve when carried (the GPU
# hosts of the course have no network): scripts/setup/carry_debs.sh says which
# packages, e.g.
#   here:  mkdir -p .carry/debs && (cd .carry/debs && apt-get download libcunit1 libcunit1-dev)
# A host that is sent the working tree may hold a stale .git: pass the commit
# sent, NB_COMMIT=$(git rev-parse --short HEAD), for the results' stamps.
# Each phase has a time limit (PHASE_TIMEOUT_S, 240 s) so a hang still leaves
# its log.  Exit 0 always; the summary at the end says what failed.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-logs}; LOG=$OUT/logs; mkdir -p "$LOG"
PHASES=${PHASES:-"build check sanitize step06 profile mutants"}
TMO=${PHASE_TIMEOUT_S:-240}
J=$(nproc)
T0=$(date +%s)
ts() { echo "[$(( $(date +%s) - T0 )) s] $*"; }
has() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
. scripts/setup/carry_debs.sh
carry_cunit > "$LOG/carry.txt"; cat "$LOG/carry.txt"
cu=()
[ -n "${CUNIT_PREFIX:-}" ] && cu=(CUNIT_PREFIX="$CUNIT_PREFIX")
# the GL view and --serve (their tests in check-all): the carried packages
gl=()
if ls .carry/gl/*.deb >/dev/null 2>&1; then
  srv=; ls .carry/serve/*.deb >/dev/null 2>&1 && srv=serve
  carry_gl $srv >>"$LOG/carry.txt" 2>&1 && gl=(GL_PREFIX=/tmp/gl/usr)
  tail -n +2 "$LOG/carry.txt"
fi
mk=(make ARCH="${ARCH:-sm_90}" "${cu[@]}" "${gl[@]}")
export ARCH=${ARCH:-sm_90}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$LOG/gpu.txt"
summary=()
# the archive is refreshed after every phase: a run cut short still returns it
note() { summary+=("$*"); ts "$*"; tar czf "$OUT/session.tgz" -C "$OUT" logs 2>/dev/null; }

if has build; then
  ts build
  if ( time "${mk[@]}" -j"$J" all ) >"$LOG/build.log" 2>&1 &&
     "${mk[@]}" -j"$J" -C tests tune_step04 >>"$LOG/build.log" 2>&1; then
    note "build ok, $(grep -ci 'warning' "$LOG/build.log") warning lines"
  else
    tail -30 "$LOG/build.log"; note "BUILD FAILED"
  fi
fi
if has tuned; then
  ts tuned
  if "${mk[@]}" -j"$J" -C step04_shared/tuned >"$LOG/tuned_build.log" 2>&1 &&
     "${mk[@]}" -j"$J" -C tests run_step04_tuned tune_step04 >>"$LOG/tuned_build.log" 2>&1; then
    note "tuned build ok, $(grep -ci 'warning' "$LOG/tuned_build.log") warning lines"
    (cd tests && NB_TEST_TIMEOUT=300 timeout $((TMO * 2)) ./run_step04_tuned) >"$LOG/run_step04_tuned.log" 2>&1
    note "run_step04_tuned exit $?: $(grep -E '^step04_tuned: [0-9]+ passed' "$LOG/run_step04_tuned.log" | tail -1)"
    grep -E '^  (FAIL|PASS)' "$LOG/run_step04_tuned.log" | grep -E 'FAIL|tuned/' | head -20
    cuobjdump -sass step04_shared/tuned/tuned.o > "$LOG/tuned.sass" 2>&1 || true
  else
    tail -30 "$LOG/tuned_build.log"; note "TUNED BUILD FAILED"
  fi
fi
if has check; then
  # check-all (runners 8 at a time), beside it the sanitizers the runners do
  # not run themselves (synccheck, initcheck; memcheck and racecheck are
  # graded tests) and step06's check; all on the one GPU
  ts "check-all + sanitize + step06"
  (NB_CHECK_JOBS=8 timeout $((TMO * 2)) "${mk[@]}" check-all >"$LOG/check-all.log" 2>&1; echo "exit $?" >>"$LOG/check-all.log") &
  if has sanitize; then
    progs="step02_naive step03_float4 step04_shared step04_shared/tuned/nbody_tuned step05_barneshut"
    [ -x step06_multigpu/nbody ] && progs="$progs step06_multigpu"
    for p in $progs; do
      f=$LOG/sanitize_$(echo "$p" | tr / _).log
      (N=1000 SANITIZE_TOOLS="${SANITIZE_TOOLS:-synccheck initcheck}" timeout "$TMO" scripts/gpu/sanitize.sh "$p" >"$f" 2>&1; echo "exit $?" >>"$f") &
    done
  fi
  if has step06 && [ -x scripts/gpu/gpu_check_step06.sh ]; then
    (OUT="$LOG/step06" timeout "$TMO" scripts/gpu/gpu_check_step06.sh >"$LOG/step06.log" 2>&1; echo "exit $?" >>"$LOG/step06.log") &
  fi
  wait
  note "check-all $(tail -1 "$LOG/check-all.log"): $(grep '^check-all: ' "$LOG/check-all.log" | tail -1)"
  sed -n '/^== grade ==/,$p' "$LOG/check-all.log"
  grep -E '^  FAIL' "$LOG/check-all.log" | head -20
  cp tests/results/summary.json tests/results/gradescope.json "$LOG/" 2>/dev/null
  if has sanitize; then
    cat "$LOG"/sanitize_*.log > "$LOG/sanitize.log"
    grep -E 'memcheck|racecheck|synccheck|initcheck|^exit' "$LOG/sanitize.log"
    note "sanitize: $(grep -cE ' exit 0 ' "$LOG/sanitize.log") runs exit 0, $(grep -cE ' exit [1-9]' "$LOG/sanitize.log") failed"
  fi
  if [ -f "$LOG/step06.log" ]; then tail -25 "$LOG/step06.log"; note "step06 check $(tail -1 "$LOG/step06.log")"; fi
fi
if has kit; then
  ts kit
  if [ -f dist/.student_kit ]; then
    (cd dist && NB_CHECK_JOBS=8 timeout $((TMO * 2)) "${mk[@]}" check-all >"$LOG/kit_check-all.log" 2>&1
     echo "exit $?" >>"$LOG/kit_check-all.log")
    note "blank kit check-all $(tail -1 "$LOG/kit_check-all.log"): $(grep '^check-all: ' "$LOG/kit_check-all.log" | tail -1)"
    sed -n '/^== grade ==/,$p' "$LOG/kit_check-all.log" | grep -v '^exit'
  else
    note "kit: no dist/.student_kit (make student-kit here, then carry dist)"
  fi
fi
if has tune; then
  ts tune
  # shellcheck disable=SC2086
  timeout "$TMO" tests/tune_step04 ${TUNE_N:-} >"$LOG/tune.csv" 2>"$LOG/tune.err"; rc=$?
  note "tune exit $rc: $(grep -c . "$LOG/tune.csv") lines"
fi
if has bign; then
  ts bign
  for n in ${BIGN_N:-4194304}; do
    for tune in "" "newton=0"; do
      echo "== N=$n NB_TUNE=$tune" >>"$LOG/bign.log"
      NB_TUNE=$tune timeout "$TMO" step04_shared/tuned/nbody_tuned -n "$n" -s 1 --warmup 0 --bench --check \
        >>"$LOG/bign.log" 2>&1; echo "exit $?" >>"$LOG/bign.log"
    done
  done
  cat "$LOG/bign.log"; note "bign done"
fi
if has profile; then
  ts profile
  mkdir -p "$LOG/profile"
  PROFILE_N=4096 PROFILE_STEPS="step04_shared step04_shared/tuned/nbody_tuned" RESULTS_DIR="$LOG/profile" \
    timeout "$TMO" bash scripts/tables/profile.sh >"$LOG/profile.log" 2>&1; rc=$?
  note "profile N=4096 exit $rc"; tail -30 "$LOG/profile/profile.md" 2>/dev/null
  for n in ${PROFILE_BIG_N:-65536 1048576}; do
    mkdir -p "$LOG/profile_$n"
    PROFILE_N=$n PROFILE_STEPS="step04_shared/tuned/nbody_tuned" RESULTS_DIR="$LOG/profile_$n" \
      timeout "$TMO" bash scripts/tables/profile.sh >>"$LOG/profile.log" 2>&1; rc=$?
    note "profile tuned N=$n exit $rc"
    grep -E 'kernel duration|SM clock|issue slots|instructions per interaction' "$LOG/profile_$n/profile.md" 2>/dev/null
  done
fi
if has mutants && [ -x scripts/grade/mutants.sh ]; then
  ts mutants
  # the tree was just graded clean by check-all when the phase "check" ran
  skip=0; has check && grep -q '^check-all: .* 0 failed' "$LOG/check-all.log" 2>/dev/null && skip=1
  MUTANTS_COPY=all MUTANTS=gpu MUTANTS_REQUIRE_GPU=1 JOBS=${MUTANT_JOBS:-6} NB_TEST_TIMEOUT=60 \
    MUTANT_RUNNER_TIMEOUT=${MUTANT_RUNNER_TIMEOUT:-240} MUTANTS_SKIP_BASELINE=$skip \
    timeout $((TMO * 2)) "${mk[@]}" mutants >"$LOG/mutants_gpu.log" 2>&1; rc=$?
  tail -40 "$LOG/mutants_gpu.log"; note "GPU mutants exit $rc: $(grep '^mutants:' "$LOG/mutants_gpu.log" | tail -1)"
fi
if has bench; then
  ts bench
  BENCH_TARGET_S=${BENCH_TARGET_S:-0.5} timeout "$TMO" "${mk[@]}" bench >"$LOG/bench.md" 2>"$LOG/bench.err"; rc=$?
  cat "$LOG/bench.md"; note "bench exit $rc"
fi
if has tables; then
  ts tables
  TABLES_BUDGET_S=${TABLES_BUDGET_S:-240} SLUG=h100 timeout $((TMO * 2)) "${mk[@]}" tables >"$LOG/tables.log" 2>&1; rc=$?
  note "tables exit $rc"; tail -5 "$LOG/tables.log"
  tar czf "$OUT/results_h100.tgz" handouts/results/h100 2>/dev/null
fi
if has cpuscale && [ -x scripts/tables/cpu_tree_scaling.sh ]; then
  ts cpuscale
  THREADS="${CPUSCALE_THREADS:-}" timeout "$TMO" scripts/tables/cpu_tree_scaling.sh >"$LOG/cpu_tree_scaling.log" 2>&1; rc=$?
  cat "$LOG/cpu_tree_scaling.log"; note "cpu scaling exit $rc"
fi
if has cpuwidth; then
  # the CPU force loops' vector width: the tuned tree code (--cpu) at 1M on all cores,
  # built as configured (512-bit vectors where the CPU has AVX-512), then
  # with FORCE_VECTOR_WIDTH= (the compiler's own preference), then back
  ts cpuwidth
  w=$LOG/cpu_vector_width.log
  for fvw in default ""; do
    touch step05_barneshut/tuned/bh_cpu_eval.c
    if [ "$fvw" = default ]; then "${mk[@]}" -C step05_barneshut/tuned >/dev/null 2>&1
    else "${mk[@]}" -C step05_barneshut/tuned FORCE_VECTOR_WIDTH= >/dev/null 2>&1; fi
    echo "== FORCE_VECTOR_WIDTH=${fvw}" >>"$w"
    timeout "$TMO" step05_barneshut/tuned/nbody_tuned --cpu -n 1000000 -s 2 --warmup 0 --bench --threads "$J" 2>&1 |
      grep -E 'cpu |force|step |phases' >>"$w"
  done
  touch step05_barneshut/tuned/bh_cpu_eval.c; "${mk[@]}" -C step05_barneshut/tuned >/dev/null 2>&1
  cat "$w"; note "cpu vector width compared"
fi
tar czf "$OUT/session.tgz" -C "$OUT" logs
echo; echo "== summary"; printf '  %s\n' "${summary[@]}"
exit 0
