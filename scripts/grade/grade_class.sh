#!/usr/bin/env bash
# scripts/grade/grade_class.sh SUBMISSIONS [OUT] -- `make grade-class
# SUBMISSIONS=DIR`: grade every student repository under SUBMISSIONS (each
# subdirectory is one student: a clone of the student kit with their work),
# and write OUT (default SUBMISSIONS/grades.csv).
#
# For each student, in a copy of its own:
#  1. the kit as this instructor's tree makes it (scripts/grade/student_kit.sh:
#     blanks, no answers, no tuned build), built once and copied;
#  2. the student's step sources laid over it: every file under step*/ of
#     their repository but the makefiles (Makefile, and GNUmakefile and
#     makefile, which make would read first: commands run unboxed) and
#     *.mk; each name taken whole (NUL-separated: a newline in a name never
#     makes a second path).  Nothing else of theirs is used: the tests,
#     common/, the makefiles, scripts/ and .ci/run are the kit's.
#     Where theirs differ from the kit's (or they added files there), the
#     student is flagged and the files listed -- a student who edits the
#     grader is graded by the real one and named; and where the kit's
#     files or programs change while check-all runs (its own check, before
#     and after every runner: scripts/grade/check_all.sh), the row is 0 and
#     flagged "TAMPERED: kit files changed during the run", the changes
#     kept in SUBMISSIONS/.grades/<student>/tampered.txt;
#  3. `make check-all` (STEPS: the steps to grade, default every step of the
#     kit), each test limited to CLASS_TEST_TIMEOUT seconds (300), each runner
#     to CLASS_RUNNER_TIMEOUT (900), the whole student to CLASS_TIMEOUT
#     (3600): a submission that does not build, crashes or hangs gets its
#     row with the reason, and the next student is graded.  As root each
#     check-all runs contained (scripts/grade/contain.sh); only results that it
#     graded to its closing line count.  The box of the student's code
#     (tests/nb_sandbox.h) hides this tree (the answers: its step sources,
#     its built programs) and SUBMISSIONS (the other students' work):
#     NB_SANDBOX_HIDE; as root, so does the whole check-all, the build of
#     the student's code included (NB_CONTAIN_HIDE, scripts/grade/contain.sh);
#     and the student's code is compiled as nobody (NB_BUILD_AS), its copy
#     chowned to nobody: no file that only root may read can be built in.
#
# OUT: one row per student, one column per graded step (its points,
# "earned/possible"), the total (the student's score: the kit's own checks
# are not part of it), the points not graded (no usable GPU), and flags
# ("; "-separated: changed kit files, a kit TAMPERED during the run,
# runners that scored 0 and why -- a
# log named by its path under SUBMISSIONS/.grades/<student>/, where it is
# kept --, a degraded sandbox, a time-out).  Written by
# scripts/grade/grade_report.py with the csv module (a name or a flag with a
# comma, a quote or a newline stays one field; a byte that is not UTF-8 is
# written \xNN), whole, then renamed over OUT.  The logs:
# SUBMISSIONS/.grades/<student>/ (check-all.log, the results, the build logs).
#
# The reports: beside OUT, the folder reports/ (SUBMISSIONS/reports by
# default), one HTML page a student (reports/<student>.html; a name that is
# not plain letters, digits, '.', '_', '-' made plain and given a hash):
# every test that lost points with its points and its message, the tests
# not graded, the optional exercises apart, the flags, and where a runner
# could not be built its build log (at most 200 lines and 64 KiB: its
# first and last lines, the compiler's first error among them);
# every text of the student's escaped (scripts/grade/grade_report.py).
# OUT's last column, "report", is the page's path relative to OUT's folder.
# The folder is made whole beside OUT and renamed into place; it carries a
# token that SUBMISSIONS/.grades/reports.token keeps, so that the next run
# knows it is its own and not a student's repository (a folder of that
# name without the token, or a link, is refused: exit 2).
#
# Environment: STEPS, CLASS_TEST_TIMEOUT, CLASS_RUNNER_TIMEOUT,
# CLASS_TIMEOUT, CLASS_KEEP=1 (keep the copies), MAKE (the make to call),
# ARCH and CUNIT_PREFIX (passed on).
# Exit: 0 graded (whatever the grades), 2 bad usage or the kit cannot be made.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/grade/contain.sh
. "$top/scripts/grade/contain.sh"
subs=${1:-}
if [ -z "$subs" ] || [ ! -d "$subs" ]; then
  echo "grade-class: SUBMISSIONS=DIR: a directory with one student repository per subdirectory" >&2
  exit 2
fi
subs=$(cd "$subs" && pwd)
out=${2:-$subs/grades.csv}
make=${MAKE:-make}
makevars=()
[ -n "${ARCH:-}" ] && makevars+=("ARCH=$ARCH")
[ -n "${CUNIT_PREFIX:-}" ] && makevars+=("CUNIT_PREFIX=$CUNIT_PREFIX")
test_tmo=${CLASS_TEST_TIMEOUT:-300}   # the harness's: 20x the slowest test (15 s, idle 2 cores)
run_tmo=${CLASS_RUNNER_TIMEOUT:-900}
all_tmo=${CLASS_TIMEOUT:-3600}
logs=$subs/.grades
mkdir -p "$logs"
# the reports' folder beside OUT, and its token (see above)
outdir=$(cd "$(dirname "$out")" 2>/dev/null && pwd) ||
  { echo "grade-class: OUT=$out: its folder does not exist" >&2; exit 2; }
reports=$outdir/reports
token_file=$logs/reports.token
if [ ! -s "$token_file" ] || [ -L "$token_file" ]; then
  rm -f "$token_file"
  od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$token_file" || { echo "grade-class: cannot write $token_file" >&2; exit 2; }
fi
token=$(head -c 64 "$token_file")
ours() {   # DIR: 0 if DIR is a reports folder this grader wrote (a real folder holding the token)
  [ -d "$1" ] && [ ! -L "$1" ] && [ -f "$1/.grade-class" ] && [ ! -L "$1/.grade-class" ] &&
    [ "$(head -c 64 "$1/.grade-class")" = "$token" ]
}
if { [ -e "$reports" ] || [ -L "$reports" ]; } && ! ours "$reports"; then
  echo "grade-class: $reports is where the reports go, and it is not the reports of an earlier grade-class (a student's repository?): rename it, or give OUT=FILE in another folder" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/nbody-class.XXXXXX") || exit 2
# the new reports, made whole here, then renamed over the old ones
new_reports=$(mktemp -d "$outdir/.reports.XXXXXX") || { echo "grade-class: cannot write in $outdir" >&2; exit 2; }
chmod "$(printf '%o' $((0777 & ~$(umask))))" "$new_reports"
if [ "${CLASS_KEEP:-0}" = 1 ]; then echo "grade-class: keeping $work"; trap 'rm -rf "$new_reports"' EXIT
else trap 'rm -rf "$work" "$new_reports"' EXIT; fi
# what the student's code must not see (a directory that holds the copies
# being graded cannot be hidden from them)
hide=()
for d in "$top" "$subs"; do
  case "$work/" in "$d"/*) echo "grade-class: $d holds $work (TMPDIR): it is not hidden from the students' code" >&2 ;;
                   *) hide+=("$d") ;; esac
done
hide=$(IFS=:; echo "${hide[*]}")

students=()
for d in "$subs"/*/; do
  d=${d%/}
  case "$(basename "$d")" in .*) continue ;; esac
  [ "$d" = "$reports" ] && ours "$d" && continue     # the reports of the last run
  students+=("$(basename "$d")")
done
[ ${#students[@]} -gt 0 ] || { echo "grade-class: no student directory in $subs" >&2; exit 2; }

# ---- 1. the kit, built once ----
echo "grade-class: ${#students[@]} students in $subs; the kit of $top"
if ! bash "$top/scripts/grade/student_kit.sh" "$work/kit" > "$logs/kit.log" 2>&1; then
  cat "$logs/kit.log" >&2; echo "grade-class: the kit cannot be made" >&2; exit 2
fi
if ! $make -C "$work/kit" "${makevars[@]}" -j"$(nproc 2>/dev/null || echo 2)" all >> "$logs/kit.log" 2>&1; then
  tail -20 "$logs/kit.log" >&2; echo "grade-class: the kit does not build (see $logs/kit.log)" >&2; exit 2
fi
steps=${STEPS:-$(cd "$work/kit" && ls -d step0*/ | tr -d / | tr '\n' ' ')}

# the files a student must not change (the grader and its build)
protected() {   # DIR: the protected files under it, relative
  (cd "$1" && find tests common scripts .ci -type f 2>/dev/null; find . -maxdepth 3 \( -name Makefile -o -name GNUmakefile -o -name makefile -o -name '*.mk' \) -type f | sed 's|^\./||') |
    grep -vE '(^|/)(results|asan)/|\.(o|a)$|^tests/(run_|work_)|^common/\.build-mode$|^tests/\.check-all\.lock$' | sort -u
}

# ---- 2, 3. each student ----
rows=$work/rows.jsonl   # one JSON line per student (scripts/grade/grade_report.py class-row)
: > "$rows"
for s in "${students[@]}"; do
  src=$subs/$s
  dst=$work/s.$s
  log=$logs/$s
  mkdir -p "$log"
  flags=()
  printf 'grade-class: %s\n' "${s//[[:cntrl:]]/?}"   # (a name is the student's: no control character reaches the terminal)
  rm -rf "$dst"
  cp -a "$work/kit" "$dst"
  rm -f "$dst"/tests/*.o "$dst"/tests/run_* "$dst"/tests/work_* && rm -rf "$dst/tests/results" "$dst/tests/asan"
  # changed kit files: listed, flagged, never used
  changed=()
  while read -r f; do
    [ -n "$f" ] || continue
    if [ ! -e "$work/kit/$f" ]; then changed+=("$f (added)")
    elif ! cmp -s "$src/$f" "$work/kit/$f"; then changed+=("$f"); fi
  done < <(protected "$src")
  if [ ${#changed[@]} -gt 0 ]; then
    flags+=("changed kit files: ${changed[*]}")
    printf '%s\n' "${changed[@]}" > "$log/changed.txt"
  fi
  # the student's step sources over the kit's
  (cd "$src" && find step0* -type f ! -name Makefile ! -name GNUmakefile ! -name makefile ! -name '*.mk' \
     ! -name '*.o' ! -name '*.a' ! -path '*/asan/*' ! -name nbody ! -name 'nbody_*' -print0 2>/dev/null) |
    while IFS= read -r -d '' f; do
      mkdir -p "$dst/$(dirname "$f")" && cp "$src/$f" "$dst/$f"
    done
  # as root, their code is built as nobody (the tree made theirs): the
  # compiler reads their sources, which could #include or .incbin any file
  # root may read and show it back in a log
  build_as=""
  if [ "$(id -u)" = 0 ]; then   # (mktemp's 0700 would keep nobody out of $work)
    chmod 711 "$work" && chown -R 65534:65534 "$dst" && build_as=65534:65534
  fi
  rc=0
  (cd "$dst" && NB_CONTAIN_HIDE=$hide nb_contained env NB_BUILD_AS="$build_as" NB_SANDBOX_HIDE="$hide" NB_TEST_TIMEOUT="$test_tmo" NB_RUNNER_TIMEOUT="$run_tmo" \
     timeout "$all_tmo" $make --no-print-directory "${makevars[@]}" check-all STEPS="$steps") \
     > "$log/check-all.log" 2>&1 || rc=$?
  [ $rc = 124 ] && flags+=("timed out after $all_tmo s: graded as far as it got")
  res=$dst/tests/results
  # only results that check-all graded to its closing line count (the
  # results' checks are its own): one that was killed graded none
  if [ $rc = 198 ]; then
    flags+=("no grade: the instructor's tree could not be hidden from the student's code (see $log/check-all.log)")
    rm -f "$res"/*.tsv "$res"/summary.json
  elif [ $rc = 199 ]; then
    flags+=("no grade: student code got out of the sandbox and killed a process of the grade (report it: the kit is at fault)")
    rm -f "$res"/*.tsv "$res"/summary.json
  elif [ $rc != 124 ] && ! grep -q '^check-all: [0-9]* passed' "$log/check-all.log"; then
    rm -f "$res"/*.tsv "$res"/summary.json
  fi
  cp "$res"/*.json "$res"/*.tsv "$res"/*.fail "$res"/*.log "$log/" 2>/dev/null
  # what of the kit changed while check-all ran (scripts/grade/check_all.sh)
  [ -s "$res/.integrity/tampered" ] && cp "$res/.integrity/tampered" "$log/tampered.txt"
  # the reasons of the runners that scored 0, their logs named where they are kept
  for f in "$res"/*.fail; do
    [ -e "$f" ] || continue
    why=$(head -n 1 "$f")
    flags+=("$(basename "$f" .fail): ${why//see tests\/results\//see $log/}")
  done
  grep -q $'\tsandbox=degraded' "$res"/*.tsv 2>/dev/null && flags+=("sandbox DEGRADED: student code ran unboxed")
  [ -s "$res/summary.json" ] || flags+=("no grade (check-all exited $rc: see $log/check-all.log)")
  # the row: the runners' points (the kit's checks and the common runner
  # left out), all 0 and flagged TAMPERED if the kit changed during the run
  PYTHONDONTWRITEBYTECODE=1 python3 -I "$top/scripts/grade/grade_report.py" class-row \
    --report-dir "$new_reports" --logs "$log" "$res" "$s" "$rows" $steps -- \
    "${flags[@]+"${flags[@]}"}" || { echo "grade-class: the row of $s cannot be written" >&2; exit 2; }
  [ "${CLASS_KEEP:-0}" = 1 ] || rm -rf "$dst"
done

# ---- the reports, renamed into place (the old ones, this grader's, removed) ----
printf '%s\n' "$token" > "$new_reports/.grade-class" || { echo "grade-class: cannot write $new_reports" >&2; exit 2; }
old_reports=""
if ours "$reports"; then
  old_reports=$(mktemp -u "$outdir/.reports.old.XXXXXX") && mv "$reports" "$old_reports" ||
    { echo "grade-class: cannot move the old reports $reports away" >&2; exit 2; }
fi
mv "$new_reports" "$reports" || { echo "grade-class: cannot write $reports" >&2; exit 2; }
[ -z "$old_reports" ] || rm -rf "$old_reports"
# ---- the gradebook (csv module; written whole, then renamed) ----
PYTHONDONTWRITEBYTECODE=1 python3 -I "$top/scripts/grade/grade_report.py" class-csv --reports "$reports" "$rows" "$out" $steps ||
  { echo "grade-class: cannot write $out" >&2; exit 2; }
echo "grade-class: wrote $out (${#students[@]} students)"
echo "grade-class: what each student lost and why, one page each: $reports/ (the column \"report\" of $(basename "$out"))"
