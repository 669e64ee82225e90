# scripts/tables/precision.gp -- the precision figure of `make plots`, from
# table5_precision.csv (scripts/tables/precision_table.sh):
#   gnuplot -e "t5='...'; out='...'; fmt='png'; codes='lesson tsingle ...'; sub='...'" precision.gp
# Left: the p99 error of each code against N (Plummer: lines; the offset
# clusters: one open point each); right: its G interactions/s.
if (!exists("fmt")) fmt = "png"
if (fmt eq "svg") {
    set terminal svg size 1400,620 dynamic enhanced font "Helvetica,13" background "white"
} else {
    set terminal pngcairo size 1600,700 enhanced font "Helvetica,14" background "white"
}
set output out
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2 title "Precision — ".sub
set logscale xy
set format x "10^{%L}"
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd"
set key outside below left maxrows 4 samplen 2 spacing 1.1 font ",11"
set bmargin 8
set xlabel "N (bodies)" offset 0,0.5
set title "p99 of |a − a_{ref}| / |a_{ref}| (open points: offset clusters)"
set ylabel "p99 relative error (log)"
nc = words(codes)
plot for [i = 1:nc] t5 using "n":((strcol("series") eq word(codes, i) && strcol("ic") eq "plummer" && strcol("err_p99") ne "") ? column("err_p99") : NaN) with linespoints lt i lw 2 pt 7 ps 0.8 title word(codes, i), \
     for [i = 1:nc] t5 using "n":((strcol("series") eq word(codes, i) && strcol("ic") eq "clusters" && strcol("err_p99") ne "") ? column("err_p99") : NaN) with points lt i pt 6 ps 1.6 notitle
set title "interactions per second (Plummer)"
set ylabel "G interactions/s (log)"
set format y "%g"
plot for [i = 1:nc] t5 using "n":((strcol("series") eq word(codes, i) && strcol("ic") eq "plummer" && strcol("ginter_per_s") ne "") ? column("ginter_per_s") : NaN) with linespoints lt i lw 2 pt 7 ps 0.8 title word(codes, i)
unset multiplot
unset output
