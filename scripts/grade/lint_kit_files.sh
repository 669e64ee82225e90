#!/usr/bin/env bash
# scripts/grade/lint_kit_files.sh [--check] -- `make lint-kit-files`: write
# scripts/grade/lint_kit_files.sha256, the kit's files that start NCCL and MPI
# in step06 ("start": they may read the environment, scripts/grade/student_lint.sh)
# and every file of the steps they read ("read"), each with its sha256, so
# that the lint knows them as the kit wrote them.  --check: exit 1, saying
# which, when the list is not the tree's (tests/suite_docs.c runs it).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/scripts/grade/lint_kit_files.sha256
start="step06_multigpu/mg_launch.c step06_multigpu/mg_bench.c step06_multigpu/mg_mpi.c step06_multigpu/main_mpi.c"
read="step06_multigpu/mg.h step06_multigpu/mg_launch.h step06_multigpu/mg_state.h
 step05_barneshut/bh_gpu.h step05_barneshut/bh_tree.h step05_barneshut/bh_tree_copy.h"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
{ for f in $start; do printf '%s  %s  start\n' "$(sha256sum < "$top/$f" | cut -c1-64)" "$f"; done
  for f in $read; do printf '%s  %s  read\n' "$(sha256sum < "$top/$f" | cut -c1-64)" "$f"; done; } > "$tmp"
if [ "${1:-}" = --check ]; then
  if ! cmp -s "$tmp" "$out"; then
    echo "lint_kit_files: scripts/grade/lint_kit_files.sha256 is not the tree's (make lint-kit-files):" \
         "$(diff "$out" "$tmp" 2>&1 | grep '^[<>]' | awk '{ print $3 }' | sort -u | tr '\n' ' ')"
    exit 1
  fi
  exit 0
fi
mv "$tmp" "$out"; trap - EXIT
echo "make lint-kit-files: wrote scripts/grade/lint_kit_files.sha256"
