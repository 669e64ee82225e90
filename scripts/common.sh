# scripts/common.sh -- helpers shared by bench.sh, tables.sh and profile.sh
# (sourced, not run).  Running one configuration of a step, reading its CSV
# line by column name, formatting numbers, the progress line.
#
# Variables:
#   NB_BIN_DIR   where the step folders are (default: the repository root);
#                point it at a tree of fake programs to test the scripts.

NB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/sysinfo.sh
. "$NB_TOP/scripts/sysinfo.sh"

NB_BIN_DIR=${NB_BIN_DIR:-$NB_TOP}

# The program of a step (step02_naive -> $NB_BIN_DIR/step02_naive/nbody); a
# second program of a step is named with its folder: step04_shared/tuned/nbody_tuned.
nb_bin() { case $1 in */*) echo "$NB_BIN_DIR/$1" ;; *) echo "$NB_BIN_DIR/$1/nbody" ;; esac; }

# The mode of a file that `> FILE` makes (0666 less the umask), octal: for an
# output written to a temporary file of mktemp (0600, the scratch's mode) and
# renamed into place, which would otherwise be readable by its owner only.
nb_out_mode() { printf '%o' $((0666 & ~$(umask))); }

# A private scratch folder, removed on exit.
nb_init_tmp() {
    NB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/nbody-lab.XXXXXX")
    trap 'rm -rf "$NB_TMP"' EXIT
}

# Seconds since the epoch, with fractions.
nb_now() { date +%s.%N 2>/dev/null | sed 's/N$/0/'; }

# awk arithmetic on the shell's behalf: nb_calc 'expr' (prints the value).
nb_calc() { awk "BEGIN { x = $1; print x }"; }

# A CSV splitter for awk programs (quoted fields, "" escapes), for mawk too.
NB_AWK_CSV='
function csvsplit(s, a,    n, c, f, q, i, L) {
    n = 0; f = ""; q = 0; L = length(s)
    for (i = 1; i <= L; i++) {
        c = substr(s, i, 1)
        if (q) {
            if (c == "\"") { if (substr(s, i + 1, 1) == "\"") { f = f "\""; i++ } else q = 0 }
            else f = f c
        } else if (c == "\"") q = 1
        else if (c == ",") { a[++n] = f; f = "" }
        else if (c != "\r") f = f c
    }
    a[++n] = f
    return n
}
function csvq(s) { if (s ~ /[",\n]/) { gsub(/"/, "\"\"", s); return "\"" s "\"" } return s }
'

# Quote one value for a CSV field.
nb_csvq() { awk -v s="$1" "$NB_AWK_CSV"' BEGIN { printf "%s", csvq(s) }'; }

# Run one configuration: nb_run LIMIT_S PROGRAM ARGS...
# Sets NB_RC (exit status; 124 = killed at LIMIT_S: NB_ERR then says "timed
# out after LIMIT_S s"), NB_WALL (s), NB_HDR and
# NB_LINE (the program's CSV header and data line), NB_ERR (last stderr line).
nb_run() {
    local limit=$1; shift
    local t0 t1
    NB_HDR=""; NB_LINE=""; NB_ERR=""
    t0=$(nb_now)
    set +e
    timeout --kill-after=10 "$limit" "$@" >"$NB_TMP/out" 2>"$NB_TMP/err" </dev/null
    NB_RC=$?
    set -e
    t1=$(nb_now)
    NB_WALL=$(nb_calc "$t1 - $t0")
    NB_HDR=$(grep -m 1 '^step,' "$NB_TMP/out" || true)
    NB_LINE=$(grep -v '^step,' "$NB_TMP/out" | grep -m 1 ',' || true)
    NB_ERR=$(grep -v '^[[:space:]]*$' "$NB_TMP/err" | tail -n 1 | cut -c 1-300 || true)
    if [ "$NB_RC" -eq 0 ] && { [ -z "$NB_HDR" ] || [ -z "$NB_LINE" ]; }; then
        NB_RC=3
        NB_ERR="no CSV line on stdout (expected --bench --csv --csv-header output)"
    fi
    if [ "$NB_RC" -eq 124 ] || [ "$NB_RC" -eq 137 ]; then
        NB_ERR="timed out after ${limit} s"
    fi
    [ -n "$NB_ERR" ] || NB_ERR="exit status $NB_RC"
    return 0
}

# A field of the last run's CSV line by column name: nb_get step_ms_med
nb_get() {
    awk -v want="$1" -v hdr="$NB_HDR" -v line="$NB_LINE" "$NB_AWK_CSV"'
        BEGIN { nh = csvsplit(hdr, h); nl = csvsplit(line, v)
                for (i = 1; i <= nh; i++) if (h[i] == want) { print v[i]; exit } }'
}

# Numbers for tables: times in ms, rates, ratios (empty in, empty out).
nb_fmt() {
    awk -v x="$1" 'BEGIN {
        if (x == "" || x !~ /^[-+0-9.eE]+$/) { print x; exit }
        x = x + 0; a = (x < 0) ? -x : x
        if (a >= 1000) printf "%.0f\n", x
        else if (a >= 100) printf "%.1f\n", x
        else if (a >= 1) printf "%.2f\n", x
        else if (a == 0) print "0"
        else printf "%.3g\n", x
    }'
}

# Seconds as "1m05s".
nb_hms() {
    awk -v s="$1" 'BEGIN { s = int(s + 0.5); if (s >= 60) printf "%dm%02ds\n", s / 60, s % 60; else printf "%ds\n", s }'
}

# Seconds -> timeout limit for one run: generous, at least 60 s.
nb_limit() { awk -v p="$1" -v cap="${2:-600}" 'BEGIN { l = 60 + 4 * p; if (l > cap) l = cap; printf "%d\n", l }'; }

# The commit of this tree ("abc1234", "abc1234+dirty" with uncommitted
# changes; a student kit: the commit it was made from; else "unknown").
# NB_COMMIT, when set, is taken as it is: a copy of the tree whose .git lags
# its files (a GPU host that is sent the working tree) stamps the commit the
# sender names, not the stale one.
nb_commit() {
    local c
    if [ -n "${NB_COMMIT:-}" ]; then echo "$NB_COMMIT"; return; fi
    if c=$(git -C "$NB_TOP" rev-parse --short HEAD 2>/dev/null); then
        git -C "$NB_TOP" diff --quiet HEAD -- 2>/dev/null || c="$c+dirty"
        echo "$c"
    elif [ -r "$NB_TOP/.student_kit" ]; then
        echo "$(awk 'NR == 1 { print $5 }' "$NB_TOP/.student_kit") (student kit)"
    else
        echo unknown
    fi
}

# Where a result file comes from: nb_provenance DIR FILE COMMAND SPREAD [GPU [DRIVER]]
# puts FILE's row in DIR/provenance.tsv (file, command, commit, gpu, driver,
# date, spread), replacing an older row of FILE; the table is written to a
# temporary file beside it (mode 0666 less the umask) and renamed.  GPU: the device the programs
# reported (default: nvidia-smi's, "none" without one); DRIVER: its driver
# (default: nvidia-smi's).
nb_provenance() {
    local dir=$1 file=$2 cmd=$3 spread=$4 gpu=${5-} driver=${6-} tab=$'\t' tmp
    [ -n "$gpu" ] || gpu=$(nbs_gpu_name)
    if [ -z "$gpu" ] || [ "$gpu" = none ]; then gpu=none driver=${driver:-none}
    else driver=${driver:-$(nbs_driver_version)}; fi
    tmp=$(mktemp "$dir/.provenance.XXXXXX") || return 1
    {
        printf 'file\tcommand\tcommit\tgpu\tdriver\tdate\tspread\n'
        [ ! -r "$dir/provenance.tsv" ] || awk -F'\t' -v f="$file" 'NR > 1 && $1 != f' "$dir/provenance.tsv"
        printf '%s\n' "$file$tab$cmd$tab$(nb_commit)$tab$gpu$tab$driver$tab$(date -u '+%Y-%m-%d %H:%M UTC')$tab$spread" |
            tr -d '\r'
    } > "$tmp" && chmod "$(nb_out_mode)" "$tmp" && { sync "$tmp" 2>/dev/null; mv -f "$tmp" "$dir/provenance.tsv"; } ||
        { rm -f "$tmp"; return 1; }
}
