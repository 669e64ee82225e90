#!/usr/bin/env bash
# scripts/setup/diff_step.sh STEP -- `make diff STEP=NN`: the lesson of step NN, its
# files in reading order, each against its counterpart in the steps before
# (docs/lessons.tsv: the mapping, and why), a new file shown whole.  First
# an index (file, counterpart, lines added and removed, what it is about),
# then one unified diff per file, the student-kit markers and hints stripped
# and the solutions kept (scripts/grade/solution_regions.awk, mode=keep).  The
# files beside the lesson (the tuned build, declarations, main.c) are named
# in the index and not shown.  STEP may be 3, 03 or 003.
# DIFF_ALL=1: every file of the two step directories instead (raw, markers
# included).
# The handouts quote how many lines this prints (tests/suite_docs.c checks).
# Exit: 0 (also when the files differ), 2 no such step, no step before it,
# or a file of the mapping missing.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
map=docs/lessons.tsv
step=${1:-}
case "$step" in ''|*[!0-9]*) echo "make diff: STEP must be a step number such as 03 (got '$step')" >&2; exit 2 ;; esac
num=$(echo "$step" | sed 's/^0*//')
[ -n "$num" ] || { echo "make diff: there is no step 0" >&2; exit 2; }
nn=$(printf '%02d' "$num")
cur=$(ls -d "step${nn}"_* 2>/dev/null | head -1 || true)
prev=$(ls -d "$(printf 'step%02d' $((num - 1)))"_* 2>/dev/null | head -1 || true)
if [ -z "$cur" ] || [ -z "$prev" ]; then
  echo "make diff: no step $step or no step before it (steps: $(ls -d step[0-9]*_* | tr '\n' ' '))" >&2; exit 2
fi
if [ -n "${DIFF_ALL:-}" ]; then
  diff -ru -x '*.o' -x '*.a' -x 'nbody*' "$prev" "$cur" || true
  exit 0
fi
rows=$(awk -F'\t' -v s="$nn" '!/^#/ && $1 == s' "$map")
[ -n "$rows" ] || { echo "make diff: $map has no files of step $nn" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbdiff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
strip() { awk -v mode=keep -f scripts/grade/solution_regions.awk "$1" 3>/dev/null; }
# one diff per lesson file into $tmp/K, its +/- counts into the index
k=0 index="" beside=""
while IFS=$'\t' read -r _ file cp part what; do
  f=$cur/$file
  [ -f "$f" ] || { echo "make diff: $map names $f, which does not exist" >&2; exit 2; }
  if [ "$part" = beside ]; then beside+="    $f: $what"$'\n'; continue; fi
  k=$((k + 1))
  strip "$f" > "$tmp/b"
  if [ "$cp" = - ]; then
    : > "$tmp/a"; la=/dev/null; against="new"
  else
    [ -f "$cp" ] || { echo "make diff: $map names $cp, which does not exist" >&2; exit 2; }
    strip "$cp" > "$tmp/a"; la=a/$cp; against="against $cp"
  fi
  diff -u --label "$la" --label "b/$f" "$tmp/a" "$tmp/b" > "$tmp/$k" || true
  add=$(grep -c '^+[^+]\|^+$' "$tmp/$k" || true) del=$(grep -c '^-[^-]\|^-$' "$tmp/$k" || true)
  sections=$(sed -n 's|^/\* ---- \(.*[^ -]\) *-*[ ]*\*/$|\1|p' "$tmp/b" | paste -sd '\t' - | sed 's/\t/; /g')
  {
    echo "=== $k. $what"
    echo "    $f, $against${sections:+; its sections: $sections}"
  } > "$tmp/h$k"
  index+=$(printf '  %d. %-32s %-34s +%-4s -%-4s %s' "$k" "$f" "$against" "$add" "$del" "$what")$'\n'
done <<<"$rows"

echo "make diff STEP=$nn: what $cur adds, file by file in reading order"
echo "(docs/lessons.tsv; student-kit markers stripped; DIFF_ALL=1: every file of $prev and $cur, raw)"
echo
printf '%s' "$index"
if [ -n "$beside" ]; then
  echo "  beside the lesson (not shown):"
  printf '%s' "$beside"
fi
for i in $(seq 1 "$k"); do
  echo
  cat "$tmp/h$i" "$tmp/$i"
done
