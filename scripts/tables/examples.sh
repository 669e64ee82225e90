#!/usr/bin/env bash
# scripts/tables/examples.sh -- `make examples`: capture again the example outputs of
# handouts/results/examples/ that show the tests and the refusals (the ones
# the handouts and the instructor's guide quote), so that no quoted count
# goes stale: each file starts with the date, the machine, the commit and
# the exact command, and ends with the exit status.
#
#   step01_check.txt                make -C step01_cpu check
#   student_kit_step01_check.txt    the blank kit's step01 check
#   check-all.txt, summary.json     make check-all (its grade; summary.json whole)
#   step01_bad_option.txt           step01_cpu/nbody --theta 0.5
#   step02_no_gpu.txt               step02_naive/nbody -n 4096 (on a machine without a GPU)
#   step01_precision_n4096.txt      step01 --precision single, double, mixed: -n 4096 -s 3 --check --bench
#   step01_clusters_s1.txt          the offset clusters after one step, single and mixed
# The timing examples (step01_n4096.txt, ...) are measurements, captured by hand
# with the commands in handouts/results/examples/README.md.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ex=$top/handouts/results/examples
cd "$top"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
git diff --quiet HEAD 2>/dev/null || commit="$commit + working tree"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
where="on $(hostname -s 2>/dev/null || echo this machine) (${gpu:-no GPU})"
stamp() { printf '# %s %s, tree at %s\n' "$(date -u +%Y-%m-%d)" "$where" "$commit"; }
# capture FILE FILTER COMMAND...: the header, "$ COMMAND", its output through FILTER, [exit N]
capture() {
  local file=$1 filter=$2; shift 2
  local tmp rc=0
  tmp=$(mktemp)
  (eval "$*") > "$tmp" 2>&1 || rc=$?
  { stamp; printf '$ %s\n' "$*"; eval "$filter" < "$tmp"; printf '[exit %d]\n' "$rc"; } > "$ex/$file.tmp"
  mv "$ex/$file.tmp" "$ex/$file"
  rm -f "$tmp"
  echo "examples: $file (exit $rc)"
}
make --no-print-directory all > /dev/null
capture step01_check.txt "grep -v '^make\|^  built'" make --no-print-directory -C step01_cpu check
capture step01_bad_option.txt cat step01_cpu/nbody --theta 0.5
capture step01_precision_n4096.txt cat \
  'for p in single double mixed; do step01_cpu/precision/nbody -n 4096 -s 3 --check --bench --precision $p; done'
capture step01_clusters_s1.txt cat \
  'for p in single mixed; do step01_cpu/precision/nbody -n 3000 --ic clusters -s 1 --check --precision $p; done' 
[ -z "$gpu" ] && capture step02_no_gpu.txt cat step02_naive/nbody -n 4096
# the figures the documents quote from the files just captured, brought up to
# date first: the grade below checks them (its docs suite)
bash scripts/tables/doc_counts.sh > /dev/null 2>&1 || true
capture check-all.txt "sed -n '/^== grade ==/,\$p'" make --no-print-directory check-all
cp tests/results/summary.json "$ex/summary.json" && echo "examples: summary.json"
kit=$(mktemp -d)
bash scripts/grade/student_kit.sh "$kit/kit" > /dev/null &&
  make --no-print-directory -C "$kit/kit" all > /dev/null 2>&1
capture student_kit_step01_check.txt "grep -v '^make\|^  built'" \
  make --no-print-directory -C "$kit/kit" -C step01_cpu check
sed -i "s|$kit/kit|KIT|g" "$ex/student_kit_step01_check.txt"      # the kit's temporary place
rm -rf "$kit"
