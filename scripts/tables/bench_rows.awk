# scripts/tables/bench_rows.awk -- table 4's rows from step06 bench output
# (scripts/tables/multigpu_tables.sh, scripts/tables/multigpu_from_logs.sh):
# each run is a line "$ COMMAND", the program's --bench output with its
# per-GPU phases, and (in a log) "exit N".  One CSV row a run in table 4's
# columns, speed-up and efficiency left empty (the callers know the base):
# its scaling -v scaling (strong, weak), "tuned " before it where the
# program is a tuned build and " θ T" after it where the command sets
# --theta; N from -n, P from --gpus or -np (1 without); each phase the
# slowest GPU's, the walk's fastest beside it.
function flush(   p) {
  if (cmd == "" || step == "" || ngpu == 0) { cmd = ""; return }
  p = gpus ? gpus : 1
  printf "%s,%s,%s,%.4g,%.4g,,,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%s,\"%s\",%s,\"%s\"\n",
         label, n, p, step, force, GX, BU, WMAX, GA, IT, WMIN, WMAX, rate, d, nccl, cmd
  cmd = ""
}
/^\$ / { flush(); cmd = substr($0, 3)
         n = ""; gpus = 0; step = force = rate = d = nccl = ""; ngpu = 0; GX = BU = GA = IT = WMAX = 0; WMIN = ""
         k = split(cmd, w, " "); theta = ""
         for (i = 1; i < k; i++) {
           if (w[i] == "-n") n = w[i + 1]
           if (w[i] == "--gpus" || w[i] == "-np") gpus = w[i + 1]
           if (w[i] == "--theta") theta = w[i + 1]
         }
         label = (cmd ~ /tuned/ ? "tuned " : "") scaling (theta != "" ? " θ " theta : "")
         next }
cmd == "" { next }
/^  device / { d = $0; sub(/^  device /, "", d); sub(/ \(.*/, "", d) }
/^    step   median/ { step = $3 }
/^    force  median/ { force = $3 }
/^    rate / { for (i = 1; i <= NF; i++) if ($i == "G") rate = $(i - 1) }
/^    GPUs:/ { for (i = 1; i <= NF; i++) if ($i == "NCCL") { nccl = $(i + 1); sub(/,$/, "", nccl) } }
/^      GPU [0-9]+:/ {
  gx = $5; bu = $7; wa = $9; ga = $12; it = $14; ngpu++
  if (gx > GX) GX = gx; if (bu > BU) BU = bu; if (ga > GA) GA = ga; if (it > IT) IT = it
  if (wa > WMAX) WMAX = wa; if (WMIN == "" || wa < WMIN) WMIN = wa
}
/^exit / { flush() }
END { flush() }
