#!/usr/bin/env bash
# tests/grade_tamper_test.sh -- a kit changed while check-all runs is seen,
# and the run scores 0, everywhere the instructor reads the grade (run by
# tests/grade_class_test.sh, so by .ci/run; a few seconds).
#
# The real box (tests/nb_sandbox.h) lets no student code write the kit, so
# this test makes a small kit of its own: the real scripts/ (check_all.sh,
# grade_table.sh, grade_report.py, grade_class.sh, student_kit.sh,
# contain.sh, solution_regions.awk) and stand-in runners, shell scripts
# that run each step's prog.sh -- the student's code -- unboxed, as a box
# that failed would.  Through `make grade-class`, as an instructor would:
#   alice    prog.sh prints "ok": full marks (4/4), no flag, and "tampered"
#            nowhere (no false alarm);
#   mallory  her step01 prog.sh changes the kit from where it runs
#            (../tests/manifest.tsv; ../scripts/grade/grade_table.sh, rewritten
#            to print full marks; ../tests/run_step02_fake, the program of
#            the next runner; ../tests/runner.sh, made a link to a FIFO,
#            which a check that followed links would hang on; and a new
#            file, tests/added_by_mallory.c, which nothing reads: noted,
#            not counted): "TAMPERED" in her console (a notice and the
#            table), summary.json ("tampered": the files; score 0),
#            gradescope.json (score 0, a failed test "tampered: ..."),
#            grades.csv (flagged TAMPERED, 0/4), her step02 runner never
#            run (its program changed), and the grade still written by the
#            grade's own copy of its scripts;
#   o"brien, jr<newline><byte 0xff>  (a directory name no printf'd CSV
#            survives) alice's code and an added kit file
#            tests/we"ird, name.c: one row, its name and flags read back by
#            the csv module (the byte as \xff), full marks, flagged with the
#            file.
# Environment: KEEP_TMP=1 keeps the directory.
# Exit 0 when every check passed, 1 otherwise.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbody-tamper.XXXXXX") || exit 1
[ "${KEEP_TMP:-0}" = 1 ] && echo "grade_tamper_test: keeping $tmp" || trap 'rm -rf "$tmp"' EXIT
checks=0 failed=0
check() { local what=$1; shift; checks=$((checks + 1))
          if "$@"; then printf 'ok   %s\n' "$what"; else failed=$((failed + 1)); printf 'FAIL %s\n' "$what"; fi; }

# ---- the small kit, a git checkout (scripts/grade/student_kit.sh takes its tracked files) ----
kit=$tmp/kit
mkdir -p "$kit/scripts/grade" "$kit/tests" "$kit/step01_fake" "$kit/step02_fake"
for f in check_all.sh grade_table.sh grade_report.py grade_class.sh student_kit.sh contain.sh solution_regions.awk; do
  cp "$top/scripts/grade/$f" "$kit/scripts/grade/$f" || exit 1
done
cat > "$kit/Makefile" <<'EOF'
STEPS ?= step01_fake step02_fake
all:
	@echo "the fake kit: nothing to build"
check-all:
	@MAKE='$(MAKE)' bash scripts/grade/check_all.sh $(STEPS)
.PHONY: all check-all
EOF
printf 'run_%%: runner.sh\n\tcp runner.sh $@ && chmod +x $@\n' > "$kit/tests/Makefile"
cat > "$kit/tests/runner.sh" <<'EOF'
#!/usr/bin/env bash
# a stand-in runner: one test, "the step's prog.sh exits 0", run unboxed
r=${0##*/run_}
st=PASS e=2 kind=student
# what reached it of the environment (see "a grade runs every test" below)
touch "$NB_TAMPER_ENV_PROBE.seen"
[ -z "${NB_GRADE_FIRST_FAILURE:-}" ] || touch "$NB_TAMPER_ENV_PROBE.first-failure"
if [ "$r" = common ]; then kind=kit
else (cd "../$r" && bash ./prog.sh) > "${TMPDIR:-/tmp}/prog.out" 2>&1 || { st=FAIL e=0; }; fi
mkdir -p results
printf '#nb-grade\t%s\tnonce=%s\tsandbox=boxed\n%s\tfake\tprog_runs\t%s\t%d\t2\t\t\t%s\n' \
  "$r" "$NB_GRADE_NONCE" "$r" "$st" "$e" "$kind" > "results/$r.tsv"
printf '{"runner": "%s", "graded": true, "tests": []}\n' "$r" > "results/$r.json"
echo "$r: 1 test, $st"
EOF
printf '# runner\tsuite\ttest\tpoints\tkind\ncommon\tfake\tprog_runs\t2\tkit\n' > "$kit/tests/manifest.tsv"
for s in step01_fake step02_fake; do
  printf '%s\tfake\tprog_runs\t2\tstudent\n' "$s" >> "$kit/tests/manifest.tsv"
  printf 'all:\n' > "$kit/$s/Makefile"
  printf 'echo ok\n' > "$kit/$s/prog.sh"
done
(cd "$kit" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm kit) ||
  { echo "grade_tamper_test: cannot make the fake kit's git checkout"; exit 1; }

# ---- the class ----
subs=$tmp/submissions
mkdir -p "$subs"
bash "$kit/scripts/grade/student_kit.sh" --keep-solutions "$subs/alice" > "$tmp/gen.log" 2>&1 || { cat "$tmp/gen.log"; exit 1; }
cp -a "$subs/alice" "$subs/mallory"
cat > "$subs/mallory/step01_fake/prog.sh" <<EOF
echo "# mallory was here" >> ../tests/manifest.tsv
printf 'echo "check-all: 99 passed, 0 failed, 0 skipped"\n' > ../scripts/grade/grade_table.sh
printf '#!/bin/sh\ntouch "$tmp/mallory-ran-as-the-grader"\n' > ../tests/run_step02_fake
mkfifo "$tmp/fifo" && ln -sf "$tmp/fifo" ../tests/runner.sh
echo 'int added;' > ../tests/added_by_mallory.c
echo ok
EOF
odd=$'o"brien, jr\n\xff'
cp -a "$subs/alice" "$subs/$odd"
echo 'int x;' > "$subs/$odd/tests/we\"ird, name.c"
rc=0
# NB_GRADE_FIRST_FAILURE (the runners' stop at a first failure, for make
# mutants) set where the instructor grades: check-all must not pass it on
(cd "$kit" && NB_GRADE_FIRST_FAILURE=1 NB_TAMPER_ENV_PROBE="$tmp/env" STEPS="step01_fake step02_fake" \
   CLASS_TIMEOUT=120 bash scripts/grade/grade_class.sh "$subs") > "$tmp/class.log" 2>&1 || rc=$?
cat "$tmp/class.log"
csv=$subs/grades.csv
g=$subs/.grades
field() {   # STUDENT COLUMN: that field of grades.csv (csv module)
  python3 -c 'import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
print("\n".join(r[sys.argv[3]] for r in rows if r["student"] == sys.argv[2]))' "$csv" "$1" "$2"
}
jtrue() {   # FILE EXPR: EXPR (Python) is true of the JSON document d in FILE
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$1" "$2"
}
check "make grade-class exits 0 (got $rc)" test "$rc" = 0
check "a grade runs every test: NB_GRADE_FIRST_FAILURE never reaches a runner (the environment does)" \
  bash -c '[ -e "$1.seen" ] && [ ! -e "$1.first-failure" ]' _ "$tmp/env"
check "alice: full marks, no flag" bash -c '[ "$1" = 4/4 ] && [ -z "$2" ]' _ "$(field alice total)" "$(field alice flags)"
check "alice: TAMPERED nowhere (no false alarm)" \
  bash -c '! grep -rq -e TAMPERED -e "tampered:" "$1" && [[ "$2" != *[Tt][Aa][Mm][Pp]* ]]' _ "$g/alice" "$(field alice flags)"
check "alice: summary.json: score 4, nothing tampered, the kit's files and its 3 programs checked 8 times" \
  jtrue "$g/alice/summary.json" 'd["score"] == 4 and d["tampered"] == [] and d["integrity"]["kit_files"] > 5
                                 and d["integrity"]["programs"] == 3 and len(d["integrity"]["checks"]) == 8'
check "alice: gradescope.json: 4 points, no tampered test" \
  jtrue "$g/alice/gradescope.json" 'd["score"] == 4 and not any("tampered" in t["name"] for t in d["tests"])' 
check "mallory: the console says TAMPERED in a notice, with the files" \
  grep -q '^check-all: TAMPERED: tests/manifest.tsv changed (seen after step01_fake)' "$g/mallory/check-all.log"
check "mallory: the console's table has a tampered row and a total of 0" \
  bash -c 'grep -q "^tampered  .*TAMPERED" "$1" && grep -q "^total .* 0/4 .*TAMPERED" "$1" &&
           grep -q "^student score: 0/4 points -- TAMPERED" "$1"' _ "$g/mallory/check-all.log"
check "mallory: the closing line comes last and counts the tamper check as failed" \
  bash -c '[ "$(grep "^check-all: " "$1" | tail -n 1)" = "check-all: 2 passed, 2 failed, 0 skipped" ]' _ "$g/mallory/check-all.log"
check "mallory: the grade ran from its own copy (her grade_table.sh never printed)" \
  bash -c '! grep -q "check-all: 99 passed" "$1"' _ "$g/mallory/check-all.log"
check "mallory: summary.json: score 0 (2 measured), tampered lists the manifest, grade_table.sh, run_step02_fake, runner.sh" \
  jtrue "$g/mallory/summary.json" 'd["score"] == 0 and d["measured_score"] == 2 and sorted(d["tampered"]) ==
                                   ["scripts/grade/grade_table.sh", "tests/manifest.tsv", "tests/run_step02_fake", "tests/runner.sh"]'
check "mallory: the file she added is noted on the console, not counted as tampering" \
  grep -q "^check-all: note: 1 file added to the kit's folders during the run (not read by the grade): tests/added_by_mallory.c added" \
  "$g/mallory/check-all.log"
check "mallory: ... and in summary.json's integrity" \
  jtrue "$g/mallory/summary.json" '[c["file"] for c in d["integrity"]["added"]] == ["tests/added_by_mallory.c"]'
check "mallory: gradescope.json: score 0, TAMPERED in its output, a failed test named tampered, no test scored" \
  jtrue "$g/mallory/gradescope.json" 'd["score"] == 0 and d["output"].startswith("TAMPERED") and
                                      d["tests"][0]["name"].startswith("tampered") and d["tests"][0]["status"] == "failed"
                                      and sum(t["score"] for t in d["tests"]) == 0'
check "mallory: grades.csv: 0/4, flagged TAMPERED with the files" \
  bash -c '[ "$1" = 0/4 ] && [ "$2" = 0/2 ] && [[ "$3" == *"TAMPERED: kit files changed during the run"*"tests/manifest.tsv"* ]]' _ \
  "$(field mallory total)" "$(field mallory step01_fake)" "$(field mallory flags)"
check "mallory: her changed step02 runner was never run (flagged so)" \
  bash -c '[ ! -e "$1/mallory-ran-as-the-grader" ] && [[ "$2" == *"step02_fake: not run: its program tests/run_step02_fake changed after the build (tampered)"* ]]' _ \
  "$tmp" "$(field mallory flags)"
check "mallory: her during-run changes are kept in .grades/mallory/tampered.txt" \
  grep -q 'tests/manifest.tsv' "$g/mallory/tampered.txt"
check "o'brien: one row, the name and the flag read back (csv module), full marks, a report column" \
  python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="", encoding="utf-8")))
mine = [r for r in rows if r[0] == "o\"brien, jr\n\\xff"]
sys.exit(0 if len(rows) == 4 and len(mine) == 1 and len(mine[0]) == 7 and mine[0][3] == "4/4"
         and mine[0][5] == "changed kit files: tests/we\"ird, name.c (added)" else 1)' "$csv"
echo
if [ $failed = 0 ]; then echo "grade_tamper_test: PASS ($checks checks)"; exit 0; fi
echo "grade_tamper_test: FAIL ($failed of $checks checks failed)"; exit 1
