# scripts/tables/drift.gp -- the figure of `make drift` (scripts/tables/drift.sh):
#   gnuplot -e "sep='...'; en='...'; out='...'; fmt='png'; pairs='a/b ...'; variants='...'; sub='...'" drift.gp
# Left: the rms separation of each pair of variants against t (log scale:
# pairs that kept the same bits have no curve); right: |E(t) - E0| / |E0| of
# each variant.
if (!exists("fmt")) fmt = "png"
if (fmt eq "svg") {
    set terminal svg size 1400,620 dynamic enhanced font "Helvetica,13" background "white"
} else {
    set terminal pngcairo size 1600,700 enhanced font "Helvetica,14" background "white"
}
set output out
set datafile separator ","
set datafile columnheaders
set multiplot layout 1,2 title "Last-bit drift — ".sub
set logscale y
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd"
set key outside below center maxrows 3 samplen 2 spacing 1.1 font ",11"
set bmargin 9
set xlabel "t (N-body units)" offset 0,0.5

set title "rms |x_a − x_b| between variants"
set ylabel "rms separation (log)"
plot for [p in pairs] sep using "t":(strcol("pair") eq p ? column("rms") : NaN) with linespoints lw 2 pt 7 ps 0.6 title p

set title "energy error of each variant"
set ylabel "|E(t) − E_0| / |E_0| (log)"
plot for [v in variants] en using "t":(strcol("variant") eq v && column("relative_energy_change") != 0 ? abs(column("relative_energy_change")) : NaN) with linespoints lw 2 pt 6 ps 0.6 title v
unset multiplot
unset output
