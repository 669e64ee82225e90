#!/usr/bin/env bash
# scripts/gpu/sanitize.sh STEP... -- (STEP: a folder, or folder/program such as
# step04_shared/tuned/nbody_tuned) compute-sanitizer (SANITIZE_TOOLS: a subset) (memcheck with leak check,
# racecheck, synccheck, initcheck) on every kernel of each GPU step, at a
# small N that is not a multiple of the block size.  Prints each tool's
# ERROR SUMMARY; exit 1 if any tool reported an error, 77 without a GPU.
set -uo pipefail
cs=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[ -x "$cs" ] || { echo "sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2; exit 2; }
n=${N:-1000}
status=0
for s in "$@"; do
  case $s in */*) bin=$s ;; *) bin=$s/nbody ;; esac
  [ -x "$bin" ] || { echo "sanitize: $bin is not built" >&2; status=1; continue; }
  extra=()
  [ "$s" = step05_barneshut ] && extra=(--theta 0.5)
  "$bin" -n 10 -s 0 >/dev/null 2>&1; rc=$?
  if [ $rc = 77 ]; then echo "sanitize: $s skipped: no usable CUDA device"; [ $status = 0 ] && status=77; continue; fi
  # a block size the kernels do not divide N by, where the program takes --block
  # (step05's tuned build sizes its own blocks: it refuses the option, exit 2)
  "$bin" -n 10 -s 0 --block 96 >/dev/null 2>&1; rc=$?
  [ $rc = 2 ] || extra+=(--block 96)
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    opts=(--tool "$tool" --error-exitcode 1)
    [ "$tool" = memcheck ] && opts+=(--leak-check full)
    [ "$tool" = racecheck ] && opts+=(--racecheck-report all)
    # NCCL (step06): its setup's CUDA API errors (peer access already
    # enabled, its probes of kernel images) are its own, and its kernels poll
    # their receive lines before they are written (initcheck); the kernels
    # are left out of initcheck, and a buffer only NCCL writes must then be
    # initialized by the program (step06's are, at allocation)
    case $s in step06*)
      opts+=(--report-api-errors no)
      [ "$tool" = initcheck ] && opts+=(--kernel-name-exclude kns=nccl) ;;
    esac
    log=$(mktemp)
    "$cs" "${opts[@]}" "$bin" -n "$n" -s 2 --check "${extra[@]}" >"$log" 2>&1; rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    printf '%-18s %-10s exit %d  %s\n' "$s" "$tool" "$rc" "${summary:-no summary}"
    if [ $rc != 0 ]; then status=1; grep -E "^=========" "$log" | head -30; fi
    rm -f "$log"
  done
done
exit $status
