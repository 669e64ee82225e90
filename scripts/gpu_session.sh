#!/usr/bin/env bash
# scripts/gpu_session.sh -- everything the kit checks on a GPU host, in one
# run: build, CUnit suites, sanitizers, SASS instruction count, benchmarks.
# Logs go to $OUT (default ./gpu-logs).  CUnit comes from .carry/debs when
# it is not installed (the GPU host of the course has no network):
#   here:  mkdir -p .carry/debs && (cd .carry/debs && apt-get download libcunit1 libcunit1-dev)
# PHASES="build check sanitize sass bench big" selects what runs.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-logs}; mkdir -p "$OUT"
PHASES=${PHASES:-"build check sanitize sass bench big"}
J=$(nproc)
cu=()
if ! echo '#include <CUnit/CUnit.h>' | gcc -E -x c - >/dev/null 2>&1; then
  mkdir -p /tmp/cu && for f in .carry/debs/*.deb; do dpkg -x "$f" /tmp/cu; done
  cu=(CUNIT_PREFIX=/tmp/cu/usr)
fi
mk=(make ARCH="${ARCH:-sm_90}")
[ -n "${STEPS:-}" ] && mk+=(STEPS="$STEPS")
has() { case " $PHASES " in *" $1 "*) return 0;; esac; return 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$OUT/gpu.txt"
if has build; then
  echo "== build"; time "${mk[@]}" -j"$J" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  grep -iE "warning" "$OUT/build.log" | head -20
fi
if has check; then
  echo "== check-all"; "${mk[@]}" check-all "${cu[@]}" >"$OUT/check.log" 2>&1; echo "check-all exit $?"
  grep -vE "^  PASS|^gcc|^nvcc|^make|^rm |^ar " "$OUT/check.log" | tail -60
fi
if has sanitize; then
  echo "== sanitize"; N=1000 scripts/sanitize.sh $(echo ${STEPS:-step02_naive step03_float4 step04_shared step05_barneshut} | tr " " "\n" | grep -v step01) 2>&1 | tee "$OUT/sanitize.log"
fi
if has sass; then
  echo "== sass"
  for s in step02_naive step03_float4 step04_shared; do
    cuobjdump -sass "$s/nbody" > "$OUT/sass_$s.txt" 2>&1
    awk '/Function : .*forces_kernel/{f=1;next} /Function :/{f=0} f' "$OUT/sass_$s.txt" > /tmp/fk.txt
    echo "$s forces_kernel: $(grep -cE '^\s+/\*[0-9a-f]+\*/' /tmp/fk.txt) instructions;" \
      $(grep -oE '(FFMA|FADD|FMUL|MUFU\.RSQ|LDS\.128|LDS|LDG\.E\.128|LDG\.E\.64|LDG\.E|BAR\.SYNC|BRA)\b' /tmp/fk.txt | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
  done | tee "$OUT/sass_counts.txt"
fi
if has bench; then
  echo "== bench"
  for s in step02_naive step03_float4 step04_shared; do
    for n in 65536 1048576; do
      "$s/nbody" -n $n -s 5 --warmup 1 --bench --csv ${BLOCK:+--block $BLOCK}
    done
  done | tee "$OUT/bench.csv"
  for b in 128 256 512; do step04_shared/nbody -n 1048576 -s 5 --bench --csv --block $b; done | tee -a "$OUT/bench.csv"
  # step04 with 1, 2 (the default) and 4 bodies per thread
  for r in 1 4 2; do
    "${mk[@]}" -s -B -C step04_shared EXTRA_NVCCFLAGS=-DBODIES_PER_THREAD=$r >/dev/null 2>&1
    cuobjdump -sass step04_shared/nbody | awk '/Function : .*forces_kernel/{f=1;next} /Function :/{f=0} f' > /tmp/fk.txt
    echo "R=$r: $(grep -cE '^\s+/\*[0-9a-f]+\*/' /tmp/fk.txt) instructions;" $(grep -oE '(FFMA|FADD|FMUL|MUFU\.RSQ|LDS\.128|BAR\.SYNC|BRA)\b' /tmp/fk.txt | sort | uniq -c | awk '{printf "%s=%s ", $2, $1}')
    for b in 128 256; do echo -n "R=$r "; step04_shared/nbody -n 1048576 -s 5 --bench --csv --block $b; done
  done | tee "$OUT/bench_r.txt"
fi
if has big; then
  echo "== big"
  step04_shared/nbody -n 4194304 -s 1 --warmup 0 --bench --check 2>&1 | tee "$OUT/big.log"
  step02_naive/nbody -n 2000000000 -s 0; echo "exit $? (expect 3: does not fit)"
fi
