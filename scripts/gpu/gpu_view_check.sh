#!/usr/bin/env bash
# scripts/gpu/gpu_view_check.sh -- the GL view on a GPU server without a display
# or GL packages (an H100 host), in one go; logs under $OUT (default
# /tmp/gpu_view).
#
#   bash scripts/gpu/gpu_view_check.sh
#
# 1. GL: the glvnd runtime and headers and stb_easy_font.h, Debian 12
#    .debs carried in .carry/gl/, unpacked by carry_gl of
#    scripts/setup/carry_debs.sh (which names the packages).
# 2. build: make ARCH=sm_90 GL_PREFIX=/tmp/gl/usr (no GLFW: the view runs
#    headless, NB_VIEW_HEADLESS, the same loop and renderer as the window).
# 3. interop vs upload: --render frames of steps 02, 03, 04, 04 tuned and
#    05 (bodies and tree) drawn through CUDA-GL interop and through the
#    host (NB_GL_NO_INTEROP=1) must be the same files, and the reports must
#    say which path drew them; the tuned build in --precision double and
#    mixed (no float bodies on the device) draws through the host, --render
#    and the headless view, and says why.
# 4. compute-sanitizer memcheck on the interop path (frames with the tree,
#    and the headless view), 0 errors.
# 5. the benchmarks, N = 1,048,576 Plummer, step05, theta 0.5:
#    B1 the view's cost per step (headless 1920x1080 view vs no view)
#    B2 frames drawn per second at 1920x1080 (GL timer queries), interop,
#       and for comparison the host path and the bodies as point sprites
#       (NB_GL_SPRITES=1: through the rasterizer, not the compute shader)
#    B3 --render DIR --render-every 1 against no frames (wall clock)
#    B4 a frame with the tree overlay to depth 6 (and with the sprites)
#    B1 and B3 also as a slope (runs of two lengths: the cost per step
#    without the one-time start: context, renderer, first frame), with the
#    report's split of the frames' time ("view time", "frames time"), and
#    B2 at fewer bodies, fewer pixels and without a dense core (does a
#    draw's time follow the bodies, the pixels or the overlap?).
# 6. two frames for the handout (1M bodies, the tree to depth 6), PNG.
# Exit 0 when 3 and 4 pass; the figures are in $OUT/view_check.log.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
OUT=${OUT:-/tmp/gpu_view}
mkdir -p "$OUT"
log=$OUT/view_check.log
: > "$log"
say() { echo "$*" | tee -a "$log"; }
fail=0
N=${N:-1048576}

say "== gpu_view_check $(date -u +%FT%TZ) on $(nvidia-smi -L 2>/dev/null | head -1)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | tee -a "$log"

# ---- 1. GL packages ---------------------------------------------------------------
. scripts/setup/carry_debs.sh
carry_gl >"$OUT/carry.txt" 2>&1; rc=$?
tee -a "$log" < "$OUT/carry.txt"; [ $rc = 0 ] || exit 2
ls /usr/share/glvnd/egl_vendor.d/ 2>&1 | tee -a "$log"

# ---- 2. build -----------------------------------------------------------------------------
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
say "== build (make ARCH=sm_90 GL_PREFIX=/tmp/gl/usr)"
if ! make -j"$(nproc)" ARCH=sm_90 GL_PREFIX=/tmp/gl/usr > "$OUT/build.log" 2>&1; then
  tail -30 "$OUT/build.log" | tee -a "$log"; say "BUILD FAILED"; exit 3
fi
grep '^make: ' "$OUT/build.log" | tee -a "$log"
grep -q 'the GL view .* is left out' "$OUT/build.log" && { say "the GL view was left out: see above"; exit 3; }
ldd step05_barneshut/nbody | grep -E 'EGL|OpenGL|GLdispatch|glfw' | tee -a "$log"

# ---- 3. interop vs upload -------------------------------------------------------------
say "== 3. the same frames through CUDA-GL interop and through the host"
tmp=$(mktemp -d /tmp/gpuview.XXXXXX)
check_same() {   # program, extra options...
  local prog=$1; shift
  local name; name=$(echo "$prog" | tr '/' '_')
  rm -rf "$tmp/a" "$tmp/b"
  "$prog" -n 30011 --ic collision -s 4 --render "$tmp/a" --render-every 2 "$@" > "$tmp/a.txt" 2>&1
  local ra=$?
  NB_GL_NO_INTEROP=1 "$prog" -n 30011 --ic collision -s 4 --render "$tmp/b" --render-every 2 "$@" > "$tmp/b.txt" 2>&1
  local rb=$?
  local ia; ia=$(grep -c 'bodies CUDA-GL interop' "$tmp/a.txt")
  local ib; ib=$(grep -c 'uploaded from the host (NB_GL_NO_INTEROP is set)' "$tmp/b.txt")
  local same=1 k
  for k in 0 1 2; do cmp -s "$tmp/a/frame_00000$k.png" "$tmp/b/frame_00000$k.png" || same=0; done
  if [ $ra = 0 ] && [ $rb = 0 ] && [ "$ia" = 1 ] && [ "$ib" = 1 ] && [ $same = 1 ]; then
    say "PASS $prog $*: 3 frames, interop = upload byte for byte"
  else
    say "FAIL $prog $*: exit $ra/$rb, interop report $ia, upload report $ib, same frames $same"
    grep -E 'frames:|error' "$tmp/a.txt" "$tmp/b.txt" | tee -a "$log"; fail=1
  fi
}
check_same step02_naive/nbody
check_same step03_float4/nbody
check_same step04_shared/nbody
check_same step04_shared/tuned/nbody_tuned
# --precision double and mixed: the tuned build holds no float copy of its
# bodies on the device, so the view draws what download() gives -- the same
# frames as the host path, the report saying why, and the headless view too
check_wide() {   # precision
  local P=step04_shared/tuned/nbody_tuned why='keeps no float copy of its bodies on the device'
  rm -rf "$tmp/a" "$tmp/b"
  "$P" -n 30011 --ic collision -s 4 --precision "$1" --render "$tmp/a" --render-every 2 > "$tmp/a.txt" 2>&1
  local ra=$?
  NB_GL_NO_INTEROP=1 "$P" -n 30011 --ic collision -s 4 --precision "$1" --render "$tmp/b" --render-every 2 \
    > "$tmp/b.txt" 2>&1
  local rb=$?
  (cd "$tmp" && NB_VIEW_HEADLESS=256x256 NB_VIEW_EVENTS=". . q" "$top/$P" -n 4096 -s 100 --precision "$1" \
    --view > wide_view.txt 2>&1)
  local rv=$?
  local ia; ia=$(grep -c "uploaded from the host (the step $why)" "$tmp/a.txt")
  local iv; iv=$(grep -c "uploaded from the host (the step $why)" "$tmp/wide_view.txt")
  local same=1 k
  for k in 0 1 2; do cmp -s "$tmp/a/frame_00000$k.png" "$tmp/b/frame_00000$k.png" || same=0; done
  if [ $ra = 0 ] && [ $rb = 0 ] && [ $rv = 0 ] && [ "$ia" = 1 ] && [ "$iv" = 1 ] && [ $same = 1 ]; then
    say "PASS $P --precision $1: 3 frames and the view, downloaded (no float copy on the device)"
  else
    say "FAIL $P --precision $1: exit $ra/$rb/$rv (render, host, view), reports $ia/$iv, same frames $same"
    grep -E 'frames:|bodies|error' "$tmp/a.txt" "$tmp/wide_view.txt" | tee -a "$log"; fail=1
  fi
}
check_wide double
check_wide mixed
check_same step05_barneshut/nbody --render-tree
grep 'frames:' "$tmp/a.txt" | tee -a "$log"
# the view's screenshot through interop = --render's frame of the same step
( cd "$tmp" && rm -f nbody_step05_barneshut_000003.png &&
  NB_VIEW_HEADLESS=512x512 NB_VIEW_EVENTS="space . . . s q" "$top/step05_barneshut/nbody" -n 30011 \
    --ic collision -s 10 --view > view.txt 2>&1 &&
  rm -rf f && "$top/step05_barneshut/nbody" -n 30011 --ic collision -s 3 --render f --render-every 3 > r.txt 2>&1 &&
  cmp -s nbody_step05_barneshut_000003.png f/frame_000001.png ) \
  && say "PASS the view's screenshot (interop) = --render's frame of step 3" \
  || { say "FAIL the view's screenshot differs from --render's frame (or a run failed)"; cat "$tmp/view.txt" | tee -a "$log"; fail=1; }

# ---- 4. compute-sanitizer ------------------------------------------------------------------
say "== 4. compute-sanitizer memcheck, interop path"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
"$san" --tool memcheck --error-exitcode 9 step05_barneshut/nbody -n 20000 --ic collision -s 3 \
   --render "$tmp/s" --render-every 1 --render-tree > "$tmp/san1.txt" 2>&1
r1=$?
NB_VIEW_HEADLESS=640x480 NB_VIEW_EVENTS="t depth:4 wait:3 s c bench:3 q" \
  "$san" --tool memcheck --error-exitcode 9 step05_barneshut/nbody -n 20000 -s 5 --view > "$tmp/san2.txt" 2>&1
r2=$?
for f in san1 san2; do grep -E 'ERROR SUMMARY|bodies' "$tmp/$f.txt" | tee -a "$log"; done
if [ $r1 = 0 ] && [ $r2 = 0 ]; then say "PASS memcheck: frames and view through interop"
else say "FAIL memcheck: exit $r1 (frames), $r2 (view)"; tail -20 "$tmp/san1.txt" "$tmp/san2.txt" | tee -a "$log"; fail=1; fi

# ---- 5. benchmarks --------------------------------------------------------------------------
say "== 5. benchmarks, step05, N = $N Plummer, theta 0.5, $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
P=step05_barneshut/nbody
now() { date +%s.%N; }
"$P" -n "$N" -s 20 --bench --warmup 3 > "$tmp/bench.txt" 2>&1
grep -E 'step +median|force +median' "$tmp/bench.txt" | tee -a "$log"
step_ms=$(awk '/step +median/ { print $3 }' "$tmp/bench.txt")
S=100
t0=$(now); "$P" -n "$N" -s $S > "$tmp/plain.txt" 2>&1; t1=$(now)
NB_VIEW_HEADLESS=1920x1080 "$P" -n "$N" -s $S --view > "$tmp/view.txt" 2>&1; t2=$(now)
grep -E 'view:|renderer|view time' "$tmp/view.txt" | tee -a "$log"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v s=$S -v st="$step_ms" 'BEGIN {
  plain = b - a; view = c - b;
  printf "B1 view cost: %d steps in %.3f s without the view, %.3f s with it (1920x1080, headless): %.2f ms a step more, %.1f%% of the %.2f ms step (target <= 5%%)\n",
         s, plain, view, (view - plain) / s * 1e3, (view - plain) / s * 1e3 / st * 100, st }' | tee -a "$log"
L=$((3 * S))
t4=$(now); "$P" -n "$N" -s $L > "$tmp/plainL.txt" 2>&1; t5=$(now)
NB_VIEW_HEADLESS=1920x1080 "$P" -n "$N" -s $L --view > "$tmp/viewL.txt" 2>&1; t6=$(now)
grep -E 'view:|view time' "$tmp/viewL.txt" | sed "s/^/B1 $L steps: /" | tee -a "$log"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v p="$t4" -v q="$t5" -v r="$t6" -v s=$S -v l=$L -v st="$step_ms" 'BEGIN {
  ds = (c - b) - (b - a); dl = (r - q) - (q - p);          # the view'"'"'s extra seconds, S and L steps
  per = (dl - ds) / (l - s) * 1e3; once = ds * 1e3 - per * s;
  printf "B1 slope (%d and %d steps): a step %.2f ms without the view, %.2f ms with it: the view costs %.2f ms a step, %.1f%% of the %.2f ms step (target <= 5%%), plus %.0f ms once (start, first frame, end)\n",
         s, l, ((q - p) - (b - a)) / (l - s) * 1e3, ((r - q) - (c - b)) / (l - s) * 1e3, per, per / st * 100, st, once }' | tee -a "$log"
NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space bench:200 q" "$P" -n "$N" -s 1 --view > "$tmp/b2.txt" 2>&1
grep -E 'bench:|bodies' "$tmp/b2.txt" | sed 's/^/B2 interop: /' | tee -a "$log"
NB_GL_NO_INTEROP=1 NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space bench:50 q" "$P" -n "$N" -s 1 --view > "$tmp/b2h.txt" 2>&1
grep -E 'bench:|bodies' "$tmp/b2h.txt" | sed 's/^/B2 host path: /' | tee -a "$log"
# the same frames with the other form of the bodies' pass: point sprites through the rasterizer
NB_GL_SPRITES=1 NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space bench:200 q" "$P" -n "$N" -s 1 --view > "$tmp/b2p.txt" 2>&1
grep -E 'bench:|bodies' "$tmp/b2p.txt" | sed 's/^/B2 sprites: /' | tee -a "$log"
# what a draw's time follows: a quarter of the bodies, a ninth of the pixels, uniform bodies (no dense core)
NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space bench:200 q" "$P" -n $((N / 4)) -s 1 --view > "$tmp/b2q.txt" 2>&1
grep -E 'bench:' "$tmp/b2q.txt" | sed "s/^/B2 N = $((N / 4)): /" | tee -a "$log"
NB_VIEW_HEADLESS=640x360 NB_VIEW_EVENTS="space bench:200 q" "$P" -n "$N" -s 1 --view > "$tmp/b2s.txt" 2>&1
grep -E 'bench:' "$tmp/b2s.txt" | sed 's/^/B2 640x360: /' | tee -a "$log"
NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space bench:200 q" "$P" -n "$N" --ic cube -s 1 --view > "$tmp/b2c.txt" 2>&1
grep -E 'bench:' "$tmp/b2c.txt" | sed 's/^/B2 --ic cube: /' | tee -a "$log"
S=50
t0=$(now); "$P" -n "$N" -s $S > "$tmp/p3.txt" 2>&1; t1=$(now)
rm -rf "$tmp/r3"; "$P" -n "$N" -s $S --render "$tmp/r3" --render-every 1 > "$tmp/r3.txt" 2>&1; t2=$(now)
grep -E 'frames:|frames time' "$tmp/r3.txt" | tee -a "$log"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v s=$S 'BEGIN {
  printf "B3 --render-every 1 (512x512 frames): %d steps in %.3f s without frames, %.3f s with: +%.1f%% wall time (target <= 15%%)\n",
         s, b - a, c - b, ((c - b) / (b - a) - 1) * 100 }' | tee -a "$log"
L=$((3 * S))
t4=$(now); "$P" -n "$N" -s $L > "$tmp/p3L.txt" 2>&1; t5=$(now)
rm -rf "$tmp/r3"; "$P" -n "$N" -s $L --render "$tmp/r3" --render-every 1 > "$tmp/r3L.txt" 2>&1; t6=$(now)
grep -E 'frames:|frames time' "$tmp/r3L.txt" | sed "s/^/B3 $L steps: /" | tee -a "$log"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v p="$t4" -v q="$t5" -v r="$t6" -v s=$S -v l=$L 'BEGIN {
  ds = (c - b) - (b - a); dl = (r - q) - (q - p); step = ((q - p) - (b - a)) / (l - s) * 1e3;
  per = (dl - ds) / (l - s) * 1e3; once = ds * 1e3 - per * s;
  printf "B3 slope (%d and %d steps): a step %.2f ms without frames, a frame a step adds %.2f ms (+%.1f%%, target <= 15%%), plus %.0f ms once (start, first frame, the writer at the end)\n",
         s, l, step, per, per / step * 100, once }' | tee -a "$log"
NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space t depth:6 bench:50 q" "$P" -n "$N" -s 1 --view > "$tmp/b4.txt" 2>&1
grep -E 'bench:' "$tmp/b4.txt" | sed 's/^/B4 /' | tee -a "$log"
grep -E 'tree:' "$tmp/b4.txt" | sed 's/^/B4 /' | tee -a "$log"
NB_GL_SPRITES=1 NB_VIEW_HEADLESS=1920x1080 NB_VIEW_EVENTS="space t depth:6 bench:50 q" "$P" -n "$N" -s 1 --view > "$tmp/b4p.txt" 2>&1
grep -E 'bench:' "$tmp/b4p.txt" | sed 's/^/B4 sprites: /' | tee -a "$log"

# ---- 6. frames for the handout ---------------------------------------------------------
( cd "$OUT" && rm -f nbody_step05_barneshut_*.png &&
  NB_VIEW_HEADLESS=1024x768 NB_VIEW_EVENTS="wait:40 space s t depth:6 s q" "$top/$P" -n "$N" --ic collision \
     -s 1000 --view > "$tmp/shots.txt" 2>&1 ) && ls "$OUT"/nbody_*.png | tee -a "$log"
rm -rf "$tmp"
say "== gpu_view_check: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
