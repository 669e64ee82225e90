#!/usr/bin/env bash
# scripts/tables/plots.sh -- `make plots`: the figures of the course reports, drawn
# with gnuplot from the CSVs that `make tables` wrote:
#
#   handouts/results/<slug>/time_vs_n.{png,svg}   ms per step vs N, all steps (log-log)
#   handouts/results/<slug>/speedup.{png,svg}     T(CPU, 1 thread) / T(step) vs N
#   handouts/results/<slug>/rate.{png,svg}        G interactions/s of the GPU all-pairs kernels
#   handouts/results/<slug>/precision.{png,svg}   p99 error and rate of each precision against N
#                                                 (from table5_precision.csv, when there is one)
#   handouts/results/<slug>/drift.{png,svg}       the last-bit drift (from make drift's CSVs, when
#                                                 there are: scripts/tables/drift.sh --plot)
#
# Variables: SLUG (which results folder; default: this machine's GPU, as in
# `make tables`), RESULTS_DIR (the folder itself), GNUPLOT (the program).
# Curves without data (a step not built, no GPU) are left out of the figures;
# without any GPU measurement rate.{png,svg} is not drawn.
# Exit status: 0 figures written; 2 gnuplot missing, or no tables to plot.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
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

# The axes fit the data drawn: for each figure the smallest and largest N and
# value of the points it plots (empty cells and non-positive values are not
# drawn on log axes), as gnuplot variables x0, x1, y0, y1 with a margin.
# range FIGURE FILE:X:Y... (Y: a column, or A/B the ratio of two columns)
range() {
    local fig=$1; shift
    awk -F, -v fig="$fig" -v specs="$*" '
        function num(x) { return x != "" && x ~ /^[-+0-9.eE]+$/ }
        BEGIN { ns = split(specs, S, " "); x0 = y0 = 1e300; x1 = y1 = -1e300 }
        /^#/ { next }
        !(FILENAME in hdr) { hdr[FILENAME] = 1; for (i = 1; i <= NF; i++) c[FILENAME, $i] = i; next }
        {
            for (k = 1; k <= ns; k++) {
                split(S[k], p, ":"); if (p[1] != FILENAME) continue
                x = $c[FILENAME, p[2]]
                if (index(p[3], "/")) { split(p[3], q, "/"); a = $c[FILENAME, q[1]]; b = $c[FILENAME, q[2]]
                                        y = (num(a) && num(b) && b + 0 > 0) ? a / b : "" }
                else y = $c[FILENAME, p[3]]
                if (!num(x) || !num(y) || x + 0 <= 0 || y + 0 <= 0) continue
                x += 0; y += 0
                if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y
            }
        }
        END {
            if (x1 < 0) { printf "%s_x0=1; %s_x1=10; %s_y0=1; %s_y1=10; %s_ok=0; ", fig, fig, fig, fig, fig; exit }
            printf "%s_x0=%.6g; %s_x1=%.6g; %s_y0=%.6g; %s_y1=%.6g; %s_ok=1; ", fig, x0 / 1.25, fig, x1 * 1.25, fig, y0 / 1.6, fig, y1 * 1.6, fig
        }' $(for sp in "$@"; do echo "${sp%%:*}"; done | sort -u)
}
RANGES="$(range time "$T1:n:cpu1_ms" "$T1:n:cpuall_ms" "$T2:n:s02_ms" "$T2:n:s03_ms" "$T2:n:s04_ms" "$T3:n:bh_ctree_ms" "$T3:n:bh_gtree_ms")"
RANGES+="$(range speed "$NB_TMP/speedup.csv:n:cpuall" "$NB_TMP/speedup.csv:n:s02" "$NB_TMP/speedup.csv:n:s03" "$NB_TMP/speedup.csv:n:s04" "$T3:n:bh_cap_over_bh_ctree" "$T3:n:bh_cap_ms/bh_gtree_ms")"
RANGES+="$(range rate "$T2:n:s02_ginter_per_s" "$T2:n:s03_ginter_per_s" "$T2:n:s04_ginter_per_s")"

esc() { printf '%s' "$1" | sed "s/'/''/g"; }
for fmt in png svg; do
    if ! "$GNUPLOT" -e "$RANGES dir='$(esc "$OUT")'; fmt='$fmt'; hasgpu=$HASGPU; gpu='$(esc "$GPU")'; cpulabel='$(esc "$CPULABEL")'; sp='$(esc "$NB_TMP/speedup.csv")'" \
            "$NB_TOP/scripts/tables/plots.gp" 2>"$NB_TMP/gp.err"; then
        cat "$NB_TMP/gp.err" >&2
        echo "plots: gnuplot failed (above)" >&2
        exit 3
    fi
    # gnuplot warns about curves with no data (no GPU, step not built): say it once.
    if grep -q 'no valid points' "$NB_TMP/gp.err"; then EMPTY=1; fi
    grep -v -e '^[[:space:]]*$' -e 'no valid points' "$NB_TMP/gp.err" | sed 's/^/plots: gnuplot: /' >&2 || true
done
[ -z "${EMPTY:-}" ] || echo "plots: some curves have no data (a step not built or no GPU, see the tables' notes); they are left out" >&2
# provenance: the figures come from the tables (their spread is the tables')
figs="time_vs_n speedup"; [ "$HASGPU" = 0 ] || figs="$figs rate"
IFS=$'\t' read -r TGPU TDRIVER TSPREAD < <(awk -F'\t' '$1 == "table1_cpu_vs_gpu.csv" { print $4 "\t" $5 "\t" $7 }' "$OUT/provenance.tsv" 2>/dev/null) || true
for f in $figs; do for e in png svg; do
    nb_provenance "$OUT" "$f.$e" "make plots${SLUG:+ SLUG=$SLUG} (from the tables' CSVs)" "as the tables: ${TSPREAD:-unknown}" \
        "${TGPU:-${GPU:-none}}" "${TDRIVER:-unknown}"
done; done
# The precision table (scripts/tables/precision_table.sh), when there is one:
# precision.{png,svg}, p99 error and rate of each code against N.
T5="$OUT/table5_precision.csv"
if [ -r "$T5" ] && awk -F, 'NR > 1 && $7 != "" { ok = 1 } END { exit !ok }' "$T5"; then
    codes=$(awk -F, 'NR > 1 && $7 != "" && !s[$4]++ { printf "%s ", $4 }' "$T5")
    for fmt in png svg; do
        "$GNUPLOT" -e "t5='$(esc "$T5")'; out='$(esc "$OUT/precision.$fmt")'; fmt='$fmt'; codes='$codes'; sub='$(esc "${GPU:-no GPU}")'" \
            "$NB_TOP/scripts/tables/precision.gp" 2>"$NB_TMP/gp.err" || { cat "$NB_TMP/gp.err" >&2; echo "plots: gnuplot failed on the precision figure" >&2; exit 3; }
        nb_provenance "$OUT" "precision.$fmt" "make plots${SLUG:+ SLUG=$SLUG} (from table5_precision.csv)" "as the table: one run per cell" "${GPU:-none}"
    done
    echo "plots: wrote $OUT/precision.{png,svg}" >&2
fi
# The drift (make drift, whose host may have had no gnuplot), when there is one
if [ -r "$OUT/drift_separation.csv" ] && [ -r "$OUT/drift_energy.csv" ]; then
    GNUPLOT=$GNUPLOT bash "$NB_TOP/scripts/tables/drift.sh" --plot "$OUT" || exit 3
fi
if [ "$HASGPU" = 1 ]; then
    echo "plots: wrote $OUT/{time_vs_n,speedup,rate}.{png,svg}" >&2
else
    echo "plots: wrote $OUT/{time_vs_n,speedup}.{png,svg} (no GPU measurements: no rate figure)" >&2
fi
