#!/usr/bin/env bash
# scripts/tables/tree_tuned.sh -- `make bench-tree`: the lesson's GPU tree
# (step05_barneshut/nbody) and its tuned build (nbody_tuned) side by side in
# one run, at several opening angles, with the accuracy of each: the only
# fair comparison of two tree codes is time at equal accuracy.
#
# Each configuration: `PROG -n N --steps S --warmup 1 --ic plummer --seed 1
# --theta T --bench --check --csv --csv-header`, once; the row shows the
# mean step and force times (the tuned build keeps its tree for 4 steps and
# rebuilds it on the fifth: 8 timed steps after 1 warm-up hold two whole
# periods, so the mean is what a long run costs a step; for the lesson the
# mean and the median agree), the interactions per second of the force,
# and the p99 relative error of the accelerations after the run against the
# double direct sum on sampled bodies (--check).  The table also says, per
# N, the fastest configuration of each code with p99 <= 1e-3, and their
# ratio.  Writes tree_tuned.{md,csv} under handouts/results/<slug>/ with a
# provenance row; prints the table.
#
# A third code beside them, when ECLBH_SRC names its source: ECL-BH v4.5
# (Burtscher and Pingali's tree code, BSD licence, from Texas State
# University's ECL-BH page; not part of this kit), in the copy that writes
# its bodies at exit (posMass.txt, accVel.txt).  A copy is built here with
# nvcc -O3 for this GPU, with three changes that leave its kernels alone:
# the two clock rates its banner prints, which CUDA 13 dropped from
# cudaDeviceProp, print as 0; its host code is compiled with -fwrapv (its
# random-number generator, 1103515245 * randx in int, relies on signed
# overflow wrapping: gcc -O2 and -O3 take that overflow as impossible, and
# the generator's first rejection loop then never ends -- the "hang" of
# earlier runs); and those files are written with 9 digits, enough to give
# back every float.  It is run as `ECL-BH N S+1 0` in a scratch folder; its
# row is the sum of its kernels' CUDA-event times over the S+1 steps, a
# step (it has no warm-up), and its force kernel's share.  Its opening
# angle (0.5, in its own θ: the same meaning as here), softening (0.05)
# and initial conditions (its own Plummer generator) are fixed in its
# source.  Its error: two more runs, `ECL-BH N 0 0` (the bodies as
# generated) and `ECL-BH N 1 0` (the accelerations of its first step, at
# those positions), compared by scripts/tables/accel_error.c with the kit's
# double direct sum on the bodies --check samples, softening 0.05 (where
# its source's file output is not the one patched above, or
# accel_error.c does not build here, the row keeps its time and has no
# error, with a warning).  It runs at the N of ECLBH_N that TREE_N has
# (ECLBH_N= for none): each of its runs writes every body as text, to its
# standard output and to three files (about 3 GB at 16M).
#
# Variables: TREE_N ("1048576 5242880 16777216"), LESSON_THETA ("0.5 0.7
# 0.9"), TUNED_THETA ("1.0 1.05 1.075 1.1"), TREE_STEPS (8), ECLBH_SRC (unset; a
# relative path is taken from the folder the script starts in: for make
# bench-tree, the kit's top folder), ECLBH_N ("1048576 5242880"), ECLBH_ARCH
# (native: nvcc's -arch), ECLBH_TIMEOUT (180 s a run), RESULTS_DIR, SLUG.
# Only ECL-BH's "runtime:" line is kept (it also prints every body at exit).
# Exit: 0 when the table was written, 2 for a bad variable or an ECL-BH that
# does not build, 3 when nothing ran (no GPU: the reason is printed).
set -euo pipefail
set -f                              # the lists below are split on blanks, never globbed
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
if [ -n "${ECLBH_SRC:-}" ] && [ "${ECLBH_SRC#/}" = "$ECLBH_SRC" ]; then
    ECLBH_SRC="$PWD/$ECLBH_SRC"
fi
cd "$NB_TOP"
NS=${TREE_N:-"1048576 5242880 16777216"}
LT=${LESSON_THETA:-"0.5 0.7 0.9"}
TT=${TUNED_THETA:-"1.0 1.05 1.075 1.1"}
STEPS=${TREE_STEPS:-8}
case $STEPS in ''|*[!0-9]*|0*|??????*) echo "tree_tuned: TREE_STEPS must be a whole number from 1 to 99999 (got '$STEPS')" >&2; exit 2 ;; esac
for n in $NS; do
    case $n in 0*|*[!0-9]*|??????????*) echo "tree_tuned: TREE_N must be body counts from 1 to 999999999 (got '$n')" >&2; exit 2 ;; esac
done
for th in $LT $TT; do
    case $th in ''|*[!0-9.]*|*.*.*|.|.*) echo "tree_tuned: LESSON_THETA and TUNED_THETA must be numbers like 0.7 (got '$th')" >&2; exit 2 ;; esac
done
[ -n "$(echo $NS)" ] && [ -n "$(echo $LT $TT)" ] || { echo "tree_tuned: TREE_N, or both theta lists, are empty" >&2; exit 2; }
ECL_NS=" $(echo ${ECLBH_N-1048576 5242880}) "
for n in $ECL_NS; do
    case $n in 0*|*[!0-9]*) echo "tree_tuned: ECLBH_N must be body counts (got '$n')" >&2; exit 2 ;; esac
    case " $(echo $NS) " in *" $n "*) ;; *) [ -z "${ECLBH_N+set}" ] ||
        echo "tree_tuned: ECLBH_N=$n is not in TREE_N: ECL-BH does not run there" >&2 ;; esac
done
ECL_LIMIT=${ECLBH_TIMEOUT:-180}
case $ECL_LIMIT in ''|*[!0-9]*|0*) echo "tree_tuned: ECLBH_TIMEOUT must be a positive number of seconds (got '$ECL_LIMIT')" >&2; exit 2 ;; esac
for p in step05_barneshut/nbody step05_barneshut/tuned/nbody_tuned; do
    [ -x "$(nb_bin "$p")" ] || { echo "tree_tuned: $p is not built (run make first; the student kit leaves the tuned build out)" >&2; exit 3; }
done
nb_init_tmp
ECL=""
if [ -n "${ECLBH_SRC:-}" ]; then
    [ -f "$ECLBH_SRC" ] && [ -r "$ECLBH_SRC" ] || { echo "tree_tuned: ECLBH_SRC=$ECLBH_SRC: no such readable file" >&2; exit 2; }
    ECL="$NB_TMP/ecl-bh"
    mkdir -p "$ECL.run"
    echo "tree_tuned: building ECL-BH from $ECLBH_SRC" >&2
    sed -e 's/deviceProp\.clockRate \* 0\.001/0.0/' -e 's/deviceProp\.memoryClockRate \* 0\.001/0.0/' \
        -e 's/^\( *ofstream \(myfile[23]*\) *(filename[23]*);\)/\1 \2.precision(9);/' \
        "$ECLBH_SRC" >"$ECL.cu"
    "${NVCC:-nvcc}" -O3 -arch="${ECLBH_ARCH:-native}" -w -Xcompiler -fwrapv -o "$ECL" "$ECL.cu" >"$NB_TMP/ecl.build" 2>&1 ||
        { echo "tree_tuned: ECL-BH did not build: $(tail -n 1 "$NB_TMP/ecl.build")" >&2; exit 2; }
    ECL_ERR=1
    if [ "$(grep -c 'precision(9);' "$ECL.cu")" != 3 ]; then
        ECL_ERR=0
        echo "tree_tuned: $ECLBH_SRC does not write its bodies as the copy this script patches: no error for ECL-BH" >&2
    elif ! "${CC:-cc}" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -I common -o "$NB_TMP/accel_error" \
        scripts/tables/accel_error.c common/libnbcommon.a -lm >"$NB_TMP/acc.build" 2>&1; then
        ECL_ERR=0
        echo "tree_tuned: scripts/tables/accel_error.c did not build ($(tail -n 1 "$NB_TMP/acc.build")): no error for ECL-BH" >&2
    fi
fi
# ECL-BH's error at N ($1): "median,p99" on stdout (p99 inf when one of
# its accelerations is not finite), or "," with the reason on stderr.
ecl_error() {
    local n=$1 d="$ECL.run" e rc
    [ "$ECL_ERR" = 1 ] || { echo ,; return 0; }
    (cd "$d" && timeout --kill-after=10 "$ECL_LIMIT" "$ECL" "$n" 0 0 >/dev/null 2>"$NB_TMP/ecl.err0" </dev/null &&
        mv posMass.txt pos0.txt &&
        timeout --kill-after=10 "$ECL_LIMIT" "$ECL" "$n" 1 0 >/dev/null 2>>"$NB_TMP/ecl.err0" </dev/null)
    rc=$?
    if [ $rc != 0 ]; then
        [ $rc != 124 ] && [ $rc != 137 ] || echo "killed after $ECL_LIMIT s (ECLBH_TIMEOUT)" >>"$NB_TMP/ecl.err0"
        echo "tree_tuned: ECL-BH's error runs at N = $n failed (exit status $rc): $(tail -n 1 "$NB_TMP/ecl.err0")" >&2
        find "$d" -mindepth 1 -delete; echo ,; return 0
    fi
    e=$("$NB_TMP/accel_error" "$n" 0.05 "$d/pos0.txt" "$d/accVel.txt" 2>"$NB_TMP/acc.err")
    rc=$?
    find "$d" -mindepth 1 -delete
    set -- $e
    if [ $# != 5 ]; then
        echo "tree_tuned: ECL-BH's error at N = $n could not be measured: $(tail -n 1 "$NB_TMP/acc.err")" >&2
        echo ,; return 0
    fi
    [ $rc = 0 ] || echo "tree_tuned: ECL-BH at N = $n: $(tail -n 1 "$NB_TMP/acc.err")" >&2
    [ "$5" = 0 ] && [ $rc = 0 ] || { echo "$2,inf"; return 0; }   # an acceleration not finite: no p99
    echo "$2,$3"
}
CSV="$NB_TMP/tree_tuned.csv"
echo "code,n,theta,steps,step_ms_mean,force_ms_mean,inter_per_s,err_median,err_p99,status" >"$CSV"
GPU_NAME=""; ok=0
for n in $NS; do
    for code in lesson tuned; do
        if [ $code = lesson ]; then prog=step05_barneshut/nbody; thetas=$LT; else prog=step05_barneshut/tuned/nbody_tuned; thetas=$TT; fi
        for th in $thetas; do
            echo "tree_tuned: $prog -n $n --theta $th" >&2
            nb_run "$(nb_limit 60 600)" "$(nb_bin "$prog")" -n "$n" --steps "$STEPS" --warmup 1 --ic plummer \
                --seed 1 --theta "$th" --bench --check --csv --csv-header
            if [ "$NB_RC" = 0 ] || [ "$NB_RC" = 1 ]; then      # 1: --check over the tree's tolerance: still a row
                [ -n "$GPU_NAME" ] || GPU_NAME=$(nb_get device)
                echo "$code,$n,$th,$STEPS,$(nb_get step_ms_mean),$(nb_get force_ms_mean),$(nb_get inter_per_s),$(nb_get err_median),$(nb_get err_p99),ok" >>"$CSV"
                ok=$((ok + 1))
            elif [ "$NB_RC" = 77 ]; then
                echo "tree_tuned: no usable GPU: $NB_ERR" >&2; exit 3
            else
                echo "$code,$n,$th,$STEPS,,,,,,$(nb_csvq "$NB_ERR")" >>"$CSV"
            fi
        done
    done
    if [ -n "$ECL" ] && [ "${ECL_NS#* $n }" != "$ECL_NS" ]; then
        # "runtime: R s  ( bbox build summarize sort force integrate ) = T ms", summed over its steps
        echo "tree_tuned: ECL-BH $n $((STEPS + 1)) 0" >&2
        set +e
        (cd "$ECL.run" && timeout --kill-after=10 "$ECL_LIMIT" "$ECL" "$n" $((STEPS + 1)) 0) \
            2>"$NB_TMP/ecl.err" </dev/null | grep -a '^runtime:' >"$NB_TMP/ecl.out"
        rc=${PIPESTATUS[0]}
        set -e
        find "$ECL.run" -mindepth 1 -delete
        row=$(awk -v s=$((STEPS + 1)) '/^runtime:/ { n = split($0, a, /[()]/); m = split(a[2], k, " ")
                  t = $0; sub(/.*= */, "", t); sub(/ *ms.*/, "", t)
                  if (m == 6 && t + 0 > 0) { printf "%.4f,%.4f", t / s, k[5] / s; exit } }' "$NB_TMP/ecl.out")
        if [ "$rc" = 0 ] && [ -n "$row" ]; then
            echo "ECL-BH,$n,0.5,$((STEPS + 1)),$row,,$(ecl_error "$n"),ok" >>"$CSV"
        else
            err=$(grep -v '^[[:space:]]*$' "$NB_TMP/ecl.err" | tail -n 1 | cut -c 1-300 || true)
            [ "$rc" != 124 ] && [ "$rc" != 137 ] || err="killed after $ECL_LIMIT s (ECLBH_TIMEOUT)"
            echo "ECL-BH,$n,0.5,$((STEPS + 1)),,,,,,$(nb_csvq "exit status $rc${err:+: $err}")" >>"$CSV"
        fi
    fi
done
[ "$ok" -gt 0 ] || { echo "tree_tuned: nothing ran" >&2; exit 3; }
OUT=${RESULTS_DIR:-$NB_TOP/handouts/results/$(nbs_slug "$GPU_NAME")}
mkdir -p "$OUT"
MD="$NB_TMP/tree_tuned.md"
{
    echo "# The lesson's GPU tree and its tuned build, at equal accuracy"
    echo ""
    echo "Plummer sphere, seed 1, $STEPS timed steps after one warm-up step; ms: the mean of the timed steps (the tuned build keeps its tree for 4 steps: built on one, refitted on three); p99: the relative error of the accelerations after the run against the double direct sum on sampled bodies (\`--check\`; for the tuned build a refitted tree, one step after its build). The lesson's cells pull as monopoles, the tuned build's as quadrupoles; on a step that builds the tree both open the same cells at the same θ, and a refit opens a cell also for the distance its bodies moved since the build."
    echo ""
    echo "| N | code | θ | ms/step | force ms | G interactions/s | median error | p99 error |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F, 'NR > 1 { if ($10 != "ok") { printf "| %s | %s | %s | %s | | | | |\n", $2, $1, $3, $10; next }
                      if ($1 == "ECL-BH") { printf "| %s | %s | %s | %.2f | %.2f | | %s | %s |\n", $2, $1, $3, $5, $6,
                                                ($8 == "") ? "" : sprintf("%.2g", $8), ($9 == "") ? "" : ($9 ~ /^[0-9.eE+-]+$/) ? sprintf("%.2g", $9) : $9; next }
                      printf "| %s | %s | %s | %.2f | %.2f | %.0f | %.2g | %.2g |\n", $2, $1, $3, $5, $6, $7 / 1e9, $8, $9 }' "$CSV"
    if [ -n "$ECL" ]; then
        echo ""
        echo "ECL-BH v4.5 (\`ECLBH_SRC=$(basename "$ECLBH_SRC")\`, sha256 $(sha256sum "$ECLBH_SRC" | cut -c 1-12)): its own Plummer generator, θ 0.5 and softening 0.05, fixed in its source; ms: its kernels' CUDA-event times summed over its $((STEPS + 1)) steps (no warm-up), a step; force ms: its force kernel alone; its error: the accelerations of its first step (a tree just built), against the same double direct sum, on the bodies as its generator made them."
    fi
    echo ""
    echo "Fastest with p99 ≤ 1e-3, per N:"
    echo ""
    awk -F, 'NR > 1 && $10 == "ok" && $1 != "ECL-BH" && $9 <= 1e-3 { k = $2 SUBSEP $1
                 if (!(k in best) || $5 < best[k]) { best[k] = $5; th[k] = $3; p[k] = $9 }
                 if (!($2 in seen)) { seen[$2] = 1; order[++m] = $2 } }
             END { for (i = 1; i <= m; i++) { n = order[i]; l = n SUBSEP "lesson"; t = n SUBSEP "tuned"
                       printf "- N = %s: lesson %s, tuned %s%s\n", n,
                           (l in best) ? sprintf("%.2f ms at θ %s (p99 %.2g)", best[l], th[l], p[l]) : "none",
                           (t in best) ? sprintf("%.2f ms at θ %s (p99 %.2g)", best[t], th[t], p[t]) : "none",
                           (l in best && t in best) ? sprintf(": %.2fx", best[l] / best[t]) : ""
                       if ((n SUBSEP "ecl") in ecl && t in best)
                           printf "  - ECL-BH (its θ 0.5, its own bodies and softening) %.2f ms a step%s: %.2fx the time of the tuned build\n", ecl[n SUBSEP "ecl"],
                               (n in eclp) ? " (p99 " eclp[n] ")" : "", ecl[n SUBSEP "ecl"] / best[t] } }
             NR > 1 && $10 == "ok" && $1 == "ECL-BH" { ecl[$2 SUBSEP "ecl"] = $5; if ($9 != "") eclp[$2] = ($9 ~ /^[0-9.eE+-]+$/) ? sprintf("%.2g", $9) : $9 }' "$CSV"
    echo ""
    nbs_stamp_md "$GPU_NAME" "" "make bench-tree"
} >"$MD"
cp "$CSV" "$OUT/tree_tuned.csv.tmp" && mv "$OUT/tree_tuned.csv.tmp" "$OUT/tree_tuned.csv"
cp "$MD" "$OUT/tree_tuned.md.tmp" && mv "$OUT/tree_tuned.md.tmp" "$OUT/tree_tuned.md"
nb_provenance "$OUT" tree_tuned.csv "make bench-tree" "one run per row" "$GPU_NAME"
nb_provenance "$OUT" tree_tuned.md "make bench-tree" "one run per row" "$GPU_NAME"
cat "$MD"
echo "tree_tuned: wrote $OUT/tree_tuned.{md,csv}" >&2
