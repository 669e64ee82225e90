# scripts/tables/plots.gp -- the figures of `make plots`, drawn from the CSVs that
# `make tables` wrote.  Called by scripts/tables/plots.sh as
#   gnuplot -e "time_x0=...; ...; dir='...'; fmt='png'; gpu='...'; cpulabel='...'; sp='...'" scripts/tables/plots.gp
# and writes dir/time_vs_n.FMT, dir/speedup.FMT, dir/rate.FMT.  The axes fit
# the points drawn: FIG_x0, FIG_x1, FIG_y0, FIG_y1 and the tic lists FIG_xt,
# FIG_yt (FIG: time, speed, rate) come from plots.sh, which reads the same
# columns, as do the flags FIG_SERIES (1: the curve has data; 0: it is left
# out, key entry and all).

if (!exists("dir")) dir = "."
if (!exists("odir")) odir = dir   # where the figures go (plots.sh: a scratch folder beside dir, then renamed)
if (!exists("fmt")) fmt = "png"
if (!exists("gpu")) gpu = ""
if (!exists("cpulabel")) cpulabel = "CPU, all cores"

t1 = dir."/table1_cpu_vs_gpu.csv"
t2 = dir."/table2_float3_float4_shared.csv"
t3 = dir."/table3_barnes_hut.csv"
if (!exists("sp")) sp = dir."/speedup.csv"   # T(cpu1)/T(step) by N, made by plots.sh

if (fmt eq "svg") {
    set terminal svg size 960,780 dynamic enhanced font "Helvetica,14" background "white"
} else {
    set terminal pngcairo size 1200,960 enhanced font "Helvetica,16" background "white"
}

set datafile separator ","
set datafile columnheaders
set datafile commentschars "#"
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set grid xtics ytics mxtics mytics lc rgb "#dddddd" lw 1, lc rgb "#f0f0f0" lw 1
set border 3 lw 1.2
set tics nomirror out
set key outside below center horizontal maxrows 4 reverse Left samplen 2.5 spacing 1.2 width 2
set xlabel "N (bodies, log scale)"
set mxtics 10
set mytics 10

# One colour and point type per step, the same in every figure.
set style line 1 lc rgb "#7f7f7f" lw 2.5 pt 7  ps 1.3   # CPU 1 thread
set style line 2 lc rgb "#000000" lw 2.5 pt 5  ps 1.3   # CPU all cores
set style line 3 lc rgb "#d62728" lw 2.5 pt 9  ps 1.5   # step02 naive
set style line 4 lc rgb "#ff7f0e" lw 2.5 pt 11 ps 1.5   # step03 float4
set style line 5 lc rgb "#1f77b4" lw 2.5 pt 13 ps 1.5   # step04 shared
set style line 6 lc rgb "#2ca02c" lw 2.5 pt 6  ps 1.3 dt 2   # tree CPU
set style line 7 lc rgb "#9467bd" lw 2.5 pt 4  ps 1.3 dt 2   # tree GPU
set style line 8 lc rgb "#8c564b" lw 2   dt 3              # target line

sub = (gpu ne "") ? gpu : "no GPU"
if (!exists("tr")) tr = dir."/tuned_rate.csv"  # the tuned build's G inter/s by N, made by plots.sh

# Which curves have data (FIG_SERIES, from plots.sh): a curve without data is
# not plotted, so the key names only what is drawn.  Default: all.
do for [v in "time_cpu1 time_cpuall time_s02 time_s03 time_s04 time_ctree time_gtree speed_cpuall speed_s02 speed_s03 speed_s04 speed_ctree speed_gtree rate_s02 rate_s03 rate_s04 rate_s04t"] {
    if (!exists(v)) { eval(v." = 1") }
}
# The tics of the log axes (FIG_xt, FIG_yt: tic lists from plots.sh), else powers of 10.
do for [v in "time_xt time_yt speed_xt speed_yt rate_xt rate_yt"] {
    if (!exists(v)) { eval(v." = ''") }
}
axes(xt, yt) = sprintf("%s; %s", \
    (xt ne "") ? "set xtics ".xt : "set xtics autofreq; set format x '10^{%L}'", \
    (yt ne "") ? "set ytics ".yt : "set ytics autofreq; set format y '10^{%L}'")
# a plot command of the curves that have data: add(cmd, has, piece)
add(cmd, h, piece) = h ? ((cmd eq "") ? piece : cmd.", ".piece) : cmd

# 1. Time per step against N.
if (!exists("time_x0")) { time_x0 = 100; time_x1 = 1e7; time_y0 = 1e-3; time_y1 = 1e5 }
if (!exists("speed_x0")) { speed_x0 = 100; speed_x1 = 1e7; speed_y0 = 0.1; speed_y1 = 1e4 }
if (!exists("rate_x0")) { rate_x0 = 100; rate_x1 = 1e7; rate_y0 = 1; rate_y1 = 1e4 }

set output odir."/time_vs_n.".fmt
set xrange [time_x0:time_x1]
set yrange [time_y0:time_y1]
eval(axes(time_xt, time_yt))
set title "Time per step vs N — ".sub."\n{/*0.8 median ms per leapfrog step; all-pairs on cube ICs (tables 1–2), tree code on Plummer ICs, θ = 0.5 (table 3)}"
set ylabel "time per step (ms, log scale)"
p = ""
p = add(p, time_cpu1,   "t1 using 'n':'cpu1_ms' with linespoints ls 1 title 'CPU 1 thread (step01)'")
p = add(p, time_cpuall, "t1 using 'n':'cpuall_ms' with linespoints ls 2 title cpulabel.' (step01)'")
p = add(p, time_s02,    "t2 using 'n':'s02_ms' with linespoints ls 3 title 'naive GPU, float3 (step02)'")
p = add(p, time_s03,    "t2 using 'n':'s03_ms' with linespoints ls 4 title 'float4 GPU (step03)'")
p = add(p, time_s04,    "t2 using 'n':'s04_ms' with linespoints ls 5 title 'float4 + shared GPU (step04)'")
p = add(p, time_ctree,  "t3 using 'n':'bh_ctree_ms' with linespoints ls 6 title 'tree CPU, sequential (step05 --cpu)'")
p = add(p, time_gtree,  "t3 using 'n':'bh_gtree_ms' with linespoints ls 7 title 'tree GPU (step05)'")
if (p ne "") { eval("plot ".p) }
unset output

# 2. Speedup over the single-thread CPU all-pairs code at the same N.
set output odir."/speedup.".fmt
set xrange [speed_x0:speed_x1]
set yrange [speed_y0:speed_y1]
eval(axes(speed_xt, speed_yt))
set title "Speedup over the 1-thread CPU all-pairs code — ".sub."\n{/*0.8 T(step01, 1 thread) / T(step) at the same N; tree code against the same CPU code on Plummer ICs}"
set ylabel "speedup over step01 on 1 thread (×, log scale)"
p = ""
p = add(p, speed_cpuall, "sp using 'n':'cpuall' with linespoints ls 2 title cpulabel.' (step01)'")
p = add(p, speed_s02,    "sp using 'n':'s02' with linespoints ls 3 title 'naive GPU (step02)'")
p = add(p, speed_s03,    "sp using 'n':'s03' with linespoints ls 4 title 'float4 GPU (step03)'")
p = add(p, speed_s04,    "sp using 'n':'s04' with linespoints ls 5 title 'float4 + shared GPU (step04)'")
p = add(p, speed_ctree,  "t3 using 'n':'bh_cap_over_bh_ctree' with linespoints ls 6 title 'tree CPU (step05 --cpu)'")
p = add(p, speed_gtree,  "t3 using 'n':(column('bh_cap_ms') / column('bh_gtree_ms')) with linespoints ls 7 title 'tree GPU (step05)'")
p = p.", 1 with lines lc rgb '#999999' dt 2 notitle"
eval("plot ".p)
unset output

# 3. Interactions per second of the GPU all-pairs kernels (when measured):
# the lesson's steps 02-04 and step04's tuned build (nbody_tuned, handout 04's
# Going further), against the course's target.
if (!exists("hasgpu")) hasgpu = 1
if (!hasgpu) exit
set output odir."/rate.".fmt
set xrange [rate_x0:rate_x1]
# the target line (2000 G/s) stays in the picture
rate_y1 = (rate_y1 > 3200 ? rate_y1 : 3200)
set yrange [rate_y0:rate_y1]
eval(axes(rate_xt, rate_yt))
set title "Force-kernel throughput — ".sub."\n{/*0.8 body–body interactions per second (N² per step; 20 flops each for GFLOP/s)}"
set ylabel "body–body interactions per second (10^9/s, log scale)"
set style line 9 lc rgb "#17becf" lw 2.5 pt 15 ps 1.5   # step04 tuned build
p = ""
p = add(p, rate_s02,  "t2 using 'n':'s02_ginter_per_s' with linespoints ls 3 title 'naive GPU (step02)'")
p = add(p, rate_s03,  "t2 using 'n':'s03_ginter_per_s' with linespoints ls 4 title 'float4 GPU (step03)'")
p = add(p, rate_s04,  "t2 using 'n':'s04_ginter_per_s' with linespoints ls 5 title 'float4 + shared GPU (step04)'")
p = add(p, rate_s04t, "tr using 'n':'s04t_ginter_per_s' with linespoints ls 9 title 'step04 tuned build (nbody\\_tuned)'")
p = p.", 2000 with lines ls 8 title 'target: 2.0 T/s (step04, N = 1M)'"
eval("plot ".p)
unset output
