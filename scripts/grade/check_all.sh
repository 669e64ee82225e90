#!/usr/bin/env bash
# scripts/grade/check_all.sh STEP... -- `make check-all` (the top-level Makefile
# passes its steps): grade the whole tree, whatever state it is in.
#
#  0. One check-all at a time in a tree: tests/.check-all.lock (flock); a
#     second one stops at once and says so (exit 2).  A fresh secret for this
#     run (NB_GRADE_NONCE), which the runners write into their results and
#     scripts/grade/grade_table.sh checks: results from another run, or written
#     by anything but a runner of this run, do not count.
#  1. Build each runner (tests/run_common, tests/run_<step>, each with its
#     step and worker) on its own, keeping going past failures; a runner's build output
#     goes to tests/results/<runner>.build.log.  A runner that does not build
#     is not run (a stale binary is removed): its tests all FAIL with
#     "runner could not be built: see tests/results/<runner>.build.log".
#     NB_BUILD_AS=UID:GID (as root; make grade-class sets it): the builds
#     run as that user (setpriv), so the compiler that reads the student's
#     sources cannot read what only root may (an #include or .incbin of a
#     key or a password file, shown back in a build log); the tree must be
#     theirs to write, and is root's again before anything runs.
#  2. Run every runner that was built (one-hour limit each), its tests'
#     scratch directories in a folder of its own (TMPDIR), removed when it
#     ends, whatever way (a runner killed at its limit).  A runner that
#     does not end normally (exit 0 or 1: killed by a signal, timed out)
#     scores 0 whatever it wrote: "runner killed by SIGKILL".  The harness
#     isolates each test, so this is never a student's test.
#     Quiet by default: a runner's own transcript goes to
#     tests/results/<runner>.log and the console gets one line a runner;
#     V=1 (make check-all V=1, NB_VERBOSE=1 to the runners): every test's
#     line and output, streamed.
#  3. scripts/grade/grade_table.sh: results checked (this run's secret, the tests
#     of tests/manifest.tsv), notices, the failures (each once), the points
#     table, summary.json, gradescope.json, and last the closing line
#     "check-all: N passed, N failed, N skipped".
# The runners of the steps the build left out (NB_SKIPPED_RUNNERS, each with
# NB_SKIPPED_WHY_<runner>: no nvcc, no NCCL; tests/runners.mk) are not
# built: every test of theirs in tests/manifest.tsv is SKIPPED with that
# reason (<runner>.skip), never passed.
# The kit's integrity: before the build, the kit's files (tests/, common/,
# scripts/, .ci/, the makefiles; not what the build makes) are hashed
# (sha256) into tests/results/.integrity/kit.sha256, and the grade's own
# scripts (grade_table.sh, grade_report.py) copied there; after the build,
# its programs (tests/run_*, tests/work_*, the kit's helpers) into
# programs.sha256.  tests/results is hidden from the box of the student's
# code (tests/nb_sandbox.h), which sees every file read-only.  Both lists
# are checked again after the build, before and after every runner, and
# before the grade; whatever changed, was removed or was added (a program;
# a new file in the kit's folders is only listed: nothing reads it) is
# appended to .integrity/tampered, and the grade says TAMPERED: the run
# scores 0 (scripts/grade/grade_report.py).  A runner whose program changed is not
# run.  The grade runs from the copies taken at the start, so a changed
# grade_table.sh cannot grade its own run; were the copies changed too,
# there is no grade.  The whole script is read before it runs (one { }
# block), so a change to it during the run changes nothing.  None of this
# holds where the sandbox is DEGRADED (student code then runs with the
# grader's rights: the grade says so).
# Exit status: non-zero if any test failed.  MAKE: the make to call
# (the Makefile passes its own, with its -j); NB_RUNNER_TIMEOUT (3600 s);
# NB_CHECK_JOBS: runners run at a time (1).
set -uo pipefail
{   # (read whole before it runs: see above)
top=$(cd "$(dirname "$0")/../.." && pwd)
res=$top/tests/results
make=${MAKE:-make}
tmo=${NB_RUNNER_TIMEOUT:-3600}
exec 9> "$top/tests/.check-all.lock" || { echo "check-all: cannot open tests/.check-all.lock" >&2; exit 2; }
if ! flock -n 9; then
  echo "check-all: another check-all is running in this tree (tests/.check-all.lock); wait for it to end" >&2
  exit 2
fi
unset NB_GRADE_FIRST_FAILURE   # (the runners' stop at a first failure, for make mutants): a grade runs every test
nonce=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')   # given to the runners and the grade only
[ ${#nonce} = 32 ] || { echo "check-all: no secret from /dev/urandom" >&2; exit 2; }
rm -rf "$res" && mkdir -p "$res"
runners=(common "$@")
skipped=()
for r in ${NB_SKIPPED_RUNNERS:-}; do
  case "$r" in *[!a-z0-9_]*) echo "check-all: a left-out runner's name '$r' is not a runner's" >&2; exit 2 ;; esac
  [[ " ${runners[*]} " == *" $r "* ]] && continue
  why_var=NB_SKIPPED_WHY_$r
  printf 'left out: %s\n' "${!why_var:-the build left it out}" > "$res/$r.skip"
  skipped+=("$r")
done
printf '%s\n' "${runners[@]}" "${skipped[@]+"${skipped[@]}"}" > "$res/.expected"
verbose=0
[ "${V:-0}" = 1 ] && verbose=1 && export NB_VERBOSE=1

# ---- 0. the kit's hashes, before anything of the student's is built or runs ----
command -v sha256sum >/dev/null 2>&1 || { echo "check-all: no sha256sum (coreutils)" >&2; exit 2; }
integ=$res/.integrity
mkdir -p "$integ" && : > "$integ/tampered" && : > "$integ/checks" || { echo "check-all: cannot write $integ" >&2; exit 2; }
# what the build makes in the kit's folders (programs are hashed after it)
kit_outputs='(^|/)(results|asan)/|\.(o|a)$|^tests/(run_|work_)|^tests/(serve_prog|accel_error|tune_step04|tsan_control|\.check-all\.lock)$|^common/(\.build-mode|view/nb_serve_page\.c)$'
kit_paths() {   # TYPE (f: files, l: symbolic links): the kit's, NUL-separated, relative, sorted
  (cd "$top" && { find tests common scripts .ci -type "$1" -print0 2>/dev/null
                  find . -maxdepth 3 \( -name Makefile -o -name GNUmakefile -o -name makefile -o -name '*.mk' \) \
                       -type "$1" -print0 | sed -z 's|^\./||'; } |
     LC_ALL=C grep -zvE "$kit_outputs" | LC_ALL=C sort -zu)
}
hash_paths() {   # TYPE < paths: "sha256  path" (sha256sum's lines: an odd name escaped); a
                 # link's hash is its target's name's: never followed (a FIFO would block)
  if [ "$1" = f ]; then (cd "$top" && xargs -0r sha256sum -- 2>/dev/null); return; fi
  local l
  while IFS= read -r -d '' l; do
    printf '%s  %s\n' "$(readlink -- "$top/$l" | sha256sum | cut -c1-64)" "${l//$'\n'/\\n}"
  done
}
kit_hashes() {   # the kit's files and links, sorted
  { kit_paths f | hash_paths f; kit_paths l | hash_paths l; } | LC_ALL=C sort
}
program_hashes() {   # the programs the build made
  local t
  for t in f l; do
    (cd "$top" && find tests -maxdepth 1 \( -name 'run_*' -o -name 'work_*' -o -name serve_prog -o -name accel_error \
                                            -o -name tune_step04 -o -name tsan_control \) -type "$t" -print0) | LC_ALL=C sort -z | hash_paths "$t"
  done | LC_ALL=C sort
}
# BASE WHAT WHEN < NOW: "WHEN<TAB>WHAT<TAB>changed|removed|added<TAB>path" for each difference
compare_hashes() {
  LC_ALL=C awk -v base="$1" -v what="$2" -v when="$3" '
    function strip(l) { sub(/^\\/, "", l); return l }
    BEGIN { while ((getline l < base) > 0) { l = strip(l); h[substr(l, 67)] = substr(l, 1, 64) } }
    { l = strip($0); p = substr(l, 67); now[p] = 1
      if (!(p in h)) print when "\t" what "\tadded\t" p
      else if (h[p] != substr(l, 1, 64)) print when "\t" what "\tchanged\t" p }
    END { for (p in h) if (!(p in now)) print when "\t" what "\tremoved\t" p }' | LC_ALL=C sort
}
integrity_check() {   # WHEN: the kit and its programs against their hashes
  printf '%s\n' "$1" >> "$integ/checks"
  { kit_hashes | compare_hashes "$integ/kit.sha256" kit "$1"
    [ ! -f "$integ/programs.sha256" ] || program_hashes | compare_hashes "$integ/programs.sha256" program "$1"
  } >> "$integ/tampered"
}
base_hash() {   # LIST PATH: the hash LIST has for PATH
  LC_ALL=C awk -v p="$2" '{ l = $0; sub(/^\\/, "", l) } substr(l, 67) == p { print substr(l, 1, 64) }' "$1"
}
kit_hashes > "$integ/kit.sha256"
[ -s "$integ/kit.sha256" ] || { echo "check-all: the kit's files could not be hashed" >&2; exit 2; }
cp "$top/scripts/grade/grade_table.sh" "$top/scripts/grade/grade_report.py" "$integ/" ||
  { echo "check-all: cannot copy the grade's scripts into $integ" >&2; exit 2; }

# ---- 1. build, runner by runner ----
as=()
if [ -n "${NB_BUILD_AS:-}" ] && [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null 2>&1 || { echo "check-all: NB_BUILD_AS is set and there is no setpriv (util-linux)" >&2; exit 2; }
  as=(setpriv --reuid="${NB_BUILD_AS%%:*}" --regid="${NB_BUILD_AS#*:}" --clear-groups --inh-caps=-all)
fi
built=()
for r in "${runners[@]}"; do
  log=$res/$r.build.log
  printf 'check-all: building %s ... ' "$r"
  if "${as[@]+"${as[@]}"}" $make --no-print-directory -C "$top/tests" "run_$r" > "$log" 2>&1; then
    echo ok
    built+=("$r")
  else
    echo "FAILED (tests/results/$r.build.log)"
    rm -f "$top/tests/run_$r"
    echo "runner could not be built: see tests/results/$r.build.log" > "$res/$r.fail"
    grep -m 8 -iE 'error|undefined reference|No rule' "$log" | sed 's/^/    /'
  fi
done
# built as another user: the tree goes back to root before anything runs, so
# that no process of that user (the student's code runs as nobody) can
# change a program that root is about to run
if [ ${#as[@]} -gt 0 ]; then
  chown -R 0:0 "$top" || { echo "check-all: cannot give $top back to root after the build" >&2; exit 2; }
fi
# the common runner checks tests/manifest.tsv against these runners' --list
export NB_GRADE_RUNNERS="${built[*]}"
program_hashes > "$integ/programs.sha256"
integrity_check "after the build"

# ---- 2. run ----
# NB_CHECK_JOBS runners at a time (default 1, streamed); with more, each
# runner's output is kept and printed in order once it has finished.
jobs=${NB_CHECK_JOBS:-1}
# runners side by side share the cores: OpenMP threads that spin while they
# wait would take them from each other
[ "$jobs" -gt 1 ] && export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
# each runner's scratch directories (its tests', TMPDIR) in a folder of its
# own, removed however the runner ended: one killed at its time limit left
# whatever the student's code had written there
scratch=$(mktemp -d "${TMPDIR:-/tmp}/nb-check-all.XXXXXX") ||
  { echo "check-all: cannot make a scratch directory in ${TMPDIR:-/tmp}" >&2; exit 2; }
trap 'rm -rf "$scratch"' EXIT
run_one() {   # runner -> its exit status in $res/$1.rc
  local rc=0 t0=$SECONDS
  integrity_check "before $1"
  # a program that is not the one built is never run (it would run with the grader's rights)
  if [ -L "$top/tests/run_$1" ] || [ ! -f "$top/tests/run_$1" ] ||
     [ "$(sha256sum < "$top/tests/run_$1" 2>/dev/null | cut -c1-64)" != \
       "$(base_hash "$integ/programs.sha256" "tests/run_$1")" ]; then
    echo "not run: its program tests/run_$1 changed after the build (tampered)" > "$res/$1.fail"
    echo "check-all: $1 not run: tests/run_$1 changed after the build (tampered)"
    return
  fi
  mkdir -p "$scratch/$1"
  if [ "$verbose" = 1 ]; then
    (cd "$top/tests" && TMPDIR=$scratch/$1 NB_GRADE_NONCE=$nonce timeout "$tmo" "./run_$1") || rc=$?
  else
    (cd "$top/tests" && TMPDIR=$scratch/$1 NB_GRADE_NONCE=$nonce timeout "$tmo" "./run_$1") > "$res/$1.log" 2>&1 || rc=$?
  fi
  rm -rf "$scratch/$1"
  echo "$rc" > "$res/$1.rc"
  integrity_check "after $1"
  if [ "$verbose" = 1 ]; then echo "check-all: $1 ran for $((SECONDS - t0)) s"
  else echo "check-all: $1 ran for $((SECONDS - t0)) s (its transcript: tests/results/$1.log)"; fi
}
if [ "$jobs" -le 1 ]; then
  for r in "${built[@]}"; do run_one "$r"; done
else
  running=0
  for r in "${built[@]}"; do
    run_one "$r" > "$res/$r.out" 2>&1 &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
  done
  wait
  for r in "${built[@]}"; do cat "$res/$r.out"; rm -f "$res/$r.out"; done
fi
for r in "${built[@]}"; do
  [ -f "$res/$r.fail" ] && continue                   # not run (above)
  rc=$(cat "$res/$r.rc" 2>/dev/null || echo 255); rm -f "$res/$r.rc"
  if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then
    [ -s "$res/$r.tsv" ] && continue
    why="runner exited with status $rc and left no results"
  elif [ "$rc" = 124 ]; then why="runner timed out after $tmo s"
  elif [ "$rc" -gt 128 ]; then why="runner killed by SIG$(kill -l $((rc - 128)) 2>/dev/null || echo $((rc - 128))) (exit status $rc)"
  else why="runner exited with status $rc"; fi
  rm -f "$res/$r.tsv" "$res/$r.json"          # whatever it left does not count
  echo "$why" > "$res/$r.fail"
done

# ---- 3. the grade ----
rm -rf "$scratch"; trap - EXIT
integrity_check "before the grade"
# the grade from the copies of its scripts taken at the start, if they are those
for f in grade_table.sh grade_report.py; do
  if [ "$(sha256sum < "$integ/$f" | cut -c1-64)" != "$(base_hash "$integ/kit.sha256" "scripts/grade/$f")" ]; then
    printf 'before the grade\tprogram\tchanged\ttests/results/.integrity/%s\n' "$f" >> "$integ/tampered"
    echo "check-all: TAMPERED: the grade's own copy of scripts/grade/$f changed during the run: no grade"
    echo "check-all: 0 passed, 1 failed, 0 skipped"
    exit 1
  fi
done
NB_GRADE_NONCE=$nonce exec bash "$integ/grade_table.sh" "$res" "$top/tests/manifest.tsv"
}
exit
