#!/usr/bin/env bash
# tests/student_path_test.sh [--write] [STEP...] -- the handouts' promise,
# end to end (run by .ci/run after tests/student_kit_test.sh): a student who
# fills in the kit's regions in the order a handout teaches earns the points
# its table says at each stage, and exactly full marks at the end.
#
# Each handout (handouts/0N_*.md) holds, after the line
#     <!-- student-path: STEP ... -->
# a table, one row a stage, in the handout's order:
#     | after filling | regions | score | ... |
#     | nothing: the kit as given | — | 0 of 49 |
#     | 1. the force loop | `step01_cpu/forces.c` 1 | 20 of 49 |
#     | optional: ... | `step01_cpu/precision/wide.c` 1, 2, 3 | 11 of 11, apart |
# (a number may follow a count marker, <!--count:points:STEP-->, which
# `make doc-counts` keeps true: the test reads and writes the number only)
# "regions": one marked file and the numbers of the regions a stage fills
# (1: the first of the file, the order of `make student-kit`'s TODOs), on top
# of the stages before it; "score": the step's score (its runner's student
# suites, `run_STEP --student`; a row marked "apart" is an optional exercise:
# the points of its suite, `precision`, never part of the score); a column
# "`--cpu` suites", where a GPU step has one (step05), is the score of its
# suites graded without a GPU (the suites whose name holds "cpu").
#
# For every step with such a table: the kit is written (scripts/grade/
# student_kit.sh), then, stage by stage, each region of the row is filled in
# with the instructor's answer (scripts/grade/solution_regions.awk mode=fill:
# the kit's file with those regions as --keep-solutions writes them), the
# step and its runner rebuilt, the runner run, and the score compared with the
# table.  Also checked: the rows fill every region of the step's marked files
# once; the last row that is not optional is full marks; fill with no region
# is the kit's file and with every region the --keep-solutions file.
#
# GPU steps (a *.cu file in the folder): where `nvidia-smi` fails their GPU
# suites are SKIPPED, so only what runs without a GPU is checked (step05's
# "`--cpu` suites" column); the others print "SKIPPED (<reason>)" and are
# never counted as passed.  step06 also needs NCCL (it is skipped, and says
# so, where the build finds none).
#
# --write: the measured scores are also written into the handouts' tables
# (a difference still fails this run; the cells that could not be measured
# here are left as they are).  Run time without a GPU, measured on a
# 2-core machine shared with other jobs (load average near 20): 47 minutes,
# step01's 4 stages 17 to 22 of them, step05's 3 (its --cpu suites) the
# rest; one step alone: student_path_test.sh step01_cpu.
#
# Environment: CUNIT_PREFIX and ARCH are passed on to make; PATH_TIMEOUT_S
# per build or runner (3600, a hang detector); PATH_KEEP_TMP=1 keeps the
# temporary directory.  Exit 0 when every check passed, 1 when one failed,
# 2 bad usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmo=${PATH_TIMEOUT_S:-3600}
write=0
only=()
for a in "$@"; do
  case "$a" in
    --write) write=1 ;;
    -h|--help) sed -n '2,50p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    step0*) only+=("${a%/}") ;;
    *) echo "student_path_test: unknown argument '$a' (usage: student_path_test.sh [--write] [STEP...])" >&2; exit 2 ;;
  esac
done
makevars=()
[ -n "${CUNIT_PREFIX:-}" ] && makevars+=("CUNIT_PREFIX=$CUNIT_PREFIX")
[ -n "${ARCH:-}" ] && makevars+=("ARCH=$ARCH")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nbody-path.XXXXXX") || exit 1
if [ "${PATH_KEEP_TMP:-0}" = 1 ]; then echo "student_path_test: keeping $tmp"
else trap 'rm -rf "$tmp"' EXIT; fi
kit=$tmp/kit
awk_file=$top/scripts/grade/solution_regions.awk
checks=0 failed=0 skipped=0
ok()   { checks=$((checks + 1)); printf 'ok   %s\n' "$*"; }
bad()  { checks=$((checks + 1)); failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }
skip() { skipped=$((skipped + 1)); printf 'SKIPPED %s\n' "$*"; }
t0=$(date +%s)
phase() { printf '\n== %s (%ds) ==\n' "$*" $(( $(date +%s) - t0 )); }
finish() {
  echo
  local s=""; [ $skipped -gt 0 ] && s=", $skipped steps SKIPPED (not checked: see above)"
  if [ $failed -eq 0 ]; then echo "student_path_test: PASS ($checks checks$s, $(( $(date +%s) - t0 )) s)"; exit 0; fi
  echo "student_path_test: FAIL ($failed of $checks checks failed$s)"
  exit 1
}

gpu_why=""
if ! command -v nvidia-smi >/dev/null 2>&1; then gpu_why="no nvidia-smi"
elif ! nvidia-smi -L >/dev/null 2>&1; then gpu_why="nvidia-smi fails: no usable GPU"; fi

# the tables: "STEP<TAB>handout<TAB>row<TAB>label<TAB>file<TAB>regions<TAB>score<TAB>cpu" per stage
# (regions "-" none, "1,2"; score and cpu "E/P", cpu "" without the column; score ends in " apart"
# for an optional row)
tables=$tmp/tables.tsv
python3 -I - "$top" > "$tables" <<'EOF' || { echo "student_path_test: cannot read the handouts' tables" >&2; exit 1; }
import re, sys, glob, os
top = sys.argv[1]
for h in sorted(glob.glob(os.path.join(top, "handouts", "0[1-9]_*.md"))):
    lines = open(h, encoding="utf-8").read().split("\n")
    for i, l in enumerate(lines):
        m = re.match(r"<!-- student-path: (step0[0-9]_[a-z0-9]+)\b", l)
        if not m:
            continue
        step = m.group(1)
        head = [c.strip() for c in lines[i + 1].strip().strip("|").split("|")]
        cpu_col = next((k for k, c in enumerate(head) if "--cpu" in c), -1)
        row = 0
        for r in lines[i + 3:]:
            if not r.startswith("|"):
                break
            cells = [c.strip() for c in r.strip().strip("|").split("|")]
            label, reg, score = cells[0], cells[1], cells[2]
            fm = re.match(r"`([^`]+)`\s+([0-9, ]+)$", reg)
            f, nums = (fm.group(1), ",".join(x.strip() for x in fm.group(2).split(",") if x.strip())) if fm else ("-", "-")
            score = re.sub(r"<!--.*?-->", "", score)      # a count marker (make doc-counts) before a number
            sm = re.match(r"(\d+) of (\d+)(, apart)?$", score)
            sc = (sm.group(1) + "/" + sm.group(2) + (" apart" if sm.group(3) else "")) if sm else "?" + score
            cp = ""
            if cpu_col >= 0:
                cm = re.match(r"(\d+) of (\d+)$", re.sub(r"<!--.*?-->", "", cells[cpu_col]))
                cp = cm.group(1) + "/" + cm.group(2) if cm else "?" + cells[cpu_col]
            row += 1
            print("\t".join([step, os.path.relpath(h, top), str(row), label.replace("\t", " "), f, nums, sc, cp]))
EOF
mapfile -t steps < <(cut -f1 "$tables" | uniq)
[ ${#only[@]} -gt 0 ] && steps=("${only[@]}")
[ ${#steps[@]} -gt 0 ] || { echo "student_path_test: no handout holds a student-path table" >&2; exit 1; }
measured=$tmp/measured.tsv; : > "$measured"     # handout<TAB>row<TAB>col(score|cpu)<TAB>E/P

phase "generate the kit"
if ! bash "$top/scripts/grade/student_kit.sh" "$kit" > "$tmp/gen.log" 2>&1; then
  cat "$tmp/gen.log"; bad "scripts/grade/student_kit.sh writes the kit"; finish
fi
ok "scripts/grade/student_kit.sh writes the kit"
mapfile -t marked < <(sed -n '2,$p' "$kit/.student_kit" | sed 's/ ([0-9]*)$//')
nregions() { awk -v mode=keep -f "$awk_file" "$top/$1" 3>&1 >/dev/null; }

# the score of a runner's results: E/P over the rows of kind KIND whose suite matches RE
# (skipped tests' points not graded here: $4 SKIP)
score_of() {  # RUNNER KIND RE
  awk -F'\t' -v kind="$2" -v re="$3" 'NR > 1 && $NF == kind && $2 ~ re { e += $5; p += $6 }
    NR > 1 && $NF == kind && $2 ~ re && $4 == "SKIP" { s += $6 } END { printf "%d/%d\n", e, p }' \
    "$kit/tests/results/$1.tsv" 2>/dev/null || echo "no results"
}
skipped_of() {  # RUNNER KIND RE: the points of the skipped tests (a tool this host lacks)
  awk -F'\t' -v kind="$2" -v re="$3" 'NR > 1 && $NF == kind && $2 ~ re && $4 == "SKIP" { s += $6 }
    END { printf "%d\n", s }' "$kit/tests/results/$1.tsv" 2>/dev/null || echo 0
}
# compare GOT with the table's WANT where SKIPPED points are not graded here:
# equal, or (with skipped points) equal once they are added, which is not a
# pass: it cannot be checked here
compare() {  # WHAT GOT WANT SKIPPED
  if [ "$2" = "$3" ]; then ok "$1 $2, as $handout says"
  elif [ "$4" -gt 0 ] && [ "$(( ${2%/*} + $4 ))/${2#*/}" = "$3" ]; then
    skip "$1 $2 and $4 points not graded here (a SKIPPED suite: its tools are missing); $handout says $3"
  else bad "$1 $2, $handout says $3$wrote"; fi
}

for s in "${steps[@]}"; do
  phase "$s"
  rows=$(awk -F'\t' -v s="$s" '$1 == s' "$tables")
  if [ -z "$rows" ]; then bad "$s: its handout has a student-path table"; continue; fi
  handout=$(printf '%s\n' "$rows" | head -1 | cut -f2)
  is_gpu=0; ls "$kit/$s"/*.cu >/dev/null 2>&1 && is_gpu=1
  has_cpu=0; printf '%s\n' "$rows" | awk -F'\t' '$8 != "" { f = 1 } END { exit !f }' && has_cpu=1
  # what can be checked here: "score" (everything), "cpu" (the --cpu suites), or nothing
  what=score
  if [ $is_gpu = 1 ] && [ -n "$gpu_why" ]; then
    if [ $has_cpu = 1 ]; then what=cpu
    else skip "$s: a GPU step, its suites are SKIPPED here ($gpu_why): its table ($handout) is not checked"; continue; fi
  fi
  if [ "$s" = step06_multigpu ] && ! make -C "$kit" -s "${makevars[@]}" -n step06_multigpu >/dev/null 2>&1; then
    skip "$s: not built here (NCCL not found?)"; continue
  fi
  # the step's marked files, and every region of them filled once by the rows
  sfiles=(); for f in "${marked[@]}"; do case "$f" in "$s"/*) sfiles+=("$f") ;; esac; done
  want=$(for f in "${sfiles[@]}"; do for ((k = 1; k <= $(nregions "$f"); k++)); do echo "$f $k"; done; done | sort)
  got=$(printf '%s\n' "$rows" | awk -F'\t' '$5 != "-" { n = split($6, a, ","); for (k = 1; k <= n; k++) print $5, a[k] }' | sort)
  if [ "$want" = "$got" ]; then ok "$s: the rows of $handout fill each of its $(printf '%s\n' "$want" | grep -c .) regions once"
  else bad "$s: the rows of $handout fill each region once: want [$(echo $want)], the table has [$(echo $got)]"; fi
  # fill with none = the kit, with all = --keep-solutions
  for f in "${sfiles[@]}"; do
    all=$(seq -s, 1 "$(nregions "$f")")
    if awk -v mode=fill -v filled= -f "$awk_file" "$top/$f" 3>/dev/null | cmp -s - "$kit/$f" &&
       awk -v mode=fill -v filled="$all" -f "$awk_file" "$top/$f" 3>/dev/null |
         cmp -s - <(awk -v mode=keep -f "$awk_file" "$top/$f" 3>/dev/null); then
      ok "$f: mode=fill with no region is the kit's file, with all ($all) the solution"
    else bad "$f: mode=fill with no region is the kit's file, with all ($all) the solution"; fi
  done
  # a step that links an earlier step's library (USES in its Makefile: step06
  # uses step05's tree) is graded with that step's regions written
  for u in $(sed -n 's/^USES *:= *//p' "$top/$s/Makefile"); do
    for f in "${marked[@]}"; do
      case "$f" in "$u"/*)
        awk -v mode=fill -v filled="$(seq -s, 1 "$(nregions "$f")")" -f "$awk_file" "$top/$f" 3>/dev/null > "$kit/$f" ||
          bad "$s: fill $f, of $u, which it uses" ;; esac
    done
  done
  declare -A filled=()
  last_full=""
  while IFS=$'\t' read -r _ _ row label f nums sc cp; do
    if [ "$f" != - ]; then
      filled[$f]=${filled[$f]:+${filled[$f]},}$nums
      if ! awk -v mode=fill -v filled="${filled[$f]}" -f "$awk_file" "$top/$f" 3>/dev/null > "$kit/$f"; then
        bad "$s, stage $row: fill $f regions ${filled[$f]}"; continue
      fi
    fi
    optional=0; case "$sc" in *" apart") optional=1; sc=${sc% apart} ;; esac
    # build the step (its exercise folder too) and its runner, run it
    targets=("$s"); [ -d "$kit/$s/precision" ] && targets+=("$s/precision")
    if ! timeout "$tmo" make -C "$kit" -s "${makevars[@]}" "${targets[@]}" > "$tmp/build.log" 2>&1 ||
       ! timeout "$tmo" make -C "$kit/tests" -s "${makevars[@]}" "run_$s" >> "$tmp/build.log" 2>&1; then
      tail -20 "$tmp/build.log"; bad "$s, stage $row ($label): the kit builds"; continue
    fi
    rm -f "$kit/tests/results/$s.tsv"
    if [ $optional = 1 ]; then args=(precision); else args=(--student); fi
    (cd "$kit/tests" && env -u NB_GRADE_REQUIRE_GPU timeout "$tmo" "./run_$s" "${args[@]}") > "$tmp/run.log" 2>&1
    if [ $optional = 1 ]; then m=$(score_of "$s" optional .)
    else m=$(score_of "$s" student .); fi
    mc=$(score_of "$s" student cpu)
    if [ $optional = 1 ]; then ms=$(skipped_of "$s" optional .); else ms=$(skipped_of "$s" student .); fi
    mcs=$(skipped_of "$s" student cpu)
    line=$(grep -E "^$s: score " "$tmp/run.log" | head -1)
    printf '     stage %s (%s): %s%s   [%s]\n' "$row" "$label" "$m" "$([ -n "$cp" ] && echo ", --cpu suites $mc")" "$line"
    [ "$what" = score ] && [ "$ms" = 0 ] && printf '%s\t%s\tscore\t%s\n' "$handout" "$row" "$m" >> "$measured"
    [ -n "$cp" ] && [ "$mcs" = 0 ] && printf '%s\t%s\tcpu\t%s\n' "$handout" "$row" "$mc" >> "$measured"
    wrote=""; [ $write = 1 ] && wrote=" (--write: the measured score written there)"
    [ "$what" = score ] && compare "$s, stage $row ($label): score" "$m" "$sc" "$ms"
    [ -n "$cp" ] && compare "$s, stage $row ($label): --cpu suites" "$mc" "$cp" "$mcs"
    [ $optional = 0 ] && last_full="$row|$label|$m|$mc|$ms|$mcs"
  done < <(printf '%s\n' "$rows")
  unset filled
  # full marks at the end (the last row that is not optional), every region filled
  IFS='|' read -r row label m mc ms mcs <<< "$last_full"
  if [ "$what" = score ]; then full=$m fs=${ms:-0}; else full=$mc fs=${mcs:-0}; fi
  if [ -n "$full" ] && [ "$fs" -gt 0 ] && [ "$(( ${full%/*} + fs ))" = "${full#*/}" ]; then
    skip "$s: after the last stage ($label): $full and $fs points not graded here (a SKIPPED suite: its tools are missing)"
  elif [ -n "$full" ] && [ "${full%/*}" = "${full#*/}" ] && [ "${full#*/}" -gt 0 ]; then
    ok "$s: full marks after the last stage ($label): $full$([ "$what" = cpu ] && echo " (the --cpu suites; the GPU suites SKIPPED: $gpu_why)")"
  else bad "$s: full marks after the last stage ($label): $full"; fi
done

if [ $write = 1 ]; then
  phase "write the measured scores into the handouts"
  python3 -I - "$top" "$measured" <<'EOF' || bad "write the handouts' tables"
import re, sys, os
top, measured = sys.argv[1], sys.argv[2]
got = {}
for l in open(measured):
    h, row, col, v = l.rstrip("\n").split("\t")
    got.setdefault(h, {})[(int(row), col)] = v
for h, vals in got.items():
    path = os.path.join(top, h)
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, l in enumerate(lines):
        if not l.startswith("<!-- student-path: "):
            continue
        head = [c.strip() for c in lines[i + 1].strip().strip("|").split("|")]
        cpu_col = next((k for k, c in enumerate(head) if "--cpu" in c), -1)
        j, row = i + 3, 0
        while j < len(lines) and lines[j].startswith("|"):
            row += 1
            cells = [c.strip() for c in lines[j].strip().strip("|").split("|")]
            for col, k in (("score", 2), ("cpu", cpu_col)):
                if k < 0 or (row, col) not in vals:
                    continue
                e, p = vals[(row, col)].split("/")
                # the numbers replaced, a count marker before either kept
                m = re.match(r"(<!--.*?-->)?\d+ of (<!--.*?-->)?\d+(, apart)?$", cells[k])
                if m:
                    cells[k] = f"{m.group(1) or ''}{e} of {m.group(2) or ''}{p}{m.group(3) or ''}"
                else:
                    cells[k] = f"{e} of {p}"
            lines[j] = "| " + " | ".join(cells) + " |"
            j += 1
    tmp = path + ".path.tmp"
    open(tmp, "w", encoding="utf-8").write("\n".join(lines))
    os.replace(tmp, path)
    print(f"student_path_test: {h} written")
EOF
fi
phase "done"
finish
