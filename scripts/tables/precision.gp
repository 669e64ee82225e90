# scripts/tables/precision.gp -- the precision figure of `make plots`, from
# table5_precision.csv (scripts/tables/precision_table.sh):
#   gnuplot -e "load 'vars.gp'; t5='...'; out='...'; fmt='png'; sub='...'" precision.gp
# vars.gp (written by scripts/tables/plots.sh) names the codes that have data
# (nc; code1.., their series ids; label1.., their names in words) and fits
# both panels' axes to the points (err_*, rate_*: x0 x1 y0 y1 and tic lists
# xt, yt).  Left: the p99 error of each code against N (Plummer: lines; the
# offset clusters: one open point each); right: its G interactions/s.
if (!exists("fmt")) fmt = "png"
if (!exists("nc")) nc = 0
if (!exists("has_clusters")) has_clusters = 0
if (fmt eq "svg") {
    set terminal svg size 1400,640 dynamic enhanced font "Helvetica,13" background "white"
} else {
    set terminal pngcairo size 1600,720 enhanced font "Helvetica,14" background "white"
}
set output out
set datafile separator ","
set datafile columnheaders
code(i) = value(sprintf("code%d", i))
label(i) = value(sprintf("label%d", i))
# one colour and point per code, the same in both panels: the GPU's lesson
# kernel purple, the tuned build's three precisions greens/blues, the CPU's
# three oranges/reds; dashed for the CPU
colour(i) = (code(i) eq "lesson") ? "#9467bd" : (code(i) eq "tsingle") ? "#2ca02c" : (code(i) eq "tmixed") ? "#17becf" : \
            (code(i) eq "tdouble") ? "#1f77b4" : (code(i) eq "csingle") ? "#ff7f0e" : (code(i) eq "cmixed") ? "#d62728" : \
            (code(i) eq "cdouble") ? "#8c564b" : "#7f7f7f"
dash(i) = (code(i)[1:1] eq "c") ? 2 : 1
ptype(i) = (code(i) eq "lesson") ? 9 : (code(i)[1:1] eq "t") ? 7 : 5
set multiplot layout 1,2 title "Precision — ".sub
set logscale xy
set grid xtics ytics lc rgb "#dddddd"
set key outside below left maxrows 4 samplen 3 spacing 1.1 font ",12"
set bmargin 8
set xlabel "N (bodies, log scale)" offset 0,0.5
if (exists("err_ok") && err_ok) {
    set xrange [err_x0:err_x1]; set yrange [err_y0:err_y1]
    eval("set xtics ".err_xt); eval("set ytics ".err_yt)
}
set title "p99 of |a − a_{ref}| / |a_{ref}|".(has_clusters ? " (open points: offset clusters)" : "")
set ylabel "p99 relative error (log scale)"
plot for [i = 1:nc] t5 using "n":((strcol("series") eq code(i) && strcol("ic") eq "plummer" && strcol("err_p99") ne "") ? column("err_p99") : NaN) \
         with linespoints lc rgb colour(i) dt dash(i) lw 2 pt ptype(i) ps 1.0 title label(i), \
     for [i = 1:nc] t5 using "n":((strcol("series") eq code(i) && strcol("ic") eq "clusters" && strcol("err_p99") ne "") ? column("err_p99") : NaN) \
         with points lc rgb colour(i) pt 6 ps 1.8 notitle
if (exists("rate_ok") && rate_ok) {
    set xrange [rate_x0:rate_x1]; set yrange [rate_y0:rate_y1]
    eval("set xtics ".rate_xt); eval("set ytics ".rate_yt)
}
set title "interactions per second (Plummer)"
set ylabel "10^9 interactions/s (log scale)"
plot for [i = 1:nc] t5 using "n":((strcol("series") eq code(i) && strcol("ic") eq "plummer" && strcol("ginter_per_s") ne "") ? column("ginter_per_s") : NaN) \
         with linespoints lc rgb colour(i) dt dash(i) lw 2 pt ptype(i) ps 1.0 title label(i)
unset multiplot
unset output
