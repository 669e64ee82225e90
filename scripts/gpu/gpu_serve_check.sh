#!/usr/bin/env bash
# scripts/gpu/gpu_serve_check.sh -- --serve (the view in a browser) on a GPU
# server without a display, GL or web packages (an H100 host), in one go;
# logs under $OUT (default /tmp/gpu_serve).
#
#   bash scripts/gpu/gpu_serve_check.sh
#
# 1. packages: Debian 12 .debs carried in .carry/gl/ and .carry/serve/,
#    unpacked by carry_gl of scripts/setup/carry_debs.sh (which names the
#    packages).  libmicrohttpd needs the system's libgnutls.so.30.
# 2. build: make ARCH=sm_90 GL_PREFIX=/tmp/gl/usr (SERVE_PREFIX follows it).
# 3. the server on the GPU step (tests/serve_check.py, python3's standard
#    library; no browser there): http (token, paths, hostile requests),
#    viewers (several, a stalled one, none), interrupt (Ctrl-C, --save),
#    on step05_barneshut, N = 100,000.
# 4. the targets, step05, N = 1,048,576 Plummer, theta 0.5, 1280x720:
#    S1 frames/s delivered to one viewer on localhost (the client counts
#       them over 30 s; the server's own count is in the report lines)
#    S2 the step time with that viewer against the same program without
#       --serve (the marginal wall time a step, 300 steps)
# Exit 0 when 3 passes; the figures are in $OUT/serve_check.log.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
OUT=${OUT:-/tmp/gpu_serve}
mkdir -p "$OUT"
log=$OUT/serve_check.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }
fail=0
N=${N:-1048576}
PY=${PYTHON:-python3}

say "== gpu_serve_check $(date -u +%FT%TZ) on $(nvidia-smi -L 2>/dev/null | head -1)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$log"

# ---- 1. packages ------------------------------------------------------------------
. scripts/setup/carry_debs.sh
carry_gl serve >"$OUT/carry.txt" 2>&1; rc=$?
tee -a "$log" < "$OUT/carry.txt"; [ $rc = 0 ] || exit 2
ldconfig -p | grep -q 'libgnutls.so.30 ' && say "system has libgnutls.so.30" || say "MISSING libgnutls.so.30 (libmicrohttpd needs it)"

# ---- 2. build -----------------------------------------------------------------------------
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
say "== build (make ARCH=sm_90 GL_PREFIX=/tmp/gl/usr)"
if ! make -j"$(nproc)" ARCH=sm_90 GL_PREFIX=/tmp/gl/usr > "$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log" | tee -a "$log"; say "BUILD FAILED"; exit 3
fi
grep '^make: ' "$OUT/build.log" | tee -a "$log"
grep -qE 'the GL view .*is left out|--serve .*is left out' "$OUT/build.log" && { say "the GL view or --serve was left out: see above"; exit 3; }
ldd step05_barneshut/nbody | grep -E 'EGL|OpenGL|microhttpd|wslay|nettle|turbojpeg' | tee -a "$log"
P=step05_barneshut/nbody

# ---- 3. the server on the GPU step ------------------------------------------------------------
say "== 3. serve_check.py on $P (N = 100000)"
for c in http viewers interrupt; do
  if NB_SERVE_CHECK_TIMEOUT=300 "$PY" tests/serve_check.py $c $P -n 100000 -s 1000000 --view-size 640x480 \
       > "$OUT/$c.txt" 2>&1; then
    say "PASS serve_check $c"
  else
    say "FAIL serve_check $c"; grep -v '^ok: ' "$OUT/$c.txt" | tail -20 | tee -a "$log"; fail=1
  fi
done

# ---- 4. the targets ---------------------------------------------------------------------------
say "== 4. step05, N = $N Plummer, theta 0.5, 1280x720, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
now() { date +%s.%N; }
t0=$(now); "$P" -n "$N" -s 50 > "$OUT/plain50.txt" 2>&1; t1=$(now)
"$P" -n "$N" -s 350 > "$OUT/plain350.txt" 2>&1; t2=$(now)
plain_ms=$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN { printf "%.3f", ((c - b) - (b - a)) / 300 * 1e3 }')
say "plain: $plain_ms ms a step (300 more steps: 350 against 50, wall clock, the watchdog's downloads included)"
NB_SERVE_CHECK_TIMEOUT=300 "$PY" tests/serve_check.py measure 30 $P -n "$N" -s 1000000 --view-size 1280x720 \
  > "$OUT/measure.txt" 2>&1
grep -E 'measure:|view:|serve:|viewer [0-9]|renderer' "$OUT/measure.txt" | tee -a "$log"
fps=$(sed -n 's/.* = \([0-9.]*\) frames\/s.*/\1/p' "$OUT/measure.txt" | head -1)
sps=$(sed -n 's/.*, \([0-9.]*\) steps\/s .*/\1/p' "$OUT/measure.txt" | head -1)
awk -v f="${fps:-0}" 'BEGIN { printf "S1 frames delivered to one viewer on localhost: %.1f frames/s (target >= 30): %s\n",
                              f, (f >= 30 ? "MET" : "NOT MET") }' | tee -a "$log"
awk -v s="${sps:-0}" -v p="$plain_ms" 'BEGIN { if (s <= 0) { print "S2 no steps/s measured"; exit }
  m = 1e3 / s; printf "S2 step time with one viewer: %.3f ms against %.3f ms without --serve: +%.1f%% (target <= 10%%): %s\n",
  m, p, (m / p - 1) * 100, (m / p - 1) * 100 <= 10 ? "MET" : "NOT MET" }' | tee -a "$log"
say "== gpu_serve_check: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
