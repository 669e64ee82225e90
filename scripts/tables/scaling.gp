# scripts/tables/scaling.gp -- the scaling figure of table 4 (step06 on 1, 2, 4 GPUs),
# drawn from table4_multigpu.csv.  Called by scripts/tables/multigpu_tables.sh as
#   gnuplot -e "t4='DIR/table4_multigpu.csv'; out='DIR/scaling.FMT'; fmt='png'; sub='GPU'; maxp=4" scripts/tables/scaling.gp
# Speed-up against the GPUs: strong scaling at each N of the table
# (T(1) / T(P)), weak scaling (P T(1) / T(P), the work grows with P), and
# the ideal line; the tuned build's rows ("tuned strong", "tuned weak"), where
# the table has them (scripts/tables/multigpu_from_logs.sh).
if (!exists("fmt")) fmt = "png"
if (!exists("sub")) sub = ""
if (!exists("maxp")) maxp = 4
if (fmt eq "svg") {
    set terminal svg size 900,640 dynamic enhanced font "Helvetica,14" background "white"
} else {
    set terminal pngcairo size 1200,860 enhanced font "Helvetica,16" background "white"
}
set output out
set datafile separator ","
set datafile columnheaders
set title "step06: the tree code over P GPUs".(sub eq "" ? "" : "\n{/*0.8 ".sub.", up to ".maxp." of them}")
set xlabel "GPUs (P)"
set ylabel "speed-up"
set xrange [0.8:maxp * 1.1]
set yrange [0:maxp * 1.1]
set xtics 1
set grid xtics ytics lc rgb "#dddddd"
set key top left box opaque
ns = system("awk -F, 'NR > 1 && $1 == \"strong\" && !s[$2]++ { printf \"%s \", $2 }' '".t4."'")
ws = system("awk -F, 'NR > 1 && $1 == \"weak\" { printf \"weak\"; exit }' '".t4."'")
tws = system("awk -F, 'NR > 1 && $1 == \"tuned weak\" { printf \"tuned_weak\"; exit }' '".t4."'")
tns = system("awk -F, 'NR > 1 && $1 == \"tuned strong\" && !s[$2]++ { printf \"%s \", $2 }' '".t4."'")
if (tns eq "") tns = "0"
set style data linespoints
plot x title "ideal" lc rgb "#999999" dt 2 with lines, \
     for [n in ns] t4 using (strcol(1) eq "strong" && strcol(2) eq n ? $3 : NaN):6 \
         title sprintf("strong, N = %.0fM", real(n) / 1e6) lw 2 pt 7 ps 1.3, \
     t4 using (strcol(1) eq "weak" ? $3 : NaN):6 title (ws eq "" ? "" : "weak (the same N a GPU)") lw 2 pt 5 ps 1.3 lc rgb "#e07b00", \
     for [n in tns] t4 using (strcol(1) eq "tuned strong" && strcol(2) eq n ? $3 : NaN):6 \
         title (n eq "0" ? "" : sprintf("tuned build, strong, N = %.0fM", real(n) / 1e6)) lw 2 pt 9 ps 1.3 dt 4 lc rgb "#1f77b4", \
     t4 using (strcol(1) eq "tuned weak" ? $3 : NaN):6 title (tws eq "" ? "" : "tuned build, weak") lw 2 pt 11 ps 1.3 dt 4 lc rgb "#8a2be2"
