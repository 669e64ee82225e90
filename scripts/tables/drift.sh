#!/usr/bin/env bash
# scripts/tables/drift.sh -- `make drift`: the last-bit drift of the precision
# lesson (handouts/08_precision.md, section 3).  One initial state (Plummer,
# DRIFT_N bodies, seed 1), run by variants of the same code that differ only
# in how they round:
#
#   cpu          step01, single, as built (-ffast-math: a vector rsqrt and a
#                Newton step, the j-sum in vector lanes)
#   cpu-threads  the same on 1 thread instead of all: the same bits by design
#   cpu-ieee     step01 built without -ffast-math: a true sqrt and a division
#   cpu-vec128   step01 built for 128-bit vectors: the j-sum in other lanes
#   cpu-mixed    step01_cpu/precision --precision mixed;  cpu-double   --precision double
#   gpu-lesson   step04's lesson kernel, block 256; gpu-lesson-b64: block 64
#   gpu-tuned    the tuned build, as picked; gpu-tuned-tiles and
#                gpu-tuned-newton: its two kernels forced (NB_TUNE=newton=0,
#                one-sided tiles; newton=1, each pair once: another
#                summation order; the picker takes tiles below N = 16384)
#   gpu-mixed, gpu-double   the tuned build in mixed and in double
# (GPU variants where a GPU runs them).  Each variant saves its state after
# every DRIFT_EVERY steps up to DRIFT_STEPS (each checkpoint a run from the
# start: a state file holds floats, and double's trajectory must not be
# rounded on the way); --check gives each checkpoint's energy.
#
# Written to handouts/results/<slug>/:
#   drift_separation.csv   pair, step, t, rms and max |x_a - x_b| over the bodies
#   drift_energy.csv       variant, step, t, (E - E0) / |E0|
#   drift.md               the pairs, when each passed 1e-3 and its e-folding
#                          time (a fit of log rms over the growth), the energy
#   drift.{png,svg}        separation against t (log) beside |dE/E0| against t
#
# Variables: DRIFT_N (1024), DRIFT_DT (0.005), DRIFT_EPS (0.01), DRIFT_STEPS
# (2000), DRIFT_EVERY (100), THREADS, SLUG, RESULTS_DIR, GNUPLOT, QUICK=1
# (N 256, 200 steps by 50: a test of the script).
# Where gnuplot is missing (a GPU host), the runs, the CSVs and drift.md are
# written all the same, and the figure is left for later:
#   scripts/tables/drift.sh --plot [DIR]   draws drift.{png,svg} from DIR's CSVs
#                                   (default: the slug's results folder);
#                                   `make plots` does it for the folder it draws.
# Exit: 0 written (without the figure where gnuplot is missing: a line says
# so); 2 bad usage, or --plot without gnuplot or without the CSVs; 3 a CPU
# variant failed.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"
GNUPLOT=${GNUPLOT:-gnuplot}
esc() { printf '%s' "$1" | sed "s/'/''/g"; }
# draw DIR/drift.{png,svg} from DIR/drift_separation.csv, drift_energy.csv
# (the subtitle from drift.md: the GPU and the run's N and dt)
draw() {
    local dir=$1 sep=$1/drift_separation.csv en=$1/drift_energy.csv pairs variants sub fmt gpu
    # pairs with a non-zero separation somewhere, variants with energies
    pairs=$(awk -F, 'NR > 1 && $7 + 0 > 0 && !s[$1]++ { printf "%s ", $1 }' "$sep")
    variants=$(awk -F, 'NR > 1 && !s[$1]++ { printf "%s ", $1 }' "$en")
    gpu=$(sed -n 's/^- GPU: \([^;]*\).*/\1/p' "$dir/drift.md" 2>/dev/null | head -n 1)
    case $gpu in ''|none*) gpu="CPU only" ;; esac
    sub="$gpu, $(sed -n 's/^Plummer, \(N = [0-9]*\), seed [0-9]*, \(dt [0-9.e-]*\),.*/\1, \2/p' "$dir/drift.md" 2>/dev/null | head -n 1)"
    for fmt in png svg; do
        "$GNUPLOT" -e "sep='$(esc "$sep")'; en='$(esc "$en")'; out='$(esc "$dir/.drift.$fmt.tmp")'; fmt='$fmt'; pairs='$pairs'; variants='$variants'; sub='$(esc "$sub")'" \
            "$NB_TOP/scripts/tables/drift.gp" 2> "$dir/.drift.gp.err" ||
            { cat "$dir/.drift.gp.err" >&2; rm -f "$dir/.drift.gp.err" "$dir/.drift.$fmt.tmp"; echo "drift: gnuplot failed" >&2; return 3; }
        mv -f "$dir/.drift.$fmt.tmp" "$dir/drift.$fmt"
    done
    rm -f "$dir/.drift.gp.err"
}
if [ "${1:-}" = --plot ]; then
    dir=${2:-${RESULTS_DIR:-$NB_TOP/handouts/results/$(nbs_slug "")}}
    command -v "$GNUPLOT" >/dev/null 2>&1 || { echo "drift: gnuplot is not installed; install it with: sudo apt-get install -y gnuplot-nox" >&2; exit 2; }
    for f in drift_separation.csv drift_energy.csv; do
        [ -r "$dir/$f" ] || { echo "drift: $dir/$f is missing; run \`make drift\` first" >&2; exit 2; }
    done
    draw "$dir" || exit 3
    gpu=$(awk -F'\t' '$1 == "drift_separation.csv" { print $4 }' "$dir/provenance.tsv" 2>/dev/null | tail -n 1)
    for f in drift.png drift.svg; do
        nb_provenance "$dir" "$f" "scripts/tables/drift.sh --plot, from the CSVs of make drift" "as the CSVs" "${gpu:-none}" \
            "$(awk -F'\t' '$1 == "drift_separation.csv" { print $5 }' "$dir/provenance.tsv" 2>/dev/null | tail -n 1)"
    done
    echo "drift: drew $dir/drift.{png,svg}" >&2
    exit 0
fi
[ $# = 0 ] || { echo "drift: the only argument is --plot [DIR] (got '$1')" >&2; exit 2; }

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then : "${DRIFT_N:=256}" "${DRIFT_STEPS:=200}" "${DRIFT_EVERY:=50}"; fi
: "${DRIFT_N:=1024}" "${DRIFT_DT:=0.005}" "${DRIFT_EPS:=0.01}" "${DRIFT_STEPS:=2000}" "${DRIFT_EVERY:=100}"
THREADS=${THREADS:-$(nbs_cpu_threads)}
for v in DRIFT_N DRIFT_STEPS DRIFT_EVERY THREADS; do
    case ${!v} in ''|*[!0-9]*|0) echo "drift: $v must be a positive integer (got '${!v}')" >&2; exit 2 ;; esac
done
[ $((DRIFT_STEPS % DRIFT_EVERY)) = 0 ] || { echo "drift: DRIFT_STEPS must be a multiple of DRIFT_EVERY" >&2; exit 2; }
PLOT=1
command -v "$GNUPLOT" >/dev/null 2>&1 || PLOT=0
REGEN="make drift"
[ "$QUICK" != 1 ] || REGEN="make drift QUICK=1"

nb_init_tmp
T0=$(nb_now)

# step01 built two other ways, in a copy beside common/ (the tree's own
# build is left as it is)
build_variant() {  # name FORCE_CFLAGS
    local d="$NB_TMP/build-$1"
    mkdir -p "$d/step01_cpu"
    ln -s "$NB_TOP/common" "$d/common"
    cp step01_cpu/*.c step01_cpu/*.h step01_cpu/Makefile "$d/step01_cpu/"
    if ! make -s -C "$d/step01_cpu" FORCE_CFLAGS="$2" nbody > "$d/build.log" 2>&1; then
        cat "$d/build.log" >&2
        echo "drift: step01 did not build with FORCE_CFLAGS='$2'" >&2
        exit 3
    fi
    echo "$d/step01_cpu/nbody"
}
for p in step01_cpu/nbody step01_cpu/precision/nbody; do
    [ -x "$p" ] || { echo "drift: $p is not built (run \`make\`)" >&2; exit 3; }
done
IEEE=$(build_variant ieee "")
VEC128=$(build_variant vec128 "-ffast-math -mprefer-vector-width=128")

# name | program | options | environment
VARIANTS="cpu|step01_cpu/nbody|--threads $THREADS|
cpu-threads|step01_cpu/nbody|--threads 1|
cpu-ieee|$IEEE|--threads $THREADS|
cpu-vec128|$VEC128|--threads $THREADS|
cpu-mixed|step01_cpu/precision/nbody|--threads $THREADS --precision mixed|
cpu-double|step01_cpu/precision/nbody|--threads $THREADS --precision double|
gpu-lesson|step04_shared/nbody|--block 256|
gpu-lesson-b64|step04_shared/nbody|--block 64|
gpu-tuned|step04_shared/tuned/nbody_tuned||
gpu-tuned-tiles|step04_shared/tuned/nbody_tuned||NB_TUNE=newton=0
gpu-tuned-newton|step04_shared/tuned/nbody_tuned||NB_TUNE=newton=1
gpu-mixed|step04_shared/tuned/nbody_tuned|--precision mixed|
gpu-double|step04_shared/tuned/nbody_tuned|--precision double|"
# the pairs drawn: a b what
PAIRS="cpu-threads cpu 1 thread vs all (same bits by design)
cpu-ieee cpu sqrt and division vs rsqrt and Newton step
cpu-vec128 cpu the j-sum in 4 lanes vs 16 (or 8)
cpu cpu-double single vs double
cpu-mixed cpu-double mixed vs double
gpu-lesson cpu GPU lesson kernel vs CPU
gpu-lesson-b64 gpu-lesson block 64 vs 256 (lesson kernel)
gpu-tuned-tiles gpu-tuned-newton tuned: one-sided tiles vs each pair once
gpu-tuned gpu-double tuned single vs double
gpu-mixed gpu-double tuned mixed vs double
gpu-double cpu-double double on the GPU vs on the CPU"

ENERGY="$NB_TMP/drift_energy.csv"
echo "variant,step,t,relative_energy_change" > "$ENERGY"
declare -A RAN GPUNAME
while IFS='|' read -r name prog opts env; do
    bin=$prog; [ -x "$bin" ] || { echo "drift: $name: $prog is not built; left out" >&2; continue; }
    # shellcheck disable=SC2206
    o=($opts)
    ok=1
    for ((k = 0; k <= DRIFT_STEPS; k += DRIFT_EVERY)); do
        f="$NB_TMP/$name.$k.txt"
        set +e
        env $env "$bin" -n "$DRIFT_N" --dt "$DRIFT_DT" --eps "$DRIFT_EPS" -s "$k" --check --save "$f" "${o[@]}" \
            > "$NB_TMP/run.out" 2> "$NB_TMP/run.err" < /dev/null
        rc=$?
        set -e
        if [ "$rc" = 77 ]; then echo "drift: $name: no usable GPU ($(tail -n 1 "$NB_TMP/run.err")); left out" >&2; ok=0; break; fi
        if [ "$rc" -gt 1 ]; then
            echo "drift: $name -s $k: exit $rc: $(tail -n 1 "$NB_TMP/run.err")" >&2
            case $name in cpu*) exit 3 ;; esac
            ok=0; break
        fi
        rel=$(sed -n 's/^  energy: .*relative change \(.*\)/\1/p' "$NB_TMP/run.out")
        [ "$k" -gt 0 ] || rel=0
        echo "$name,$k,$(nb_calc "$k * $DRIFT_DT"),$rel" >> "$ENERGY"
        [ "$k" -gt 0 ] || GPUNAME[$name]=$(sed -n 's/^  device \(.*\) ([0-9]* SMs.*/\1/p' "$NB_TMP/run.out" | head -n 1)
    done
    [ "$ok" = 0 ] && continue
    RAN[$name]=1
    echo "drift: $name done ($(nb_hms "$(nb_calc "$(nb_now) - $T0")"))" >&2
done <<< "$VARIANTS"

SEP="$NB_TMP/drift_separation.csv"
echo "pair,a,b,what,step,t,rms,max" > "$SEP"
while read -r a b what; do
    [ -n "${RAN[$a]:-}" ] && [ -n "${RAN[$b]:-}" ] || continue
    for ((k = 0; k <= DRIFT_STEPS; k += DRIFT_EVERY)); do
        awk -v pair="$a/$b" -v a="$a" -v b="$b" -v what="$what" -v k="$k" -v t="$(nb_calc "$k * $DRIFT_DT")" '
            /^#/ || NF < 7 { next }
            FNR == NR { x[FNR] = $2; y[FNR] = $3; z[FNR] = $4; next }
            { i++; d2 = ($2 - x[FNR]) ^ 2 + ($3 - y[FNR]) ^ 2 + ($4 - z[FNR]) ^ 2; s += d2; if (d2 > m) m = d2 }
            END { printf "%s,%s,%s,%s,%d,%s,%.6g,%.6g\n", pair, a, b, what, k, t, i ? sqrt(s / i) : 0, sqrt(m) }' \
            "$NB_TMP/$a.$k.txt" "$NB_TMP/$b.$k.txt" >> "$SEP"
    done
done <<< "$PAIRS"

GPU=""
for n in gpu-lesson gpu-tuned; do [ -z "${GPUNAME[$n]:-}" ] || { GPU=${GPUNAME[$n]}; break; }; done
OUT=${RESULTS_DIR:-$NB_TOP/handouts/results/$(nbs_slug "$GPU")}
mkdir -p "$OUT"
STAMP=$(nbs_stamp_md "$GPU" "" "$REGEN")

# the summary: per pair, when the rms separation first passed 1e-3, and the
# e-folding time of its growth (least squares of ln rms over the checkpoints
# with 1e-12 < rms < 1e-2), per variant the largest |dE/E0|
awk -F, -v stamp="$STAMP" -v every="$DRIFT_EVERY" -v n="$DRIFT_N" -v dt="$DRIFT_DT" -v eps="$DRIFT_EPS" -v steps="$DRIFT_STEPS" '
    FNR == 1 { next }
    FILENAME ~ /separation/ { p = $1; if (!(p in seen)) { seen[p] = 1; order[++np] = p; what[p] = $4 }
        t = $6 + 0; r = $7 + 0; last[p] = r
        if ($5 + 0 > 0 && first[p] == "") first[p] = r
        if (r >= 1e-3 && cross[p] == "") cross[p] = t
        if (r > 1e-12 && r < 1e-2) { m = ++cnt[p]; sx[p] += t; sy[p] += log(r); sxx[p] += t * t; sxy[p] += t * log(r) }
        next }
    { v = $1; if (!(v in ev)) vorder[++nv] = v; e = $4 < 0 ? -$4 : $4; if (e > ev[v] + 0) ev[v] = e; efinal[v] = $4 }
    END {
        print "# Precision: the last-bit drift\n"
        print stamp "\n"
        printf "Plummer, N = %d, seed 1, dt %s, eps %s, %d steps (t = %g).  rms |x_a - x_b| over the bodies\n", n, dt, eps, steps, steps * dt
        print "(the system'"'"'s radius is ~1).  e-folding time: a least-squares fit of ln(rms) against t over the"
        print "checkpoints where 1e-12 < rms < 1e-2 (the exponential phase; blank with fewer than 3).\n"
        print "| pair | what differs | rms after " every " steps | rms > 1e-3 from t = | e-folding time | rms at the end |"
        print "|---|---|--:|--:|--:|--:|"
        for (i = 1; i <= np; i++) { p = order[i]; tau = ""
            if (cnt[p] >= 3) { m = cnt[p]; den = m * sxx[p] - sx[p] * sx[p]
                if (den > 0) { sl = (m * sxy[p] - sx[p] * sy[p]) / den; if (sl > 0) tau = sprintf("%.3g", 1 / sl) } }
            printf "| %s | %s | %s | %s | %s | %.3g |\n", p, what[p], (first[p] + 0 == 0 ? "0 (the same bits)" : sprintf("%.3g", first[p])),
                (cross[p] == "" ? "never" : cross[p]), tau, last[p] }
        print "\n| variant | largest \\|dE/E0\\| | dE/E0 at the end |"
        print "|---|--:|--:|"
        for (i = 1; i <= nv; i++) { v = vorder[i]; printf "| %s | %.3g | %s |\n", v, ev[v], efinal[v] }
        print "\nData: drift_separation.csv and drift_energy.csv; figure: drift.png."
    }' "$SEP" "$ENERGY" > "$NB_TMP/drift.md"

for f in drift_separation.csv drift_energy.csv drift.md; do
    cp "$NB_TMP/$f" "$OUT/$f.tmp.$$" && mv -f "$OUT/$f.tmp.$$" "$OUT/$f"
    nb_provenance "$OUT" "$f" "$REGEN" "one run per checkpoint" "${GPU:-none}"
done
took=$(nb_hms "$(nb_calc "$(nb_now) - $T0")")
if [ "$PLOT" = 0 ]; then
    echo "drift: wrote $OUT/drift.md, drift_separation.csv, drift_energy.csv ($took); no figure: gnuplot is not installed here (draw it where it is: scripts/tables/drift.sh --plot DIR, or make plots)" >&2
    exit 0
fi
draw "$OUT" || exit 3
for f in drift.png drift.svg; do nb_provenance "$OUT" "$f" "$REGEN" "one run per checkpoint" "${GPU:-none}"; done
echo "drift: wrote $OUT/drift.{md,png,svg}, drift_separation.csv, drift_energy.csv ($took)" >&2
