#!/usr/bin/env bash
# tests/grade_class_test.sh -- `make grade-class`, end to end (run by .ci/run).
#
# Five students, step01 graded (STEPS=step01_cpu, for time):
#   alice  the kit with the solutions written: full marks, no flag;
#   bob    the same, and an edit of the kit's tests/ (a test "fixed"), a
#          step01_cpu/GNUmakefile and a top-level makefile (make reads
#          either before the kit's Makefile), the latter brought in by a
#          step file whose name holds a newline ("x\nmakefile"): the same
#          marks (the kit's tests and makefiles grade him), flagged with
#          the files, and neither makefile ever read;
#   carol  a force loop that never ends (at N = 4097, one test's): that
#          test fails, "timed out", and she and the others are graded to
#          the end;
#   dave   a force loop that does not compile: 0, "could not be built";
#   eve    alice's code and a constructor that kills its parent and every
#          process it may signal (kill(-1, SIGKILL), as root in CI): the box
#          keeps it in (there it reaches nothing but itself and the box's
#          init, which a signal from inside cannot kill), so the attack
#          changes nothing: alice's marks, no flag, and the class -- this
#          script with it -- is graded to the end; she also looks for the
#          answers in the instructor's tree (this one, whose step sources
#          and programs her code could read, run or build from) and finds
#          it hidden -- as root, at build time too (her forces.c does not
#          compile where the instructor's can be #included).
#   frank  (as root only) alice's code and a file only root may read built
#          into his program (#include of a header: scripts/grade/student_lint.sh
#          refuses .incbin and the #include of anything but a header, so a
#          header it is) and printed: his code is compiled as nobody, so it
#          does not build (0, "could not be built") and the secret is
#          nowhere in the gradebook or its logs.
# grades.csv must have the header and the five (six) rows so; each row
# links its student's report (SUBMISSIONS/reports/<student>.html, named on
# the console): alice's says full marks, carol's lists the test she lost
# with its points and why, dave's holds his build error.
# Environment: CUNIT_PREFIX, ARCH passed on; KEEP_TMP=1 keeps the directory.
# Exit 0 when every check passed, 1 otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbody-gradeclass.XXXXXX") || exit 1
[ "${KEEP_TMP:-0}" = 1 ] && echo "grade_class_test: keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
checks=0 failed=0
check() { local what=$1; shift; checks=$((checks + 1))
          if "$@"; then printf 'ok   %s\n' "$what"; else failed=$((failed + 1)); printf 'FAIL %s\n' "$what"; fi; }
subs=$tmp/submissions
mkdir -p "$subs"
bash "$top/scripts/grade/student_kit.sh" --keep-solutions "$subs/alice" > "$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; exit 1; }
cp -a "$subs/alice" "$subs/bob"
echo "/* bob was here: every test passes now */" >> "$subs/bob/tests/suite_conformance.c"
for m in step01_cpu/GNUmakefile makefile; do
  printf 'include Makefile\n$(shell touch "%s/bob-%s-was-read")\n' "$tmp" "${m//\//-}" > "$subs/bob/$m"
done
printf 'x\n' > "$subs/bob/step01_cpu/x"$'\n'"makefile"
cp -a "$subs/alice" "$subs/carol"
sed -i 's|^\(void cpu_forces(.*\)$|\1|; /^{$/{n;s|^|    if (n == 4097) for (volatile int spin = 1; spin;) {}\n|}' "$subs/carol/step01_cpu/forces.c"
cp -a "$subs/alice" "$subs/dave"
sed -i 's|for (int64_t i = 0; i < n; i++) {|for (int64_t i = 0; i < n; i++) { this does not compile|' "$subs/dave/step01_cpu/forces.c"
cp -a "$subs/alice" "$subs/eve"
cat >> "$subs/eve/step01_cpu/forces.c" <<'EOF'

#include <signal.h>
#include <unistd.h>
__attribute__((constructor)) static void eve(void)
{
    kill(getppid(), SIGKILL);
    kill(-1, SIGKILL);
}
EOF
cat >> "$subs/eve/step01_cpu/forces.c" <<EOF

#include <stdio.h>
__attribute__((constructor)) static void eve_looks(void)
{
    FILE *f = fopen("$top/step01_cpu/forces.c", "r");
    printf("eve: %s\n", f ? "the instructor's answers are open to her" : "looked for the answers");
    if (f) fclose(f);
}
EOF
if [ "$(id -u)" = 0 ]; then   # as root the whole check-all is contained (scripts/grade/contain.sh)
  printf '#if __has_include("%s/step01_cpu/forces.c")\n#error "eve: the answers can be #included"\n#endif\n' \
    "$top" >> "$subs/eve/step01_cpu/forces.c"
fi
students=5
if [ "$(id -u)" = 0 ]; then   # as root the students' code is compiled as nobody
  # frank: alice's code and a file only root may read, built into his
  # program (an #include) and printed from it: were it compiled as root,
  # the secret would be in his logs (and on Gradescope's page)
  students=6
  secret="nb-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  printf '"%s"\n' "$secret" > "$tmp/secret.h" && chmod 600 "$tmp/secret.h"
  cp -a "$subs/alice" "$subs/frank"
  cat >> "$subs/frank/step01_cpu/forces.c" <<EOF
#include <stdio.h>
static const char frank_secret[] =
#include "$tmp/secret.h"
;
__attribute__((constructor)) static void frank(void) { printf("frank: %s\\n", frank_secret); }
EOF
fi
grep -q "spin" "$subs/carol/step01_cpu/forces.c" && grep -q "does not compile" "$subs/dave/step01_cpu/forces.c" ||
  { echo "grade_class_test: the submissions could not be made"; exit 1; }
rc=0
# each test 120 s, a hang detector that costs carol one test: over 10 times
# step01's heaviest test on an idle 2-core machine (7 s; the tighter limits
# this test once had, 20 s a test and 60 s a runner, failed alice on a
# loaded one: the common runner alone takes 52 s idle); each runner the
# default, 900 s
CLASS_TEST_TIMEOUT=120 \
  make --no-print-directory -C "$top" grade-class SUBMISSIONS="$subs" STEPS=step01_cpu > "$tmp/class.log" 2>&1 || rc=$?
cat "$tmp/class.log"
csv=$subs/grades.csv
check "make grade-class exits 0 (got $rc)" test "$rc" = 0
check "grades.csv: the header" bash -c 'head -1 "$1" | grep -qx "student,step01_cpu,total,not_graded,flags,report"' _ "$csv"
row() { grep "^$1," "$csv"; }
# a field of a student's row, by column name, read with the csv module
# (an empty field is written bare: `,` at the end, not `,""`)
field() { python3 -I -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")):
    if r["student"] == sys.argv[2]: print(r[sys.argv[3]])' "$csv" "$1" "$2"; }
full=$(row alice | cut -d, -f2)
check "alice: full marks ($full), no flag" \
  bash -c '[ "${1%/*}" = "${1#*/}" ] && [ "${1#*/}" -gt 0 ] && [ -n "$2" ] && [ -z "$3" ]' _ "$full" "$(row alice)" "$(field alice flags)"
check "bob: the same marks, flagged with tests/suite_conformance.c and his makefiles" \
  bash -c '[ "$(echo "$1" | cut -d, -f2)" = "$2" ] && [[ "$1" == *"changed kit files: "*"tests/suite_conformance.c"* ]] &&
           [[ "$1" == *"step01_cpu/GNUmakefile (added)"* ]] && [[ "$1" == *" makefile (added)"* ]]' _ "$(row bob)" "$full"
check "bob: his makefiles never read (no commands of his ran unboxed)" \
  bash -c '! ls "$1"/bob-*-was-read 2>/dev/null' _ "$tmp"
check "carol: a row below full marks, her hung test failed with the reason (timed out after 120 s)" \
  bash -c '[ -n "$1" ] && [ "$(echo "$1" | cut -d, -f2)" != "$2" ] &&
           grep -q "FAIL .*conformance/accel_vs_reference_n4097: timed out after 120 s" "$3"' \
  _ "$(row carol)" "$full" "$subs/.grades/carol/check-all.log"
check "dave: 0, could not be built" \
  bash -c '[[ "$(echo "$1" | cut -d, -f2)" == 0/* ]] && [[ "$1" == *"could not be built"* ]]' _ "$(row dave)"
# eve's fopen() in a lesson file is refused by the build (scripts/grade/student_lint.sh):
# her step scores 0 and its build log says why; the answers were never opened
check "eve: her fopen() refused by the build: 0, could not be built" \
  bash -c '[[ "$(echo "$1" | cut -d, -f2)" == 0/* ]] && [[ "$1" == *"could not be built"* ]]' _ "$(row eve)"
check "eve: the build log names the refusal, and the answers were never open to her" \
  bash -c 'grep -rq "fopen (files, processes or system calls): refused" "$1" && ! grep -rq "answers are open to her" "$1"' _ "$subs/.grades/eve"
if [ "$students" = 6 ]; then
  check "frank: a file only root may read cannot be built in: 0, could not be built" \
    bash -c '[[ "$(echo "$1" | cut -d, -f2)" == 0/* ]] && [[ "$1" == *"could not be built"* ]]' _ "$(row frank)"
  check "frank: the secret is nowhere in the gradebook or its logs" \
    bash -c '! grep -rqF "$1" "$2"' _ "$secret" "$subs"
else
  echo "skip frank (a file only root may read, built in): not root here, the build is not made unprivileged"
fi
check "$students rows" test "$(tail -n +2 "$csv" | wc -l)" = "$students"
# ---- the reports ----
check "the console names the reports' folder" grep -qF "one page each: $subs/reports/" "$tmp/class.log"
report() { local f; f=$(field "$1" report); [ -n "$f" ] && [ -f "$subs/$f" ] && [ ! -L "$subs/$f" ] && echo "$subs/$f"; }
for s in alice bob carol dave eve; do
  check "$s: grades.csv links a report ($(field "$s" report))" test "$(field "$s" report)" = "reports/$s.html" -a -f "$subs/reports/$s.html"
done
# carol lost the test that hung: its points from the manifest
pts=$(awk -F'\t' '$1 == "step01_cpu" && $2 == "conformance" && $3 == "accel_vs_reference_n4097" { print $4 }' "$top/tests/manifest.tsv")
check "alice's report: full marks ($full)" grep -qF "Full marks: $full points." "$(report alice)"
check "carol's report: the test she lost, its $pts points and why (timed out)" \
  bash -c 'grep -q "<tr><td>step01_cpu/conformance/accel_vs_reference_n4097</td><td class=\"n\">$2 of $2</td><td>FAIL</td><td><pre>[^<]*timed out after 120 s" "$1" &&
           ! grep -q "Full marks" "$1"' _ "$(report carol)" "$pts"
check "carol's report: the optional exercises apart" grep -q "Optional exercises (apart: not part of the score)" "$(report carol)"
check "dave's report: his build error (the compiler's words, his line), not a path in a copy that is gone" \
  bash -c 'grep -q "<h2>Build log: step01_cpu</h2>" "$1" && grep -q "error: " "$1" && grep -q "this does not compile" "$1" &&
           ! grep -q "see tests/results/" "$1"' _ "$(report dave)"
check "bob's report: his flags (the kit files he changed)" grep -q "tests/suite_conformance.c" "$(report bob)"
check "the reports' folder holds the reports and its token, nothing of a student's" \
  bash -c '[ "$(ls -A "$1" | sort | tr "\n" " ")" = "$2" ]' _ "$subs/reports" \
  "$(printf '%s\n' .grade-class alice.html bob.html carol.html dave.html eve.html $([ "$students" = 6 ] && echo frank.html) | sort | tr '\n' ' ')"
# a second grade of the class (one student, for time) knows the folder as its own, and
# replaces it; a student's repository of that name is refused, untouched
mkdir "$tmp/again" && cp -a "$subs/alice" "$tmp/again/alice" && cp -a "$subs/reports" "$tmp/again/reports" &&
  cp -a "$subs/.grades" "$tmp/again/.grades"
rc2=0
CLASS_TEST_TIMEOUT=120 make --no-print-directory -C "$top" grade-class SUBMISSIONS="$tmp/again" STEPS=step01_cpu > "$tmp/again.log" 2>&1 || rc2=$?
check "a second grade: exit 0, the old reports folder not graded as a student, replaced" \
  bash -c '[ "$1" = 0 ] && grep -q "^grade-class: 1 students" "$2" && [ "$(ls "$3/reports")" = alice.html ]' _ "$rc2" "$tmp/again.log" "$tmp/again"
mkdir -p "$tmp/third/reports/step01_cpu" && cp -a "$subs/alice" "$tmp/third/alice"
rc3=0
make --no-print-directory -C "$top" grade-class SUBMISSIONS="$tmp/third" STEPS=step01_cpu > "$tmp/third.log" 2>&1 || rc3=$?
check "a student's repository named reports: refused (exit 2, one line naming it), left as it was" \
  bash -c '[ "$1" = 2 ] && grep -q "reports is where the reports go" "$2" && [ -d "$3/reports/step01_cpu" ] && [ ! -e "$3/grades.csv" ]' \
  _ "$rc3" "$tmp/third.log" "$tmp/third"
echo
if [ $failed = 0 ]; then echo "grade_class_test: PASS ($checks checks)"; exit 0; fi
# what the students lost, for the failed checks above
for d in "$subs"/.grades/*/; do
  [ -f "$d/check-all.log" ] || continue
  grep -E '^  FAIL' "$d/check-all.log" | head -5 | sed "s|^|$(basename "$d"): |"
done
echo "grade_class_test: FAIL ($failed of $checks checks failed)"; exit 1
