#!/bin/bash
# scripts/gpu/step05_h100.sh -- build, test, sanitize and time step05 on a lent GPU in one call.
#   usage: scripts/gpu/step05_h100.sh [stages...]   stages: build test san bench big
# Logs go to $OUT (or /tmp/out).  CUnit comes from .carry/debs when the
# machine has none.
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
stages=${*:-build test san bench big}
cd "$(dirname "$0")/../.."
CU=/tmp/cu
if [ -d .carry/debs ] && [ ! -d $CU/usr ]; then for f in .carry/debs/*.deb; do dpkg -x $f $CU; done; fi
MK="ARCH=sm_90 CUNIT_PREFIX=$CU/usr"
B=step05_barneshut/nbody
for s in $stages; do case $s in
build)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.total --format=csv | tee $OUT/gpu.txt
  make -C step05_barneshut $MK -j8 >$OUT/build.log 2>&1 && make -C tests run_step05_barneshut $MK >>$OUT/build.log 2>&1 \
    || { tail -30 $OUT/build.log; exit 1; } ;;
test)
  (cd tests && timeout 300 ./run_step05_barneshut) >$OUT/tests.log 2>&1; echo "tests rc=$?" >>$OUT/tests.log
  grep -v "^  PASS" $OUT/tests.log | tail -25 ;;
san)
  for t in memcheck racecheck synccheck; do
    timeout 150 compute-sanitizer --tool $t $B -n 2001 -s 2 >$OUT/san_$t.log 2>&1
    echo "$t rc=$?: $(grep 'ERROR SUMMARY' $OUT/san_$t.log)"
  done ;;
bench)
  for n in 1000000 5000000; do
    timeout 120 $B -n $n -s 5 --bench --check >$OUT/bench_$n.log 2>&1; echo "rc=$?" >>$OUT/bench_$n.log
    grep -E "tree:|median|kernels|interactions per|check:|device|rc=" $OUT/bench_$n.log
  done ;;
big)
  timeout 200 $B -n 50000000 -s 1 --bench >$OUT/bench_50M.log 2>&1; echo "rc=$?" >>$OUT/bench_50M.log
  grep -E "tree:|median|kernels|interactions per|device|rc=|: " $OUT/bench_50M.log | head -20 ;;
cross)   # crossover with the all-pairs step04 (same seed, Plummer, full step)
  make -C step04_shared ARCH=sm_90 -j8 >>$OUT/build.log 2>&1 || { echo "step04 build failed"; continue; }
  for n in 8192 16384 32768 65536 131072 262144; do
    a=$(timeout 60 step04_shared/nbody -n $n -s 5 --bench | grep "step   median" | awk '{print $3}')
    b=$(timeout 60 $B -n $n -s 5 --bench | grep "step   median" | awk '{print $3}')
    echo "cross n=$n step04 $a ms step05 $b ms" | tee -a $OUT/cross.log
  done ;;
blocks)
  for bl in 64 128 256 512; do
    echo "block $bl: $(timeout 60 $B -n 1000000 -s 3 --bench --block $bl | grep -E 'kernels' )" | tee -a $OUT/blocks.log
  done ;;
esac; done
