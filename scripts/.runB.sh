set -o pipefail
T0=$(date +%s); ts() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
mkdir -p /tmp/cu && for f in .carry/debs/*.deb; do dpkg -x $f /tmp/cu; done
M="make ARCH=sm_90 CUNIT_PREFIX=/tmp/cu/usr"
ts build; ( time $M -j16 all ) > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
$M -j16 -C tests run_common run_step01_cpu run_step02_naive run_step03_float4 run_step04_shared run_step04_tuned run_step05_barneshut tune_step04 >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
grep -i "warning" $OUT/build.log | head -5
ts diag; for k in 1 2; do /usr/bin/time -f "%e s nbody n=100" step04_shared/nbody -n 100 -s 1 >/dev/null; done 2>&1
ts tune; timeout 200 tests/tune_step04 > $OUT/tune.csv 2> $OUT/tune.err; ts "tune rc=$? $(wc -l < $OUT/tune.csv) lines"
ts tests
for r in step02_naive step03_float4 step04_shared step04_tuned step05_barneshut; do
  (cd tests && timeout 300 ./run_$r > $OUT/t_$r.log 2>&1; echo "rc=$?" >> $OUT/t_$r.log) &
done
(for t in memcheck racecheck synccheck initcheck; do for a in "step05_barneshut/nbody -n 1000" "step05_barneshut/nbody -n 3001 --theta 0" "step04_shared/nbody -n 1000 --block 96"; do
  timeout 120 compute-sanitizer --tool $t --error-exitcode 1 $a -s 2 --check > /tmp/s.log 2>&1; echo "$t $a rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/s.log | tail -1)"; done; done > $OUT/sanitize.log 2>&1) &
wait; ts done-parallel
cat $OUT/sanitize.log
for r in step02_naive step03_float4 step04_shared step04_tuned step05_barneshut; do grep -E "score|passed|rc=" $OUT/t_$r.log; grep -E "^  FAIL" $OUT/t_$r.log | head -5; done
(cd tests && ./run_common > $OUT/t_common.log 2>&1; tail -2 $OUT/t_common.log)
ts end
