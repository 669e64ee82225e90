#!/usr/bin/env bash
# scripts/ensure_deps.sh WHAT... -- make sure the Debian packages the kit needs
# are there: cunit (libcunit1-dev), png (libpng-dev), gnuplot (gnuplot-nox).
# Installs what is missing when it can (root, or sudo without a password);
# otherwise prints the exact command to run and exits 2.
# CUNIT_PREFIX=/path/usr counts as "CUnit is there" when its header exists.
set -euo pipefail
cc=${CC:-gcc}
missing=()
for what in "$@"; do
  case $what in
    cunit)
      if [ -n "${CUNIT_PREFIX:-}" ]; then
        [ -f "$CUNIT_PREFIX/include/CUnit/CUnit.h" ] && continue
        echo "ensure_deps: CUNIT_PREFIX=$CUNIT_PREFIX has no include/CUnit/CUnit.h" >&2; exit 2
      fi
      echo '#include <CUnit/CUnit.h>' | $cc -E -x c - >/dev/null 2>&1 || missing+=(libcunit1-dev) ;;
    png)
      echo '#include <png.h>' | $cc -E -x c - $(pkg-config --cflags libpng 2>/dev/null) >/dev/null 2>&1 \
        || missing+=(libpng-dev) ;;
    gnuplot)
      command -v gnuplot >/dev/null 2>&1 || missing+=(gnuplot-nox) ;;
    *) echo "ensure_deps: unknown dependency '$what'" >&2; exit 2 ;;
  esac
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"
else
  echo "missing ${missing[*]}: run  sudo apt-get install -y ${missing[*]}  (or, for CUnit without root: unpack the .deb and use make check-all CUNIT_PREFIX=DIR/usr)" >&2
  exit 2
fi
echo "ensure_deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq "${missing[@]}" >&2
