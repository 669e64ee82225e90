#!/usr/bin/env bash
# scripts/grade/mutants.sh -- `make mutants`: prove that the tests have teeth.
#
# Each file tests/mutants/NAME.patch is one plausible student mistake: a unified
# diff against this tree (patch -p1), inside a solution region or the code a
# student writes in that step, after a header of comment lines:
#     # mutant: the mistake, in one sentence
#     # step: step01_cpu
#     # kind: cpu            (cpu: graded without a GPU; gpu: needs one)
#     # runner: step01_cpu   (the CUnit runner that must catch it)
#     # suites: cpu          (optional: run only the runner's suites whose name holds this)
#     # grade: check-all     (optional: graded by the whole pipeline, scripts/grade/check_all.sh
#                            RUNNER -- the results' checks too -- not by the runner alone)
#     # min-lost: 20         (optional: killed only if at least this many points are lost)
#     # max-score: 10        (optional, for the controls, tests/mutants/control_*: a non-answer --
#                            zero, constant or random accelerations -- killed only if the
#                            student's score of the tests run is at most this % of their points)
#     # score-of: REGEX      (optional, with max-score: only the suites whose name matches
#                            REGEX (awk) count -- step05's GPU code and its --cpu code are
#                            two answers graded by one runner: a control in one of them is
#                            measured on that one's suites)
#     # build: refused       (optional: the build must refuse it -- scripts/grade/student_lint.sh,
#                            which compiles every object of a step: killed when its build
#                            fails with a line "FILE:LINE: ...: refused (...)", survived
#                            when it builds; it needs no GPU and is never graded)
#     # caught by: the tests expected to fail (documentation)
#
# The catalog holds the mistakes a hurried student makes and the attacks a
# hostile one tries on the grade (tests/mutants/*hostile*: blank physics and a way
# to forge a pass, graded through check-all: they must lose their points).
#
#  1. The git-tracked files (`git ls-files`, as they are in the working tree;
#     outside a git checkout, the whole tree, then `make clean`) are copied
#     to a scratch tree, where every mutant is first checked with
#     `patch -p1 --dry-run`: a patch that no longer applies is STALE.
#  2. The scratch tree builds the runners the selected mutants need and runs
#     them once unmutated (the same suites): every test must pass there, or
#     the run stops -- a kill on a failing tree would prove nothing.
#  3. Each mutant gets its own copy of the built scratch tree (JOBS at a
#     time), its patch applied, its step and runner rebuilt (a mutant must
#     build: the catalog is of mistakes that compile -- else BUILD-FAILED),
#     and is graded by its runner with NB_TEST_TIMEOUT (300 s) per test
#     (a "build: refused" mutant: KILLED when the lint's refusal stopped
#     its build, BUILD-FAILED when something else did, SURVIVED when it
#     built; it is not graded).
#     Points lost = the points of the tests run minus the score, from
#     tests/results/<runner>.tsv of its copy.  A runner that dies or times
#     out without results counts as killed (check-all fails all its tests),
#     except a runner timeout (MUTANT_RUNNER_TIMEOUT): TIMED-OUT, a failure
#     of the run, since an overloaded machine can cause it too.
#     As root, each grade runs in a PID namespace of its own beside a canary
#     process that only code outside the box can reach: a killed canary is
#     ESCAPED, a failure (the kit's box leaked), never a kill.
#  4. One line per mutant (KILLED / SURVIVED / STALE / BUILD-FAILED / NOT-RUN /
#     TIMED-OUT: the whole runner ran out of time, inconclusive / ESCAPED),
#     then "mutants: N killed, N survived, N stale, N not run (no GPU)".
#
# GPU mutants need a usable CUDA device; where there is none they are "not
# run" (never killed), which is not a failure -- unless
# MUTANTS_REQUIRE_GPU=1, for the GPU host that must run them.
#
# Environment: MUTANTS=cpu|gpu|all (all); JOBS=N mutants at a time (the
#   number of cores, at most 8);
#   ARCH and CUNIT_PREFIX are passed on to make; NB_TEST_TIMEOUT (300: the
#   harness's, over 10 times the slowest test of an idle 2-core machine --
#   a lower limit would kill correct code on a loaded one);
#   MUTANT_RUNNER_TIMEOUT per runner run, seconds (1200); MUTANT=GLOB only
#   the mutants whose name matches (several globs, space-separated: any
#   of them); MUTANTS_BUILD=1 builds the GPU mutants
#   even without a GPU (a compile check; still "not run");
#   MUTANTS_REQUIRE_GPU=1; MUTANTS_KEEP=1 keeps the scratch trees;
#   MUTANTS_FIRST_FAILURE=1 (CI, where time is short): a mutant killed by any
#   failed test (no min-lost, not a control, not through check-all) is
#   graded only up to its first failure (the runner's NB_GRADE_FIRST_FAILURE)
#   and its line names that test, not every point it would lose;
#   MUTANTS_SKIP_BASELINE=1 skips grading the unmutated runners (only right
#   when the same tree was just graded clean, e.g. by check-all in the same
#   GPU session).
# Exit: 0 every selected mutant killed (or not run without a GPU), 1 some
# survived, are stale or failed to build, 2 bad usage or the unmutated tree
# fails.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
which=${MUTANTS:-all}
ncpu=$(nproc 2>/dev/null || echo 2)
jobs=${JOBS:-$(( ncpu < 8 ? ncpu : 8 ))}
test_tmo=${NB_TEST_TIMEOUT:-300}
run_tmo=${MUTANT_RUNNER_TIMEOUT:-1200}
glob=${MUTANT:-*}
case "$which" in cpu|gpu|all) ;; *) echo "mutants: MUTANTS=cpu|gpu|all, not '$which'" >&2; exit 2 ;; esac
case "$jobs" in ''|*[!0-9]*|0) echo "mutants: JOBS=N, N >= 1, not '$jobs'" >&2; exit 2 ;; esac
makevars=()
[ -n "${ARCH:-}" ] && makevars+=("ARCH=$ARCH")
[ -n "${CUNIT_PREFIX:-}" ] && makevars+=("CUNIT_PREFIX=$CUNIT_PREFIX")

if [ ! -d "$top/tests/mutants" ]; then
  echo "mutants: no tests/mutants/ directory in $top (the student kit leaves the catalog out)" >&2
  exit 2
fi
in_git=1
git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 || in_git=0

# ---- the catalog -------------------------------------------------------------
field() { sed -n "s/^# $2: *//p" "$1" | head -1; }
names=() kinds=() runners=() suites=() steps=() modes=() minlost=() maxscore=() builds=() scoreof=()
for p in "$top"/tests/mutants/*.patch; do
  [ -e "$p" ] || continue
  name=$(basename "$p" .patch)
  hit=0
  set -f                                   # the globs match names, not files
  # shellcheck disable=SC2254
  for g in $glob; do case "$name" in $g) hit=1 ;; esac; done
  set +f
  [ $hit = 1 ] || continue
  kind=$(field "$p" kind) runner=$(field "$p" runner) step=$(field "$p" step)
  if [ -z "$kind" ] || [ -z "$runner" ] || [ -z "$step" ] || [ ! -d "$top/$step" ]; then
    echo "mutants: $p: a header needs '# kind: cpu|gpu', '# runner: R' and '# step: DIR'" >&2
    exit 2
  fi
  case "$kind" in cpu|gpu) ;; *) echo "mutants: $p: kind '$kind' is not cpu or gpu" >&2; exit 2 ;; esac
  case "$(field "$p" build)" in ''|refused) ;;
    *) echo "mutants: $p: '# build: $(field "$p" build)': the only value is 'refused'" >&2; exit 2 ;; esac
  [ "$which" = all ] || [ "$which" = "$kind" ] || continue
  names+=("$name") kinds+=("$kind") runners+=("$runner") steps+=("$step")
  suites+=("$(field "$p" suites)") modes+=("$(field "$p" grade)") minlost+=("$(field "$p" min-lost)")
  maxscore+=("$(field "$p" max-score)") scoreof+=("$(field "$p" score-of)")
  builds+=("$(field "$p" build)")
done
if [ ${#names[@]} = 0 ]; then echo "mutants: no mutant selected (MUTANTS=$which MUTANT=$glob)" >&2; exit 2; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/nbody-mutants.XXXXXX") || exit 2
if [ "${MUTANTS_KEEP:-0}" = 1 ]; then echo "mutants: keeping $work"
else trap 'rm -rf "$work"' EXIT; fi
base=$work/base
mkdir -p "$base" "$work/res"
t0=$(date +%s)
say() { printf 'mutants: %s (%ds)\n' "$*" $(( $(date +%s) - t0 )); }

say "${#names[@]} mutants (MUTANTS=$which), scratch trees in $work"
[ "${MUTANTS_COPY:-}" = all ] && in_git=0   # a copy whose .git may lag its files
if [ $in_git = 1 ]; then
  # a tracked file missing from the working tree (deleted, or left behind by
  # a copy of the tree) is left out: the build says if it was needed
  (cd "$top" && git ls-files -z | xargs -0 cp -P --parents --preserve=mode -t "$base" 2>"$work/copy.log") ||
    say "warning: some tracked files could not be copied ($(wc -l < "$work/copy.log") lines in $work/copy.log)"
  [ -f "$base/Makefile" ] || { echo "mutants: cannot copy the git-tracked files to $base" >&2; exit 2; }
else   # a copy of a checkout without its .git: all of it, build outputs cleaned
  say "$top is not a git checkout: copying all of it, then make clean"
  { cp -a "$top/." "$base/" && rm -rf "$base/.git" &&
    make --no-print-directory -C "$base" clean > "$work/clean.log" 2>&1; } || {
    echo "mutants: cannot copy $top to $base and clean it (see $work/clean.log)" >&2; exit 2; }
fi

# ---- 1. stale patches ----------------------------------------------------------
declare -A status detail
for k in "${!names[@]}"; do
  n=${names[$k]}
  if ! (cd "$base" && patch -p1 --dry-run -s -f < "$top/tests/mutants/$n.patch") > "$work/res/$n.dry" 2>&1; then
    status[$n]=STALE
    detail[$n]="the patch no longer applies: $(head -c 200 "$work/res/$n.dry" | tr '\n' ' ')"
  fi
done

# ---- 2. the unmutated tree: build and grade what the mutants need --------------
stepdir() { case "$1" in step04_tuned) echo step04_shared/tuned ;; step05_tuned) echo step05_barneshut/tuned ;; step06_tuned) echo step06_multigpu/tuned ;; *) echo "$1" ;; esac; }
build() {   # build TREE RUNNER LOG: the runner and every program of its step
  local d=$1 r=$2
  make --no-print-directory -C "$d/tests" "${makevars[@]}" "run_$r" &&
    make --no-print-directory -C "$d/$(stepdir "$r")" "${makevars[@]}" all
}
gpu_reason=""
need_gpu=0
for k in "${!names[@]}"; do
  [ "${kinds[$k]}" = gpu ] && [ -z "${status[${names[$k]}]:-}" ] && [ "${builds[$k]}" != refused ] && need_gpu=1
done
if [ $need_gpu = 1 ]; then
  if ! make --no-print-directory -C "$base/step02_naive" "${makevars[@]}" nbody > "$work/probe.build.log" 2>&1; then
    echo "mutants: the probe program (step02_naive) does not build; see $work/probe.build.log" >&2
    tail -20 "$work/probe.build.log" >&2; exit 2
  fi
  rc=0
  "$base/step02_naive/nbody" -n 1 -s 0 > /dev/null 2> "$work/probe.err" || rc=$?
  if [ $rc = 77 ]; then gpu_reason=$(head -1 "$work/probe.err" | sed 's/^[^:]*: //')
  elif [ $rc != 0 ]; then gpu_reason="the probe run (step02_naive/nbody -n 1 -s 0) exited $rc"; fi
  if [ -n "$gpu_reason" ]; then say "no GPU here ($gpu_reason): the GPU mutants are not run"
  else say "GPU: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"; fi
fi
runs_here() {   # mutant index -> 0 if it is graded (or, build: refused, built) on this machine
  [ "${kinds[$1]}" = cpu ] || [ -z "$gpu_reason" ] || [ "${builds[$1]}" = refused ]
}
# runner + suite filter pairs to build and grade unmutated
declare -A want
for k in "${!names[@]}"; do
  n=${names[$k]}
  [ -n "${status[$n]:-}" ] && continue
  if runs_here "$k" || [ "${MUTANTS_BUILD:-0}" = 1 ]; then want["${runners[$k]}|${suites[$k]}"]=1; fi
done
declare -A built
for key in "${!want[@]}"; do
  r=${key%%|*}
  [ -n "${built[$r]:-}" ] && continue
  say "building $r in the scratch tree"
  if ! build "$base" "$r" > "$work/base.$r.build.log" 2>&1; then
    echo "mutants: the unmutated tree does not build $r; see the end of its log:" >&2
    tail -20 "$work/base.$r.build.log" >&2; exit 2
  fi
  built[$r]=1
done
# score RESULTS_TSV -> "earned<TAB>possible<TAB>failed tests" (SKIP rows do not
# count; the first three failed tests named, then how many more)
score() {
  awk -F'\t' '/^#/ { next }
              $4 != "SKIP" { e += $5; p += $6 }
              $4 == "FAIL" { nf++; if (nf <= 3) f = f (f ? ", " : "") $2 "/" $3 }
              END { if (nf > 3) f = f sprintf(" and %d more", nf - 3); printf "%d\t%d\t%s\n", e, p, f }' "$1"
}
# Every grade runs contained (scripts/grade/contain.sh): a dead canary means a
# mutant's code ran outside the box -- ESCAPED, a failure of the kit -- and
# such code cannot kill this script or whatever started it (a CI run).
# shellcheck source=scripts/grade/contain.sh
. "$top/scripts/grade/contain.sh"
grade() {   # grade TREE RUNNER SUITES [FIRST] -> TREE/tests/results/RUNNER.tsv (FIRST=1: to the first failure)
  local d=$1 r=$2 s=$3 first=${4:-0}
  rm -f "$d/tests/results/$r.tsv" "$d/tests/results/$r.json"
  (cd "$d/tests" && nb_contained env NB_TEST_TIMEOUT="$test_tmo" NB_GRADE_FIRST_FAILURE="$first" \
     timeout "$run_tmo" "./run_$r" ${s:+"$s"})
}
# the runner + suite filter pairs graded here (some mutant of theirs is graded here)
graded=()
for key in "${!want[@]}"; do
  for k in "${!names[@]}"; do
    if [ "${runners[$k]}|${suites[$k]}" = "$key" ] && runs_here "$k" && [ "${builds[$k]}" != refused ]; then
      graded+=("$key"); break
    fi
  done
done
base_runner() {   # base_runner R: R unmutated, each of its filters in turn (one results file)
  local r=$1 key s
  for key in "${graded[@]}"; do
    [ "${key%%|*}" = "$r" ] || continue
    s=${key#*|}
    grade "$base" "$r" "$s" > "$work/base.$r.$s.log" 2>&1
    cp "$base/tests/results/$r.tsv" "$work/base.$r.$s.tsv" 2>/dev/null
  done
}
declare -A started
if [ "${MUTANTS_SKIP_BASELINE:-0}" = 1 ]; then
  say "the unmutated runners are not graded (MUTANTS_SKIP_BASELINE=1: the same tree was just graded clean)"
  graded=()
fi
for key in "${graded[@]}"; do          # the runners at once
  r=${key%%|*}
  [ -n "${started[$r]:-}" ] && continue
  started[$r]=1
  say "grading the unmutated $r"
  base_runner "$r" &
done
wait
for key in "${graded[@]}"; do
  r=${key%%|*} s=${key#*|}
  what=$r; [ -n "$s" ] && what="$r (its suites with \"$s\")"
  if [ ! -s "$work/base.$r.$s.tsv" ]; then
    echo "mutants: the unmutated $what left no results; see $work/base.$r.$s.log" >&2
    tail -20 "$work/base.$r.$s.log" >&2; exit 2
  fi
  IFS=$'\t' read -r e p f < <(score "$work/base.$r.$s.tsv")
  if [ -n "$f" ] || [ "$e" != "$p" ]; then
    echo "mutants: the unmutated $what fails ($e/$p points: $f): fix the tree before grading mutants" >&2
    exit 2
  fi
  say "unmutated $what: $e/$p points"
done

# ---- 3. the mutants ----------------------------------------------------------------
one() {   # one K: build and grade mutant K; writes res/NAME.line "STATUS<TAB>detail"
  local k=$1 n=${names[$1]} r=${runners[$1]} s=${suites[$1]}
  local d=$work/m.$n out=$work/res/$n
  rm -rf "$d"
  cp -a "$base" "$d"
  # the runners' objects carry their tree's paths (STEP_BINARY, the sandbox's
  # tests/results): rebuilt here, with the workers
  rm -f "$d"/tests/*.o "$d"/tests/run_* "$d"/tests/work_* && rm -rf "$d/tests/results" "$d/tests/asan"
  if ! (cd "$d" && patch -p1 -s -f < "$top/tests/mutants/$n.patch") > "$out.patch.log" 2>&1; then
    printf 'STALE\tthe patch does not apply\n' > "$out.line"; return
  fi
  if ! build "$d" "$r" > "$out.build.log" 2>&1; then
    # the lint's refusal: "FILE:LINE: what: refused (why)" (scripts/grade/student_lint.sh)
    local refusal
    refusal=$(grep -m1 -E '^[^ :]+:[0-9]+: .*: refused \(' "$out.build.log")
    if [ "${builds[$k]}" = refused ] && [ -n "$refusal" ]; then
      printf 'KILLED\trefused by the build: %s\n' "$(head -c 200 <<< "$refusal")" > "$out.line"
    else
      printf 'BUILD-FAILED\t%s\n' "$(grep -m1 -E 'error|refused' "$out.build.log" | head -c 200)" > "$out.line"
    fi
    [ "${MUTANTS_KEEP:-0}" = 1 ] || rm -rf "$d"; return
  fi
  if [ "${builds[$k]}" = refused ]; then
    printf 'SURVIVED\tit builds: the build was to refuse it (scripts/grade/student_lint.sh)\n' > "$out.line"
    [ "${MUTANTS_KEEP:-0}" = 1 ] || rm -rf "$d"; return
  fi
  if ! runs_here "$k"; then
    printf 'NOT-RUN\tneeds a GPU (it builds)\n' > "$out.line"
    [ "${MUTANTS_KEEP:-0}" = 1 ] || rm -rf "$d"; return
  fi
  local rc=0 first=0
  if [ "${modes[$k]}" = check-all ]; then      # the whole pipeline: its checks of the results too
    (cd "$d" && nb_contained env NB_TEST_TIMEOUT="$test_tmo" NB_RUNNER_TIMEOUT="$run_tmo" \
       MAKE="make ${makevars[*]}" bash scripts/grade/check_all.sh "$r") > "$out.log" 2>&1 || rc=$?
  else
    # killed by any failure: graded to the first one, where asked (see above)
    [ "${MUTANTS_FIRST_FAILURE:-0}" = 1 ] && [ -z "${maxscore[$k]}" ] && [ "${minlost[$k]:-1}" = 1 ] && first=1
    grade "$d" "$r" "$s" "$first" > "$out.log" 2>&1 || rc=$?
  fi
  local tsv=$d/tests/results/$r.tsv
  # through check-all, only results that it graded to its closing line count
  # (the results' checks are its own): a check-all that was killed graded none
  if [ "${modes[$k]}" = check-all ] && ! grep -q '^check-all: [0-9]* passed' "$out.log"; then
    rm -f "$tsv"
  fi
  if [ $rc = 199 ]; then
    printf 'ESCAPED\tits code ran outside the box and killed a process of the grade (the kit is at fault)\n' \
      > "$out.line"
  elif [ ! -s "$tsv" ]; then
    local why="runner exited $rc with no results"
    [ $rc -gt 128 ] && [ $rc != 124 ] && why="runner died (SIG$(kill -l $((rc - 128)) 2>/dev/null))"
    if [ $rc = 124 ]; then
      # a hang of the student's code fails its test (NB_TEST_TIMEOUT) and the
      # runner still writes its results; the whole runner running out of
      # time says more about the machine (too many JOBS) than the mutant
      printf 'TIMED-OUT\tthe runner ran past MUTANT_RUNNER_TIMEOUT=%s s: inconclusive (fewer JOBS?)\n' \
        "$run_tmo" > "$out.line"
    else
      printf 'KILLED\t%s: all its tests fail in check-all\n' "$why" > "$out.line"
    fi
  else
    local e p f need=${minlost[$k]:-1} why="" cap=${maxscore[$k]}
    IFS=$'\t' read -r e p f < <(score "$tsv")
    [ -f "$d/tests/results/$r.fail" ] && why="; $(head -n 1 "$d/tests/results/$r.fail")"
    if [ -n "$cap" ]; then                     # a control: the student's score, at most cap %
      local se sp
      IFS=$'\t' read -r se sp < <(awk -F'\t' -v re="${scoreof[$k]:-.}" \
                                        '!/^#/ && $9 == "student" && $4 != "SKIP" && $2 ~ re { e += $5; p += $6 }
                                               END { printf "%d\t%d\n", e, p }' "$tsv")
      if [ "$sp" -gt 0 ] && [ $((100 * se)) -le $((cap * sp)) ]; then
        printf 'KILLED\tscored %d/%d points (%d %%), at most %d %%\n' "$se" "$sp" $((100 * se / sp)) "$cap" > "$out.line"
      else
        printf 'SURVIVED\tscored %d/%d points, more than %d %% (%s)\n' "$se" "$sp" "$cap" "$f" > "$out.line"
      fi
    elif [ -n "$f" ] && [ "$first" = 1 ]; then
      printf 'KILLED\tfailed %s (graded to its first failure: MUTANTS_FIRST_FAILURE=1)%s\n' "$f" "$why" > "$out.line"
    elif [ -n "$f" ] && [ $((p - e)) -ge "$need" ]; then
      printf 'KILLED\tlost %d/%d points (%s)%s\n' $((p - e)) "$p" "$f" "$why" > "$out.line"
    elif [ -n "$f" ]; then
      printf 'SURVIVED\tlost only %d/%d points, fewer than its min-lost %d (%s)\n' $((p - e)) "$p" "$need" "$f" > "$out.line"
    else printf 'SURVIVED\t%d/%d points: no test failed\n' "$e" "$p" > "$out.line"; fi
  fi
  [ "${MUTANTS_KEEP:-0}" = 1 ] || rm -rf "$d"
  say "$n: $(cut -f1 "$out.line")"
}

todo=()
for k in "${!names[@]}"; do
  n=${names[$k]}
  if [ -n "${status[$n]:-}" ]; then continue; fi
  if ! runs_here "$k" && [ "${MUTANTS_BUILD:-0}" != 1 ]; then
    status[$n]=NOT-RUN; detail[$n]="needs a GPU"; continue
  fi
  todo+=("$k")
done
say "grading ${#todo[@]} mutants, $jobs at a time"
running=0
for k in "${todo[@]}"; do
  one "$k" &
  running=$((running + 1))
  if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait

# ---- 4. the report -------------------------------------------------------------------
killed=0 survived=0 stale=0 notrun=0 buildfail=0 timedout=0 escaped=0
for k in "${!names[@]}"; do
  n=${names[$k]}
  if [ -z "${status[$n]:-}" ]; then
    st=SURVIVED dt="no result (the mutant's job died)"
    [ -s "$work/res/$n.line" ] && IFS=$'\t' read -r st dt < "$work/res/$n.line"
    status[$n]=$st detail[$n]=$dt
  fi
  case "${status[$n]}" in
    KILLED) killed=$((killed + 1)) ;;
    STALE) stale=$((stale + 1)) ;;
    NOT-RUN) notrun=$((notrun + 1)) ;;
    BUILD-FAILED) buildfail=$((buildfail + 1)) ;;
    TIMED-OUT) timedout=$((timedout + 1)) ;;
    ESCAPED) escaped=$((escaped + 1)) ;;
    *) survived=$((survived + 1)) ;;
  esac
done
for k in "${!names[@]}"; do
  n=${names[$k]}
  printf '%-12s %-36s %s\n' "${status[$n]}" "$n" "${detail[$n]}"
done | sort -k2,2
line="mutants: $killed killed, $survived survived, $stale stale, $notrun not run (no GPU)"
[ $buildfail -gt 0 ] && line="$line, $buildfail failed to build"
[ $timedout -gt 0 ] && line="$line, $timedout timed out (inconclusive)"
[ $escaped -gt 0 ] && line="$line, $escaped ESCAPED the box"
say "done"
echo "$line"
if [ $survived -gt 0 ] || [ $stale -gt 0 ] || [ $buildfail -gt 0 ] || [ $timedout -gt 0 ] || [ $escaped -gt 0 ]; then exit 1; fi
if [ $notrun -gt 0 ] && [ "${MUTANTS_REQUIRE_GPU:-0}" = 1 ]; then
  echo "mutants: MUTANTS_REQUIRE_GPU=1 and $notrun GPU mutants were not run" >&2; exit 1
fi
exit 0
