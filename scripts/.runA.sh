set -o pipefail
mkdir -p /tmp/cu && for f in .carry/debs/*.deb; do dpkg -x $f /tmp/cu; done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/gpu.txt
M="make ARCH=sm_90 CUNIT_PREFIX=/tmp/cu/usr"
( time $M -j16 all ) > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
$M -C tests run_step04_shared run_step04_tuned >> $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
grep -i warning $OUT/build.log | head
(cd tests && ./run_step04_shared && ./run_step04_tuned) > $OUT/tests.log 2>&1; echo "tests rc=$?"
grep -vE "^  PASS" $OUT/tests.log | tail -20
for t in memcheck racecheck synccheck initcheck; do for n in 1000 70001; do
  compute-sanitizer --tool $t --error-exitcode 1 step04_shared/nbody_tuned -n $n -s 2 --check > /tmp/san.log 2>&1; echo "tuned $t n=$n rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.log | tail -1)"
done; done | tee $OUT/sanitize.log
for t in memcheck racecheck; do compute-sanitizer --tool $t --error-exitcode 1 step04_shared/nbody -n 1000 -s 2 --check > /tmp/san.log 2>&1; echo "lesson $t rc=$? $(grep -E 'SUMMARY' /tmp/san.log | tail -1)"; done | tee -a $OUT/sanitize.log
step04_shared/nbody_tuned -n 4096 -s 20 --bench | tail -8
timeout 400 scripts/tune_step04.sh > $OUT/tune.csv 2>&1; echo "tune rc=$?"
wc -l $OUT/tune.csv
