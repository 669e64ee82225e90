#!/usr/bin/env bash
# scripts/gpu/gpu_check_step06.sh -- step06_multigpu on a GPU host, in one run
# of under two minutes (one GPU is enough; more are used by the P = all runs):
#   1. build step06 (and step05, which it links) and its test runner
#   2. tests/run_step06_multigpu: conformance at P = 1 and P = all, step06's suite
#   3. step06_multigpu/nbody --gpus 1 --check
#   4. P = 1 against step05, body for body: both --save files must be the same
#      bytes (9 significant digits: equal text is equal float bits), and
#      P = all against step05 the same way
#   5. compute-sanitizer memcheck on a small N, at P = 1 and P = 2
#   6. the refusals: --gpus past the GPUs present (exit 2), a failing GPU (exit 3)
#   7. --bench at N = 1M beside step05 (the per-GPU split)
# and prints a short summary.  Logs in $OUT (default /tmp/gpu_check_step06).
# CUnit: the system's, CUNIT_PREFIX=DIR/usr, or .carry/debs/*.deb unpacked
# (as scripts/gpu/gpu_session.sh).  ARCH (sm_90), JOBS (nproc).
# Exit: 0 every check passed, 1 some failed, 2 cannot build (no NCCL, ...),
# 77 no usable GPU here.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
OUT=${OUT:-/tmp/gpu_check_step06}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
JOBS=${JOBS:-$(nproc)}
t0=$(date +%s)
pass=0 fail=0
summary=()
ok()  { pass=$((pass + 1)); summary+=("PASS  $*"); echo "PASS  $*"; }
bad() { fail=$((fail + 1)); summary+=("FAIL  $*"); echo "FAIL  $*"; }
finish() {
  echo
  echo "== gpu_check_step06 summary ($(( $(date +%s) - t0 )) s; logs in $OUT)"
  printf '%s\n' "${summary[@]}"
  echo "gpu_check_step06: $pass passed, $fail failed"
  [ "$fail" = 0 ]
  exit $?
}

echo "== machine"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1 | tee "$OUT/gpu.txt"
if ! nccl=$(scripts/setup/find_nccl.sh 2>&1); then
  echo "gpu_check_step06: NCCL not found: $nccl"; bad "NCCL found (make NCCL_HOME=DIR)"; finish
fi
echo "NCCL: $nccl"

. scripts/setup/carry_debs.sh
carry_cunit
cu=()
[ -n "${CUNIT_PREFIX:-}" ] && cu=(CUNIT_PREFIX="$CUNIT_PREFIX")

echo "== build (ARCH=$ARCH)"
if make -j"$JOBS" ARCH="$ARCH" -C step05_barneshut > "$OUT/build.log" 2>&1 &&
   make -j"$JOBS" ARCH="$ARCH" -C step06_multigpu >> "$OUT/build.log" 2>&1; then
  ok "step05 and step06 build ($(grep -ci 'warning' "$OUT/build.log") warnings)"
else
  tail -20 "$OUT/build.log"; bad "step05 and step06 build"; finish
fi
runner=0
if make ARCH="$ARCH" "${cu[@]}" -C tests run_step06_multigpu >> "$OUT/build.log" 2>&1; then
  runner=1
else
  tail -5 "$OUT/build.log"; bad "tests/run_step06_multigpu builds (CUnit? CUNIT_PREFIX=DIR/usr or .carry/debs)"
fi

B6=step06_multigpu/nbody B5=step05_barneshut/nbody
why=$($B6 -n 64 -s 0 2>&1 >/dev/null); rc=$?
if [ $rc = 77 ]; then echo "gpu_check_step06: no usable GPU here: $why"; exit 77; fi

if [ $runner = 1 ]; then
  echo "== tests/run_step06_multigpu"
  (cd tests && NB_TEST_TIMEOUT=60 timeout 480 ./run_step06_multigpu) > "$OUT/tests.log" 2>&1
  rc=$?
  grep -vE '^  PASS' "$OUT/tests.log" | tail -25
  line=$(grep -E '^step06_multigpu: [0-9]+ passed' "$OUT/tests.log" | tail -1)
  if [ $rc = 0 ] && echo "$line" | grep -q ' 0 failed, 0 skipped'; then ok "runner: $line"
  else bad "runner (exit $rc): ${line:-no summary line}"; fi
fi

echo "== --gpus 1 --check"
if timeout 60 $B6 -n 100000 -s 5 --gpus 1 --check > "$OUT/check.log" 2>&1 && grep -q -- '-> PASS' "$OUT/check.log"; then
  ok "--gpus 1 --check: $(grep 'check:' "$OUT/check.log" | sed 's/^ *//')"
else
  tail -3 "$OUT/check.log"; bad "--gpus 1 --check (N = 100000, 5 steps)"
fi

echo "== P = 1 and P = all against step05, body for body (--save)"
n=30011
if timeout 60 $B5 -n $n -s 10 --save "$OUT/s05.txt" > "$OUT/s05.log" 2>&1; then
  for p in 1 all; do
    g=(); [ $p = 1 ] && g=(--gpus 1)
    if timeout 60 $B6 -n $n -s 10 "${g[@]}" --save "$OUT/s06_$p.txt" > "$OUT/s06_$p.log" 2>&1 &&
       cmp -s "$OUT/s05.txt" "$OUT/s06_$p.txt"; then
      ok "P = $p: the state after 10 steps equals step05's byte for byte (N = $n)"
    else
      tail -2 "$OUT/s06_$p.log"; cmp "$OUT/s05.txt" "$OUT/s06_$p.txt" 2>&1 | head -2
      bad "P = $p equals step05 body for body"
    fi
  done
else
  tail -2 "$OUT/s05.log"; bad "step05 --save run"
fi

echo "== compute-sanitizer memcheck"
cs=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
if [ -x "$cs" ]; then
  # --report-api-errors no: NCCL probes its own kernels with
  # cudaFuncGetAttributes and gets cudaErrorNoKernelImageForDevice for the
  # architectures it was not built for (4 reports inside libnccl.so.2, none
  # of them a memory access); step06 checks every CUDA call it makes itself
  # and exits 3 on an error, which fails this stage through rc.
  # P = 1, and P = 2 where the host has two GPUs or more.
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  ps=(1); [ "$ngpu" -ge 2 ] && ps+=(2)
  for p in "${ps[@]}"; do
    timeout 120 "$cs" --tool memcheck --report-api-errors no --leak-check full --error-exitcode 1 \
      $B6 -n 2001 -s 2 --gpus "$p" --check \
      > "$OUT/memcheck_p$p.log" 2>&1; rc=$?
    s=$(grep -E 'ERROR SUMMARY' "$OUT/memcheck_p$p.log" | tail -1)
    if [ $rc = 0 ]; then ok "memcheck N = 2001, P = $p: ${s:-no summary}"
    else grep -E '^=========' "$OUT/memcheck_p$p.log" | head -15; bad "memcheck P = $p (exit $rc): ${s:-no summary}"; fi
  done
else
  bad "compute-sanitizer not found"
fi

echo "== refusals"
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then count=$(echo "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
else count=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); fi
err=$(timeout 60 $B6 -n 1000 -s 1 --gpus $((count + 1)) 2>&1 >/dev/null); rc=$?
if [ $rc = 2 ] && echo "$err" | grep -q "only $count GPU"; then ok "--gpus $((count + 1)): exit 2: $err"
else bad "--gpus $((count + 1)): exit $rc (expected 2 naming $count GPUs): $err"; fi
err=$(NB_FAKE_GPU_FAIL=$((count - 1)) timeout 60 $B6 -n 5000 -s 3 2>&1 >/dev/null); rc=$?
if [ $rc = 3 ] && echo "$err" | grep -q "GPU $((count - 1)):"; then ok "a failing GPU: exit 3, no hang: $err"
else bad "a failing GPU (NB_FAKE_GPU_FAIL=$((count - 1))): exit $rc (expected 3; 124: it hung): $err"; fi

echo "== --bench at N = 1M"
timeout 60 $B5 -n 1000000 -s 3 --bench > "$OUT/bench05_1M.log" 2>&1
timeout 60 $B6 -n 1000000 -s 3 --bench > "$OUT/bench06_1M.log" 2>&1; rc=$?
grep -E 'step   median|kernels' "$OUT/bench05_1M.log" | sed 's/^/  step05: /'
grep -E 'device|step   median|force  median|GPUs:|GPU [0-9]+:|bytes received|memory per GPU' "$OUT/bench06_1M.log" | sed 's/^/  step06: /'
if [ $rc = 0 ]; then ok "--bench N = 1M: step06 $(grep 'step   median' "$OUT/bench06_1M.log" | awk '{print $3}') ms/step, step05 $(grep 'step   median' "$OUT/bench05_1M.log" | awk '{print $3}') ms/step"
else tail -2 "$OUT/bench06_1M.log"; bad "--bench N = 1M (exit $rc)"; fi

if [ -x step06_multigpu/nbody_mpi ] && command -v mpirun >/dev/null 2>&1; then
  echo "== MPI launch (1 rank)"
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout 60 mpirun -np 1 step06_multigpu/nbody_mpi -n 20000 -s 3 --check > "$OUT/mpi.log" 2>&1; rc=$?
  if [ $rc = 0 ] && grep -q -- '-> PASS' "$OUT/mpi.log"; then ok "mpirun -np 1 nbody_mpi --check"
  else tail -3 "$OUT/mpi.log"; bad "mpirun -np 1 nbody_mpi --check (exit $rc)"; fi
fi
finish
