#!/usr/bin/env bash
# scripts/tables/profile.sh -- `make profile`: Nsight Compute (ncu) on the force
# kernel of step02, step03, step04 (and step05 when built) at one N, and a
# Markdown table of the metrics that tell the story, in
# handouts/results/<slug>/profile.md (and profile.csv).
#
# Per step, one ncu run:
#   ncu --clock-control none --kernel-name regex:<KREGEX> --launch-skip 2
#       --launch-count 1 --metrics <list> --csv --page raw --print-units base
#       stepNN_x/nbody -n N --steps 3 --warmup 1 --ic cube --seed 1 --bench --csv --csv-header
# --launch-skip counts only the launches that match the kernel filter: the
# first force evaluation (initial accelerations) and the warm-up step are
# skipped, the first timed step's force kernel is profiled.  Force kernels are
# forces_kernel (step02-04) and k_force (step05): KREGEX defaults to "force".
# --clock-control none: the GPU runs at its normal boost clocks, as in the
# timing tables (ncu would otherwise lock them to base).
#
# Variables: PROFILE_N (65536), KREGEX (force), NCU (path of ncu), SLUG,
# RESULTS_DIR, NB_BIN_DIR, PROFILE_STEPS (default: the four steps).
# Exit status: 0 written (failed steps are marked in the table); 2 ncu not
# found; 77 no usable GPU; 3 ncu failed for every step (e.g. no permission for
# the GPU performance counters).
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"

N=${PROFILE_N:-65536}
KREGEX=${KREGEX:-force}
STEPS=${PROFILE_STEPS:-"step02_naive step03_float4 step04_shared step05_barneshut"}

# --- find ncu ---------------------------------------------------------------------
find_ncu() {
    if [ -n "${NCU:-}" ]; then echo "$NCU"; return 0; fi
    command -v ncu 2>/dev/null && return 0
    local c
    for c in "${CUDA_HOME:-/usr/local/cuda}/bin/ncu" /usr/local/cuda/bin/ncu; do
        [ -x "$c" ] && { echo "$c"; return 0; }
    done
    c=$(ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/nsight-compute*/ncu 2>/dev/null | sort -V | tail -n 1 || true)
    [ -n "$c" ] && [ -x "$c" ] && { echo "$c"; return 0; }
    return 1
}
if ! NCU_BIN=$(find_ncu) || ! [ -x "$NCU_BIN" ]; then
    echo "profile: Nsight Compute (ncu) not found: install it (it comes with the CUDA toolkit, package nsight-compute) or set NCU=/path/to/ncu" >&2
    exit 2
fi
NCU_VERSION=$("$NCU_BIN" --version 2>/dev/null | grep -i version | tail -n 1 | sed 's/^[[:space:]]*//' || true)

nb_init_tmp

# --- is there a GPU the steps can use? -------------------------------------------
PROBE=""
for s in $STEPS; do [ -x "$(nb_bin "$s")" ] && { PROBE=$s; break; }; done
if [ -z "$PROBE" ]; then
    echo "profile: none of $STEPS is built; run \`make\` first" >&2
    exit 2
fi
nb_run 120 "$(nb_bin "$PROBE")" -n 256 --steps 1 --warmup 0 --bench --csv --csv-header
if [ "$NB_RC" -eq 77 ]; then
    echo "profile: no usable GPU, nothing to profile ($PROBE/nbody exited 77: $NB_ERR)" >&2
    exit 77
fi
GPU_NAME=$(nb_get device || true)

# --- the metrics ------------------------------------------------------------------
# label | metric | kind (count, pct, ratio, us, int, mhz)
METRICS_TABLE='kernel duration (µs)|gpu__time_duration.sum|us
grid size (blocks)|launch__grid_size|int
block size (threads)|launch__block_size|int
registers per thread|launch__registers_per_thread|int
SM clock (MHz)|sm__cycles_elapsed.avg.per_second|mhz
instructions executed (warp-level)|smsp__inst_executed.sum|count
global load instructions (warp-level)|smsp__inst_executed_op_global_ld.sum|count
global load requests|l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum|count
global load sectors (32 B)|l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum|count
shared load instructions (warp-level)|smsp__inst_executed_op_shared_ld.sum|count
L1/TEX hit rate (%)|l1tex__t_sector_hit_rate.pct|pct
L1/TEX throughput (% of peak)|l1tex__throughput.avg.pct_of_peak_sustained_active|pct
shared-memory pipe utilization (% of peak)|l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed|pct
LSU pipe utilization (% of peak)|sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active|pct
L2 throughput (% of peak)|lts__t_sectors.avg.pct_of_peak_sustained_elapsed|pct
DRAM throughput (% of peak)|dram__throughput.avg.pct_of_peak_sustained_elapsed|pct
issue slots busy (%)|smsp__issue_active.avg.pct_of_peak_sustained_active|pct
FMA pipe utilization (% of peak)|smsp__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active|pct
achieved occupancy (%)|sm__warps_active.avg.pct_of_peak_sustained_active|pct
theoretical occupancy (%)|sm__maximum_warps_per_active_cycle_pct|pct
warps waiting on L1TEX (long scoreboard) per issue|smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio|ratio'
ALL_METRICS=$(echo "$METRICS_TABLE" | cut -d'|' -f2)

# Leave out names this ncu does not know (older/newer versions rename some):
# --query-metrics lists base names; a metric is dropped only when the list is
# plausible and its unit (the part before "__") is listed but its base is not.
DROPPED=""
if "$NCU_BIN" --query-metrics >"$NB_TMP/query" 2>/dev/null && [ "$(grep -c '__' "$NB_TMP/query")" -gt 100 ]; then
    KEEP=""
    for m in $ALL_METRICS; do
        base=${m%%.*}; unit=${m%%__*}
        if grep -q "^[[:space:]]*${unit}__" "$NB_TMP/query" && ! grep -q "^[[:space:]]*${base}[[:space:]]" "$NB_TMP/query"; then
            DROPPED="$DROPPED $m"
        else
            KEEP="$KEEP $m"
        fi
    done
    ALL_METRICS=$KEEP
fi
METRIC_LIST=$(echo $ALL_METRICS | tr ' ' ',')

# --- profile each step ------------------------------------------------------------
PROFILED=0; CMD_SHOWN=""
: >"$NB_TMP/values"   # step|metric|value
: >"$NB_TMP/status"   # step|status text
for s in $STEPS; do
    bin=$(nb_bin "$s")
    if [ ! -x "$bin" ]; then
        echo "$s|not built" >>"$NB_TMP/status"; continue
    fi
    ncu_args=(--clock-control none --target-processes all --kernel-name "regex:$KREGEX"
              --launch-skip 2 --launch-count 1 --metrics "$METRIC_LIST"
              --csv --page raw --print-units base)
    app_args=(-n "$N" --steps 3 --warmup 1 --ic cube --seed 1 --bench --csv --csv-header)
    CMD_SHOWN="ncu ${ncu_args[*]} stepNN_x/nbody ${app_args[*]}"
    echo "[profile] $s: ncu ... $s/nbody ${app_args[*]}" >&2
    set +e
    LC_ALL=C timeout 600 "$NCU_BIN" "${ncu_args[@]}" "$bin" "${app_args[@]}" >"$NB_TMP/out" 2>"$NB_TMP/err"
    rc=$?
    set -e
    if grep -q 'ERR_NVGPUCTRPERM' "$NB_TMP/out" "$NB_TMP/err"; then
        echo "$s|failed: no permission for the GPU performance counters (ERR_NVGPUCTRPERM): run as root or set the driver option NVreg_RestrictProfilingToAdminUsers=0" >>"$NB_TMP/status"
        continue
    fi
    # The profiled kernel's row: CSV lines from ncu start with a quote.
    awk -v step="$s" "$NB_AWK_CSV"'
        /^"/ {
            n = csvsplit($0, f)
            if (!hdr) { for (i = 1; i <= n; i++) name[i] = f[i]; nc = n; hdr = 1; next }
            if (f[1] == "") { for (i = 1; i <= n; i++) unit[i] = f[i]; next }   # the units row
            if (done) next
            for (i = 1; i <= n; i++) {
                v = f[i]
                if (name[i] == "Kernel Name") { print step "|kernel|" v; continue }
                if (name[i] !~ /__/) continue
                if (v ~ /^[-0-9.,]+$/) gsub(/,/, "", v)
                u = unit[i]
                if (name[i] == "gpu__time_duration.sum") {
                    if (u == "nsecond" || u == "ns") v = v / 1000
                    else if (u == "msecond" || u == "ms") v = v * 1000
                    else if (u == "second" || u == "s") v = v * 1e6
                }
                print step "|" name[i] "|" v
            }
            done = 1
        }' "$NB_TMP/out" >"$NB_TMP/vals_step"
    # the program's CSV: its header, then its one data line (named by the
    # program's table, e.g. step04_tuned for step04_shared/tuned/nbody_tuned)
    line=$(awk 'h && /^step[0-9][0-9a-z_]*,/ { print; exit } /^step,/ { h = 1 }' "$NB_TMP/out")
    inter=$([ -n "$line" ] && NB_HDR=$(grep -m 1 '^step,' "$NB_TMP/out") NB_LINE=$line nb_get interactions || true)
    if [ ! -s "$NB_TMP/vals_step" ]; then
        why=$(grep -h -e '==ERROR==' -e '==WARNING==' "$NB_TMP/out" "$NB_TMP/err" | head -n 2 | tr '\n' ' ' | cut -c 1-300)
        [ -n "$why" ] || why=$(grep -v '^[[:space:]]*$' "$NB_TMP/err" | tail -n 1 | cut -c 1-300)
        echo "$s|failed: ncu exit $rc, no kernel matching regex:$KREGEX was profiled${why:+: $why}" >>"$NB_TMP/status"
        echo "    -> failed (exit $rc): ${why:-see above}" >&2
        continue
    fi
    cat "$NB_TMP/vals_step" >>"$NB_TMP/values"
    [ -z "$inter" ] || echo "$s|interactions|$inter" >>"$NB_TMP/values"
    echo "$s|ok" >>"$NB_TMP/status"
    PROFILED=$((PROFILED + 1))
    echo "    -> $(grep '|kernel|' "$NB_TMP/vals_step" | cut -d'|' -f3)" >&2
done

if [ "$PROFILED" -eq 0 ]; then
    echo "profile: ncu profiled nothing:" >&2
    sed 's/^/  /' "$NB_TMP/status" >&2
    exit 3
fi

OUT=${RESULTS_DIR:-$NB_TOP/handouts/results/$(nbs_slug "$GPU_NAME")}
mkdir -p "$OUT"

# --- the table ----------------------------------------------------------------------
ACTIVE=$(cut -d'|' -f1 "$NB_TMP/status" | tr '\n' ' ')
awk -v steps="$ACTIVE" -v table="$METRICS_TABLE" -v out_csv="$OUT/profile.csv" '
function num(x) { return x != "" && x ~ /^[-+0-9.eE]+$/ }
function fcount(x) {
    if (!num(x)) return x
    x += 0
    if (x >= 1e9) return sprintf("%.3g G", x / 1e9)
    if (x >= 1e6) return sprintf("%.3g M", x / 1e6)
    if (x >= 1e4) return sprintf("%.3g k", x / 1e3)
    return sprintf("%.0f", x)
}
function fmt(x, kind) {
    if (!num(x)) return x
    if (kind == "pct") return sprintf("%.1f", x)
    if (kind == "us") return sprintf("%.1f", x)
    if (kind == "int") return sprintf("%.0f", x)
    if (kind == "ratio") return sprintf("%.2f", x)
    if (kind == "mhz") return sprintf("%.0f", x / 1e6)
    return fcount(x)
}
BEGIN { FS = "|" }
FILENAME ~ /status$/ { st[$1] = $2; next }
{ val[$1, $2] = $3 }
END {
    ns = split(steps, S, " ")
    nm = split(table, T, "\n")
    hdr = "| quantity | ncu metric |"; sep = "|---|---|"
    csv = "quantity,metric"
    for (j = 1; j <= ns; j++) { hdr = hdr " " S[j] " |"; sep = sep "--:|"; csv = csv "," S[j] }
    print hdr; print sep; print csv > out_csv
    line = "| kernel | (name) |"; csv = "kernel,"
    for (j = 1; j <= ns; j++) {
        s = S[j]; k = val[s, "kernel"]; sub(/\(.*/, "", k)
        line = line " " (st[s] == "ok" ? "`" k "`" : st[s]) " |"; csv = csv ",\"" (st[s] == "ok" ? k : st[s]) "\""
    }
    print line; print csv > out_csv
    for (i = 1; i <= nm; i++) {
        split(T[i], p, "|")
        line = "| " p[1] " | `" p[2] "` |"; csv = "\"" p[1] "\"," p[2]
        for (j = 1; j <= ns; j++) { v = val[S[j], p[2]]; line = line " " fmt(v, p[3]) " |"; csv = csv "," v }
        print line; print csv > out_csv
        if (p[2] == "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") {
            line = "| **global load sectors per request** | sectors ÷ requests |"; csv = "sectors per request,derived"
            for (j = 1; j <= ns; j++) {
                a = val[S[j], "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]; b = val[S[j], "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
                r = (num(a) && num(b) && b > 0) ? sprintf("%.2f", a / b) : ""
                line = line " " r " |"; csv = csv "," r
            }
            print line; print csv > out_csv
        }
    }
    # Per interaction (interactions of the profiled step, from the program CSV).
    line = "| interactions in the profiled launch | program CSV `interactions` |"; csv = "interactions,program"
    for (j = 1; j <= ns; j++) { v = val[S[j], "interactions"]; line = line " " fcount(v) " |"; csv = csv "," v }
    print line; print csv > out_csv
    split("smsp__inst_executed.sum|instructions per interaction (thread-level)|smsp__inst_executed_op_global_ld.sum|global load instructions per interaction (thread-level)|smsp__inst_executed_op_shared_ld.sum|shared load instructions per interaction (thread-level)", D, "|")
    for (d = 1; d <= 5; d += 2) {
        line = "| **" D[d + 1] "** | 32 × `" D[d] "` ÷ interactions |"; csv = "\"" D[d + 1] "\",derived"
        for (j = 1; j <= ns; j++) {
            a = val[S[j], D[d]]; b = val[S[j], "interactions"]
            r = (num(a) && num(b) && b > 0) ? sprintf("%.3g", 32 * a / b) : ""
            line = line " " r " |"; csv = csv "," r
        }
        print line; print csv > out_csv
    }
}' "$NB_TMP/status" "$NB_TMP/values" >"$NB_TMP/table.md"

{
    echo "# Nsight Compute: the force kernels at N = $N"
    echo ""
    echo "One launch of each step's force kernel (the first timed step's, after the initial force evaluation and one warm-up step), initial conditions \`cube\`, seed 1, at the GPU's normal clocks (\`--clock-control none\`). \"warp-level\" counts are per warp instruction; \"per interaction\" rows multiply them by 32 threads and divide by the interactions of that launch (N² for all-pairs, the evaluated ones for the tree code). Percentages are of the unit's peak as ncu defines it."
    echo ""
    cat "$NB_TMP/table.md"
    echo ""
    # a metric missing from --query-metrics that ncu reported anyway is not "left out"
    MISSING=""
    for m in $DROPPED; do grep -q "|$m|" "$NB_TMP/values" || MISSING="$MISSING $m"; done
    DROPPED=$MISSING
    if [ -n "$DROPPED" ]; then
        echo "Metrics this ncu does not know, left out:$(echo "$DROPPED" | sed 's/ \([^ ]*\)/ `\1`/g')."
        echo ""
    fi
    if grep -q -v '|ok$' "$NB_TMP/status"; then
        echo "Not profiled:"
        grep -v '|ok$' "$NB_TMP/status" | sed 's/^\([^|]*\)|/- \1: /'
        echo ""
    fi
    echo "Measured on:"
    nbs_stamp_md "$GPU_NAME" "" "make profile"
    echo "- Nsight Compute: ${NCU_VERSION:-unknown version} ($NCU_BIN)"
    echo "- Command per step: \`$CMD_SHOWN\`"
} >"$OUT/profile.md"

cat "$OUT/profile.md"
for f in profile.md profile.csv; do
    nb_provenance "$OUT" "$f" "make profile${PROFILE_N:+ PROFILE_N=$PROFILE_N}" "not measured: one launch per kernel" "$GPU_NAME"
done
echo "profile: wrote $OUT/profile.md, profile.csv and their provenance.tsv rows" >&2
exit 0
