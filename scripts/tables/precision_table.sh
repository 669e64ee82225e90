#!/usr/bin/env bash
# scripts/tables/precision_table.sh -- the accuracy table of the precision lesson
# (handouts/08_precision.md); `make tables` runs it after the course
# reports' tables, and it runs alone too.  Writes, under
# handouts/results/<slug>/:
#
#   table5_precision.{md,csv}   for N = 1024, 16384, 262144, 1048576, 4194304
#                               (Plummer) and the offset clusters (--ic
#                               clusters, N = 30000): median, p99 and max
#                               error against the double direct sum and the
#                               G interactions/s of each code -- step04's
#                               lesson kernel (single), the tuned build in
#                               single, mixed and double, and step01 on the
#                               CPU in the three precisions up to CPU_MAX_N;
#   table5_energy.{md,csv}      the energy drift |E(t) - E0| / |E0| after
#                               DRIFT_STEPS (1000) Plummer steps at N = 16384,
#                               each code.
#
# Protocol: the errors are --check at the initial state (-s 0: the same
# float positions for every code, so the columns compare the arithmetic),
# the rate a separate run, --bench with S timed steps after W warm-up steps
# (S, W = 5, 1 up to 262144 bodies, 2, 1 at 1M, 1, 0 at 4M), its median
# force time (interactions of N^2 per step, docs/conventions.md, Timing).
# The energy is --check's line ("energy: E0 ..., relative change ...") of a
# DRIFT_STEPS-step run.  Every run is limited (RUN_LIMIT_S, 600 s) and the
# whole by PRECISION_BUDGET_S (900 s): a cell past the budget says so.  A
# code that cannot run here (no GPU: exit 77; not built) leaves its rows
# empty with the reason.
#
# Variables: QUICK=1 (N = 1024, 4096, clusters 3000, 50 drift steps: a test
# of the script), SLUG, RESULTS_DIR, NB_BIN_DIR, THREADS (step01's),
# CPU_MAX_N (30000), DRIFT_N (16384), DRIFT_STEPS (1000), PRECISION_BUDGET_S,
# RUN_LIMIT_S.
# Exit: 0 written; 2 bad usage; 3 nothing could be measured.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"

QUICK=${QUICK:-0}
case $QUICK in 0|1|'') ;; *) echo "precision_table: QUICK must be 0 or 1 (got '$QUICK')" >&2; exit 2 ;; esac
THREADS=${THREADS:-$(nbs_cpu_threads)}
if [ "$QUICK" = 1 ]; then
    ROWS="1024 4096 clusters:3000"
    : "${CPU_MAX_N:=4096}" "${DRIFT_N:=1024}" "${DRIFT_STEPS:=50}" "${PRECISION_BUDGET_S:=300}"
else
    ROWS="1024 16384 262144 1048576 4194304 clusters:30000"
    : "${CPU_MAX_N:=30000}" "${DRIFT_N:=16384}" "${DRIFT_STEPS:=1000}" "${PRECISION_BUDGET_S:=900}"
fi
: "${RUN_LIMIT_S:=600}"
for v in CPU_MAX_N DRIFT_N DRIFT_STEPS PRECISION_BUDGET_S RUN_LIMIT_S THREADS; do
    case ${!v} in ''|*[!0-9]*|0) echo "precision_table: $v must be a positive integer (got '${!v}')" >&2; exit 2 ;; esac
done
REGEN="scripts/tables/precision_table.sh"
[ "$QUICK" != 1 ] || REGEN="QUICK=1 $REGEN"

nb_init_tmp

# id | program | options | kind | label
SERIES="lesson|step04_shared|--block 256|gpu|lesson kernel, single (step04)
tsingle|step04_shared/tuned/nbody_tuned|--precision single|gpu|tuned, single
tmixed|step04_shared/tuned/nbody_tuned|--precision mixed|gpu|tuned, mixed
tdouble|step04_shared/tuned/nbody_tuned|--precision double|gpu|tuned, double
csingle|step01_cpu/precision/nbody|--threads $THREADS --precision single|cpu|CPU step01, single
cmixed|step01_cpu/precision/nbody|--threads $THREADS --precision mixed|cpu|CPU step01, mixed
cdouble|step01_cpu/precision/nbody|--threads $THREADS --precision double|cpu|CPU step01, double"

CSV="$NB_TMP/table5_precision.csv"
ECSV="$NB_TMP/table5_energy.csv"
echo "case,n,ic,series,label,status,err_median,err_p99,err_max,ginter_per_s,device,note,check_command,bench_command" > "$CSV"
echo "series,label,n,steps,dt,e0,e,relative_change,status,device,note,command" > "$ECSV"
T0=$(nb_now)
NOK=0
GPU_NAME=""
declare -A DEAD                      # a series that cannot run here: why

over_budget() { awk -v e="$(nb_calc "$(nb_now) - $T0")" -v b="$PRECISION_BUDGET_S" 'BEGIN { exit !(e > b) }'; }

# the last run's field of its CSV line, or of its text output
field() { nb_get "$1"; }

while IFS='|' read -r id prog opts kind label; do
    bin=$(nb_bin "$prog")
    [ -x "$bin" ] || DEAD[$id]="$prog is not built (run \`make\`)"
    for row in $ROWS; do
        case $row in clusters:*) ic=clusters; n=${row#clusters:}; case_name="offset clusters" ;;
                     *) ic=plummer; n=$row; case_name="Plummer" ;; esac
        status=ok note="" med="" p99="" max="" rate="" dev="" ccmd="" bcmd=""
        # shellcheck disable=SC2206
        o=($opts)
        ccmd="$prog -n $n --ic $ic -s 0 --check $opts --csv --csv-header"
        if [ "$n" -ge 4194304 ]; then s=1; w=0; elif [ "$n" -ge 1048576 ]; then s=2; w=1; else s=5; w=1; fi
        bcmd="$prog -n $n --ic $ic -s $s --warmup $w --bench $opts --csv --csv-header"
        if [ -n "${DEAD[$id]:-}" ]; then status=skipped; note=${DEAD[$id]}
        elif [ "$kind" = cpu ] && [ "$n" -gt "$CPU_MAX_N" ]; then status=skipped; note="N > CPU_MAX_N=$CPU_MAX_N"
        elif over_budget; then status=skipped; note="past PRECISION_BUDGET_S=$PRECISION_BUDGET_S s"
        else
            echo "[precision] $ccmd" >&2
            nb_run "$RUN_LIMIT_S" "$bin" -n "$n" --ic "$ic" -s 0 --check "${o[@]}" --csv --csv-header
            case $NB_RC in
                0|1) med=$(field err_median); p99=$(field err_p99); max=$(field err_max); dev=$(field device)
                     [ "$NB_RC" = 0 ] || note="--check failed (exit 1)" ;;
                77) DEAD[$id]="no usable GPU: $NB_ERR"; status=no-gpu; note=${DEAD[$id]} ;;
                *) status=failed; note="exit $NB_RC: $NB_ERR" ;;
            esac
            if [ "$status" = ok ]; then
                echo "[precision] $bcmd" >&2
                nb_run "$RUN_LIMIT_S" "$bin" -n "$n" --ic "$ic" -s "$s" --warmup "$w" --bench "${o[@]}" --csv --csv-header
                if [ "$NB_RC" = 0 ]; then rate=$(awk -v r="$(field inter_per_s)" 'BEGIN { printf "%.4g", r / 1e9 }')
                else note="${note:+$note; }bench: exit $NB_RC: $NB_ERR"; fi
                NOK=$((NOK + 1))
                [ "$kind" != gpu ] || [ -n "$GPU_NAME" ] || GPU_NAME=$dev
            fi
        fi
        printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$(nb_csvq "$case_name")" "$n" "$ic" "$id" \
            "$(nb_csvq "$label")" "$status" "$med" "$p99" "$max" "$rate" "$(nb_csvq "$dev")" "$(nb_csvq "$note")" \
            "$(nb_csvq "$ccmd")" "$(nb_csvq "$bcmd")" >> "$CSV"
    done
    # the energy drift
    cmd="$prog -n $DRIFT_N -s $DRIFT_STEPS --check $opts"
    status=ok note="" e0="" e1="" rel="" dev=""
    if [ -n "${DEAD[$id]:-}" ]; then status=skipped; note=${DEAD[$id]}
    elif over_budget; then status=skipped; note="past PRECISION_BUDGET_S=$PRECISION_BUDGET_S s"
    else
        echo "[precision] $cmd" >&2
        set +e
        timeout --kill-after=10 "$RUN_LIMIT_S" "$bin" -n "$DRIFT_N" -s "$DRIFT_STEPS" --check "${o[@]}" \
            > "$NB_TMP/drift.out" 2> "$NB_TMP/drift.err" < /dev/null
        rc=$?
        set -e
        line=$(grep -m 1 '^  energy:' "$NB_TMP/drift.out" || true)
        if [ "$rc" -le 1 ] && [ -n "$line" ]; then
            read -r e0 e1 rel <<<"$(echo "$line" | sed 's/.*E0 \([^,]*\), E \([^,]*\), relative change \(.*\)/\1 \2 \3/')"
            dev=$(sed -n 's/^  device \(.*\) ([0-9]* SMs.*/\1/p; s/^  cpu \(.*\), [0-9]* thread.*/\1/p' "$NB_TMP/drift.out" | head -n 1)
            NOK=$((NOK + 1))
        else status=failed; note="exit $rc: $(tail -n 1 "$NB_TMP/drift.err" | cut -c 1-200)"; fi
    fi
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$id" "$(nb_csvq "$label")" "$DRIFT_N" "$DRIFT_STEPS" 0.001 \
        "$e0" "$e1" "$rel" "$status" "$(nb_csvq "$dev")" "$(nb_csvq "$note")" "$(nb_csvq "$cmd")" >> "$ECSV"
done <<< "$SERIES"

if [ "$NOK" -eq 0 ]; then
    echo "precision_table: nothing could be measured (are the steps built? run \`make\`)" >&2
    exit 3
fi

OUT=${RESULTS_DIR:-$NB_TOP/handouts/results/$(nbs_slug "$GPU_NAME")}
mkdir -p "$OUT"
STAMP=$(nbs_stamp_md "$GPU_NAME" "" "$REGEN")

# Markdown: one row per case and code, the ratio of p99 to the lesson kernel's
awk -v stamp="$STAMP" "$NB_AWK_CSV"'
    NR == 1 { nh = csvsplit($0, h); for (i = 1; i <= nh; i++) c[h[i]] = i; next }
    { csvsplit($0, v); r = ++nr
      for (k in c) val[r, k] = v[c[k]]
      if (v[c["series"]] == "lesson" && v[c["err_p99"]] != "") base[v[c["case"]], v[c["n"]]] = v[c["err_p99"]] }
    END {
      print "# Precision: accuracy and rate of each code\n"
      print stamp "\n"
      print "Errors: `--check` at the initial state (`-s 0`), per body |a - a_ref| / max(|a_ref|, 0.01 P), P the size of the pulls (docs/conventions.md), against the double"
      print "direct sum on 1024 sampled bodies; rate: a separate `--bench` run, N² interactions per step over the"
      print "median force time.  \"p99 vs lesson\": the lesson kernel'"'"'s p99 over this code'"'"'s (the same case).\n"
      print "| case | N | code | median | p99 | max | G inter/s | p99 vs lesson | note |"
      print "|---|--:|---|--:|--:|--:|--:|--:|---|"
      for (r = 1; r <= nr; r++) {
        k = val[r, "case"] SUBSEP val[r, "n"]; ratio = ""
        if ((k in base) && val[r, "err_p99"] != "" && val[r, "err_p99"] + 0 > 0 && val[r, "series"] != "lesson")
          ratio = sprintf("%.3g×", base[k] / val[r, "err_p99"])
        note = val[r, "status"] == "ok" ? val[r, "note"] : val[r, "status"] ": " val[r, "note"]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", val[r, "case"], val[r, "n"], val[r, "label"],
          val[r, "err_median"], val[r, "err_p99"], val[r, "err_max"], val[r, "ginter_per_s"], ratio, note
      }
      print "\nCommands: the `check_command` and `bench_command` columns of `table5_precision.csv`."
    }' "$CSV" > "$NB_TMP/table5_precision.md"

awk -v stamp="$STAMP" -v n="$DRIFT_N" -v steps="$DRIFT_STEPS" "$NB_AWK_CSV"'
    NR == 1 { nh = csvsplit($0, h); for (i = 1; i <= nh; i++) c[h[i]] = i
              print "# Precision: energy drift over " steps " Plummer steps, N = " n "\n"
              print stamp "\n"
              print "dt 0.001, eps 0.01; E from the double-precision sum of `--check` (on the double state for double"
              print "and mixed).  The leapfrog'"'"'s own energy error at this dt is part of every row: only the"
              print "differences between rows are precision.\n"
              print "| code | E0 | E after " steps " steps | relative change | note |"
              print "|---|--:|--:|--:|---|"; next }
    { csvsplit($0, v)
      note = v[c["status"]] == "ok" ? v[c["note"]] : v[c["status"]] ": " v[c["note"]]
      printf "| %s | %s | %s | %s | %s |\n", v[c["label"]], v[c["e0"]], v[c["e"]], v[c["relative_change"]], note }
    END { print "\nCommands: the `command` column of `table5_energy.csv`." }' "$ECSV" > "$NB_TMP/table5_energy.md"

for f in table5_precision.csv table5_precision.md table5_energy.csv table5_energy.md; do
    cp "$NB_TMP/$f" "$OUT/$f.tmp.$$" && mv -f "$OUT/$f.tmp.$$" "$OUT/$f"
    nb_provenance "$OUT" "$f" "$REGEN" "one run per cell" "${GPU_NAME:-none}"
done
echo "precision_table: wrote $OUT/table5_precision.{md,csv} and table5_energy.{md,csv} ($(nb_hms "$(nb_calc "$(nb_now) - $T0")"))" >&2
