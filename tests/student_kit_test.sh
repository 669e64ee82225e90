#!/usr/bin/env bash
# tests/student_kit_test.sh -- the student kit, end to end (run by .ci/run).
#
#  1. scripts/grade/student_kit.sh writes the kit into a temporary directory; no
#     solution marker is left in it, one TODO line per region; no answer
#     either: no line of a solution region that the given code does not
#     also hold is anywhere in the kit, no worked-answer block (<details>) in
#     its handouts, no tuned build of step 04; its README.md is the
#     students' (docs/student-README.md), which names none of what the kit
#     leaves out.
#  2. The kit builds (make -j2) with no compiler warning.
#  3. Each program, `nbody -n 100 -s 1`: a blanked step exits 4 (NB_EXIT_TODO)
#     with one line on stderr saying what is not implemented -- or 77 for a GPU
#     step on a machine without a usable GPU (its probe runs first); a step
#     without blanks exits 0 (77 for a GPU step without a GPU).
#  4. `make check-all` in the kit fails, the student's score at most 10% of
#     the student's points in the console, summary.json and gradescope.json
#     alike, with exactly this pattern in
#     tests/results/*.tsv (columns: runner suite test status earned points):
#       common                          every test PASS
#       a blanked step                  FAILs in its conformance suite -- but a
#                                       GPU step's conformance suite is SKIPPED
#                                       where there is no GPU: then only its cli
#                                       suite and its exit code (77 or 4) count;
#       a blanked GPU step              its cli suite passes (bad input, no device)
#       a step without blanks           no FAIL
#     and the grade is there: "== grade ==", the "check-all:" line, summary.json.
#  5. Restored (the solution regions of --keep-solutions copied over the
#     blanks), the kit builds and `make check-all` passes with 0 failures.
#
# Environment: CUNIT_PREFIX and ARCH are passed on to make; KIT_JOBS (2);
# KIT_TIMEOUT_S per build or check-all (3600: a hang detector, over 10 times
# the longest of them on an idle 2-core machine); KIT_KEEP_TMP=1 keeps the
# temporary directory.  Exit 0 when every check passed, 1 otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${KIT_JOBS:-2}
tmo=${KIT_TIMEOUT_S:-3600}
makevars=()
[ -n "${CUNIT_PREFIX:-}" ] && makevars+=("CUNIT_PREFIX=$CUNIT_PREFIX")
[ -n "${ARCH:-}" ] && makevars+=("ARCH=$ARCH")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbody-kit.XXXXXX") || exit 1
if [ "${KIT_KEEP_TMP:-0}" = 1 ]; then echo "student_kit_test: keeping $tmp"
else trap 'rm -rf "$tmp"' EXIT; fi
kit=$tmp/kit sol=$tmp/sol
checks=0 failed=0
ok()   { checks=$((checks + 1)); printf 'ok   %s\n' "$*"; }
bad()  { checks=$((checks + 1)); failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
finish() {
  echo
  if [ $failed -eq 0 ]; then echo "student_kit_test: PASS ($checks checks)"; exit 0; fi
  local where="a temporary directory, keep it with KIT_KEEP_TMP=1"
  [ "${KIT_KEEP_TMP:-0}" = 1 ] && where=$tmp
  echo "student_kit_test: FAIL ($failed of $checks checks failed; logs in $where)"
  exit 1
}
t0=$(date +%s)
phase() { printf '\n== %s (%ds) ==\n' "$*" $(( $(date +%s) - t0 )); }

# ---- 1. generate ----------------------------------------------------------
phase "generate the kit"
if ! bash "$top/scripts/grade/student_kit.sh" "$kit" > "$tmp/gen.log" 2>&1; then
  cat "$tmp/gen.log"; bad "scripts/grade/student_kit.sh writes the kit"; finish
fi
cat "$tmp/gen.log"
ok "scripts/grade/student_kit.sh writes the kit"
# the kit inside the checkout, as make student-kit's default dist/ is (git
# ignores it): its quoted counts come from its own files, not the checkout's
rc=1
if inside=$(mktemp -d "$top/tests/work_kit.XXXXXX"); then
  bash "$top/scripts/grade/student_kit.sh" "$inside/kit" > "$tmp/gen_inside.log" 2>&1; rc=$?
  rm -rf "$inside"
fi
check "a kit written inside the checkout (tests/work_kit.*/kit, ignored by git, as dist/ is) (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || cat "$tmp/gen_inside.log"
# the marked files and their region counts: "path (N)" lines of .student_kit
mapfile -t marked < <(sed -n '2,$p' "$kit/.student_kit" | sed 's/ ([0-9]*)$//')
check "some files are marked (${#marked[@]})" test ${#marked[@]} -gt 0
for f in "${marked[@]}"; do
  n=$(grep -c 'BEGIN SOLUTION' "$top/$f")
  left=$(grep -c 'BEGIN SOLUTION\|END SOLUTION\|/\* BLANK:' "$kit/$f")
  todo=$(grep -c '^[[:space:]]*/\* TODO: ' "$kit/$f")
  check "$f: no marker left in the kit, $n TODO lines" test "$left" = 0 -a "$todo" -ge "$n"
done
# no answer in the kit: the lines of the solution regions (trimmed, 16
# characters or more, not comments) that the given code (the sources outside
# the regions; not tests/mutants/, not the tuned build) does not also hold must be
# nowhere in the kit -- not in a source, not quoted in a handout
trimmed() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//'; }
region_lines() {   # FILE...: the lines inside solution regions (inside=1) or outside (inside=0)
  local inside=$1; shift
  awk -v want="$inside" 'FNR == 1 { inr = 0; hdr = 0 }
    /\/\* BEGIN SOLUTION/ { inr = 1; hdr = ($0 !~ /\*\//); next }
    inr && hdr { if ($0 ~ /\*\//) hdr = 0; next }
    inr && /\/\* END SOLUTION \*\// { inr = 0; next }
    inr && /\/\* BLANK:/ { next }
    (inr == want) { print }' "$@"
}
(cd "$top" && region_lines 1 "${marked[@]}") | trimmed | awk 'length >= 16 && !/^(\/\*|\*|\/\/)/' | sort -u > "$tmp/sol.lines"
(cd "$top" && { region_lines 0 "${marked[@]}"
  git ls-files '*.c' '*.h' '*.cu' '*.cuh' |
    grep -vE '^tests/mutants/|^step0[0-9]_[a-z0-9]+/tuned/|step04_tuned|suite_tuned|tune_step04' |
    while read -r f; do case " ${marked[*]} " in *" $f "*) continue ;; esac; cat "$f"; done; }) |
  trimmed | sort -u > "$tmp/given.lines"
comm -23 "$tmp/sol.lines" "$tmp/given.lines" > "$tmp/answer.lines"
(cd "$kit" && find . -type f -print0 | xargs -0 grep -Ih '' 2>/dev/null) | trimmed | sort -u > "$tmp/kit.lines"
leaks=$(comm -12 "$tmp/answer.lines" "$tmp/kit.lines")
check "no line of a solution in the kit ($(wc -l < "$tmp/answer.lines") solution lines looked for)" \
  test -s "$tmp/answer.lines" -a -z "$leaks"
[ -n "$leaks" ] && printf '     in the kit: %s\n' "$leaks" | head -5
check "no worked answer (<details>) in the kit's handouts" \
  bash -c '! grep -l "^<details>" "$1"/handouts/*.md' _ "$kit"
check "no tuned build in the kit (no step*/tuned/ folder, no tuned runner's suite)" \
  bash -c '! ls -d "$1"/step0*/tuned >/dev/null 2>&1 && test ! -e "$1/tests/suite_tuned.c"' _ "$kit"
check "the kit's README.md is the students' README (docs/student-README.md), not the project's" \
  cmp -s "$top/docs/student-README.md" "$kit/README.md"
check "the kit's README.md names nothing the kit leaves out (tuned builds, mutants, grade-class)" \
  bash -c '! grep -qiE "tuned|mutant|grade-class|grade_class" "$1/README.md"' _ "$kit"

# the steps: blanked (a marked file in them) or not
steps=$(cd "$kit" && ls -d step0*/ 2>/dev/null | tr -d / )
is_marked() { local f; for f in "${marked[@]}"; do case "$f" in "$1"/*) return 0 ;; esac; done; return 1; }
is_gpu()    { ls "$kit/$1"/*.cu >/dev/null 2>&1; }

# ---- 2. build ---------------------------------------------------------------
phase "build the kit (make -j$jobs)"
if timeout "$tmo" make -C "$kit" -j"$jobs" "${makevars[@]}" all > "$tmp/build.log" 2>&1; then
  ok "the kit builds"
else
  tail -30 "$tmp/build.log"; bad "the kit builds"; finish
fi
warn=$(grep -i 'warning' "$tmp/build.log" | grep -v '^make' || true)
if [ -z "$warn" ]; then ok "no compiler warning (-Wall -Wextra) in the kit build"
else printf '%s\n' "$warn" | head -20; bad "no compiler warning (-Wall -Wextra) in the kit build"; fi

# ---- 3. the programs -------------------------------------------------------
phase "run each program: nbody -n 100 -s 1"
declare -A prog_rc
for s in $steps; do
  rc=0
  (cd "$kit" && env -u NB_FAKE_NO_DEVICE timeout 120 "$s/nbody" -n 100 -s 1 > "$tmp/$s.out" 2> "$tmp/$s.err") || rc=$?
  prog_rc[$s]=$rc
  printf '  %-18s exit %-3s %s\n' "$s" "$rc" "$(head -1 "$tmp/$s.err")"
done

# ---- 4. check-all in the kit -----------------------------------------------
phase "make check-all in the kit (must fail, with the expected pattern)"
rc=0
timeout "$tmo" make -C "$kit" "${makevars[@]}" check-all > "$tmp/check-kit.log" 2>&1 || rc=$?
sed -n '/^== grade ==/,$p' "$tmp/check-kit.log"
check "make check-all in the kit exits non-zero (got $rc)" test "$rc" -ne 0 -a "$rc" -ne 124
res=$kit/tests/results
check "the grade: '== grade ==' and the 'check-all:' line" \
  bash -c 'grep -q "^== grade ==" "$1" && grep -q "^check-all: [0-9]* passed, [0-9]* failed, [0-9]* skipped" "$1"' _ "$tmp/check-kit.log"
check "the grade: tests/results/summary.json" \
  bash -c 'test -s "$1" && { ! command -v python3 >/dev/null || python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$1"; }' _ "$res/summary.json"
# the blank kit gives the student (next to) nothing: at most 10% of the
# student's points, the same in the three places the score is shown
read -r c_e c_t < <(sed -n 's/^student score: \([0-9]*\)\/\([0-9]*\) points.*/\1 \2/p' "$tmp/check-kit.log")
read -r s_e s_t < <(sed -n '1s/^{"score": \([0-9]*\), "max_score": \([0-9]*\),.*/\1 \2/p' "$res/summary.json")
g_e=$(sed -n 's/^  "score": \([0-9]*\),$/\1/p' "$res/gradescope.json")
g_t=$(awk -F'"max_score": ' 'NF > 1 { split($2, a, ","); t += a[1] } END { print t + 0 }' "$res/gradescope.json")
echo "     the blank kit: console ${c_e:-?}/${c_t:-?}, summary.json ${s_e:-?}/${s_t:-?}, gradescope.json ${g_e:-?}/${g_t:-?}"
check "the blank kit scores at most 10% of the student's points, alike in the console, summary.json and gradescope.json" \
  bash -c 'test -n "$1" -a "$1" = "$3" -a "$1" = "$5" -a "$2" = "$4" -a "$2" = "$6" -a "$2" -gt 0 &&
           test $(( $1 * 10 )) -le "$2"' _ "${c_e:-}" "${c_t:-}" "${s_e:-}" "${s_t:-}" "${g_e:-}" "${g_t:-}"
# count rows of a runner's tsv: count RUNNER SUITE(regex, "" = any) STATUS(regex)
count() { [ -f "$res/$1.tsv" ] || { echo 0; return; }
          awk -F'\t' -v s="$2" -v st="$3" '(s=="" || $2 ~ ("^(" s ")$")) && $4 ~ ("^(" st ")$") {c++} END{print c+0}' "$res/$1.tsv"; }
# the program's own conformance suite: "conformance" (step05: "conformance (gpu)",
# step06: "conformance (P = 1)" and "conformance (P = all)")
conf='conformance|conformance [(]gpu[)]|conformance [(]P = 1[)]|conformance [(]P = all[)]'
check "common: every test PASS ($(count common '' PASS) PASS)" \
  test -f "$res/common.tsv" -a "$(count common '' 'FAIL|SKIP')" = 0 -a "$(count common '' PASS)" -gt 0
for s in $steps; do
  if [ ! -f "$res/$s.tsv" ]; then bad "$s: the runner left results"; continue; fi
  conf_active=$(count "$s" "$conf" 'PASS|FAIL')
  prc=${prog_rc[$s]}
  if is_marked "$s"; then
    if [ "$conf_active" -gt 0 ]; then
      check "$s (blanked): FAILs in its conformance suite ($(count "$s" "$conf" FAIL) of $conf_active)" \
        test "$(count "$s" "$conf" FAIL)" -gt 0
      check "$s (blanked): the program exits 4, one line on stderr, 'not implemented' (exit $prc)" \
        bash -c 'test "$1" = 4 && test "$(wc -l < "$2")" = 1 && grep -q "not implemented" "$2"' _ "$prc" "$tmp/$s.err"
    else
      echo "     $s: conformance suite SKIPPED (no usable GPU here): its physics cannot fail here" \
           "($(count "$s" '' FAIL) FAIL in its other suites)"
      check "$s (blanked, no GPU): the program exits 77 (the probe comes first) or 4 (exit $prc)" \
        test "$prc" = 77 -o "$prc" = 4
    fi
    if is_gpu "$s"; then
      check "$s (blanked): its cli suite passes ($(count "$s" cli PASS) PASS)" \
        test "$(count "$s" cli 'FAIL|SKIP')" = 0 -a "$(count "$s" cli PASS)" -gt 0
    fi
  else
    check "$s (no blanks): no FAIL ($(count "$s" '' PASS) PASS, $(count "$s" '' SKIP) SKIP)" \
      test "$(count "$s" '' FAIL)" = 0 -a "$(count "$s" '' PASS)" -gt 0
    check "$s (no blanks): the program exits 0 (77 without a GPU) (exit $prc)" \
      bash -c 'test "$1" = 0 || { test "$1" = 77 && test "$2" = 0; }' _ "$prc" "$conf_active"
  fi
done

# ---- 5. restore the solutions ----------------------------------------------
phase "restore the solutions and run make check-all again (must pass)"
if bash "$top/scripts/grade/student_kit.sh" --keep-solutions "$sol" > "$tmp/gen-sol.log" 2>&1; then
  ok "scripts/grade/student_kit.sh --keep-solutions"
else
  cat "$tmp/gen-sol.log"; bad "scripts/grade/student_kit.sh --keep-solutions"; finish
fi
for f in "${marked[@]}"; do
  # the solution is the source without its marker lines, nothing else changed
  check "$f: --keep-solutions = the source without its marker lines" \
    bash -c 'sed -e "/^[[:space:]]*\/\* BEGIN SOLUTION[[:space:]]*$/,/\*\/[[:space:]]*$/d" \
                 -e "/^[[:space:]]*\/\* \(BEGIN SOLUTION: .*\|BLANK: .*\|END SOLUTION\) \*\/[[:space:]]*$/d" "$1" |
             cmp -s - "$2"' _ "$top/$f" "$sol/$f"
  cp "$sol/$f" "$kit/$f"
done
if timeout "$tmo" make -C "$kit" -j"$jobs" "${makevars[@]}" all > "$tmp/build-sol.log" 2>&1; then
  ok "the restored kit builds"
else
  tail -30 "$tmp/build-sol.log"; bad "the restored kit builds"; finish
fi
rc=0
timeout "$tmo" make -C "$kit" "${makevars[@]}" check-all > "$tmp/check-sol.log" 2>&1 || rc=$?
sed -n '/^== grade ==/,$p' "$tmp/check-sol.log"
check "restored: make check-all exits 0 (got $rc)" test "$rc" = 0
fails=$(cat "$res"/*.tsv 2>/dev/null | awk -F'\t' '$4=="FAIL"' | wc -l)
check "restored: 0 FAIL in tests/results/*.tsv ($fails)" test "$fails" = 0
for s in $steps; do
  rc=0
  (cd "$kit" && env -u NB_FAKE_NO_DEVICE timeout 120 "$s/nbody" -n 100 -s 1 >/dev/null 2> "$tmp/$s.err2") || rc=$?
  conf_active=$(count "$s" "$conf" 'PASS|FAIL')
  check "restored: $s exits 0 (77 without a GPU) (exit $rc)" \
    bash -c 'test "$1" = 0 || { test "$1" = 77 && test "$2" = 0; }' _ "$rc" "$conf_active"
done
phase "done"
finish
