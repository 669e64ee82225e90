# scripts/grade/solution_regions.awk -- the one parser of the solution markers in
# the step sources, used by `make student-kit` (scripts/grade/student_kit.sh) and
# `make diff` (scripts/setup/diff_step.sh).
#
#   awk -v mode=kit  -f solution_regions.awk FILE   the student's file: each
#                                                   region becomes its TODO
#                                                   comment and its blank
#   awk -v mode=keep -f solution_regions.awk FILE   the solution alone: marker
#                                                   lines and hints dropped
#   awk -v mode=fill -v filled=1,3 -f solution_regions.awk FILE
#                                                   the kit with the regions
#                                                   numbered in 'filled' (1 is
#                                                   the first of the file; ""
#                                                   none) filled in: those as
#                                                   mode=keep writes them, the
#                                                   others as mode=kit does (a
#                                                   student half-way through;
#                                                   tests/student_path_test.sh)
#
# A region, each marker on lines of its own (indentation free):
#
#     /* BEGIN SOLUTION
#      * The hint: what to write, wrapped at 100 columns, as many lines as
#      * needed; see handouts/NN_x.md.
#      */
#     /* BLANK: a line of code of the blank */        (zero or more)
#     ... the solution ...
#     /* END SOLUTION */
#
# A short hint may sit on the BEGIN line: `/* BEGIN SOLUTION: the hint */`.
# In the kit the hint becomes `/* TODO: the hint ... */` followed by the BLANK
# lines as code, and the TODO says how many placeholder lines to delete.  A
# blank is written so that the kit builds without warnings and the program
# exits with NB_EXIT_TODO (4).  BLANK text must not hold "*/".
#
# Malformed markers (nesting, END without BEGIN, a region left open, BLANK
# not right after the hint, a marker word on a line that is not a marker)
# print FILE:LINE: why on stderr and exit 2, so a typo never ships a
# solution.  The number of regions is printed on file descriptor 3.
function fail(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg > "/dev/stderr"; bad = 1; exit 2 }
function region_mode() { if (mode == "fill") { rmode = (regions in want) ? "keep" : "kit"; used[regions] = 1 } }
function indent(s) { match(s, /^[ \t]*/); return substr(s, 1, RLENGTH) }
function flush_todo(   k, s) {
  # the TODO comment of the region, then its blank lines
  if (rmode != "kit") return
  for (k = 1; k <= nhint; k++) {
    s = (k == 1 ? ind "/* TODO: " : ind " * ") hint[k]
    if (k == nhint && nblank == 0) s = s " */"
    print s
  }
  if (nblank > 0) {
    print ind " * Write it here; then delete the " (nblank == 1 ? "placeholder line" : nblank " placeholder lines") " below. */"
    for (k = 1; k <= nblank; k++) print blank[k]
  }
}
BEGIN {
  if (mode != "kit" && mode != "keep" && mode != "fill") {
    print "solution_regions.awk: mode=kit, mode=keep or mode=fill" > "/dev/stderr"; bad = 1; exit 2 }
  nfill = split(filled, fl, ",")
  for (k = 1; k <= nfill; k++) {
    if (fl[k] !~ /^[1-9][0-9]*$/) { print "solution_regions.awk: filled=" filled ": region numbers (1, 2, ...) separated by commas" > "/dev/stderr"; bad = 1; exit 2 }
    want[fl[k] + 0] = 1
  }
  rmode = mode                # the current region's: kit or keep (fill: one or the other)
  state = 0; regions = 0      # 0 outside, 1 in the hint block, 2 in the blanks, 3 in the solution
}
{
  line = $0
  if (state == 1) {                                   # hint block lines
    if (line ~ /BEGIN SOLUTION|END SOLUTION|BLANK:/) fail("marker inside the hint block opened at line " start)
    t = line; closing = (t ~ /\*\/[ \t]*$/)
    sub(/^[ \t]*\*?[ \t]?/, "", t); sub(/[ \t]*\*\/[ \t]*$/, "", t); sub(/^\/[ \t]*$/, "", t)
    if (t != "" && t !~ /^\*\/?$/) hint[++nhint] = t
    if (closing) state = 2
    next
  }
  if (line ~ /^[ \t]*\/\* BEGIN SOLUTION: .*\*\/[ \t]*$/) {
    if (state) fail("BEGIN SOLUTION inside a region opened at line " start)
    state = 2; start = FNR; regions++; ind = indent(line); nhint = 0; nblank = 0; region_mode()
    t = line; sub(/^[ \t]*\/\* BEGIN SOLUTION: */, "", t); sub(/[ \t]*\*\/[ \t]*$/, "", t)
    hint[++nhint] = t
    next
  }
  if (line ~ /^[ \t]*\/\* BEGIN SOLUTION[ \t]*$/) {
    if (state) fail("BEGIN SOLUTION inside a region opened at line " start)
    state = 1; start = FNR; regions++; ind = indent(line); nhint = 0; nblank = 0; region_mode()
    next
  }
  if (line ~ /^[ \t]*\/\* BLANK: .*\*\/[ \t]*$/) {
    if (state == 0) fail("BLANK outside a solution region")
    if (state != 2) fail("BLANK lines must come right after the hint of BEGIN SOLUTION")
    code = line; sub(/^[ \t]*\/\* BLANK: /, "", code); sub(/ *\*\/[ \t]*$/, "", code)
    if (code ~ /\*\//) fail("BLANK text holds */")
    blank[++nblank] = indent(line) code
    next
  }
  if (line ~ /^[ \t]*\/\* END SOLUTION \*\/[ \t]*$/) {
    if (state == 0) fail("END SOLUTION without BEGIN SOLUTION")
    if (state == 2) flush_todo()
    state = 0; next
  }
  if (line ~ /BEGIN SOLUTION|END SOLUTION|\/\* BLANK:/) fail("malformed solution marker (a marker is a line of its own)")
  if (state == 2) { flush_todo(); state = 3 }
  if (state == 0 || rmode == "keep") print line
}
END {
  if (bad) exit 2
  if (state) { printf "%s:%d: region opened here is never closed (END SOLUTION)\n", FILENAME, start > "/dev/stderr"; exit 2 }
  for (k in want) if (!(k in used)) { printf "%s: filled=%s: there is no region %d (%d regions)\n", FILENAME, filled, k, regions > "/dev/stderr"; exit 2 }
  printf "%d\n", regions > "/dev/fd/3"
}
