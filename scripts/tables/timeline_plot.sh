#!/usr/bin/env bash
# scripts/tables/timeline_plot.sh LOG OUT [RUN] -- draw the timeline that
# step06's tuned build prints with --bench ("timeline of the last timed
# step, GPU r ...": each part's walk on the default stream and its
# all-gather on NCCL's stream, NB_TUNE=parts=K) as a picture, OUT ending in
# .png or .svg (gnuplot).  LOG is a --bench output, or a log of several
# runs, each after its "$ command" line (the kit's GPU logs): RUN (1, 2, ...)
# picks the RUN-th run that printed a timeline, the last one by default.
# Every GPU of the run is a row with two lanes (walk, exchange).  Under
# mpirun each rank prints its own GPU: give the ranks' outputs in one LOG.
#
#   scripts/tables/timeline_plot.sh handouts/results/h200x2/logs/parts_bench_20m_p1.txt /tmp/t.png 3
#
# Exit 0: OUT written (through a temporary file, then renamed); 2: bad
# arguments, LOG unreadable or no such timeline in it, no gnuplot; 3:
# gnuplot failed.
set -uo pipefail
die() { echo "timeline_plot: $2" >&2; exit "$1"; }
[ $# -ge 2 ] && [ $# -le 3 ] || die 2 "usage: timeline_plot.sh LOG OUT.png|OUT.svg [RUN]"
log=$1 out=$2 run=${3:-0}
case $run in ''|*[!0-9]*) die 2 "RUN must be a run's number (1, 2, ...), not '$run'" ;; esac
case $out in *.png) fmt=png ;; *.svg) fmt=svg ;; *) die 2 "OUT must end in .png or .svg: $out" ;; esac
[ -f "$log" ] && [ -r "$log" ] || die 2 "cannot read $log"
gp=${GNUPLOT:-gnuplot}
command -v "$gp" >/dev/null 2>&1 || die 2 "gnuplot is not installed (sudo apt-get install -y gnuplot-nox)"

tmp=$(mktemp -d) || die 2 "no temporary directory"
trap 'rm -rf "$tmp"' EXIT
# the runs that printed a timeline: run k's lines as "gpu lane start end part"
awk -v want="$run" -v dat="$tmp/t.dat" -v title="$tmp/title" '
  /^\$ / { cmd = substr($0, 3); have = 0; next }
  /timeline of the last timed step, GPU [0-9]+ / {
    if (!have) { k++; have = 1; delete rows; nrows = 0; cmds[k] = cmd }
    g = $0; sub(/.*timeline of the last timed step, GPU /, "", g); sub(/ .*/, "", g)
    s = $0; sub(/^[^)]*\): */, "", s)
    n = split(s, f, " ")
    for (i = 1; i + 2 <= n; i += 3) {
      lane = f[i] ~ /^walk/ ? 1 : 0
      part = f[i]; sub(/^[a-z]+/, "", part)
      rows[++nrows] = g " " lane " " f[i + 1] " " f[i + 2] " " part
    }
    for (r = 1; r <= nrows; r++) saved[k, r] = rows[r]
    count[k] = nrows
  }
  END {
    if (k == 0) exit 3
    pick = want > 0 ? want : k
    if (pick > k) exit 4
    for (r = 1; r <= count[pick]; r++) print saved[pick, r] > dat
    print cmds[pick] > title
  }' "$log"
case $? in
  0) ;;
  3) die 2 "no timeline in $log (step06_multigpu/tuned/nbody_tuned --bench prints one)" ;;
  4) die 2 "$log has fewer than $run runs with a timeline" ;;
  *) die 2 "cannot read the timeline in $log" ;;
esac
[ -s "$tmp/t.dat" ] || die 2 "the timeline in $log has no parts"
cmd=$(cat "$tmp/title")
gpus=$(awk '{ if ($1 + 1 > m) m = $1 + 1 } END { print m }' "$tmp/t.dat")
q() { printf '%s' "$1" | sed "s/'/''/g"; }       # a gnuplot single-quoted string
cat > "$tmp/t.gp" <<'GP'
if (fmt eq "svg") {
    set terminal svg size 1000,(220 + 110 * gpus) dynamic enhanced font "Helvetica,13" background "white"
} else {
    set terminal pngcairo size 1300,(260 + 140 * gpus) enhanced font "Helvetica,15" background "white"
}
set output out
set title "step06 tuned: the last timed step, each part's walk and its all-gather\n".cmd noenhanced
set xlabel "ms from the step's start (CUDA events)"
set yrange [-0.6:2 * gpus - 0.4]
set ytics ()
do for [g = 0:gpus - 1] {
    set ytics add (sprintf("GPU %d exchange", g) 2 * g, sprintf("GPU %d walk", g) 2 * g + 1)
}
set grid xtics lc rgb "#dddddd"
set key outside bottom center horizontal
set style fill solid 0.85 border lc rgb "#333333"
# a box per part: x from start to end, y the GPU's lane; the part's number inside
plot dat using (($3 + $4) / 2):(2 * $1 + $2):(($4 - $3) / 2):(0.32):($2 == 1 ? 1 : 2) \
         with boxxyerror lc variable notitle, \
     dat using (($3 + $4) / 2):(2 * $1 + $2):5 with labels tc rgb "#000000" notitle, \
     NaN with boxes lc 1 title "walk and pack of a part (default stream)", \
     NaN with boxes lc 2 title "its all-gather (NCCL's stream, from when it may begin)"
GP
"$gp" -e "dat='$(q "$tmp/t.dat")'; out='$(q "$tmp/out.$fmt")'; fmt='$fmt'; cmd='$(q "${cmd:-$log}")'; gpus=$gpus" \
  "$tmp/t.gp" || die 3 "gnuplot failed"
mv -f "$tmp/out.$fmt" "$out" || die 2 "cannot write $out"
echo "timeline_plot: wrote $out ($gpus GPU$([ "$gpus" = 1 ] || echo s), $(wc -l < "$tmp/t.dat") boxes)" >&2
