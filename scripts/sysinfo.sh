#!/usr/bin/env bash
# scripts/sysinfo.sh -- what machine a measurement ran on.
#
# Sourced by bench.sh, tables.sh, plots.sh and profile.sh for the nbs_*
# functions below; run on its own it prints the stamp:
#
#   scripts/sysinfo.sh          the stamp, one "key: value" per line
#   scripts/sysinfo.sh slug     the results folder name (h100, rtx-4090, cpu-only)
#
# Everything here is read-only and works without a GPU: a missing nvidia-smi,
# nvcc or lscpu gives "unknown" fields, never an error.
#
# Variables: SLUG (force the results folder name), CUDA_HOME (where nvcc is).

# The first GPU's name as nvidia-smi sees it ("" when there is none).
nbs_gpu_name() {
    command -v nvidia-smi >/dev/null 2>&1 || return 0
    nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/[[:space:]]*$//' || true
}

nbs_driver_version() {
    command -v nvidia-smi >/dev/null 2>&1 || { echo unknown; return 0; }
    local v
    v=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1) || true
    echo "${v:-unknown}"
}

# The CUDA version the driver supports (nvidia-smi's banner).
nbs_cuda_driver_version() {
    command -v nvidia-smi >/dev/null 2>&1 || { echo unknown; return 0; }
    local v
    v=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n 1) || true
    echo "${v:-unknown}"
}

# The CUDA toolkit the steps were compiled with (nvcc --version).
nbs_cuda_toolkit_version() {
    local nvcc v
    nvcc=$(command -v nvcc 2>/dev/null || true)
    [ -n "$nvcc" ] || nvcc="${CUDA_HOME:-/usr/local/cuda}/bin/nvcc"
    [ -x "$nvcc" ] || { echo unknown; return 0; }
    v=$("$nvcc" --version 2>/dev/null | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p' | head -n 1) || true
    echo "${v:-unknown}"
}

nbs_cpu_model() {
    local m=""
    if command -v lscpu >/dev/null 2>&1; then
        m=$(LC_ALL=C lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -n 1) || true
    fi
    if [ -z "$m" ] && [ -r /proc/cpuinfo ]; then
        m=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -n 1) || true
    fi
    echo "${m:-unknown CPU}"
}

# Logical CPUs this process may use (what "all cores" means for --threads).
nbs_cpu_threads() { nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1; }

# Physical cores (sockets x cores per socket), or the logical count.
nbs_cpu_cores() {
    local c=""
    if command -v lscpu >/dev/null 2>&1; then
        c=$(LC_ALL=C lscpu -p=core,socket 2>/dev/null | grep -v '^#' | sort -u | wc -l) || true
    fi
    [ -n "$c" ] && [ "$c" -gt 0 ] 2>/dev/null || c=$(nbs_cpu_threads)
    echo "$c"
}

# "NVIDIA H100 80GB HBM3" -> h100, "NVIDIA GeForce RTX 4090" -> rtx-4090,
# "NVIDIA A100-SXM4-80GB" -> a100, "" -> cpu-only.
nbs_slugify() {
    local name=$1
    [ -n "$name" ] || { echo cpu-only; return 0; }
    echo "$name" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' ' ' | awk '{
        out = ""
        for (i = 1; i <= NF; i++) {
            w = $i
            if (w ~ /^(nvidia|geforce|tesla|quadro|graphics|gpu|laptop)$/) continue
            if (w ~ /^[0-9]+gb$/ || w ~ /^hbm[0-9]*e?$/ || w ~ /^sxm[0-9]*$/ || w ~ /^pcie$/ || w ~ /^nvl$/ || w ~ /^mig$/) continue
            if (w ~ /^[0-9]+g$/ && i > 1) continue
            out = out (out == "" ? "" : "-") w
        }
        if (out == "") out = "gpu"
        print out
    }'
}

# The results folder name: $SLUG, else from the GPU name given (or nvidia-smi's).
nbs_slug() {
    if [ -n "${SLUG:-}" ]; then echo "$SLUG"; return 0; fi
    local name=${1-}
    [ -n "$name" ] || name=$(nbs_gpu_name)
    nbs_slugify "$name"
}

# The stamp as Markdown lines.  $1: the GPU name the programs reported ("" =
# none), $2: why there is none (optional), $3: the command that regenerates.
nbs_stamp_md() {
    local gpu=${1-} why=${2-} cmd=${3-}
    local threads cores
    threads=$(nbs_cpu_threads); cores=$(nbs_cpu_cores)
    if [ -n "$gpu" ]; then
        echo "- GPU: $gpu; driver $(nbs_driver_version); CUDA $(nbs_cuda_driver_version) (driver), toolkit $(nbs_cuda_toolkit_version) (nvcc)"
    else
        echo "- GPU: none${why:+ ($why)}; CUDA toolkit $(nbs_cuda_toolkit_version) (nvcc)"
    fi
    echo "- CPU: $(nbs_cpu_model); $cores cores, $threads logical CPUs"
    echo "- Host: $(uname -sr 2>/dev/null || echo unknown); date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    [ -z "$cmd" ] || echo "- Regenerate: \`$cmd\`"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    case ${1-} in
        slug) nbs_slug ;;
        "")
            echo "gpu: $(nbs_gpu_name)"
            echo "driver: $(nbs_driver_version)"
            echo "cuda_driver: $(nbs_cuda_driver_version)"
            echo "cuda_toolkit: $(nbs_cuda_toolkit_version)"
            echo "cpu: $(nbs_cpu_model)"
            echo "cpu_cores: $(nbs_cpu_cores)"
            echo "cpu_threads: $(nbs_cpu_threads)"
            echo "slug: $(nbs_slug)"
            echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
            ;;
        *) echo "usage: scripts/sysinfo.sh [slug]" >&2; exit 2 ;;
    esac
fi
