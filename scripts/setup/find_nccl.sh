#!/bin/sh
# scripts/setup/find_nccl.sh -- where NCCL is (common/nccl.mk calls it; step06_multigpu).
# Prints one line "INCDIR LIBDIR LIBFLAG" (LIBFLAG: -lnccl, or -l:libnccl.so.2
# where the library has no unversioned name) and exits 0, or prints where it
# looked on stderr and exits 1.  It looks, in this order, in:
#   NCCL_HOME (when set: there only)   include/nccl.h, lib64/ or lib/
#   CUDA_HOME (default /usr/local/cuda) include/nccl.h, lib64/
#   /usr/include + /usr/lib/x86_64-linux-gnu (Debian's libnccl-dev)
#   a Python install's nvidia.nccl package (pip install nvidia-nccl-cu12)
#     include/nccl.h, lib/libnccl.so.2
# Nothing is created in the tree: a library named libnccl.so.2 only is linked
# by its full name (-l:libnccl.so.2).
set -u
looked=""
try() {   # try INCDIR LIBDIR...
  inc=$1; shift
  for lib in "$@"; do
    looked="$looked $inc+$lib"
    [ -f "$inc/nccl.h" ] || continue
    if [ -e "$lib/libnccl.so" ]; then echo "$inc $lib -lnccl"; exit 0; fi
    if [ -e "$lib/libnccl.so.2" ]; then echo "$inc $lib -l:libnccl.so.2"; exit 0; fi
  done
}
if [ -n "${NCCL_HOME:-}" ]; then
  try "$NCCL_HOME/include" "$NCCL_HOME/lib64" "$NCCL_HOME/lib"
  echo "NCCL_HOME=$NCCL_HOME has no include/nccl.h with lib64/ or lib/libnccl.so*" >&2
  exit 1
fi
cuda=${CUDA_HOME:-}
if [ -z "$cuda" ]; then
  nvcc=$(command -v nvcc 2>/dev/null || true)
  if [ -n "$nvcc" ]; then cuda=$(dirname "$(dirname "$nvcc")"); else cuda=/usr/local/cuda; fi
fi
try "$cuda/include" "$cuda/lib64"
try /usr/include /usr/lib/x86_64-linux-gnu
py=$(python3 -c 'import os, nvidia.nccl as m
f = getattr(m, "__file__", None)
print(os.path.dirname(f) if f else list(m.__path__)[0])' 2>/dev/null || true)
if [ -n "$py" ]; then try "$py/include" "$py/lib"; else looked="$looked python3:nvidia.nccl(absent)"; fi
echo "no nccl.h with libnccl.so* in:$looked (set NCCL_HOME=DIR)" >&2
exit 1
