#!/usr/bin/env bash
# scripts/tables/cpu_tree_scaling.sh -- thread scaling of the fast CPU tree code
# (step05_barneshut/tuned/nbody_tuned --cpu, the tuned build's: its --bench
# splits the walk/list and evaluate phases): one Plummer sphere, --threads 1, 2, 4, 8, 16 (as
# many of these as the machine has logical CPUs, and the machine's count),
# a small table with the time per step, the speedup over 1 thread and the
# phases of the --bench report.
#
#   scripts/tables/cpu_tree_scaling.sh            N = 1000000
#   scripts/tables/cpu_tree_scaling.sh 200000     another N
#
# Each run: `step05_barneshut/tuned/nbody_tuned --cpu -n N -s STEPS --warmup WARMUP
# --bench --threads T` (the initial force evaluation before it warms the
# memory up too).  At N = 1000000 a step takes a few seconds on one core, so
# the defaults (STEPS=2, WARMUP=0: three force evaluations per run) keep the
# whole table within about two minutes on a 16-core machine.
#
# Environment: STEPS (2), WARMUP (0), THREADS ("1 2 4 8 16" up to the
# logical CPUs, plus their count), THETA (0.5).  Builds it if needed.
# Exit 0 when every run worked, 1 otherwise.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/sysinfo.sh
. "$top/scripts/sysinfo.sh"

n=${1:-1000000}
steps=${STEPS:-2}
warmup=${WARMUP:-0}
theta=${THETA:-0.5}
cpus=$(nbs_cpu_threads)
if [ -n "${THREADS:-}" ]; then
    list=$THREADS
else
    list=""
    for t in 1 2 4 8 16; do [ "$t" -le "$cpus" ] && list="$list $t"; done
    case " $list " in *" $cpus "*) ;; *) [ "$cpus" -le 16 ] && list="$list $cpus" ;; esac
fi
bin=$top/step05_barneshut/tuned/nbody_tuned
[ -x "$bin" ] || make -C "$top/step05_barneshut/tuned" >/dev/null

echo "step05_barneshut/tuned/nbody_tuned --cpu thread scaling: N = $n Plummer (seed 1), theta $theta"
echo "machine: $(nbs_cpu_model), $(nbs_cpu_cores) cores, $cpus logical CPUs; $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "each row: step05_barneshut/tuned/nbody_tuned --cpu -n $n -s $steps --warmup $warmup --theta $theta --bench --threads T"
echo "(ms per step: the median of the timed steps; phases: the mean per timed step)"
echo
printf '| %7s | %10s | %10s | %7s | %6s | %8s | %9s | %9s | %9s |\n' threads "step ms" "force ms" \
    speedup "eff." build summarize "walk/list" evaluate
printf '|--------:|-----------:|-----------:|--------:|-------:|---------:|----------:|----------:|----------:|\n'
t1="" failed=0
for t in $list; do
    out=$("$bin" --cpu -n "$n" -s "$steps" --warmup "$warmup" --theta "$theta" --bench \
          --threads "$t" 2>&1) || {
        failed=1
        printf '| %7s | failed: %s\n' "$t" "$(echo "$out" | tail -n 1)"
        continue
    }
    step=$(echo "$out" | awk '$1 == "step" && $2 == "median" { print $3 }')
    force=$(echo "$out" | awk '$1 == "force" && $2 == "median" { print $3 }')
    phases=$(echo "$out" | sed -n 's/.*): build \([0-9.]*\), summarize \([0-9.]*\), walk\/list \([0-9.]*\), evaluate \([0-9.]*\),.*/\1 \2 \3 \4/p')
    [ -n "$t1" ] || t1=$step
    read -r b s w e <<< "$phases"
    awk -v t="$t" -v st="$step" -v f="$force" -v t1="$t1" -v b="$b" -v s="$s" -v w="$w" -v e="$e" \
        'BEGIN { sp = t1 / st; printf "| %7d | %10.1f | %10.1f | %6.2fx | %5.0f%% | %8.1f | %9.1f | %9.1f | %9.1f |\n",
                 t, st, f, sp, 100 * sp / t, b, s, w, e }'
done
echo
echo "speedup: the 1-thread step time over this row's; eff.: speedup / threads.  walk/list and"
echo "evaluate share the force phase as their summed thread times do (see the --bench report)."
exit $failed
