#!/usr/bin/env bash
# tests/no_nvcc_test.sh -- the kit on a laptop without the CUDA toolkit (run
# by .ci/run; a few minutes, more with CHECK_ALL=1).  A copy of this tree's
# files (a git checkout of its own) is built with
# nvcc hidden (CUDA_HOME=/nonexistent, every folder of PATH that holds an
# nvcc left out of PATH) and must:
#   - `make`: exit 0, build step01_cpu and its exercise, and say one line
#     "make: <step> ... left out: no CUDA compiler (nvcc) found ..." for
#     each step with CUDA code (a .cu file in its folder), no more, and no
#     raw compiler failure ("nvcc: No such file", "Error 127");
#   - step01_cpu/nbody -n 200 -s 2 --check: exit 0;
#   - `make run`: exit 0, step01 run and checked, each left-out runner a line;
#   - with CHECK_ALL=1 (minutes more) `make check-all` too: the left-out
#     runners' rows SKIPPED with the reason, never passed, and the step01
#     runner graded.
# Environment: KEEP_TMP=1 keeps the copy; JOBS (2).
# Exit 0 when every check passed, 1 otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbody-no-nvcc.XXXXXX") || exit 1
[ "${KEEP_TMP:-0}" = 1 ] && echo "no_nvcc_test: keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
jobs=${JOBS:-2}
checks=0 failed=0
check() { local what=$1; shift; checks=$((checks + 1))
          if "$@"; then printf 'ok   %s\n' "$what"; else failed=$((failed + 1)); printf 'FAIL %s\n' "$what"; fi; }
finish() { echo; echo "no_nvcc_test: $([ $failed = 0 ] && echo PASS || echo FAIL) ($failed of $checks checks failed)"
           [ $failed = 0 ]; exit $?; }

# ---- the copy: the tree's files (tracked, as they are in the working tree) ----
kit=$tmp/kit
mkdir -p "$kit"
(cd "$top" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$kit" ||
  { echo "no_nvcc_test: cannot copy the tree"; exit 1; }
# a git checkout of its own, as a clone is (the kit's checks read the tracked files)
(cd "$kit" && git init -q && git add -A && git -c user.name=no-nvcc -c user.email=no-nvcc@localhost \
   commit -qm "the tree, copied" --no-verify) || { echo "no_nvcc_test: cannot make the copy a git checkout"; exit 1; }
# PATH without nvcc
path=""
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do [ -n "$d" ] && [ ! -x "$d/nvcc" ] && path=${path:+$path:}$d; done
hide=(env PATH="$path" CUDA_HOME=/nonexistent)
check "nvcc is hidden (PATH without it, CUDA_HOME=/nonexistent)" \
  bash -c '! PATH="$1" command -v nvcc >/dev/null' _ "$path"
# the steps with CUDA code: each must be said left out, once
gpu_steps=()
for s in "$kit"/step0*/; do s=${s%/}; s=${s##*/}; ls "$kit/$s"/*.cu >/dev/null 2>&1 && gpu_steps+=("$s"); done

# ---- make ----
rc=0
"${hide[@]}" make -C "$kit" -j"$jobs" > "$tmp/make.log" 2>&1 || rc=$?
grep -E 'left out|error|Error' "$tmp/make.log" | sed 's/^/     /'
check "make exits 0 without nvcc (got $rc)" test "$rc" = 0
check "no raw nvcc failure in make's output" bash -c '! grep -qE "nvcc: No such file|Error 127" "$1"' _ "$tmp/make.log"
for s in "${gpu_steps[@]}"; do
  check "make: one line says $s left out, no nvcc, and what to do" \
    test "$(grep -cE "^make: $s( and [^ ]+)* left out: no CUDA compiler \(nvcc\) found .*install the CUDA toolkit or set CUDA_HOME" "$tmp/make.log")" = 1
done
check "make: no other 'left out' line for a step (${#gpu_steps[@]} steps)" \
  test "$(grep -c '^make: step.* left out' "$tmp/make.log")" = "${#gpu_steps[@]}"
check "step05_barneshut's line says why its --cpu code is left out too" \
  grep -q '^make: step05_barneshut.* left out: .*--cpu' "$tmp/make.log"
check "step01_cpu/nbody and its exercise step01_cpu/precision/nbody built" \
  test -x "$kit/step01_cpu/nbody" -a -x "$kit/step01_cpu/precision/nbody"
rc=0
(cd "$kit" && "${hide[@]}" timeout 300 step01_cpu/nbody -n 200 -s 2 --check > "$tmp/run01.out" 2> "$tmp/run01.err") || rc=$?
check "step01_cpu/nbody -n 200 -s 2 --check exits 0 (got $rc)" test "$rc" = 0

# ---- make run ----
rc=0
"${hide[@]}" N=512 STEPS_RUN=2 make -C "$kit" run > "$tmp/run.log" 2>&1 || rc=$?
check "make run exits 0 without nvcc (got $rc)" test "$rc" = 0
check "make run: step01_cpu ran and passed its check" grep -q '^| step01_cpu/nbody | 512 | .* | PASS' "$tmp/run.log"
check "make run: step02_naive said left out, once, with the reason" \
  test "$(grep -c 'step02_naive.* left out.*no CUDA compiler (nvcc) found' "$tmp/run.log")" = 1

# ---- make check-all (CHECK_ALL=1) ----
if [ "${CHECK_ALL:-0}" = 1 ]; then
  rc=0
  "${hide[@]}" make -C "$kit" check-all > "$tmp/check.log" 2>&1 || rc=$?
  sed -n '/^== grade ==/,$p' "$tmp/check.log"
  check "make check-all exits 0 without nvcc (got $rc)" test "$rc" = 0
  for s in "${gpu_steps[@]}"; do
    check "check-all: $s's row all SKIPPED (0 passed, 0 failed), NOT GRADED: left out: no CUDA compiler" \
      grep -qE "^$s +0 +0 +[1-9][0-9]* .*NOT GRADED: [0-9]+ points \(left out: no CUDA compiler \(nvcc\) found" "$tmp/check.log"
  done
  check "check-all: step01_cpu graded (no test skipped)" grep -qE '^step01_cpu +[1-9][0-9]* +0 +0 ' "$tmp/check.log"
  check "check-all: at most 60 lines ($(wc -l < "$tmp/check.log"))" test "$(wc -l < "$tmp/check.log")" -le 60
fi
finish
