#!/usr/bin/env bash
# scripts/core_check.sh -- common/'s core kept small and untangled (the view
# is common/view/, not counted):
#  - the core, wc -l of common/*.c *.h *.cu, at most NB_CORE_MAX_LINES (4500);
#  - no function of the core longer than NB_CORE_MAX_FUNC (80) lines, from
#    the first line of its signature to its closing brace (the kit's style:
#    "{" and "}" of a function in column 0);
#  - no circle among common/'s files, view included: A -> B when A
#    #includes B or A's object uses a symbol B's object defines (nm on the
#    objects that `make -C common all` built; a stand-in not built here,
#    such as view/nb_view_none.c in a build with OpenGL, is left out).
# Prints what it finds; exit 1 on any excess or circle.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top/common"
max_lines=${NB_CORE_MAX_LINES:-4500}
max_func=${NB_CORE_MAX_FUNC:-80}
status=0
lines=$(cat ./*.c ./*.h ./*.cu | wc -l)
echo "core: $lines lines (at most $max_lines)"
[ "$lines" -le "$max_lines" ] || status=1
long=$(awk -v max="$max_func" '
  FNR == 1 { sig = 0; inside = 0 }
  !inside && /^[A-Za-z_].*\(/ && !/;[ \t]*$/ && !/^#/ { if (!sig) { sig = FNR; name = $0 } }
  !inside && /^\{/ && sig { inside = 1; start = sig; next }
  !inside && /^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ { inside = 1; start = FNR; name = $0; next }
  inside && /^\}/ { n = FNR - start + 1; sub(/\(.*/, "", name); k = split(name, w, /[ \t*]+/)
                    if (n > longest) { longest = n; where = FILENAME ":" start " " w[k] }
                    if (n > max) printf "  over: %s:%d: %s is %d lines\n", FILENAME, start, w[k], n
                    inside = 0; sig = 0 }
  !inside && /;[ \t]*$/ { sig = 0 }
  END { printf "longest function: %s, %d lines (at most %d)\n", where, longest, max }' ./*.c ./*.cu)
echo "$long"
! grep -q '^  ' <<<"$long" || status=1
objs=$(ls ./*.o view/*.o 2>/dev/null || true)
if [ -z "$objs" ]; then
  echo "circles: no objects (make -C common all first)"; status=1
else
  # shellcheck disable=SC2086
  python3 - $objs <<'PY' || status=1
import os, re, subprocess, sys, collections
files = {}
for d in ('.', 'view'):
    for f in os.listdir(d):
        if re.match(r'nb_.*\.(c|h|cu)$', f): files[f] = os.path.join(d, f)
g = collections.defaultdict(set)
for f, p in files.items():
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(p).read(), re.M):
        if inc in files and inc != f: g[f].add(inc)
def src(o):
    b = os.path.basename(o)[:-2]
    return next((b + e for e in ('.c', '.cu') if b + e in files), None)
def nm(*a):
    return subprocess.run(['nm'] + list(a), capture_output=True, text=True).stdout.splitlines()
defs = {}
for o in sys.argv[1:]:
    for l in nm('--defined-only', '-g', o):
        p = l.split()
        if len(p) == 3: defs.setdefault(p[2], src(o))
for o in sys.argv[1:]:
    for l in nm('-u', o):
        t = defs.get(l.split()[-1])
        if t and src(o) and t != src(o): g[src(o)].add(t)
# Tarjan's strongly connected components: a component of two or more is a circle
idx, low, st, on, circles = {}, {}, [], set(), []
def visit(v):
    idx[v] = low[v] = len(idx); st.append(v); on.add(v)
    for w in sorted(g[v]):
        if w not in idx: visit(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        if len(comp) > 1: circles.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted(files):
    if v not in idx: visit(v)
print('circles among %d files: %s' % (len(files), '; '.join(' '.join(c) for c in circles) or 'none'))
sys.exit(1 if circles else 0)
PY
fi
exit $status
