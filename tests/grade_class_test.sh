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
#   carol  a force loop that never ends: her row says why (time-outs),
#          and the others are still graded;
#   dave   a force loop that does not compile: 0, "could not be built",
#          with the build log named where it is kept
#          (SUBMISSIONS/.grades/dave/step01_cpu.build.log);
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
#          into his program (.incbin) and printed: his code is compiled as
#          nobody, so it does not build (0, "could not be built") and the
#          secret is nowhere in the gradebook or its logs.
# grades.csv (read with the csv module) must have the header and the five
# (six) rows so.  Then tests/grade_tamper_test.sh: a kit changed while
# check-all runs is TAMPERED in every report and scores 0.
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
for m in step01_cpu/GNUmakefile makefile; do
  printf 'include Makefile\n$(shell touch "%s/bob-%s-was-read")\n' "$tmp" "${m//\//-}" > "$subs/bob/$m"
done
printf 'x\n' > "$subs/bob/step01_cpu/x"$'\n'"makefile"
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
cat >> "$subs/eve/step01_cpu/forces.c" <<EOF

#include <stdio.h>
__attribute__((constructor)) static void eve_looks(void)
{
    FILE *f = fopen("$top/step01_cpu/forces.c", "r");
    printf("eve: %s\n", f ? "the instructor's answers are open to her" : "looked for the answers");
    if (f) fclose(f);
}

#include <string.h>
__attribute__((constructor)) static void eve_writes(void)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = '\0';
    static const char *const kit[] = { "/../tests/manifest.tsv", "/../scripts/grade_table.sh" };
    for (int k = 0; k < 2; k++) {
        char path[1200];
        snprintf(path, sizeof path, "%s%s", exe, kit[k]);
        FILE *w = fopen(path, "a");
        if (w) {
            fputs("\n# eve was here\n", w);
            fclose(w);
            printf("eve: changed the kit (%s)\n", path);
        }
    }
}
EOF
if [ "$(id -u)" = 0 ]; then   # as root the whole check-all is contained (scripts/contain.sh)
  printf '#if __has_include("%s/step01_cpu/forces.c")\n#error "eve: the answers can be #included"\n#endif\n' \
    "$top" >> "$subs/eve/step01_cpu/forces.c"
fi
students=5
if [ "$(id -u)" = 0 ]; then   # as root the students' code is compiled as nobody
  # frank: alice's code and a file only root may read, built into his
  # program (.incbin) and printed from it: were it compiled as root, the
  # secret would be in his logs (and on Gradescope's page)
  students=6
  secret="nb-secret-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  printf '%s\n' "$secret" > "$tmp/secret.txt" && chmod 600 "$tmp/secret.txt"
  cp -a "$subs/alice" "$subs/frank"
  cat >> "$subs/frank/step01_cpu/forces.c" <<EOF
#include <stdio.h>
__asm__(".section .rodata\\n.global frank_secret\\nfrank_secret:\\n.incbin \\"$tmp/secret.txt\\"\\n.byte 0\\n.previous\\n");
extern const char frank_secret[];
__attribute__((constructor)) static void frank(void) { printf("frank: %s\\n", frank_secret); }
EOF
fi
grep -q "spin" "$subs/carol/step01_cpu/forces.c" && grep -q "does not compile" "$subs/dave/step01_cpu/forces.c" ||
  { echo "grade_class_test: the submissions could not be made"; exit 1; }
rc=0
# each test 20 s (step01's two heaviest tests take 3-4 s on an idle 2-core
# machine: a limit of 5 s cost alice 2 points in a CI run), each runner 60 s
# (carol's hang)
CLASS_TEST_TIMEOUT=20 CLASS_RUNNER_TIMEOUT=60 \
  make --no-print-directory -C "$top" grade-class SUBMISSIONS="$subs" STEPS=step01_cpu > "$tmp/class.log" 2>&1 || rc=$?
cat "$tmp/class.log"
csv=$subs/grades.csv
field() {   # STUDENT COLUMN: that field of grades.csv (csv module)
  python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
print("\n".join(r[sys.argv[3]] for r in rows if r["student"] == sys.argv[2]))' "$csv" "$1" "$2"
}
check "make grade-class exits 0 (got $rc)" test "$rc" = 0
check "grades.csv: the header" bash -c 'head -1 "$1" | grep -qx "student,step01_cpu,total,not_graded,flags"' _ "$csv"
full=$(field alice step01_cpu)
check "alice: full marks ($full), no flag" \
  bash -c '[ "${1%/*}" = "${1#*/}" ] && [ "${1#*/}" -gt 0 ] && [ -z "$2" ]' _ "$full" "$(field alice flags)"
check "bob: the same marks, flagged with tests/suite_conformance.c and his makefiles" \
  bash -c '[ "$1" = "$3" ] && [[ "$2" == *"changed kit files: "*"tests/suite_conformance.c"* ]] &&
           [[ "$2" == *"step01_cpu/GNUmakefile (added)"* ]] && [[ "$2" == *" makefile (added)"* ]]' _ \
  "$(field bob step01_cpu)" "$(field bob flags)" "$full"
check "bob: his makefiles never read (no commands of his ran unboxed)" \
  bash -c '! ls "$1"/bob-*-was-read 2>/dev/null' _ "$tmp"
check "carol: a row with the reason (a time-out), below full marks" \
  bash -c '[ -n "$1" ] && [ "$1" != "$3" ] && [[ "$2" == *"timed out"* ]]' _ \
  "$(field carol step01_cpu)" "$(field carol flags)" "$full"
check "dave: 0, could not be built, see the build log where it is kept" \
  bash -c '[[ "$1" == 0/* ]] && [[ "$2" == *"could not be built: see $3/step01_cpu.build.log"* ]] &&
           grep -q "does not compile" "$3/step01_cpu.build.log"' _ \
  "$(field dave step01_cpu)" "$(field dave flags)" "$subs/.grades/dave"
check "eve: kept in the box: alice's marks, no flag" \
  bash -c '[ "$1" = "$3" ] && [ -z "$2" ]' _ "$(field eve step01_cpu)" "$(field eve flags)" "$full"
check "eve: looked for the instructor's tree and found it hidden" \
  bash -c 'grep -q "eve: looked for the answers" "$1" && ! grep -q "answers are open to her" "$1"' _ "$subs/.grades/eve/check-all.log"
check "eve: could not change the kit she is graded by" \
  bash -c '! grep -q "eve: changed the kit" "$1"' _ "$subs/.grades/eve/check-all.log"
if [ "$students" = 6 ]; then
  check "frank: a file only root may read cannot be built in: 0, could not be built" \
    bash -c '[[ "$1" == 0/* ]] && [[ "$2" == *"could not be built"* ]]' _ "$(field frank step01_cpu)" "$(field frank flags)"
  check "frank: the secret is nowhere in the gradebook or its logs" \
    bash -c '! grep -rqF "$1" "$2"' _ "$secret" "$subs"
else
  echo "skip frank (a file only root may read, built in): not root here, the build is not made unprivileged"
fi
check "$students rows" test "$(python3 -c 'import csv, sys; print(len(list(csv.reader(open(sys.argv[1], newline="")))) - 1)' "$csv")" = "$students"
# a kit changed while check-all runs (which the box above never lets a
# student do): a small kit of stand-in runners, graded by the same scripts
check "a kit changed during the run: TAMPERED everywhere, scored 0 (tests/grade_tamper_test.sh)" \
  bash -c 'set -o pipefail; bash "$1/tests/grade_tamper_test.sh" 2>&1 | sed "s/^/    [tamper] /"' _ "$top"
echo
if [ $failed = 0 ]; then echo "grade_class_test: PASS ($checks checks)"; exit 0; fi
# what the students lost, for the failed checks above
for d in "$subs"/.grades/*/; do
  [ -f "$d/check-all.log" ] || continue
  grep -E '^  FAIL' "$d/check-all.log" | head -5 | sed "s|^|$(basename "$d"): |"
done
echo "grade_class_test: FAIL ($failed of $checks checks failed)"; exit 1
