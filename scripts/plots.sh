#!/usr/bin/env bash
# scripts/plots.sh -- `make plots`: the figures of the course reports, drawn
# with gnuplot from the CSVs that `make tables` wrote:
#
#   handouts/results/<slug>/time_vs_n.{png,svg}   ms per step vs N, all steps (log-log)
#   handouts/results/<slug>/speedup.{png,svg}     T(CPU, 1 thread) / T(step) vs N
#   handouts/results/<slug>/rate.{png,svg}        G interactions/s of the GPU all-pairs kernels
#
# Variables: SLUG (which results folder; default: this machine's GPU, as in
# `make tables`), RESULTS_DIR (the folder itself), GNUPLOT (the program).
# Curves without data (a step not built, no GPU) are left out of the figures;
# without any GPU measurement rate.{png,svg} is not drawn.
# Exit status: 0 figures written; 2 gnuplot missing, or no tables to plot.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$NB_TOP"

GNUPLOT=${GNUPLOT:-gnuplot}
if ! command -v "$GNUPLOT" >/dev/null 2>&1; then
    echo "plots: gnuplot is not installed; install it with: sudo apt-get install -y gnuplot-nox" >&2
    exit 2
fi

OUT=${RESULTS_DIR:-$NB_TOP/handouts/results/$(nbs_slug "")}
T1="$OUT/table1_cpu_vs_gpu.csv"; T2="$OUT/table2_float3_float4_shared.csv"; T3="$OUT/table3_barnes_hut.csv"
for f in "$T1" "$T2" "$T3"; do
    if [ ! -r "$f" ]; then
        echo "plots: $f is missing; run \`make tables\` first (or name another results folder: make plots SLUG=h100)" >&2
        exit 2
    fi
done

nb_init_tmp

# Title pieces from the tables' stamps.
GPU=$(sed -n 's/^# GPU: \([^;]*\);.*/\1/p' "$T1" | head -n 1)
case $GPU in none*) GPU="" ;; esac
THREADS=$(sed -n 's/.*| CPU \([0-9][0-9]*\) threads |.*/\1/p' "$OUT/table1_cpu_vs_gpu.md" 2>/dev/null | head -n 1)
CPULABEL="CPU, ${THREADS:-all} threads"

# Speedups over the 1-thread CPU code at the same N (tables 1 and 2 joined on N).
awk -F, '
    /^#/ { next }
    !(FILENAME in seen) { seen[FILENAME] = 1; for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
    FILENAME == t1 { n = $c[t1, "n"]; cpu1[n] = $c[t1, "cpu1_ms"]; cpuall[n] = $c[t1, "cpuall_ms"]; order[++k] = n; next }
    FILENAME == t2 { n = $c[t2, "n"]; for (s = 2; s <= 4; s++) ms[n, s] = $c[t2, "s0" s "_ms"] }
    function r(a, b) { return (a != "" && b != "" && b + 0 > 0) ? sprintf("%.6g", a / b) : "" }
    END {
        print "n,cpuall,s02,s03,s04"
        for (i = 1; i <= k; i++) { n = order[i]
            print n "," r(cpu1[n], cpuall[n]) "," r(cpu1[n], ms[n, 2]) "," r(cpu1[n], ms[n, 3]) "," r(cpu1[n], ms[n, 4]) }
    }' t1="$T1" t2="$T2" "$T1" "$T2" >"$NB_TMP/speedup.csv"

# Is there any GPU all-pairs measurement (for the throughput figure)?
HASGPU=$(awk -F, '/^#/ { next } !h { for (i = 1; i <= NF; i++) if ($i ~ /^s0[234]_ms$/) c[i] = 1; h = 1; next }
                  { for (i in c) if ($i != "") g = 1 } END { print g ? 1 : 0 }' "$T2")
[ "$HASGPU" = 1 ] || rm -f "$OUT/rate.png" "$OUT/rate.svg"

esc() { printf '%s' "$1" | sed "s/'/''/g"; }
for fmt in png svg; do
    if ! "$GNUPLOT" -e "dir='$(esc "$OUT")'; fmt='$fmt'; hasgpu=$HASGPU; gpu='$(esc "$GPU")'; cpulabel='$(esc "$CPULABEL")'; sp='$(esc "$NB_TMP/speedup.csv")'" \
            "$NB_TOP/scripts/plots.gp" 2>"$NB_TMP/gp.err"; then
        cat "$NB_TMP/gp.err" >&2
        echo "plots: gnuplot failed (above)" >&2
        exit 3
    fi
    # gnuplot warns about curves with no data (no GPU, step not built): say it once.
    if grep -q 'no valid points' "$NB_TMP/gp.err"; then EMPTY=1; fi
    grep -v -e '^[[:space:]]*$' -e 'no valid points' "$NB_TMP/gp.err" | sed 's/^/plots: gnuplot: /' >&2 || true
done
[ -z "${EMPTY:-}" ] || echo "plots: some curves have no data (a step not built or no GPU, see the tables' notes); they are left out" >&2
if [ "$HASGPU" = 1 ]; then
    echo "plots: wrote $OUT/{time_vs_n,speedup,rate}.{png,svg}" >&2
else
    echo "plots: wrote $OUT/{time_vs_n,speedup}.{png,svg} (no GPU measurements: no rate figure)" >&2
fi
