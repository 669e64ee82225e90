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

# The tuned build's rate (step04_shared/tuned/nbody_tuned, table 1's s04t
# column): the median over its runs of inter_per_s, from measurements.csv.
awk "$NB_AWK_CSV"'
    function median(a, m,    i, j, t) {
        for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    NR == 1 { nh = csvsplit($0, h); for (i = nh; i >= 1; i--) c[h[i]] = i; next }
    { csvsplit($0, v)
      if (v[c["series"]] != "s04t" || v[c["status"]] != "ok" || v[c["inter_per_s"]] == "") next
      n = v[c["n"]]; if (!(n in cnt)) order[++k] = n; r[n, ++cnt[n]] = v[c["inter_per_s"]] / 1e9 }
    END { print "n,s04t_ginter_per_s"
          for (i = 1; i <= k; i++) { n = order[i]; m = cnt[n]; for (j = 1; j <= m; j++) a[j] = r[n, j]
                                     printf "%s,%.6g\n", n, median(a, m) } }' \
    "$OUT/measurements.csv" >"$NB_TMP/tuned_rate.csv" 2>/dev/null || echo "n,s04t_ginter_per_s" >"$NB_TMP/tuned_rate.csv"
TR="$NB_TMP/tuned_rate.csv"

# Does a curve have data?  has FILE:X:Y (Y a column or A/B) -> 1 or 0: the
# figures name only the curves they draw (no key entry without a point).
has() { range h "$1" | sed -n 's/.*h_ok=\([01]\).*/\1/p'; }

# The axes fit the data drawn: for each figure the smallest and largest N and
# value of the points it plots (empty cells and non-positive values are not
# drawn on log axes), as gnuplot variables x0, x1, y0, y1 with a margin, and
# the tics of both log axes (FIG_xt, FIG_yt: gnuplot tic lists, 1-2-5 or 1-3
# per decade when the data span few decades, so an axis never shows one tic;
# N as 1k, 2k, ..., 1M).
# range FIGURE FILE:X:Y... (Y: a column, or A/B the ratio of two columns)
TICS_AWK='
        function lab(v, isn,    e, m) {
            if (isn) { if (v >= 1e6) return sprintf("%gM", v / 1e6); if (v >= 1e3) return sprintf("%gk", v / 1e3); return sprintf("%g", v) }
            if (v >= 1e-3 && v < 1e5) return sprintf("%g", v)
            e = int(log(v) / log(10) + (v < 1 ? -0.999999 : 0.000001)); m = v / 10 ^ e
            if (m > 9.99) { m /= 10; e++ }
            return (m < 1.01 ? "" : sprintf("%g·", m)) "10^{" e "}"
        }
        function tics(lo, hi, isn,    s, nm, M, d, d0, d1, step, k, v, out) {
            s = log(hi / lo) / log(10)
            if (s <= 1) nm = split("1 2 3 5 7", M, " ")
            else if (s <= 2.3) nm = split("1 2 5", M, " ")
            else if (s <= 4) nm = split("1 3", M, " ")
            else nm = split("1", M, " ")
            step = (s > 8) ? int(s / 8 + 0.999) : 1
            d0 = int(log(lo) / log(10)) - 1; d1 = int(log(hi) / log(10)) + 1; out = ""
            for (d = d0; d <= d1; d++) {
                if (step > 1 && (d % step)) continue
                for (k = 1; k <= nm; k++) {
                    v = M[k] * 10 ^ d
                    if (v < lo * 0.999 || v > hi * 1.001) continue
                    out = out (out == "" ? "" : ", ") sprintf("\"%s\" %.6g", lab(v, isn), v)
                }
            }
            return "(" out ")"
        }
'
range() {
    local fig=$1; shift
    awk -F, -v fig="$fig" -v specs="$*" "$TICS_AWK"'
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
            if (x1 < 0) { printf "%s_x0=1; %s_x1=10; %s_y0=1; %s_y1=10; %s_ok=0; %s_xt=\x27(\"1\" 1, \"10\" 10)\x27; %s_yt=\x27(\"1\" 1, \"10\" 10)\x27; ", fig, fig, fig, fig, fig, fig, fig; exit }
            # a margin: 1.25x in N; in y 1.6x, at least a factor 3 overall
            x0 /= 1.25; x1 *= 1.25; y0 /= 1.6; y1 *= 1.6
            if (y1 / y0 < 3) { f = sqrt(3 / (y1 / y0)); y0 /= f; y1 *= f }
            printf "%s_x0=%.6g; %s_x1=%.6g; %s_y0=%.6g; %s_y1=%.6g; %s_ok=1; ", fig, x0, fig, x1, fig, y0, fig, y1, fig
            printf "%s_xt=\x27%s\x27; %s_yt=\x27%s\x27; ", fig, tics(x0, x1, 1), fig, tics(y0, y1, 0)
        }' $(for sp in "$@"; do echo "${sp%%:*}"; done | sort -u)
}
SP="$NB_TMP/speedup.csv"
# Is there any GPU all-pairs measurement (for the throughput figure)?
HASGPU=0
for c in s02 s03 s04; do [ "$(has "$T2:n:${c}_ginter_per_s")" = 0 ] || HASGPU=1; done
[ "$HASGPU" = 1 ] || rm -f "$OUT/rate.png" "$OUT/rate.svg"

RANGES="$(range time "$T1:n:cpu1_ms" "$T1:n:cpuall_ms" "$T2:n:s02_ms" "$T2:n:s03_ms" "$T2:n:s04_ms" "$T3:n:bh_ctree_ms" "$T3:n:bh_gtree_ms")"
RANGES+="$(range speed "$SP:n:cpuall" "$SP:n:s02" "$SP:n:s03" "$SP:n:s04" "$T3:n:bh_cap_over_bh_ctree" "$T3:n:bh_cap_ms/bh_gtree_ms")"
RANGES+="$(range rate "$T2:n:s02_ginter_per_s" "$T2:n:s03_ginter_per_s" "$T2:n:s04_ginter_per_s" "$TR:n:s04t_ginter_per_s")"
# which curves have data (FIGURE_SERIES=1)
HAS="time_cpu1=$(has "$T1:n:cpu1_ms"); time_cpuall=$(has "$T1:n:cpuall_ms"); time_s02=$(has "$T2:n:s02_ms"); time_s03=$(has "$T2:n:s03_ms"); "
HAS+="time_s04=$(has "$T2:n:s04_ms"); time_ctree=$(has "$T3:n:bh_ctree_ms"); time_gtree=$(has "$T3:n:bh_gtree_ms"); "
HAS+="speed_cpuall=$(has "$SP:n:cpuall"); speed_s02=$(has "$SP:n:s02"); speed_s03=$(has "$SP:n:s03"); speed_s04=$(has "$SP:n:s04"); "
HAS+="speed_ctree=$(has "$T3:n:bh_cap_over_bh_ctree"); speed_gtree=$(has "$T3:n:bh_cap_ms/bh_gtree_ms"); "
HAS+="rate_s02=$(has "$T2:n:s02_ginter_per_s"); rate_s03=$(has "$T2:n:s03_ginter_per_s"); rate_s04=$(has "$T2:n:s04_ginter_per_s"); rate_s04t=$(has "$TR:n:s04t_ginter_per_s"); "

esc() { printf '%s' "$1" | sed "s/'/''/g"; }
# the figures are drawn into a scratch folder beside their place, then renamed into it
ODIR=$(mktemp -d "$OUT/.plots.XXXXXX")
trap 'rm -rf "$NB_TMP" "$ODIR"' EXIT
for fmt in png svg; do
    if ! "$GNUPLOT" -e "$RANGES $HAS dir='$(esc "$OUT")'; odir='$(esc "$ODIR")'; fmt='$fmt'; hasgpu=$HASGPU; gpu='$(esc "$GPU")'; cpulabel='$(esc "$CPULABEL")'; sp='$(esc "$SP")'; tr='$(esc "$TR")'" \
            "$NB_TOP/scripts/tables/plots.gp" 2>"$NB_TMP/gp.err"; then
        cat "$NB_TMP/gp.err" >&2
        echo "plots: gnuplot failed (above)" >&2
        exit 3
    fi
    grep -v -e '^[[:space:]]*$' "$NB_TMP/gp.err" | sed 's/^/plots: gnuplot: /' >&2 || true
done
for f in "$ODIR"/*; do [ -e "$f" ] && mv -f "$f" "$OUT/${f##*/}"; done
case $HAS in *=0*) echo "plots: some curves have no data (a step not built or no GPU, see the tables' notes); they are left out of the figures and their keys" >&2 ;; esac
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
if [ -r "$T5" ]; then
    # The codes with data, named in words, and both panels' axes fitted to
    # their points (tics as above): a gnuplot file that precision.gp loads.
    awk "$NB_AWK_CSV$TICS_AWK"'
        function num(x) { return x != "" && x ~ /^[-+0-9.eE]+$/ && x + 0 > 0 }
        function name(id, label) {
            if (id == "lesson") return "step04 lesson kernel, single"
            if (id ~ /^t(single|mixed|double)$/) return "step04 tuned build, " substr(id, 2)
            if (id ~ /^c(single|mixed|double)$/) return "step01 CPU, " substr(id, 2)
            return label
        }
        function q(s) { gsub(/\\/, "\\\\", s); gsub(/_/, "\\_", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
        BEGIN { ex0 = ey0 = rx0 = ry0 = 1e300; ex1 = ey1 = rx1 = ry1 = -1 }
        NR == 1 { nh = csvsplit($0, h); for (i = 1; i <= nh; i++) c[h[i]] = i; next }
        { csvsplit($0, v); id = v[c["series"]]; n = v[c["n"]]; e = v[c["err_p99"]]; r = v[c["ginter_per_s"]]
          if (num(n)) n += 0; if (num(e)) e += 0; if (num(r)) r += 0
          if (!num(n)) next
          if (num(e) || (num(r) && v[c["ic"]] == "plummer")) if (!(id in seen)) { seen[id] = 1; ids[++k] = id; words[id] = name(id, v[c["label"]]) }
          if (num(e)) { if (n < ex0) ex0 = n; if (n > ex1) ex1 = n; if (e < ey0) ey0 = e; if (e > ey1) ey1 = e
                        if (v[c["ic"]] == "clusters") cl = 1 }
          if (num(r) && v[c["ic"]] == "plummer") { if (n < rx0) rx0 = n; if (n > rx1) rx1 = n; if (r < ry0) ry0 = r; if (r > ry1) ry1 = r } }
        function axes(p, x0, x1, y0, y1) {
            if (x1 < 0) { printf "%s_ok = 0\n", p; return }
            x0 /= 1.25; x1 *= 1.25; y0 /= 2; y1 *= 2
            if (y1 / y0 < 10) { f = sqrt(10 / (y1 / y0)); y0 /= f; y1 *= f }
            printf "%s_ok = 1; %s_x0 = %.6g; %s_x1 = %.6g; %s_y0 = %.6g; %s_y1 = %.6g\n", p, p, x0, p, x1, p, y0, p, y1
            printf "%s_xt = \x27%s\x27\n%s_yt = \x27%s\x27\n", p, tics(x0, x1, 1), p, tics(y0, y1, 0)
        }
        END { printf "nc = %d\nhas_clusters = %d\n", k, cl + 0
              for (i = 1; i <= k; i++) printf "code%d = \"%s\"\nlabel%d = %s\n", i, ids[i], i, q(words[ids[i]])
              axes("err", ex0, ex1, ey0, ey1); axes("rate", rx0, rx1, ry0, ry1) }' "$T5" >"$NB_TMP/precision_vars.gp"
fi
if [ -r "$T5" ] && ! grep -q '^nc = 0' "$NB_TMP/precision_vars.gp"; then
    for fmt in png svg; do
        "$GNUPLOT" -e "load '$(esc "$NB_TMP/precision_vars.gp")'; t5='$(esc "$T5")'; out='$(esc "$ODIR/precision.$fmt")'; fmt='$fmt'; sub='$(esc "${GPU:-no GPU}")'" \
            "$NB_TOP/scripts/tables/precision.gp" 2>"$NB_TMP/gp.err" || { cat "$NB_TMP/gp.err" >&2; echo "plots: gnuplot failed on the precision figure" >&2; exit 3; }
        mv -f "$ODIR/precision.$fmt" "$OUT/precision.$fmt"
        grep -v -e '^[[:space:]]*$' "$NB_TMP/gp.err" | sed 's/^/plots: gnuplot: /' >&2 || true
        IFS=$'\t' read -r PGPU PDRIVER < <(awk -F'\t' '$1 == "table5_precision.csv" { print $4 "\t" $5 }' "$OUT/provenance.tsv" 2>/dev/null) || true
        nb_provenance "$OUT" "precision.$fmt" "make plots${SLUG:+ SLUG=$SLUG} (from table5_precision.csv)" "as the table: one run per cell" \
            "${PGPU:-${GPU:-none}}" "${PDRIVER:-unknown}"
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
