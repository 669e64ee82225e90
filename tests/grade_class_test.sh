#!/usr/bin/env bash
# tests/grade_class_test.sh -- `make grade-class`, end to end (run by .ci/run).
#
# Five students, step01 graded (STEPS=step01_cpu, for time):
#   alice  the kit with the solutions written: full marks, no flag;
#   bob    the same, and an edit of the kit's tests/ (a test "fixed"): the
#          same marks (the kit's tests grade him), flagged with the file;
#   carol  a force loop that never ends: her row says why (time-outs),
#          and the others are still graded;
#   dave   a force loop that does not compile: 0, "could not be built";
#   eve    alice's code and a constructor that kills its parent and every
#          process it may signal (kill(-1, SIGKILL), as root in CI): the box
#          keeps it in (there it reaches nothing but itself and the box's
#          init, which a signal from inside cannot kill), so the attack
#          changes nothing: alice's marks, no flag, and the class -- this
#          script with it -- is graded to the end.
# grades.csv must have the header and the five rows so.
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
bash "$top/scripts/student_kit.sh" --keep-solutions "$subs/alice" > "$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; exit 1; }
cp -a "$subs/alice" "$subs/bob"
echo "/* bob was here: every test passes now */" >> "$subs/bob/tests/suite_conformance.c"
cp -a "$subs/alice" "$subs/carol"
sed -i 's|^\(void cpu_forces(.*\)$|\1|; /^{$/{n;s|^|    for (volatile int spin = 1; spin;) {}\n|}' "$subs/carol/step01_cpu/forces.c"
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
grep -q "spin" "$subs/carol/step01_cpu/forces.c" && grep -q "does not compile" "$subs/dave/step01_cpu/forces.c" ||
  { echo "grade_class_test: the submissions could not be made"; exit 1; }
rc=0
CLASS_TEST_TIMEOUT=5 CLASS_RUNNER_TIMEOUT=60 \
  make --no-print-directory -C "$top" grade-class SUBMISSIONS="$subs" STEPS=step01_cpu > "$tmp/class.log" 2>&1 || rc=$?
cat "$tmp/class.log"
csv=$subs/grades.csv
check "make grade-class exits 0 (got $rc)" test "$rc" = 0
check "grades.csv: the header" bash -c 'head -1 "$1" | grep -qx "student,step01_cpu,total,not_graded,flags"' _ "$csv"
row() { grep "^$1," "$csv"; }
full=$(row alice | cut -d, -f2)
check "alice: full marks ($full), no flag" \
  bash -c '[ "${1%/*}" = "${1#*/}" ] && [ "${1#*/}" -gt 0 ] && [[ "$2" == *,\"\" ]]' _ "$full" "$(row alice)"
check "bob: the same marks, flagged with tests/suite_conformance.c" \
  bash -c '[ "$(echo "$1" | cut -d, -f2)" = "$2" ] && [[ "$1" == *"changed kit files: tests/suite_conformance.c"* ]]' _ "$(row bob)" "$full"
check "carol: a row with the reason (a time-out), below full marks" \
  bash -c '[ -n "$1" ] && [ "$(echo "$1" | cut -d, -f2)" != "$2" ] && [[ "$1" == *"timed out"* ]]' _ "$(row carol)" "$full"
check "dave: 0, could not be built" \
  bash -c '[[ "$(echo "$1" | cut -d, -f2)" == 0/* ]] && [[ "$1" == *"could not be built"* ]]' _ "$(row dave)"
check "eve: kept in the box: alice's marks, no flag" \
  bash -c '[ "$(echo "$1" | cut -d, -f2)" = "$2" ] && [[ "$1" == *,\"\" ]]' _ "$(row eve)" "$full"
check "five rows" test "$(tail -n +2 "$csv" | wc -l)" = 5
echo
if [ $failed = 0 ]; then echo "grade_class_test: PASS ($checks checks)"; exit 0; fi
echo "grade_class_test: FAIL ($failed of $checks checks failed)"; exit 1
