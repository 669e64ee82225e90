#!/usr/bin/env bash
# scripts/tables/tables.sh -- `make tables`: measure the course reports' three tables
# on this machine and write them under handouts/results/<slug>/.
#
#   table1_cpu_vs_gpu.{md,csv}        CPU (1 thread, all cores) vs naive GPU
#                                     (step02) vs optimized GPU (step04: the
#                                     lesson kernel and the tuned build)
#   table2_float3_float4_shared.{md,csv}  step02 vs step03 vs step04
#   table3_barnes_hut.{md,csv}        all-pairs CPU vs tree CPU (1 thread
#                                     and all cores) vs tree GPU (the lesson
#                                     and the tuned build), plus all-pairs
#                                     GPU (the crossover)
#   measurements.csv                  every run: status, command, full CSV line
#   table5_precision.{md,csv}, table5_energy.{md,csv}   the precision lesson's
#                                     table, by scripts/tables/precision_table.sh
#                                     (PRECISION_TABLE=0 leaves it out)
#
# Protocol (docs/conventions.md, Timing): each configuration is REPEATS runs
# (default 3, back to back) of a step with --bench --warmup 1 (one untimed
# step) and S timed steps; a cell shows the median over its runs of
# step_ms_med (the median over the timed steps of the whole leapfrog step,
# host<->device copies excluded).  Spread = (max - min) / median of the runs'
# step_ms_med: a cell whose spread passes SPREAD_MAX (0.10) is marked ‡ and
# its runs are listed under the table; a cell measured once (the budget
# left no time for another run) says so.  S is chosen from the time the previous N
# of the same column took: GPU runs aim at GPU_TARGET_S seconds of timed
# steps (GPU_MIN_STEPS..GPU_MAX_STEPS), CPU runs at CPU_TARGET_S seconds
# (1..CPU_MAX_STEPS).  A CPU configuration whose initial force evaluation,
# warm-up and one timed step would take more than CPU_BUDGET_S seconds
# (estimated from the previous N of its column) is not run: its cell says "skipped" and the note gives the
# estimate and the reason.  Nothing is extrapolated into a cell.  Cells with
# fewer than STD_STEPS timed steps are marked with a dagger and listed.
#
# GPU runs come first, then the CPU runs by increasing N, so that the overall
# budget TABLES_BUDGET_S trims the largest CPU cases first; no run may go on
# past that budget (its time limit is the budget left, at least 30 s): a run
# killed at its limit shows "timed out" and its note "timed out after L s".
#
# Sizes.  Before anything is measured, one short run of a GPU step says
# whether this machine has a usable GPU, and a few short CPU runs (step01 at
# N = 2048, step05 --cpu at N = 5000, on 1 and on all threads: about a
# second on an idle machine) calibrate the time model; from them the first
# lines state the sizes, the budget and the ETA of the whole `make tables`
# (table 5's too, scripts/tables/precision_table.sh --estimate).
#   TABLES=full   the GPU host's sizes: N = 1024 ... 1048576 (tables 1-2),
#                 1000 ... 500000 (table 3), TABLES_BUDGET_S 560 s, and
#                 table 5 to N = 4194304 (PRECISION_BUDGET_S 900 s)
#   TABLES=small  a machine without a GPU: N = 1024 ... 65536 (tables 1-2),
#                 1000 ... 100000 (table 3), TABLES_BUDGET_S 300 s, table 5
#                 at N <= 30000 with a 4096-body drift (PRECISION_BUDGET_S
#                 180 s): the budgets keep it under 10 minutes in all
#   TABLES=auto   (default) full with a usable GPU, small without
#
# Variables (environment or make command line):
#   TABLES=auto|small|full  the sizes (above)
#   QUICK=1            tiny grids, for tests (a few seconds)
#   REPEATS=3          runs per cell; SPREAD_MAX=0.10 the spread that marks a cell
#   SLUG=name          results folder name (default: from the GPU's name)
#   NB_BIN_DIR=dir     where the step folders with their nbody are
#   RESULTS_DIR=dir    where the results go (default handouts/results/<slug>)
#   TABLES_BUDGET_S, CPU_BUDGET_S, CPU_TARGET_S, CPU_MAX_STEPS,
#   GPU_TARGET_S, GPU_MIN_STEPS, GPU_MAX_STEPS, STD_STEPS, THREADS
#
# Exit status: 0 when the tables were written (also when GPU columns are
# empty because there is no GPU: the tables say why); 2 on bad usage; 3 when
# nothing at all could be measured (e.g. no step is built).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"

QUICK=${QUICK:-0}
[ "$QUICK" = 1 ] || [ "$QUICK" = 0 ] || [ -z "$QUICK" ] || { echo "tables: QUICK must be 0 or 1 (got '$QUICK')" >&2; exit 2; }
[ -n "$QUICK" ] || QUICK=0

THREADS=${THREADS:-$(nbs_cpu_threads)}
REPEATS=${REPEATS:-3}
SPREAD_MAX=${SPREAD_MAX:-0.10}
case $REPEATS in ''|*[!0-9]*|0) echo "tables: REPEATS must be a positive integer (got '$REPEATS')" >&2; exit 2 ;; esac
TABLES=${TABLES:-auto}
case $TABLES in auto|small|full) ;; *) echo "tables: TABLES must be auto, small or full (got '$TABLES')" >&2; exit 2 ;; esac
WARMUP=1
SEED=1
IC12=cube      # the course reports' set-up (docs/conventions.md, Initial conditions)
IC3=plummer    # the tree code's test case (docs/conventions.md, Verification and tolerances)

nb_init_tmp

# --- is there a usable GPU? (one short run of the first GPU step built) ---------
GPU_PROBE=""; NOGPU_REASON=""; HAVE_GPU=0
for p in step02_naive step03_float4 step04_shared step04_shared/tuned/nbody_tuned; do
    [ -x "$(nb_bin "$p")" ] || continue
    nb_run 60 "$(nb_bin "$p")" -n 1024 --steps 1 --warmup 0 --ic "$IC12" --seed "$SEED" --bench --csv --csv-header
    case $NB_RC in
        0) HAVE_GPU=1; GPU_PROBE="$p ran" ;;
        77) NOGPU_REASON=$NB_ERR; GPU_PROBE="$p exited 77 (no usable CUDA device)" ;;
        *) GPU_PROBE="$p exited $NB_RC ($NB_ERR)" ;;
    esac
    break
done
[ -n "$GPU_PROBE" ] || GPU_PROBE="no GPU step is built"
SIZES=$TABLES
[ "$SIZES" != auto ] || { [ "$HAVE_GPU" = 1 ] && SIZES=full || SIZES=small; }
[ "$QUICK" != 1 ] || SIZES=quick

if [ "$SIZES" = quick ]; then
    GRID1="256 512 1024"; GRID1_EXT="2048 4096"; GRID3="1000 2000 5000"
    : "${TABLES_BUDGET_S:=120}" "${CPU_BUDGET_S:=10}" "${CPU_TARGET_S:=0.5}" "${CPU_MAX_STEPS:=3}"
    : "${GPU_TARGET_S:=0.1}" "${GPU_MIN_STEPS:=3}" "${GPU_MAX_STEPS:=5}" "${STD_STEPS:=3}"
elif [ "$SIZES" = small ]; then
    GRID1="1024 2048 4096 8192"
    GRID1_EXT="16384 32768 65536"
    GRID3="1000 5000 10000 50000 100000"
    : "${TABLES_BUDGET_S:=300}" "${CPU_BUDGET_S:=20}" "${CPU_TARGET_S:=2}" "${CPU_MAX_STEPS:=10}"
    : "${GPU_TARGET_S:=0.5}" "${GPU_MIN_STEPS:=5}" "${GPU_MAX_STEPS:=50}" "${STD_STEPS:=5}"
else
    GRID1="1024 2048 4096 8192"
    GRID1_EXT="16384 32768 65536 131072 262144 524288 1048576"
    GRID3="1000 5000 10000 50000 100000 500000"
    : "${TABLES_BUDGET_S:=560}" "${CPU_BUDGET_S:=30}" "${CPU_TARGET_S:=5}" "${CPU_MAX_STEPS:=10}"
    : "${GPU_TARGET_S:=0.5}" "${GPU_MIN_STEPS:=5}" "${GPU_MAX_STEPS:=50}" "${STD_STEPS:=5}"
fi

REGEN="make tables"
[ "$QUICK" != 1 ] || REGEN="make tables QUICK=1"
[ "$QUICK" = 1 ] || [ "$TABLES" = auto ] || REGEN="$REGEN TABLES=$TABLES"
[ "$REPEATS" = 3 ] || REGEN="$REGEN REPEATS=$REPEATS"

# --- the columns ("series") ---------------------------------------------------
# id | step | extra options | kind | model | ic | label
declare -A S_STEP S_OPTS S_KIND S_MODEL S_IC S_LABEL S_DIS S_DISNOTE
add_series() {
    S_STEP[$1]=$2; S_OPTS[$1]=$3; S_KIND[$1]=$4; S_MODEL[$1]=$5; S_IC[$1]=$6; S_LABEL[$1]=$7
    S_DIS[$1]=""; S_DISNOTE[$1]=""
}
add_series cpu1     step01_cpu       "--threads 1"         cpu1    ap   "$IC12" "CPU, 1 thread (step01)"
add_series cpuall   step01_cpu       "--threads $THREADS"  cpuall  ap   "$IC12" "CPU, $THREADS threads (step01)"
add_series s02      step02_naive     ""                    gpu     ap   "$IC12" "naive GPU (step02)"
add_series s03      step03_float4    ""                    gpu     ap   "$IC12" "float4 GPU (step03)"
add_series s04      step04_shared    ""                    gpu     ap   "$IC12" "float4 + shared GPU (step04)"
add_series s04t     step04_shared/tuned/nbody_tuned ""           gpu     ap   "$IC12" "step04 tuned build (nbody_tuned)"
add_series bh_cap   step01_cpu       "--threads 1"         cpu1    ap   "$IC3"  "all-pairs CPU, 1 thread (step01)"
add_series bh_ctree step05_barneshut "--cpu --threads 1"   cputree tree "$IC3"  "tree CPU, 1 thread (step05 --cpu)"
add_series bh_ctall step05_barneshut "--cpu --threads $THREADS" cputree tree "$IC3" "tree CPU, $THREADS threads (step05 --cpu)"
add_series bh_gtree step05_barneshut ""                    gputree tree "$IC3"  "tree GPU (step05)"
add_series bh_ttree step05_barneshut/tuned/nbody_tuned "--theta 0.7" gputree tree "$IC3" "tuned tree GPU, θ 0.7 (nbody_tuned)"
add_series bh_gap   step04_shared    ""                    gpu     ap   "$IC3"  "all-pairs GPU (step04)"

is_gpu_kind() { case $1 in gpu|gputree) return 0;; *) return 1;; esac; }
if [ -n "$NOGPU_REASON" ]; then
    for t in "${!S_KIND[@]}"; do
        if is_gpu_kind "${S_KIND[$t]}"; then S_DIS[$t]=no-gpu; S_DISNOTE[$t]="no usable GPU: $NOGPU_REASON"; fi
    done
fi

# --- the plan: GPU runs first, then CPU runs by increasing N -------------------
PLAN=()
for s in s02 s03 s04 s04t; do for n in $GRID1 $GRID1_EXT; do PLAN+=("$s $n"); done; done
for s in bh_gtree bh_ttree bh_gap; do for n in $GRID3; do PLAN+=("$s $n"); done; done
CPU_PLAN=()
for n in $GRID1 $GRID1_EXT; do CPU_PLAN+=("$n cpu1" "$n cpuall"); done
for n in $GRID3; do CPU_PLAN+=("$n bh_cap" "$n bh_ctree" "$n bh_ctall"); done
while read -r n s; do PLAN+=("$s $n"); done < <(printf '%s\n' "${CPU_PLAN[@]}" | sort -n -s -k1,1)
TOTAL=${#PLAN[@]}

# --- the time model: per series, the last measured (N, s per step, overhead) ---
declare -A M_N M_T M_OH
# One awk program plans one configuration or sums the rest (the ETA).
# Input lines: "series kind model n mn mt moh"; output per line:
# "steps predicted_wall_s decision basis" (decision: run or skip).
PLAN_AWK='
function guess_t(kind, n) {
    if (kind == "cpu1")    return n * n / 2e9
    if (kind == "cpuall")  return n * n / (2e9 * 0.6 * threads)
    if (kind == "gpu")     return n * n / 3e11 + 2e-5
    if (kind == "cputree") return n * 80 * log(n) / 1e8
    if (kind == "gputree") return n * 80 * log(n) / 3e10 + 2e-4
    return n * n / 1e9
}
function plan(kind, model, n, mn, mt, moh,    t, oh, s, cpu) {
    if (mn > 0) {
        if (model == "tree") t = mt * (n * log(n)) / (mn * log(mn)); else t = mt * (n / mn) * (n / mn)
        oh = moh; basis = sprintf("from N=%d: %.3g s per step", mn, mt)
    } else { t = guess_t(kind, n); oh = 0.5; basis = "default rate guess" }
    cpu = (kind == "cpu1" || kind == "cpuall" || kind == "cputree")
    if (cpu) {
        s = int(cpu_target / t); if (s > cpu_max) s = cpu_max; if (s < 1) s = 1
        # Skip only on a measured basis; the ETA also leaves out guessed skips.
        decision = ((1 + warmup + 1) * t > cpu_budget && (mn > 0 || mode == "eta")) ? "skip" : "run"
    } else {
        s = int(gpu_target / t); if (s > gpu_max) s = gpu_max; if (s < gpu_min) s = gpu_min
        decision = "run"
    }
    steps = s; tstep = t
    # The program evaluates the forces once before the first step: count it.
    return oh + (1 + warmup + s) * t
}
{ w = plan($2, $3, $4 + 0, $5 + 0, $6 + 0, $7 + 0)
  if (mode == "one") printf "%d %.6g %s %.6g %s\n", steps, w, decision, tstep, basis
  else if (decision == "run") sum += w * repeats }
END { if (mode == "eta") { if (sum > left) sum = left; if (sum < 0) sum = 0; printf "%.0f\n", sum } }'

plan_input() {  # series n -> one input line for PLAN_AWK
    local s=$1 n=$2
    echo "$s ${S_KIND[$s]} ${S_MODEL[$s]} $n ${M_N[$s]:-0} ${M_T[$s]:-0} ${M_OH[$s]:-0}"
}
run_plan_awk() {
    awk -v mode="$1" -v left="${2:-0}" -v threads="$THREADS" -v warmup="$WARMUP" \
        -v cpu_target="$CPU_TARGET_S" -v cpu_max="$CPU_MAX_STEPS" -v cpu_budget="$CPU_BUDGET_S" \
        -v gpu_target="$GPU_TARGET_S" -v gpu_min="$GPU_MIN_STEPS" -v gpu_max="$GPU_MAX_STEPS" -v repeats="$REPEATS" "$PLAN_AWK"
}

# --- calibration: the CPU codes' speed here, seeding the time model ------------
# step01 at N = 2048 and step05 --cpu at N = 5000, on 1 and on all threads,
# one timed step after one warm-up: the model scales them (N², N log N) to
# every cell of their columns until a cell of the column itself is measured.
calibrate() {  # calibrate PROGRAM N IC "OPTIONS" SERIES...
    local prog=$1 n=$2 ic=$3 opts=$4 ms wall t oh; shift 4
    local bin; bin=$(nb_bin "$prog")
    [ -x "$bin" ] || return 0
    # shellcheck disable=SC2086
    nb_run 60 "$bin" -n "$n" --steps 1 --warmup 1 --ic "$ic" --seed "$SEED" $opts --bench --csv --csv-header
    [ "$NB_RC" = 0 ] || return 0
    ms=$(nb_get step_ms_med); [ -n "$ms" ] || return 0
    t=$(nb_calc "$ms / 1000")
    oh=$(awk -v w="$NB_WALL" -v t="$t" 'BEGIN { o = w - 3 * t; if (o < 0.05) o = 0.05; print o }')
    for s in "$@"; do M_N[$s]=$n; M_T[$s]=$t; M_OH[$s]=$oh; done
    CAL_NOTE+="${CAL_NOTE:+; }$prog ${opts:+$opts }at N=$n: $(nb_fmt "$ms") ms/step"
}
CAL_NOTE=""
T_CAL0=$(nb_now)
calibrate step01_cpu 2048 "$IC12" "--threads 1" cpu1 bh_cap
calibrate step01_cpu 2048 "$IC12" "--threads $THREADS" cpuall
calibrate step05_barneshut 5000 "$IC3" "--cpu --threads 1" bh_ctree
calibrate step05_barneshut 5000 "$IC3" "--cpu --threads $THREADS" bh_ctall
T_CAL=$(nb_calc "$(nb_now) - $T_CAL0")

# --- the sizes, the budget and the ETA, before anything is measured -----------
eta_all=""
for e in "${PLAN[@]}"; do rs=${e% *}; [ -n "${S_DIS[$rs]}" ] || eta_all+="$(plan_input "$rs" "${e#* }")"$'\n'; done
ETA_T=$(printf '%s' "$eta_all" | run_plan_awk eta "$TABLES_BUDGET_S")
PREC_ETA=0 PREC_BUDGET=0 PREC_WHAT="left out (PRECISION_TABLE=0)"
if [ "${PRECISION_TABLE:-1}" != 0 ]; then
    read -r PREC_ETA PREC_BUDGET PREC_WHAT < <(QUICK=$QUICK TABLES=$SIZES THREADS=$THREADS \
        bash "$NB_TOP/scripts/tables/precision_table.sh" --estimate 2>/dev/null || echo "0 0 not estimated")
fi
range_of() { echo "$1" | awk '{ printf "%s ... %s", $1, $NF }'; }
{
    echo "tables: sizes '$SIZES' (TABLES=$TABLES; GPU probe: $GPU_PROBE$([ "$SIZES" != small ] || echo "; TABLES=full for the GPU host's sizes")):"
    echo "  tables 1-2 N = $(range_of "$GRID1 $GRID1_EXT"), table 3 N = $(range_of "$GRID3"), $REPEATS runs per cell; table 5: ${PREC_WHAT}"
    echo "  budget $(nb_hms "$(nb_calc "$TABLES_BUDGET_S + $PREC_BUDGET")") (TABLES_BUDGET_S=$TABLES_BUDGET_S for tables 1-3, PRECISION_BUDGET_S=$PREC_BUDGET for table 5)"
    echo "  ETA ~$(nb_hms "$(nb_calc "$ETA_T + $PREC_ETA + $T_CAL")") (tables 1-3 ~$(nb_hms "$ETA_T"), table 5 ~$(nb_hms "$PREC_ETA")), from the time model calibrated here in $(awk -v s="$T_CAL" 'BEGIN { printf "%.1f s", s }'): ${CAL_NOTE:-no CPU step built}"
} >&2

# --- the measurements file -------------------------------------------------------
PROG_COLS="step,n,steps,ic,seed,dt,eps,theta,block,threads,device,sms,clock_mhz,force_ms_med,force_ms_min,step_ms_med,step_ms_min,interactions,inter_per_s,gflops,err_median,err_p99,err_max,device_bytes,tree_nodes,tree_depth,force_ms_mean,step_ms_mean"
# series whose steps are unequal by design (nbody_tuned keeps its tree for 4
# steps: built on one, refitted on the others): their cell is the mean of the
# timed steps, what a long run costs a step, not the median
MEAN_SERIES="bh_ttree"
MEAS="$NB_TMP/measurements.csv"
echo "series,n,rep,status,timed_steps,note,wall_s,command,$PROG_COLS" >"$MEAS"

# record SERIES N STATUS STEPS NOTE WALL CMD  (program fields from NB_HDR/NB_LINE when ok;
# the run's number among the cell's repeats: REP)
REP=1
record() {
    local prog=""
    if [ "$3" = ok ]; then
        prog=$(awk -v cols="$PROG_COLS" -v hdr="$NB_HDR" -v line="$NB_LINE" "$NB_AWK_CSV"'
            BEGIN { nc = split(cols, c, ","); nh = csvsplit(hdr, h); nl = csvsplit(line, v)
                    for (i = 1; i <= nh; i++) val[h[i]] = v[i]
                    out = ""; for (i = 1; i <= nc; i++) out = out (i > 1 ? "," : "") csvq(val[c[i]])
                    print out }')
    else
        prog=$(echo "$PROG_COLS" | tr -cd ',')
    fi
    printf '%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$REP" "$3" "$4" "$(nb_csvq "$5")" "$6" "$(nb_csvq "$7")" "$prog" >>"$MEAS"
}

# --- run everything ------------------------------------------------------------
GPU_NAME=""; NRUN_OK=0
T_START=$(nb_now)
i=0
for entry in "${PLAN[@]}"; do
    i=$((i + 1))
    s=${entry% *}; n=${entry#* }
    step=${S_STEP[$s]}; bin=$(nb_bin "$step")
    if [ -n "${S_DIS[$s]}" ] && [ -x "$bin" ]; then
        record "$s" "$n" "${S_DIS[$s]}" "" "${S_DISNOTE[$s]}" "" ""
        continue
    fi
    if [ ! -x "$bin" ]; then
        case $step in */*) prog=$step ;; *) prog=$step/nbody ;; esac
        S_DIS[$s]=not-built; S_DISNOTE[$s]="$prog is not built (run \`make\`; if ${step%%/*} does not exist yet, or this is the student kit, which leaves the tuned builds out, this column stays empty)"
        record "$s" "$n" not-built "" "${S_DISNOTE[$s]}" "" ""
        continue
    fi
    read -r steps pwall decision tstep basis <<<"$(plan_input "$s" "$n" | run_plan_awk one)"
    elapsed=$(nb_calc "$(nb_now) - $T_START")
    # what is left after this one, for the ETA
    rest=""
    for e in "${PLAN[@]:$i}"; do rs=${e% *}; [ -n "${S_DIS[$rs]}" ] || rest+="$(plan_input "$rs" "${e#* }")"$'\n'; done
    eta=$(printf '%s' "$rest" | run_plan_awk eta "$(nb_calc "$TABLES_BUDGET_S - $elapsed")")
    [ "$decision" != run ] || eta=$(nb_calc "$eta + $REPEATS * $pwall")
    if [ "$decision" = skip ]; then
        scal="N²"; [ "${S_MODEL[$s]}" != tree ] || scal="N log N"
        note="skipped: initial forces + $WARMUP warm-up + 1 timed step estimated at $(nb_fmt "$(nb_calc "(1 + $WARMUP + 1) * $tstep")") s ($basis, scaled as $scal), over CPU_BUDGET_S=$CPU_BUDGET_S s"
        echo "[tables $i/$TOTAL] $step -n $n: $note" >&2
        record "$s" "$n" skipped "" "$note" "" ""
        continue
    fi
    if awk -v e="$elapsed" -v p="$pwall" -v b="$TABLES_BUDGET_S" 'BEGIN { exit !(e + p > b) }'; then
        note="skipped: would end past the make tables time budget (TABLES_BUDGET_S=$TABLES_BUDGET_S s; estimated $(nb_fmt "$pwall") s, $(nb_fmt "$elapsed") s already spent)"
        echo "[tables $i/$TOTAL] $step -n $n: $note" >&2
        record "$s" "$n" skipped "" "$note" "" ""
        continue
    fi
    ic=${S_IC[$s]}
    # shellcheck disable=SC2206
    opts=(${S_OPTS[$s]})
    args=(-n "$n" --steps "$steps" --warmup "$WARMUP" --ic "$ic" --seed "$SEED" "${opts[@]}" --bench --csv --csv-header)
    cmd="$step/nbody ${args[*]}"
    for ((REP = 1; REP <= REPEATS; REP++)); do
        if [ "$REP" -gt 1 ]; then
            elapsed=$(nb_calc "$(nb_now) - $T_START")
            # another run only if it fits the budget (the cell says how many it got)
            if awk -v e="$elapsed" -v p="$pwall" -v b="$TABLES_BUDGET_S" 'BEGIN { exit !(e + p > b) }'; then
                echo "    -> no time left for run $REP of $REPEATS (TABLES_BUDGET_S=$TABLES_BUDGET_S s)" >&2
                break
            fi
        fi
        echo "[tables $i/$TOTAL, $((TOTAL - i)) left, run $REP/$REPEATS, elapsed $(nb_hms "$elapsed"), ETA ~$(nb_hms "$eta")] $cmd" >&2
        # the run's limit: generous (nb_limit), but never past the budget
        lim=$(awk -v l="$(nb_limit "$pwall" 600)" -v b="$TABLES_BUDGET_S" -v e="$(nb_calc "$(nb_now) - $T_START")" \
              'BEGIN { r = b - e; if (r < 30) r = 30; printf "%d\n", (l < r) ? l : r }')
        nb_run "$lim" "$bin" "${args[@]}"
        # a run cut at the budget's end says so
        if { [ "$NB_RC" = 124 ] || [ "$NB_RC" = 137 ]; } && [ "$lim" -lt "$(nb_limit "$pwall" 600)" ]; then
            NB_ERR="$NB_ERR (the end of TABLES_BUDGET_S=$TABLES_BUDGET_S s)"
        fi
        stop=1
        case $NB_RC in
            0)
                ms=$(nb_get step_ms_med); got_steps=$(nb_get steps)
                [ -n "$got_steps" ] || got_steps=$steps
                if [ -z "$ms" ]; then
                    record "$s" "$n" failed "" "no step_ms_med in the CSV line" "$NB_WALL" "$cmd"; break
                fi
                record "$s" "$n" ok "$got_steps" "" "$NB_WALL" "$cmd"
                stop=0
                [ "$REP" -gt 1 ] || NRUN_OK=$((NRUN_OK + 1))
                if is_gpu_kind "${S_KIND[$s]}" && [ -z "$GPU_NAME" ]; then GPU_NAME=$(nb_get device); fi
                M_N[$s]=$n
                M_T[$s]=$(nb_calc "$ms / 1000")
                M_OH[$s]=$(awk -v w="$NB_WALL" -v s="$got_steps" -v wu="$WARMUP" -v t="$ms" 'BEGIN { o = w - (1 + s + wu) * t / 1000; if (o < 0.05) o = 0.05; print o }')
                echo "    -> $(nb_fmt "$ms") ms/step, $(nb_fmt "$NB_WALL") s" >&2
                ;;
            77)
                NOGPU_REASON=$NB_ERR
                for t in "${!S_KIND[@]}"; do
                    if is_gpu_kind "${S_KIND[$t]}"; then S_DIS[$t]=no-gpu; S_DISNOTE[$t]="no usable GPU: $NB_ERR"; fi
                done
                echo "    -> exit 77, no usable GPU: $NB_ERR (GPU columns stay empty)" >&2
                record "$s" "$n" no-gpu "" "no usable GPU: $NB_ERR" "$NB_WALL" "$cmd"
                ;;
            124|137)
                S_DIS[$s]=skipped; S_DISNOTE[$s]="skipped: N=$n of this column $NB_ERR"
                echo "    -> $NB_ERR" >&2
                record "$s" "$n" timeout "" "$NB_ERR" "$NB_WALL" "$cmd"
                ;;
            2)
                S_DIS[$s]=failed; S_DISNOTE[$s]="failed: $step refused the options (exit 2): $NB_ERR"
                echo "    -> exit 2 (usage): $NB_ERR" >&2
                record "$s" "$n" failed "" "exit 2 (usage): $NB_ERR" "$NB_WALL" "$cmd"
                ;;
            *)
                echo "    -> exit $NB_RC: $NB_ERR" >&2
                record "$s" "$n" failed "" "exit $NB_RC: $NB_ERR" "$NB_WALL" "$cmd"
                ;;
        esac
        [ "$stop" = 0 ] || break
    done
    REP=1
done
T_TOTAL=$(nb_calc "$(nb_now) - $T_START")

if [ "$NRUN_OK" -eq 0 ]; then
    echo "tables: nothing could be measured (are the steps built? run \`make\` first); see the notes above" >&2
    exit 3
fi

# --- where the results go ---------------------------------------------------------
if [ -z "$GPU_NAME" ]; then
    # No GPU measurement: name the folder after nvidia-smi's GPU, else cpu-only.
    SLUG_NAME=$(nbs_slug "")
else
    SLUG_NAME=$(nbs_slug "$GPU_NAME")
fi
OUT=${RESULTS_DIR:-$NB_TOP/handouts/results/$SLUG_NAME}
mkdir -p "$OUT"
# every file is written beside its place and renamed into it (no half-written table)
cp "$MEAS" "$OUT/.measurements.csv.tmp.$$" && mv -f "$OUT/.measurements.csv.tmp.$$" "$OUT/measurements.csv"

STAMP_GPU=$GPU_NAME
STAMP=$(nbs_stamp_md "$STAMP_GPU" "${NOGPU_REASON:+no usable GPU: $NOGPU_REASON}" "$REGEN")
STAMP="$STAMP
- Commit: $(nb_commit)
- Run: $(nb_hms "$T_TOTAL") in all, $REPEATS runs per cell; every run's exact command and full CSV line are in measurements.csv"

# --- the tables, from measurements.csv -------------------------------------------------
# TABLE_AWK reads measurements.csv and prints one table, as md or csv.
# spec: "col1 col2 ...|ratioA/B ratioC/D|rate cols" with cols being series ids.
TABLE_AWK='
function fmt(x,   a) {
    if (x == "") return ""
    x = x + 0; a = (x < 0) ? -x : x
    if (a >= 1000) return sprintf("%.0f", x)
    if (a >= 100) return sprintf("%.1f", x)
    if (a >= 1) return sprintf("%.2f", x)
    if (a == 0) return "0"
    return sprintf("%.3g", x)
}
function ok(s, n) { return ((s SUBSEP n) in st) && st[s, n] == "ok" && ms[s, n] != "" }
function addnote(key, text) { if (!(key in seen)) { seen[key] = 1; notes[++nnotes] = text } }
# the median of a[1..m] (sorted in place)
function median(a, m,    i, j, t) {
    for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
BEGIN { FS = "\n" }
NR == 1 { nh = csvsplit($0, h); for (i = 1; i <= nh; i++) if (!(h[i] in col)) col[h[i]] = i; next }
{
    # one row per run; a cell (series, N) gathers its repeats
    csvsplit($0, v); s = v[col["series"]]; n = v[col["n"]]; k = s SUBSEP n
    f = (index(" " mean_series " ", " " s " ") && v[col["step_ms_mean"]] != "") ? "step_ms_mean" : "step_ms_med"
    if (v[col["status"]] == "ok" && v[col[f]] != "") {
        r = ++nr[k]; rms[k, r] = v[col[f]] + 0; rip[k, r] = v[col["inter_per_s"]]
        t = v[col["timed_steps"]]
        if (!(k in tsteps) || (t != "" && t + 0 < tsteps[k] + 0)) tsteps[k] = t
        st[k] = "ok"
    } else if ((k in st) && st[k] == "ok") {
        lost[k] = lost[k] (lost[k] == "" ? "" : "; ") "run " v[col["rep"]] ": " v[col["status"]] (v[col["note"]] == "" ? "" : " (" v[col["note"]] ")")
    } else { st[k] = v[col["status"]]; nt[k] = v[col["note"]] }
}
END {
    for (k in nr) {
        m = nr[k]; list = ""
        for (r = 1; r <= m; r++) { a[r] = rms[k, r]; list = list (r > 1 ? " / " : "") fmt(rms[k, r]) }
        runs[k] = list
        for (r = 1; r <= m; r++) b[r] = rip[k, r] + 0
        ips[k] = (rip[k, 1] == "") ? "" : median(b, m)
        ms[k] = median(a, m)
        spread[k] = (m > 1 && ms[k] > 0) ? (a[m] - a[1]) / ms[k] : ""
    }
    ncols = split(cols, C, " "); nrat = split(ratios, R, " "); nrate = split(rates, Q, " ")
    nrows = split(grid, G, " ")
    nl = split(labels_s, L, "|")
    for (j = 1; j <= nl; j++) { split(L[j], kv, "="); lab[kv[1]] = kv[2] }
    nl = split(short_s, L, "|")
    for (j = 1; j <= nl; j++) { split(L[j], kv, "="); sh[kv[1]] = kv[2] }
    if (out == "csv") {
        line = "n"
        for (j = 1; j <= ncols; j++) line = line "," C[j] "_ms," C[j] "_steps," C[j] "_status," C[j] "_repeats," C[j] "_spread"
        for (j = 1; j <= nrate; j++) line = line "," Q[j] "_ginter_per_s"
        for (j = 1; j <= nrat; j++) { split(R[j], ab, "/"); line = line "," ab[1] "_over_" ab[2] }
        print line
        for (r = 1; r <= nrows; r++) {
            n = G[r]; line = n
            for (j = 1; j <= ncols; j++) {
                s = C[j]
                line = line "," (ok(s, n) ? ms[s, n] : "") "," (ok(s, n) ? tsteps[s, n] : "") "," (((s SUBSEP n) in st) ? st[s, n] : "not-run")
                line = line "," (ok(s, n) ? nr[s, n] : "") "," ((ok(s, n) && spread[s, n] != "") ? sprintf("%.4f", spread[s, n]) : "")
            }
            for (j = 1; j <= nrate; j++) { s = Q[j]; line = line "," (ok(s, n) && ips[s, n] != "" ? sprintf("%.6g", ips[s, n] / 1e9) : "") }
            for (j = 1; j <= nrat; j++) {
                split(R[j], ab, "/")
                line = line "," ((ok(ab[1], n) && ok(ab[2], n) && ms[ab[2], n] > 0) ? sprintf("%.4g", ms[ab[1], n] / ms[ab[2], n]) : "")
            }
            print line
        }
        exit
    }
    # Markdown
    line = "| N |"; sep = "|--:|"
    for (j = 1; j <= ncols; j++) { line = line " " lab[C[j]] " |"; sep = sep "--:|" }
    for (j = 1; j <= nrate; j++) { line = line " " sh[Q[j]] " G inter/s |"; sep = sep "--:|" }
    for (j = 1; j <= nrat; j++) { split(R[j], ab, "/"); line = line " speedup " sh[ab[2]] " vs " sh[ab[1]] " |"; sep = sep "--:|" }
    print line; print sep
    for (r = 1; r <= nrows; r++) {
        n = G[r]; line = "| " n " |"
        for (j = 1; j <= ncols; j++) {
            s = C[j]
            if (ok(s, n)) {
                cell = fmt(ms[s, n])
                if (tsteps[s, n] != "" && tsteps[s, n] + 0 < std_steps) {
                    cell = cell " †"
                    fewer[s] = fewer[s] (fewer[s] == "" ? "" : "; ") "N=" n ": " tsteps[s, n] " timed step" (tsteps[s, n] == 1 ? "" : "s")
                }
                if (spread[s, n] != "" && spread[s, n] > spread_max) {
                    cell = cell " ‡"; nspread++
                    wide[s] = wide[s] (wide[s] == "" ? "" : "; ") sprintf("N=%s: %s ms (spread %.1f %%)", n, runs[s, n], 100 * spread[s, n])
                }
                if (nr[s, n] < repeats)
                    once[s] = once[s] (once[s] == "" ? "" : ", ") n " (" nr[s, n] " of " repeats ")"
                if ((s SUBSEP n) in lost) addnote(s SUBSEP n SUBSEP "lost", lab[s] ", N=" n ": " lost[s, n])
            } else if ((s SUBSEP n) in st) {
                cell = (st[s, n] == "skipped") ? "skipped" : (st[s, n] == "timeout") ? "timed out" : "—"
                reason = nt[s, n]
                if (st[s, n] == "no-gpu") { }   # said once above the table
                else if (st[s, n] == "not-built" || (st[s, n] == "skipped" && reason ~ /^skipped: N=/) || (st[s, n] == "failed" && reason ~ /^failed: /))
                    addnote(s SUBSEP reason, lab[s] ": " reason)
                else
                    addnote(s SUBSEP n SUBSEP reason, lab[s] ", N=" n ": " reason)
            } else cell = ""
            line = line " " cell " |"
        }
        for (j = 1; j <= nrate; j++) { s = Q[j]; line = line " " ((ok(s, n) && ips[s, n] != "") ? fmt(ips[s, n] / 1e9) : "") " |" }
        for (j = 1; j <= nrat; j++) {
            split(R[j], ab, "/")
            line = line " " ((ok(ab[1], n) && ok(ab[2], n) && ms[ab[2], n] > 0) ? fmt(ms[ab[1], n] / ms[ab[2], n]) "×" : "") " |"
        }
        print line
    }
    nf = 0
    for (j = 1; j <= ncols; j++) if ((C[j] in fewer) || (C[j] in wide) || (C[j] in once)) nf++
    if (nf || nnotes) { print ""; print "Notes:" }
    for (j = 1; j <= ncols; j++) if (C[j] in fewer)
        print "- † " lab[C[j]] ": measured over fewer than " std_steps " timed steps (after " warmup " warm-up step) to bound the run time: " fewer[C[j]] "."
    for (j = 1; j <= ncols; j++) if (C[j] in wide)
        print "- ‡ " lab[C[j]] ": the " repeats " runs spread more than " 100 * spread_max " % ((max − min) / median; the cell is their median), do not read this cell as a fact: " wide[C[j]] "."
    for (j = 1; j <= ncols; j++) if (C[j] in once)
        print "- " lab[C[j]] ": fewer runs than REPEATS=" repeats " (the time budget ran out), spread not known at N = " once[C[j]] "."
    for (k = 1; k <= nnotes; k++) print "- " notes[k]
}'

labels="cpu1=CPU 1 thread|cpuall=CPU $THREADS threads|s02=naive GPU (step02)|s03=float4 GPU (step03)|s04=float4+shared GPU (step04)|s04t=step04 tuned (nbody_tuned)|bh_cap=all-pairs CPU 1 thread (step01)|bh_ctree=tree CPU 1 thread (step05 --cpu)|bh_ctall=tree CPU $THREADS threads (step05 --cpu)|bh_gtree=tree GPU (step05)|bh_ttree=tuned tree GPU θ 0.7 (nbody_tuned)|bh_gap=all-pairs GPU (step04)"
short="cpu1=CPU 1T|cpuall=CPU ${THREADS}T|s02=step02|s03=step03|s04=step04|s04t=step04 tuned|bh_cap=all-pairs CPU|bh_ctree=tree CPU 1T|bh_ctall=tree CPU ${THREADS}T|bh_gtree=tree GPU|bh_ttree=tuned tree|bh_gap=all-pairs GPU"
# The CSV columns are named by the series ids; the Markdown uses the labels.
make_table() {  # make_table FILEBASE GRID COLS RATIOS RATES  (writes md-body to stdout and csv to file)
    local base=$1 grid=$2 cols=$3 ratios=$4 rates=$5
    awk -v out=csv -v grid="$grid" -v cols="$cols" -v ratios="$ratios" -v rates="$rates" -v labels_s="$labels" -v short_s="$short" \
        -v std_steps="$STD_STEPS" -v warmup="$WARMUP" -v repeats="$REPEATS" -v spread_max="$SPREAD_MAX" -v mean_series="$MEAN_SERIES" "$NB_AWK_CSV$TABLE_AWK" "$OUT/measurements.csv" >"$NB_TMP/body.csv"
    {
        echo "$STAMP" | sed 's/^- /# /'
        cat "$NB_TMP/body.csv"
    } >"$OUT/.$base.csv.tmp.$$" && mv -f "$OUT/.$base.csv.tmp.$$" "$OUT/$base.csv"
    awk -v out=md -v grid="$grid" -v cols="$cols" -v ratios="$ratios" -v rates="$rates" -v labels_s="$labels" -v short_s="$short" \
        -v std_steps="$STD_STEPS" -v warmup="$WARMUP" -v repeats="$REPEATS" -v spread_max="$SPREAD_MAX" -v mean_series="$MEAN_SERIES" "$NB_AWK_CSV$TABLE_AWK" "$OUT/measurements.csv"
}

gpu_note() {
    if [ -n "$NOGPU_REASON" ]; then
        echo ""
        echo "**The GPU columns are empty: the GPU steps exited 77 (no usable CUDA device): $NOGPU_REASON**"
    fi
}
protocol_line() {  # $1: ic
    echo "Milliseconds per time step: the median of $REPEATS runs of the median over the timed steps, after $WARMUP untimed warm-up step, of the whole leapfrog step (kick, drift, force, kick; for the tree code also the tree build); host↔device copies excluded (docs/conventions.md, Timing). Initial conditions \`$1\`, seed $SEED, default dt and ε; GPU steps at their default block size. Ratios are T(left) ÷ T(right): how many times faster the right-hand column is."
}

T1="$OUT/table1_cpu_vs_gpu.md"
{
    echo "# Table 1 — time per step: CPU vs naive GPU vs optimized GPU"
    echo ""
    protocol_line "$IC12"
    echo "The course report's Table 1 has N = 1024 … 8192; larger N extend it for the GPU (and for the CPU as far as the time budget allows). step04 is shown twice: the lesson kernel (shared-memory tiling alone) and its tuned build (register tiling, j-slices for small N, each pair once for large N, fused kick, CUDA graphs; handouts/04_shared.md)."
    gpu_note
    echo ""
    make_table table1_cpu_vs_gpu "$GRID1 $GRID1_EXT" "cpu1 cpuall s02 s04 s04t" "cpu1/s02 cpu1/s04 cpuall/s04 s04/s04t" ""
    echo ""
    echo "Measured on:"
    echo "$STAMP"
    echo "- Each cell: \`stepNN_x/nbody -n N --steps S --warmup $WARMUP --ic $IC12 --seed $SEED [--threads T] --bench --csv --csv-header\`"
} >"$T1.tmp.$$" && mv -f "$T1.tmp.$$" "$T1"

T2="$OUT/table2_float3_float4_shared.md"
{
    echo "# Table 2 — float3 vs float4 vs float4 + shared memory"
    echo ""
    protocol_line "$IC12"
    echo "step02 reads positions as float3 plus a separate mass, step03 as one float4, step04 adds shared-memory tiling. G inter/s = body–body interactions per second of the force computation (N² per step)."
    gpu_note
    echo ""
    make_table table2_float3_float4_shared "$GRID1 $GRID1_EXT" "s02 s03 s04" "s02/s03 s02/s04 s03/s04" "s02 s03 s04"
    echo ""
    echo "Measured on:"
    echo "$STAMP"
    echo "- Each cell: \`stepNN_x/nbody -n N --steps S --warmup $WARMUP --ic $IC12 --seed $SEED --bench --csv --csv-header\`"
} >"$T2.tmp.$$" && mv -f "$T2.tmp.$$" "$T2"

T3="$OUT/table3_barnes_hut.md"
{
    echo "# Table 3 — Barnes–Hut: all-pairs vs tree code, CPU and GPU"
    echo ""
    protocol_line "$IC3"
    echo "Tree code at the default opening angle θ = 0.5. The last ratio, all-pairs GPU ÷ tree GPU, passes 1 where the tree code overtakes the optimized all-pairs kernel (the crossover). The tuned tree (step05's nbody_tuned: quadrupole cells, one walk per group of 64 bodies) runs at θ 0.7 and keeps its tree for 4 steps (its cells are the mean of the timed steps, which include the rebuilds), where its quadrupoles are about as accurate as the lesson's monopoles at θ 0.5 (\`make bench-tree TREE_N=1048576 LESSON_THETA=0.5 TUNED_THETA=0.7\` measures both codes' errors side by side); tree GPU ÷ tuned tree is its speed-up at that accuracy."
    if [ ! -x "$(nb_bin step05_barneshut)" ]; then
        echo ""
        echo "**The tree columns are empty: step05_barneshut/nbody is not built (step05 may not exist yet in this tree). Run \`make\` and \`make tables\` again once it builds.**"
    fi
    gpu_note
    echo ""
    make_table table3_barnes_hut "$GRID3" "bh_cap bh_ctree bh_ctall bh_gtree bh_ttree bh_gap" "bh_cap/bh_ctree bh_ctree/bh_ctall bh_ctall/bh_gtree bh_gtree/bh_ttree bh_gap/bh_gtree" ""
    echo ""
    echo "Measured on:"
    echo "$STAMP"
    echo "- Each cell: \`stepNN_x/nbody -n N --steps S --warmup $WARMUP --ic $IC3 --seed $SEED [--threads 1 | --cpu --threads T] --bench --csv --csv-header\`"
} >"$T3.tmp.$$" && mv -f "$T3.tmp.$$" "$T3"

cat "$T1"; echo; cat "$T2"; echo; cat "$T3"
# provenance: every file of this run, with the spread over its repeats
# (grep finds no mark when every cell is within the spread: not an error)
nwide=$(cat "$T1" "$T2" "$T3" | { grep '^| [0-9]' || true; } | { grep -o ' ‡ |' || true; } | wc -l)
SPREAD="$REPEATS runs per cell; $nwide cells spread more than $(nb_calc "100 * $SPREAD_MAX") % (marked ‡)"
for f in table1_cpu_vs_gpu table2_float3_float4_shared table3_barnes_hut; do
    for e in md csv; do nb_provenance "$OUT" "$f.$e" "$REGEN" "$SPREAD" "$GPU_NAME"; done
done
nb_provenance "$OUT" measurements.csv "$REGEN" "$SPREAD" "$GPU_NAME"
echo >&2
echo "tables: wrote $OUT/{table1_cpu_vs_gpu,table2_float3_float4_shared,table3_barnes_hut}.{md,csv}, measurements.csv and provenance.tsv in $(nb_hms "$T_TOTAL"); $SPREAD" >&2
[ -z "$NOGPU_REASON" ] || echo "tables: the GPU columns are empty: no usable GPU ($NOGPU_REASON)" >&2
# the precision lesson's table (table5), in the same folder; PRECISION_TABLE=0 leaves it out
if [ "${PRECISION_TABLE:-1}" != 0 ]; then
    if ! QUICK=$QUICK RESULTS_DIR=$OUT THREADS=$THREADS bash "$NB_TOP/scripts/tables/precision_table.sh"; then
        echo "tables: the precision table (scripts/tables/precision_table.sh) was not written: see above" >&2
    fi
fi
exit 0
