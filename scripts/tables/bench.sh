#!/usr/bin/env bash
# scripts/tables/bench.sh -- `make bench`: every step that can run here, at a few N,
# and ONE Markdown table on stdout (progress on stderr).
#
#   step01_cpu        N = 4096 (1 thread), 4096 and 65536 (all threads)
#   step02..step04    N = 1024, 4096, 65536, 1048576; step04 twice: the
#                     lesson kernel (nbody) and the tuned build (nbody_tuned)
#   step05_barneshut  GPU: N = 1024, 4096, 65536, 1048576; --cpu: N = 4096,
#                     65536, with 1 thread and all threads
#
# Each run: --bench --warmup 1 and enough timed steps for about BENCH_TARGET_S
# seconds (5..50 on the GPU, 1..10 on the CPU), initial conditions plummer.
# ms/step = median whole step, force ms = median force computation (both
# without host<->device copies); G inter/s and GFLOP/s (20 flops per
# interaction) from the median force time.  The step04 rows also show the
# ratio to the kit's targets (TARGETS below: the lesson kernel at N = 1M
# against the best build of cuda-samples' nbody, 1.83 T interactions/s on an
# H100; the tuned build's rate targets per N, interactions/s of the force).  A GPU step that exits 77 (no
# usable GPU) is skipped with the reason; a step not built is listed as such.
#
# Variables: NB_BIN_DIR, BENCH_GPU_N, BENCH_CPU_N, BENCH_TARGET_S, THREADS.
# Exit status: 0 (the table says what could not run), 3 if nothing ran.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"

GPU_NS=${BENCH_GPU_N:-"1024 4096 65536 1048576"}
CPU_NS=${BENCH_CPU_N:-"4096 65536"}
TARGET=${BENCH_TARGET_S:-1}
THREADS=${THREADS:-$(nbs_cpu_threads)}
# step|N|target interactions/s|what
TARGETS="step04_shared|1048576|1.83e12|cuda-samples' best build on an H100
step04_shared/tuned/nbody_tuned|1024|1.5e11|target
step04_shared/tuned/nbody_tuned|4096|8.0e11|target
step04_shared/tuned/nbody_tuned|65536|1.9e12|target
step04_shared/tuned/nbody_tuned|1048576|2.0e12|target"

nb_init_tmp

# step | options | N list | kind
CONFIGS=()
for n in $CPU_NS; do
    [ "$n" != "$(echo "$CPU_NS" | awk '{print $1}')" ] || CONFIGS+=("step01_cpu|--threads 1|$n|cpu")
    CONFIGS+=("step01_cpu|--threads $THREADS|$n|cpu")
done
for s in step02_naive step03_float4 step04_shared step04_shared/tuned/nbody_tuned; do
    for n in $GPU_NS; do CONFIGS+=("$s||$n|gpu"); done
done
for n in $GPU_NS; do CONFIGS+=("step05_barneshut||$n|gputree"); done
for n in $CPU_NS; do
    CONFIGS+=("step05_barneshut|--cpu --threads 1|$n|cputree" "step05_barneshut|--cpu --threads $THREADS|$n|cputree")
done
TOTAL=${#CONFIGS[@]}

declare -A LAST_N LAST_T NOGPU NOTBUILT BADOPT
NOGPU_REASON=""; GPU_NAME=""; CPU_NAME=""; NOK=0
ROWS="$NB_TMP/rows"; : >"$ROWS"
T0=$(nb_now)
i=0
for c in "${CONFIGS[@]}"; do
    i=$((i + 1))
    IFS='|' read -r step opts n kind <<<"$c"
    bin=$(nb_bin "$step")
    key="$step $opts"
    conf=${opts:-default}
    [ "$kind" != gputree ] || conf="θ=0.5"
    [ "$kind" != cputree ] || conf="$opts, θ=0.5"
    if [ ! -x "$bin" ]; then
        [ -n "${NOTBUILT[$step]:-}" ] || echo "| $step | | | | | | | | not built ($bin missing) |" >>"$ROWS"
        NOTBUILT[$step]=1
        continue
    fi
    if [ "$kind" != cpu ] && [ "$kind" != cputree ] && [ -n "$NOGPU_REASON" ]; then
        [ -n "${NOGPU[$step]:-}" ] || echo "| $step | | | | | | | | skipped: no usable GPU (exit 77) |" >>"$ROWS"
        NOGPU[$step]=1
        continue
    fi
    [ -z "${BADOPT[$key]:-}" ] || continue
    # Steps from the previous N of the same configuration (N² or N log N).
    steps=10
    if [ -n "${LAST_N[$key]:-}" ]; then
        steps=$(awk -v t="${LAST_T[$key]}" -v n0="${LAST_N[$key]}" -v n="$n" -v k="$kind" -v tg="$TARGET" 'BEGIN {
            if (k ~ /tree/) t = t * n * log(n) / (n0 * log(n0)); else t = t * (n / n0) * (n / n0)
            s = int(tg / t)
            if (k == "cpu" || k == "cputree") { if (s > 10) s = 10; if (s < 1) s = 1 } else { if (s > 50) s = 50; if (s < 5) s = 5 }
            print s }')
    fi
    # shellcheck disable=SC2206
    o=($opts)
    args=(-n "$n" --steps "$steps" --warmup 1 --ic plummer --seed 1 "${o[@]}" --bench --csv --csv-header)
    echo "[bench $i/$TOTAL, elapsed $(nb_hms "$(nb_calc "$(nb_now) - $T0")")] $step/nbody ${args[*]}" >&2
    nb_run 600 "$bin" "${args[@]}"
    case $NB_RC in
        0) ;;
        77)
            NOGPU_REASON=$NB_ERR; NOGPU[$step]=1
            echo "    -> exit 77: $NB_ERR" >&2
            echo "| $step | | | | | | | | skipped: no usable GPU (exit 77): $NB_ERR |" >>"$ROWS"
            continue ;;
        2)
            BADOPT[$key]=1
            echo "    -> exit 2: $NB_ERR" >&2
            echo "| $step | $n | $conf | | | | | | failed: exit 2 (usage): $NB_ERR |" >>"$ROWS"
            continue ;;
        *)
            echo "    -> failed: $NB_ERR" >&2
            echo "| $step | $n | $conf | | | | | | failed: $NB_ERR |" >>"$ROWS"
            continue ;;
    esac
    NOK=$((NOK + 1))
    sms=$(nb_get step_ms_med); fms=$(nb_get force_ms_med); ips=$(nb_get inter_per_s); gf=$(nb_get gflops)
    got=$(nb_get steps); dev=$(nb_get device)
    if [ "$kind" = cpu ] || [ "$kind" = cputree ]; then [ -n "$CPU_NAME" ] || CPU_NAME=$dev
    else [ -n "$GPU_NAME" ] || GPU_NAME=$dev; fi
    LAST_N[$key]=$n; LAST_T[$key]=$(nb_calc "${sms:-0} / 1000")
    note=""
    tgt=$(printf '%s\n' "$TARGETS" | awk -F'|' -v s="$step" -v n="$n" '$1 == s && $2 == n { print $3 "|" $4 }')
    if [ -n "$tgt" ] && [ -n "$ips" ]; then
        note=$(awk -v r="$ips" -v t="${tgt%%|*}" -v w="${tgt#*|}" 'BEGIN { printf "%.2f × %.3g inter/s (%s)%s", r / t, t, w, (w == "target" ? (r >= t ? ": met" : ": not met") : "") }')
    fi
    if [ "$kind" = gputree ] || [ "$kind" = cputree ]; then
        note="${note:+$note; }$(nb_fmt "$(nb_calc "$(nb_get interactions) / $n")") interactions per body"
    fi
    ginter=""; [ -z "$ips" ] || ginter=$(nb_fmt "$(nb_calc "$ips / 1e9")")
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$step" "$n" "$conf" "${got:-$steps}" \
        "$(nb_fmt "$sms")" "$(nb_fmt "$fms")" "$ginter" "$(nb_fmt "$gf")" "$note" >>"$ROWS"
    echo "    -> $(nb_fmt "$sms") ms/step, ${ginter:-?} G inter/s" >&2
done

echo "make bench on ${GPU_NAME:-no GPU${NOGPU_REASON:+ ($NOGPU_REASON)}} and ${CPU_NAME:-$(nbs_cpu_model)} ($THREADS threads), $(date -u '+%Y-%m-%d %H:%M UTC'); plummer ICs, median of the timed steps after 1 warm-up step, copies excluded:"
echo ""
echo "| step | N | options | timed steps | ms/step | force ms | G inter/s | GFLOP/s | note |"
echo "|---|--:|---|--:|--:|--:|--:|--:|---|"
cat "$ROWS"
echo "bench: done in $(nb_hms "$(nb_calc "$(nb_now) - $T0")")" >&2
[ "$NOK" -gt 0 ] || { echo "bench: nothing could run (build the steps with \`make\`)" >&2; exit 3; }
exit 0
