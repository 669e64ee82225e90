#!/usr/bin/env bash
# scripts/setup/run.sh PROGRAM... -- `make run`, the main job: every program on the
# same Plummer sphere (N = 4096, 10 steps, --check --bench), one line each
# while it runs, then a short table (program, N, ms per step, check) and what
# to do next.  A PROGRAM is a step folder (its program nbody), folder/program
# (step04_shared/tuned/nbody_tuned), or either with one option after a colon
# (step05_barneshut:--cpu, the CPU tree code, which runs on any machine).
#
# A GPU program without a usable GPU (exit 77) and a blanked student-kit
# step (exit 4) are skipped with the reason, said once; a step the build
# left out (no nvcc, step06 without NCCL) is not among the PROGRAMs: the
# build before (`make run` runs `make all` first) said so, a line each.
# Variables: N (4096), STEPS_RUN (10).
# Exit 0 when every program ran and passed its --check or was skipped;
# 1 when one was not built, failed its check or failed to run.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"
n=${N:-4096}
steps=${STEPS_RUN:-10}
nb_init_tmp
status=0
rows=() nogpu=() todo=() failed=()
nogpu_why=""
echo "make run: every program this machine can run, Plummer sphere, N = $n, $steps steps, --check --bench"
for p in "$@"; do
  prog=${p%%:*} opt=""
  [ "$prog" = "$p" ] || opt=${p#*:}
  bin=$(nb_bin "$prog")
  name=${bin#"$NB_BIN_DIR"/}${opt:+ $opt}
  if [ ! -x "$bin" ]; then
    echo "  $name: not built"; rows+=("$name|$n|—|not built"); status=1; continue
  fi
  # shellcheck disable=SC2206
  args=(-n "$n" -s "$steps" ${opt:+$opt} --check --bench --csv --csv-header)
  printf '  %s -n %s -s %s --check --bench ... ' "$name" "$n" "$steps"
  nb_run 600 "$bin" "${args[@]}"
  case $NB_RC in
    0|1)
      ms=$(nb_fmt "$(nb_get step_ms_med)") err=$(nb_get err_max)
      check="PASS (max error $err)"
      if [ "$NB_RC" = 1 ]; then check="FAIL (max error $err)"; status=1; failed+=("$name"); fi
      echo "$ms ms/step, check ${check%% *}"
      rows+=("$name|$n|$ms|$check") ;;
    77)
      echo "skipped (no usable GPU)"
      nogpu+=("$name"); nogpu_why=${NB_ERR#*: } ;;
    4)
      echo "not implemented yet"
      todo+=("$name"); rows+=("$name|$n|—|not implemented yet (student kit)") ;;
    *)
      echo "FAILED (exit $NB_RC)"
      echo "    $NB_ERR"
      rows+=("$name|$n|—|failed: exit $NB_RC"); status=1; failed+=("$name") ;;
  esac
done
echo
echo "| program | N | ms/step | check |"
echo "|---|--:|--:|---|"
for r in "${rows[@]}"; do IFS='|' read -r a b c d <<<"$r"; echo "| $a | $b | $c | $d |"; done
echo
[ ${#nogpu[@]} = 0 ] || echo "skipped (${nogpu_why:-no usable GPU}): ${nogpu[*]}"
echo "next:"
if [ ${#failed[@]} -gt 0 ]; then
  echo "  ${failed[0]} failed: run it alone to see its message, then make -C ${failed[0]%%/*} check"
fi
if [ ${#todo[@]} -gt 0 ]; then
  echo "  write the TODOs of ${todo[0]%%/*} (its handout says how), then make -C ${todo[0]%%/*} check"
fi
echo "  make check-all   grade every step (points per test)"
echo "  make diff STEP=02   what step 02 adds to step 01 (the lesson; handouts/02_naive.md)"
echo "  make help        every target"
exit $status
