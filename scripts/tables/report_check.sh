#!/usr/bin/env bash
# scripts/tables/report_check.sh [PAGE] -- `make report-check`: open the report
# (default report/index.html, or REPORT) in a real headless browser,
# Debian's chromium, with the page's own check (#nb-check: every image
# decoded, every link pointing at a section of the page), and read the
# result from the DOM Chromium dumps after loading.  The page must also
# have as many <img> as its source holds and its six sections, and every
# table (table*.md) and figure (*.png) of its results folder (the folder the
# page names, or RESULTS_DIR) must be in the rendered page.
# REPORT_SCREENSHOT=FILE.png also saves a screenshot of the whole page.
# Chromium runs as root, sandbox off, no GPU, no network services, in a
# fresh profile directory that is removed afterwards.
# Exit 0 the page renders and nothing is broken; 1 something is broken;
# 2 no page or no chromium (`make report-check` installs it first).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
page=${1:-${REPORT:-$top/report/index.html}}
[ -r "$page" ] || { echo "report-check: no $page (run make report first)" >&2; exit 2; }
browser=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$browser" ] || { echo "report-check: chromium is not installed (scripts/setup/ensure_deps.sh chromium)" >&2; exit 2; }
page=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
prof=$(mktemp -d "${TMPDIR:-/tmp}/nb-chromium.XXXXXX")
trap 'rm -rf "$prof"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
       --disable-sync --no-first-run --user-data-dir="$prof/profile" --virtual-time-budget=10000)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page#nb-check" > "$prof/dom.html" 2> "$prof/err.log"
rc=$?
if [ -n "${REPORT_SCREENSHOT:-}" ]; then
  # a window about as tall as the page (its figures ~900 px, its frames
  # ~330 px a row of three, its table rows ~30 px), so that the screenshot
  # shows all of it and little else; at most 16000 px
  h=$(awk -v i="$(grep -o '<img ' "$page" | wc -l)" -v f="$(grep -o '<figure ' "$page" | wc -l)" \
      -v r="$(grep -o '<tr>' "$page" | wc -l)" \
      'BEGIN { h = 1200 + 900 * f + 330 * int((i - f + 2) / 3) + 30 * r; if (h > 16000) h = 16000; printf "%d", h }')
  timeout 120 "$browser" "${flags[@]}" --window-size=1200,"$h" --screenshot="$REPORT_SCREENSHOT" \
    "file://$page" > /dev/null 2>> "$prof/err.log" || echo "report-check: no screenshot" >&2
fi
result=$(grep -o 'nb-check: [^<]*' "$prof/dom.html" | head -1)
want=$(grep -o '<img ' "$page" | wc -l)
status=0
if [ $rc != 0 ] || [ -z "$result" ]; then
  echo "report-check: FAIL: chromium (exit $rc) gave no check result; its last messages:" >&2
  grep -v -i 'dbus' "$prof/err.log" | tail -5 >&2
  exit 1
fi
echo "report-check: $result"
case $result in *"none broken"*) ;; *) status=1 ;; esac
loaded=$(echo "$result" | sed -n 's/^nb-check: \([0-9]*\)\/\([0-9]*\) images.*/\1 \2/p')
read -r n_ok n_img <<<"$loaded"
[ "${n_img:-x}" = "$want" ] || { echo "report-check: FAIL: the page has $want <img>, the browser saw ${n_img:-?}" >&2; status=1; }
[ "${n_ok:-x}" = "$want" ] || status=1
for id in machine run tables plots frames provenance; do
  grep -q "id=\"$id\"" "$prof/dom.html" || { echo "report-check: FAIL: no section #$id in the rendered page" >&2; status=1; }
done
# every table and figure of the results folder is in the page
rel=$(grep -o '<code id="nb-results">[^<]*' "$prof/dom.html" | head -1 | sed 's/.*>//')
rdir=${RESULTS_DIR:-}
[ -n "$rdir" ] || { [ -n "$rel" ] && case $rel in /*) rdir=$rel ;; *) rdir=$top/$rel ;; esac; }
nshown=$(grep -c 'data-file="' "$prof/dom.html")
if [ -z "$rdir" ]; then
  echo "report-check: FAIL: the page names no results folder" >&2; status=1
elif [ ! -d "$rdir" ]; then
  # a machine that has not run make tables yet: the page must show nothing
  # from the folder and say so
  if [ "$nshown" = 0 ] && grep -q "No tables in <code>" "$prof/dom.html"; then
    echo "report-check: no results folder ${rel} here yet (make tables): the page shows none and says so"
  else
    echo "report-check: FAIL: the results folder ${rel} does not exist, yet the page shows $nshown of its files" >&2; status=1
  fi
else
  nfiles=0 missing=""
  for f in "$rdir"/table*.md "$rdir"/*.png; do
    [ -r "$f" ] || continue
    f=${f##*/}; nfiles=$((nfiles + 1))
    grep -qF "data-file=\"$f\"" "$prof/dom.html" || missing="$missing $f"
  done
  if [ -n "$missing" ]; then
    echo "report-check: FAIL: in ${rdir#"$top"/} but not in the page:$missing" >&2; status=1
  else
    echo "report-check: all $nfiles tables and figures of ${rdir#"$top"/} are in the page"
  fi
fi
[ $status = 0 ] && echo "report-check: ok: $page renders in $("$browser" --version 2>/dev/null | head -1)" ||
  echo "report-check: FAIL: $page" >&2
exit $status
