#!/usr/bin/env bash
# scripts/tables/report.sh -- `make report`: one self-contained HTML page that a
# student can hand in and an instructor can compare across machines:
#
#   - the machine (GPU, driver, CUDA, CPU, host) and the commit of the tree;
#   - `make run` on this machine: every program it can run, N = 4096, ms per
#     step and the --check result (REPORT_RUN=0 leaves it out);
#   - the tables, plots and provenance of one results folder,
#     handouts/results/<slug>/ (SLUG, default this machine's; RESULTS_DIR the
#     folder itself): this machine's after `make tables` and `make plots`;
#     every table*.md and every *.png of the folder is in the page (make
#     report-check checks that against the folder);
#   - frames of a short run drawn now (step01, a collision of two Plummer
#     spheres), or those of REPORT_FRAMES=DIR (frame_*.png, at most 8).
#
# Every image is embedded (data: URIs) and the only links are to the page's
# own sections, so the one file is the whole report.  A small script in the
# page checks it when opened with #nb-check (scripts/tables/report_check.sh does,
# in headless Chromium); without that it does nothing.
# Output: REPORT (default report/index.html), written to a temporary file
# beside it and renamed, mode 0666 less the umask (as `> FILE` would make it).  Exit 0 written, 2 bad usage, 3 it could not be
# written.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
cd "$NB_TOP"
nb_init_tmp
OUTFILE=${REPORT:-$NB_TOP/report/index.html}
SLUG_NAME=$(nbs_slug "")
RDIR=${RESULTS_DIR:-$NB_TOP/handouts/results/$SLUG_NAME}
RNAME=${RDIR#"$NB_TOP"/}

esc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
img() {   # img FILE ALT: an <img> with the file inside
    local mime=image/png
    case $1 in *.svg) mime=image/svg+xml ;; esac
    printf '<img alt="%s" src="data:%s;base64,' "$(printf '%s' "$2" | esc)" "$mime"
    base64 -w0 "$1"
    printf '">\n'
}
# Markdown as the kit's tables write it (headings, tables, lists,
# paragraphs, `code`, **bold**; a link becomes its text and target) -> HTML
md() {
    awk '
    function inline(s) {
        gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
        while (match(s, /\[[^]]*\]\([^)]*\)/)) {
            t = substr(s, RSTART + 1, RLENGTH - 2); p = index(t, "](")
            s = substr(s, 1, RSTART - 1) substr(t, 1, p - 1) " (" substr(t, p + 2) ")" substr(s, RSTART + RLENGTH)
        }
        while (match(s, /`[^`]*`/)) s = substr(s, 1, RSTART - 1) "<code>" substr(s, RSTART + 1, RLENGTH - 2) "</code>" substr(s, RSTART + RLENGTH)
        while (match(s, /\*\*[^*]*\*\*/)) s = substr(s, 1, RSTART - 1) "<b>" substr(s, RSTART + 2, RLENGTH - 4) "</b>" substr(s, RSTART + RLENGTH)
        return s
    }
    function close_all() {
        if (intab) print "</table>"; if (inlist) print "</ul>"; if (inpara) print "</p>"
        intab = inlist = inpara = 0
    }
    /^#+ / { close_all(); n = index($0, " "); lv = n + 2; if (lv > 6) lv = 6
             printf "<h%d>%s</h%d>\n", lv, inline(substr($0, n + 1)), lv; next }
    /^\|/ {
        if (inlist || inpara) { t = intab; close_all(); intab = t }
        if ($0 ~ /^\|[-: |]+\|$/) next
        line = $0; sub(/^\| */, "", line); sub(/ *\|$/, "", line)
        nc = split(line, c, / *\| */); tag = intab ? "td" : "th"
        if (!intab) print "<table>"; intab = 1
        printf "<tr>"; for (i = 1; i <= nc; i++) printf "<%s>%s</%s>", tag, inline(c[i]), tag; print "</tr>"
        next
    }
    /^- / { if (intab || inpara) close_all(); if (!inlist) print "<ul>"; inlist = 1
            print "<li>" inline(substr($0, 3)) "</li>"; next }
    /^[ \t]*$/ { close_all(); next }
    { if (intab || inlist) close_all(); if (!inpara) print "<p>"; inpara = 1; print inline($0) }
    END { close_all() }' "$@"
}
tsv() {   # a TSV file with a header line -> an HTML table
    awk -F'\t' '
    function h(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
    { tag = NR == 1 ? "th" : "td"; printf "<tr>"; for (i = 1; i <= NF; i++) printf "<%s>%s</%s>", tag, h($i), tag; print "</tr>" }
    BEGIN { print "<table>" } END { print "</table>" }' "$1"
}

# --- the parts ----------------------------------------------------------------
COMMIT=$(nb_commit)
NOW=$(date -u '+%Y-%m-%d %H:%M UTC')
echo "report: the machine, $RNAME, frames" >&2
nbs_stamp_md "$(nbs_gpu_name)" "" "" > "$NB_TMP/machine.md"
if [ "${REPORT_RUN:-1}" != 0 ]; then
    echo "report: make run's programs at N = 4096 (REPORT_RUN=0 leaves this out)" >&2
    progs=()
    for d in step0*_*/; do
        d=${d%/}; [ -x "$d/nbody" ] || continue
        progs+=("$d")
        [ "$d" != step04_shared ] || progs+=(step04_shared/tuned/nbody_tuned)
        [ "$d" != step05_barneshut ] || progs+=(step05_barneshut:--cpu)
    done
    bash scripts/setup/run.sh "${progs[@]}" > "$NB_TMP/run.txt" 2>&1 || true
    awk '/^\| program/ { t = 1 } t && /^\|/ { print } t && !/^\|/ && NF { exit }' "$NB_TMP/run.txt" > "$NB_TMP/run.md"
    grep '^skipped' "$NB_TMP/run.txt" | sed 's/^/- /' >> "$NB_TMP/run.md" || true
fi
frames=()
if [ -n "${REPORT_FRAMES:-}" ]; then
    [ -d "$REPORT_FRAMES" ] || { echo "report: REPORT_FRAMES=$REPORT_FRAMES is not a directory" >&2; exit 2; }
    fdir=$REPORT_FRAMES fwhat="frames of $REPORT_FRAMES"
else
    fdir=$NB_TMP/frames fwhat="step01_cpu/nbody --ic collision -n 1000 -s 400 --dt 0.01 --render DIR --render-every 100 --render-size 320, drawn for this report"
    if [ -x step01_cpu/nbody ]; then
        step01_cpu/nbody --ic collision -n 1000 -s 400 --dt 0.01 --render "$fdir" --render-every 100 --render-size 320 > /dev/null 2>&1 ||
            echo "report: step01_cpu could not draw frames; the report has none" >&2
    fi
fi
while IFS= read -r f; do frames+=("$f"); done < <(ls "$fdir"/frame_*.png 2>/dev/null | head -8)

# --- the page -------------------------------------------------------------------
mkdir -p "$(dirname "$OUTFILE")"
tmp=$(mktemp "$(dirname "$OUTFILE")/.report.XXXXXX")
trap 'rm -rf "$NB_TMP" "$tmp"' EXIT
{
cat <<HEAD
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>nbody-lab report: $(printf '%s' "$SLUG_NAME" | esc), $COMMIT</title>
<style>
body { font-family: sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; }
td:first-child, th:first-child { text-align: left; }
code { background: #f4f4f4; padding: 0 2px; }
img { max-width: 100%; border: 1px solid #ddd; margin: 4px; }
.frames img { width: 300px; }
nav a { margin-right: 1em; }
</style></head><body>
<h1>nbody-lab report</h1>
<p>Commit <code>$COMMIT</code>, made $NOW by <code>make report</code>
(results folder <code id="nb-results">$(printf '%s' "$RNAME" | esc)</code>).</p>
<nav><a href="#machine">machine</a><a href="#run">make run</a><a href="#tables">tables</a><a href="#plots">plots</a><a href="#frames">frames</a><a href="#provenance">provenance</a></nav>
<h2 id="machine">The machine this page was made on</h2>
HEAD
md "$NB_TMP/machine.md"
echo '<h2 id="run">make run on this machine</h2>'
if [ -s "$NB_TMP/run.md" ]; then md "$NB_TMP/run.md"; else echo "<p>Not run (REPORT_RUN=0).</p>"; fi
echo '<h2 id="tables">Tables</h2>'
# Every table of the folder (table*.md: make tables' 1-3 and 5, the multi-GPU
# table 4, any other), the course's order first; every figure (*.png: make
# plots', make drift's, the scaling figure), likewise.  Each carries its file
# name (data-file), which report_check.sh compares with the folder.
in_order() {  # in_order GLOB NAME...: the folder's files matching GLOB, NAMEs first
    local g=$1 f n; shift
    for n in "$@"; do [ -r "$RDIR/$n" ] && echo "$n"; done
    for f in "$RDIR"/$g; do
        [ -r "$f" ] || continue
        f=${f##*/}
        case " $* " in *" $f "*) ;; *) echo "$f" ;; esac
    done
    return 0
}
nt=0
while IFS= read -r t; do
    [ -n "$t" ] || continue
    printf '<section class="table" data-file="%s">\n' "$(printf '%s' "$t" | esc)"
    md "$RDIR/$t"; echo "</section>"; nt=$((nt + 1))
done < <(in_order 'table*.md' table1_cpu_vs_gpu.md table2_float3_float4_shared.md table3_barnes_hut.md \
         table3_tuned_tree.md table4_multigpu.md table5_precision.md table5_energy.md)
[ $nt -gt 0 ] || echo "<p>No tables in <code>$(printf '%s' "$RNAME" | esc)</code> yet: run <code>make tables</code> (and <code>make plots</code>), then <code>make report</code> again.</p>"
echo '<h2 id="plots">Plots</h2>'
np=0
while IFS= read -r p; do
    [ -n "$p" ] || continue
    printf '<figure data-file="%s">' "$(printf '%s' "$p" | esc)"
    img "$RDIR/$p" "$p"
    printf '<figcaption><code>%s</code></figcaption></figure>\n' "$(printf '%s' "$p" | esc)"
    np=$((np + 1))
done < <(in_order '*.png' time_vs_n.png speedup.png rate.png precision.png drift.png scaling.png)
[ $np -gt 0 ] || echo "<p>No plots in <code>$(printf '%s' "$RNAME" | esc)</code> yet: run <code>make plots</code>.</p>"
echo '<h2 id="frames">Frames</h2>'
if [ ${#frames[@]} -gt 0 ]; then
    echo "<p><code>$(printf '%s' "$fwhat" | esc)</code></p><div class=\"frames\">"
    for f in "${frames[@]}"; do img "$f" "$(basename "$f")"; done
    echo "</div>"
else
    echo "<p>No frames (step01_cpu is not built).</p>"
fi
echo '<h2 id="provenance">Provenance of the results folder</h2>'
if [ -r "$RDIR/provenance.tsv" ]; then tsv "$RDIR/provenance.tsv"
else echo "<p>No <code>provenance.tsv</code> in <code>$(printf '%s' "$RNAME" | esc)</code>.</p>"; fi
cat <<'CHECK'
<pre id="nb-check"></pre>
<script>
/* Opened with #nb-check (scripts/tables/report_check.sh), the page checks itself
   after loading: every image decoded, every link pointing at a section of
   this page; the result is written into #nb-check. */
window.addEventListener('load', function () {
  if (location.hash !== '#nb-check') return;
  var bad = [], imgs = document.images, links = document.links, ok = 0;
  for (var i = 0; i < imgs.length; i++)
    if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; else bad.push('image ' + imgs[i].alt);
  for (var j = 0; j < links.length; j++) {
    var h = links[j].getAttribute('href') || '';
    if (h.charAt(0) !== '#' || !document.getElementById(h.slice(1))) bad.push('link ' + h);
  }
  document.getElementById('nb-check').textContent = 'nb-check: ' + ok + '/' + imgs.length +
    ' images loaded, ' + links.length + ' links, ' + (bad.length ? 'BROKEN: ' + bad.join(', ') : 'none broken');
});
</script>
</body></html>
CHECK
} > "$tmp"
chmod "$(nb_out_mode)" "$tmp"     # (mktemp's 0600 would keep the page from everyone else)
sync "$tmp" 2>/dev/null || true
mv -f "$tmp" "$OUTFILE" || { echo "report: cannot write $OUTFILE" >&2; exit 3; }
echo "report: wrote $OUTFILE ($(du -k "$OUTFILE" | cut -f1) KiB: $nt tables, $np plots, ${#frames[@]} frames); check it with make report-check" >&2
