#!/bin/sh
# scripts/diff_step.sh STEP -- `make diff STEP=NN`: what step NN adds to step
# NN-1, as a unified diff of the two steps' lesson sources (LESSON in each
# step's Makefile) with the student-kit markers and hints stripped and the
# solutions kept (scripts/solution_regions.awk, mode=keep), so the diff shows
# the step's idea alone.  STEP may be 3, 03 or 003.  DIFF_ALL=1: every file
# of the two step directories (raw, markers included).
# Exit: 0 (also when the files differ), 2 no such step or no step before it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
step=${1:-}
case "$step" in ''|*[!0-9]*) echo "make diff: STEP must be a step number such as 03 (got '$step')" >&2; exit 2 ;; esac
num=$(echo "$step" | sed 's/^0*//')
[ -n "$num" ] || { echo "make diff: there is no step 0" >&2; exit 2; }
cur=$(ls -d "$(printf 'step%02d' "$num")"_* 2>/dev/null | head -1 || true)
prev=$(ls -d "$(printf 'step%02d' $((num - 1)))"_* 2>/dev/null | head -1 || true)
if [ -z "$cur" ] || [ -z "$prev" ]; then
  echo "make diff: no step $step or no step before it (steps: $(ls -d step[0-9]*_* | tr '\n' ' '))" >&2; exit 2
fi
if [ -n "${DIFF_ALL:-}" ]; then
  diff -ru -x '*.o' -x '*.a' -x 'nbody*' "$prev" "$cur" || true
  exit 0
fi
lesson() { sed -n "s/^LESSON[[:space:]]*:*=[[:space:]]*\([^[:space:]#]*\).*/\1/p" "$1/Makefile" | head -1; }
a=$prev/$(lesson "$prev") b=$cur/$(lesson "$cur")
[ -f "$a" ] && [ -f "$b" ] || { echo "make diff: no LESSON source in $prev/Makefile or $cur/Makefile" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a/$prev" "$tmp/b/$cur"
awk -v mode=keep -f scripts/solution_regions.awk "$a" > "$tmp/a/$a" 3>/dev/null
awk -v mode=keep -f scripts/solution_regions.awk "$b" > "$tmp/b/$b" 3>/dev/null
echo "diff -u $a $b   (student-kit markers stripped; DIFF_ALL=1 for every file)"
(cd "$tmp" && diff -u "a/$a" "b/$b") || true
