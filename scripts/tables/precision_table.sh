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
# DRIFT_STEPS-step run.
#
# Time: first one short --bench run of each code (N = 65536 on the GPU, 4096
# on the CPU; a GPU code that exits 77 marks every GPU code "no usable GPU")
# measures its rate here; the model (N² interactions per force evaluation
# at that rate) predicts every run, and the first line states the sizes,
# the budget PRECISION_BUDGET_S and the ETA.  A run predicted to end past the
# budget is not started (its cell says so, with the estimate); a run's limit
# is the smallest of RUN_LIMIT_S (600 s), 60 s + 4x its estimate and the
# budget left (at least 30 s); a run killed at it says "timed out after L s".
# A code that cannot run here (no GPU: exit 77; not built) leaves its rows
# empty with the reason.
#
# Sizes (TABLES, as make tables: auto = full with a usable GPU, else small):
#   full   N = 1024, 16384, 262144, 1048576, 4194304 and clusters 30000; the
#          CPU to N = 30000; drift N = 16384, 1000 steps; budget 900 s
#   small  N = 1024, 16384 and clusters 30000; drift N = 4096, 1000 steps;
#          budget 180 s
#
# Usage: precision_table.sh [--estimate]   (--estimate: only the calibration
# runs, then one line on stdout: "ETA_S BUDGET_S what", for make tables' ETA)
# Variables: TABLES, QUICK=1 (N = 1024, 4096, clusters 3000, 50 drift steps:
# a test of the script), SLUG, RESULTS_DIR, NB_BIN_DIR, THREADS (step01's),
# CPU_MAX_N, DRIFT_N, DRIFT_STEPS, PRECISION_BUDGET_S, RUN_LIMIT_S.
# Exit: 0 written; 2 bad usage; 3 nothing could be measured.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"

ESTIMATE=0
case ${1:-} in --estimate) ESTIMATE=1 ;; '') ;; *) echo "usage: precision_table.sh [--estimate]" >&2; exit 2 ;; esac
QUICK=${QUICK:-0}
case $QUICK in 0|1|'') ;; *) echo "precision_table: QUICK must be 0 or 1 (got '$QUICK')" >&2; exit 2 ;; esac
TABLES=${TABLES:-auto}
case $TABLES in auto|small|full|quick) ;; *) echo "precision_table: TABLES must be auto, small or full (got '$TABLES')" >&2; exit 2 ;; esac
[ "$TABLES" != quick ] || QUICK=1
THREADS=${THREADS:-$(nbs_cpu_threads)}
nb_init_tmp

# id | program | options | kind | label
SERIES="lesson|step04_shared|--block 256|gpu|lesson kernel, single (step04)
tsingle|step04_shared/tuned/nbody_tuned|--precision single|gpu|tuned, single
tmixed|step04_shared/tuned/nbody_tuned|--precision mixed|gpu|tuned, mixed
tdouble|step04_shared/tuned/nbody_tuned|--precision double|gpu|tuned, double
csingle|step01_cpu/precision/nbody|--threads $THREADS --precision single|cpu|CPU step01, single
cmixed|step01_cpu/precision/nbody|--threads $THREADS --precision mixed|cpu|CPU step01, mixed
cdouble|step01_cpu/precision/nbody|--threads $THREADS --precision double|cpu|CPU step01, double"

# --- calibration: each code's rate here (and whether there is a GPU) ----------
declare -A DEAD RATE                 # a series that cannot run here: why; its rate (inter/s)
T0=$(nb_now)
HAVE_GPU=0
while IFS='|' read -r id prog opts kind label; do
    bin=$(nb_bin "$prog")
    if [ ! -x "$bin" ]; then DEAD[$id]="$prog is not built (run \`make\`)"; continue; fi
    if [ "$kind" = gpu ] && [ -n "${NOGPU:-}" ]; then DEAD[$id]=$NOGPU; continue; fi
    n=4096; [ "$kind" != gpu ] || n=65536; [ "$QUICK" != 1 ] || n=1024
    # shellcheck disable=SC2086
    nb_run 60 "$bin" -n "$n" --ic plummer -s 1 --warmup 0 --bench $opts --csv --csv-header
    case $NB_RC in
        0) r=$(nb_get inter_per_s); [ -z "$r" ] || RATE[$id]=$r; [ "$kind" != gpu ] || HAVE_GPU=1 ;;
        77) NOGPU="no usable GPU: $NB_ERR"; DEAD[$id]=$NOGPU ;;
    esac
done <<< "$SERIES"
T_CAL=$(nb_calc "$(nb_now) - $T0")
SIZES=$TABLES
[ "$SIZES" != auto ] || { [ "$HAVE_GPU" = 1 ] && SIZES=full || SIZES=small; }
[ "$QUICK" != 1 ] || SIZES=quick
if [ "$SIZES" = quick ]; then
    ROWS="1024 4096 clusters:3000"
    : "${CPU_MAX_N:=4096}" "${DRIFT_N:=1024}" "${DRIFT_STEPS:=50}" "${PRECISION_BUDGET_S:=300}"
elif [ "$SIZES" = small ]; then
    ROWS="1024 16384 clusters:30000"
    : "${CPU_MAX_N:=30000}" "${DRIFT_N:=4096}" "${DRIFT_STEPS:=1000}" "${PRECISION_BUDGET_S:=180}"
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
[ "$QUICK" = 1 ] || [ "$TABLES" = auto ] || REGEN="TABLES=$TABLES $REGEN"

# The time model: seconds of one run.  predict KIND RATE WHAT N [S W]
# (WHAT: check = one force evaluation and the double reference on 1024
# bodies; bench = S + W + 1 evaluations; drift = S + 1 evaluations and two
# double energy sums); RATE empty: 1e9/s on the CPU, 1e12/s on a GPU.
predict() {
    awk -v k="$1" -v r="$2" -v w="$3" -v n="$4" -v s="${5:-0}" -v wu="${6:-0}" 'BEGIN {
        if (r == "" || r + 0 <= 0) r = (k == "gpu") ? 1e12 : 1e9
        f = n * n / r; ref = 2 * 1024 * n / 1e9
        if (w == "check") t = 0.3 + f + ref
        else if (w == "bench") t = 0.3 + (s + wu + 1) * f
        else t = 0.3 + (s + 1) * f + n * n / 1e9
        printf "%.3f\n", t }'
}
bench_sw() { if [ "$1" -ge 4194304 ]; then echo "1 0"; elif [ "$1" -ge 1048576 ]; then echo "2 1"; else echo "5 1"; fi; }
# the runs to come, in the order they run: "id kind what n s w" lines
plan_runs() {
    local id prog opts kind label row n s w
    while IFS='|' read -r id prog opts kind label; do
        [ -z "${DEAD[$id]:-}" ] || continue
        for row in $ROWS; do
            n=${row#clusters:}
            [ "$kind" != cpu ] || [ "$n" -le "$CPU_MAX_N" ] || continue
            read -r s w <<<"$(bench_sw "$n")"
            echo "$id $kind check $n"; echo "$id $kind bench $n $s $w"
        done
        echo "$id $kind drift $DRIFT_N $DRIFT_STEPS"
    done <<< "$SERIES"
}
ETA=0
while read -r id kind what n s w; do
    ETA=$(nb_calc "$ETA + $(predict "$kind" "${RATE[$id]:-}" "$what" "$n" "$s" "$w")")
done < <(plan_runs)
ETA=$(awk -v e="$ETA" -v b="$PRECISION_BUDGET_S" 'BEGIN { printf "%.0f\n", (e > b) ? b : e }')
WHAT="N = $(echo "$ROWS" | sed 's/clusters:/clusters /; s/ /, /g; s/, clusters,/, clusters/') (the CPU to N = $CPU_MAX_N), drift N = $DRIFT_N x $DRIFT_STEPS steps"
if [ "$ESTIMATE" = 1 ]; then
    echo "$(nb_calc "$ETA + $T_CAL") $PRECISION_BUDGET_S $WHAT"
    exit 0
fi
echo "precision_table: sizes '$SIZES': $WHAT; budget $(nb_hms "$PRECISION_BUDGET_S") (PRECISION_BUDGET_S); ETA ~$(nb_hms "$ETA") (rates measured here in $(awk -v s="$T_CAL" 'BEGIN { printf "%.1f s", s }'))" >&2

CSV="$NB_TMP/table5_precision.csv"
ECSV="$NB_TMP/table5_energy.csv"
echo "case,n,ic,series,label,status,err_median,err_p99,err_max,ginter_per_s,device,note,check_command,bench_command" > "$CSV"
echo "series,label,n,steps,dt,e0,e,relative_change,status,device,note,command" > "$ECSV"
T0=$(nb_now)
NOK=0
GPU_NAME=""

# would a run of P seconds end past the budget?  (sets SPENT)
past_budget() { SPENT=$(nb_calc "$(nb_now) - $T0"); awk -v e="$SPENT" -v p="$1" -v b="$PRECISION_BUDGET_S" 'BEGIN { exit !(e + p > b) }'; }
# the limit of a run of P seconds: RUN_LIMIT_S, 60 + 4 P, the budget left (>= 30 s)
run_limit() {
    awk -v p="$1" -v cap="$RUN_LIMIT_S" -v b="$PRECISION_BUDGET_S" -v e="$(nb_calc "$(nb_now) - $T0")" 'BEGIN {
        l = 60 + 4 * p; if (l > cap) l = cap; r = b - e; if (r < 30) r = 30; if (l > r) l = r; printf "%d\n", l }'
}

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
        read -r s w <<<"$(bench_sw "$n")"
        bcmd="$prog -n $n --ic $ic -s $s --warmup $w --bench $opts --csv --csv-header"
        if [ -n "${DEAD[$id]:-}" ]; then status=skipped; note=${DEAD[$id]}
        elif [ "$kind" = cpu ] && [ "$n" -gt "$CPU_MAX_N" ]; then status=skipped; note="N > CPU_MAX_N=$CPU_MAX_N"
        elif pc=$(predict "$kind" "${RATE[$id]:-}" check "$n"); pb=$(predict "$kind" "${RATE[$id]:-}" bench "$n" "$s" "$w")
             past_budget "$(nb_calc "$pc + $pb")"; then
            status=skipped; note="past PRECISION_BUDGET_S=$PRECISION_BUDGET_S s: estimated $(nb_fmt "$(nb_calc "$pc + $pb")") s, $(nb_fmt "$SPENT") s spent"
        else
            lim=$(run_limit "$pc")
            echo "[precision] $ccmd   (estimated $(nb_fmt "$pc") s, limit $lim s)" >&2
            nb_run "$lim" "$bin" -n "$n" --ic "$ic" -s 0 --check "${o[@]}" --csv --csv-header
            case $NB_RC in
                0|1) med=$(field err_median); p99=$(field err_p99); max=$(field err_max); dev=$(field device)
                     [ "$NB_RC" = 0 ] || note="--check failed (exit 1)" ;;
                77) DEAD[$id]="no usable GPU: $NB_ERR"; status=no-gpu; note=${DEAD[$id]} ;;
                124|137) status=timeout; note="--check $NB_ERR" ;;
                *) status=failed; note="exit $NB_RC: $NB_ERR" ;;
            esac
            if [ "$status" = ok ]; then
                lim=$(run_limit "$pb")
                echo "[precision] $bcmd   (estimated $(nb_fmt "$pb") s, limit $lim s)" >&2
                nb_run "$lim" "$bin" -n "$n" --ic "$ic" -s "$s" --warmup "$w" --bench "${o[@]}" --csv --csv-header
                if [ "$NB_RC" = 0 ]; then rate=$(awk -v r="$(field inter_per_s)" 'BEGIN { printf "%.4g", r / 1e9 }')
                elif [ "$NB_RC" = 124 ] || [ "$NB_RC" = 137 ]; then note="${note:+$note; }bench $NB_ERR"
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
    elif pd=$(predict "$kind" "${RATE[$id]:-}" drift "$DRIFT_N" "$DRIFT_STEPS"); past_budget "$pd"; then
        status=skipped; note="past PRECISION_BUDGET_S=$PRECISION_BUDGET_S s: estimated $(nb_fmt "$pd") s, $(nb_fmt "$SPENT") s spent"
    else
        lim=$(run_limit "$pd")
        echo "[precision] $cmd   (estimated $(nb_fmt "$pd") s, limit $lim s)" >&2
        set +e
        timeout --kill-after=10 "$lim" "$bin" -n "$DRIFT_N" -s "$DRIFT_STEPS" --check "${o[@]}" \
            > "$NB_TMP/drift.out" 2> "$NB_TMP/drift.err" < /dev/null
        rc=$?
        set -e
        line=$(grep -m 1 '^  energy:' "$NB_TMP/drift.out" || true)
        if [ "$rc" -le 1 ] && [ -n "$line" ]; then
            read -r e0 e1 rel <<<"$(echo "$line" | sed 's/.*E0 \([^,]*\), E \([^,]*\), relative change \(.*\)/\1 \2 \3/')"
            dev=$(sed -n 's/^  device \(.*\) ([0-9]* SMs.*/\1/p; s/^  cpu \(.*\), [0-9]* thread.*/\1/p' "$NB_TMP/drift.out" | head -n 1)
            NOK=$((NOK + 1))
        elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then status=timeout; note="timed out after $lim s"
             [ "$lim" -ge "$(awk -v p="$pd" -v c="$RUN_LIMIT_S" 'BEGIN { l = 60 + 4 * p; printf "%d", (l > c) ? c : l }')" ] ||
                 note="$note (the end of PRECISION_BUDGET_S=$PRECISION_BUDGET_S s)"
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
