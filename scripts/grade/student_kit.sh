#!/usr/bin/env bash
# scripts/grade/student_kit.sh [--keep-solutions] [DEST] -- the student starter kit
# (`make student-kit`; docs/grading.md, "The student kit").
#
# Copies every git-tracked file of this tree (`git ls-files`, as it is in the
# working tree) to DEST (default: dist/ at the top of the tree) -- except
# what would give the answers away: tests/mutants/ (the instructor's catalog of
# wrong solutions, whose patches quote the solutions) and the tuned builds,
# the folders step*/tuned/ (with their runners, workers, tuning tool and
# suites: solutions of those steps too;
# the kit builds and grades without them) -- and, in
# C/CUDA sources (*.c *.h *.cu *.cuh), replaces each marked solution region
# by its TODO comment and its blank; in the handouts (*.md) each worked
# answer, a <details> ... </details> block, becomes one line saying it is in
# the instructor's copy.  The kit's README.md is docs/student-README.md, the
# README written for students, not the project's.  The marker syntax and its parser are in
# scripts/grade/solution_regions.awk (one parser for the kit and for `make diff`).
# --keep-solutions writes the solution instead (the marker lines and hints
# dropped, the code kept; the tuned build and the answers still left out):
# the finished course, for checking the generator.
# Malformed markers stop the script with file:line and exit 2, so a typo
# never ships a solution.
# Exit: 0 ok, 2 bad usage, markers or destination, 3 I/O error.
set -euo pipefail
keep=0
dest=""
for a in "$@"; do
  case "$a" in
    --keep-solutions) keep=1 ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "student_kit.sh: unknown option '$a' (usage: student_kit.sh [--keep-solutions] [DEST])" >&2; exit 2 ;;
    *) [ -z "$dest" ] || { echo "student_kit.sh: one DEST only" >&2; exit 2; }; dest=$a ;;
  esac
done

top=$(cd "$(dirname "$0")/../.." && pwd)
if ! git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "student_kit.sh: $top is not a git checkout: the kit is made of the git-tracked files (run it in the instructor's clone)" >&2
  exit 2
fi
if [ -z "$(git -C "$top" ls-files Makefile common 2>/dev/null)" ]; then
  echo "student_kit.sh: $top has no git-tracked kit files (a copy without its .git?): run it in the instructor's clone" >&2
  exit 2
fi
dest=${dest:-$top/dist}
mkdir -p "$(dirname "$dest")"
dest=$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")
case "$dest" in
  "$top"|/|"$HOME") echo "student_kit.sh: refusing to write the kit into $dest" >&2; exit 2 ;;
esac
# Replace only an empty directory or an earlier kit (it carries .student_kit).
if [ -e "$dest" ]; then
  if [ -f "$dest/.student_kit" ] || [ -z "$(ls -A "$dest" 2>/dev/null)" ]; then
    rm -rf "$dest"
  else
    echo "student_kit.sh: $dest exists and is not a student kit (no .student_kit file); remove it or pick another DEST" >&2
    exit 2
  fi
fi
mkdir -p "$dest"

awk_file="$(cd "$(dirname "$0")" && pwd)/solution_regions.awk"
mode=kit; [ $keep = 1 ] && mode=keep

n_files=0; n_regions=0; marked=()
cd "$top"
while IFS= read -r -d '' f; do
  case "$f" in
    tests/mutants/*|step0*/tuned/*|\
    tests/*step04_tuned*|tests/suite_tuned.c|tests/*step05_tuned*|tests/suite_tree_tuned.c|\
    tests/*step06_tuned*|tests/suite_multigpu_tuned.c|\
    tests/tune_step04.c) continue ;;
  esac
  if [ ! -e "$f" ] && [ ! -L "$f" ]; then
    echo "student_kit.sh: warning: $f is tracked but missing from the working tree; left out" >&2
    continue
  fi
  mkdir -p "$dest/$(dirname "$f")"
  case "$f" in
    *.c|*.h|*.cu|*.cuh)
      if [ ! -L "$f" ] && grep -q 'BEGIN SOLUTION\|END SOLUTION\|/\* BLANK:' "$f"; then
        r=$(awk -v mode="$mode" -f "$awk_file" "$f" 3>&1 >"$dest/$f") || {
          echo "student_kit.sh: bad solution markers in $f (see above); no kit written" >&2
          rm -rf "$dest"; exit 2; }
        chmod --reference="$f" "$dest/$f"
        n_regions=$((n_regions + r)); marked+=("$f ($r)")
        n_files=$((n_files + 1))
        continue
      fi ;;
  esac
  case "$f" in
    handouts/*.md)                 # worked answers stay in the instructor's copy
      if [ ! -L "$f" ] && grep -q '^<details>' "$f"; then
        awk '/^<details>/ { skip = 1 }
             skip && /^<\/details>/ { skip = 0
               print "*(The worked answer is in the instructor'"'"'s copy of this handout.)*"; next }
             !skip' "$f" > "$dest/$f" || { echo "student_kit.sh: cannot write $dest/$f" >&2; exit 3; }
        n_files=$((n_files + 1))
        continue
      fi ;;
  esac
  cp -P --preserve=mode "$f" "$dest/$f" || { echo "student_kit.sh: cannot copy $f to $dest" >&2; exit 3; }
  n_files=$((n_files + 1))
done < <(git ls-files -z)
# the students' README in place of the project's (which speaks of what the kit leaves out)
if [ -f docs/student-README.md ]; then
  cp docs/student-README.md "$dest/README.md" || { echo "student_kit.sh: cannot write $dest/README.md" >&2; exit 3; }
fi

# The kit's own documents about what it lacks: the lesson map without the
# files left out, a link to one of them plain text, and the counts the
# documents quote (make diff's lines among them) counted again in the kit.
left_out='step0[0-9]_[a-z0-9]+/tuned/[^)]*'
if [ -f "$dest/docs/lessons.tsv" ]; then
  awk -F'\t' '!($2 ~ /^tuned\//)' "$dest/docs/lessons.tsv" \
    > "$dest/docs/lessons.tsv.tmp" && mv "$dest/docs/lessons.tsv.tmp" "$dest/docs/lessons.tsv"
fi
for md in "$dest"/README.md "$dest"/docs/*.md "$dest"/handouts/*.md; do
  [ -f "$md" ] && grep -qE "\]\([./]*($left_out)\)" "$md" || continue
  sed -E -i "s#\[([^]]*)\]\([./]*($left_out)\)#\1 (in the instructor's copy)#g" "$md"
done
if [ -f "$dest/scripts/tables/doc_counts.sh" ]; then
  (cd "$dest" && bash scripts/tables/doc_counts.sh > /dev/null 2>&1) || {
    echo "student_kit.sh: the kit's quoted counts cannot be brought up to date (scripts/tables/doc_counts.sh)" >&2; exit 3; }
fi

rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=""; git diff --quiet HEAD 2>/dev/null || dirty=" (with uncommitted changes)"
mode="blanks"; [ $keep = 1 ] && mode="solutions kept"
printf 'student kit of nbody-lab %s%s, %s, %s\n' "$rev" "$dirty" "$mode" "$(date -u +%Y-%m-%dT%H:%MZ)" > "$dest/.student_kit"
printf '%s\n' "${marked[@]}" >> "$dest/.student_kit"

echo "student kit ($mode): $n_files files, $n_regions solution regions in ${#marked[@]} files -> $dest"
for m in "${marked[@]}"; do echo "  $m"; done
