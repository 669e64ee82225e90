#!/usr/bin/env bash
# scripts/setup/ensure_deps.sh WHAT... -- make sure the Debian packages the kit needs
# are there, installing what is missing when it can (root, or sudo without a
# password); otherwise it prints the exact command to run and exits 2.
#
# What is missing is installed group by group (one apt-get install a WHAT
# below), so that a package another distribution names differently (Debian's
# chromium is Ubuntu's chromium-browser) fails its own group only: the
# others are installed all the same.  A group that fails is named, with the
# command for the distributions that name its packages differently
# (alt_cmds below), and the script exits 1 at the end.
#
#   WHAT       packages              needed by
#   png        libpng-dev pkg-config  every build (frames, --render)
#   cunit      libcunit1-dev          the tests (make check-all, make -C stepNN check)
#   grade      python3                the grade's reports (make check-all, make grade-class)
#   tsan       (see TSAN_PKGS below)  the tests' race checks (the suite "races": clang,
#                                     ThreadSanitizer, LLVM's OpenMP and Archer; common/tsan.mk)
#   gnuplot    gnuplot-nox            make plots
#   ffmpeg     ffmpeg                 make movie
#   chromium   chromium               make report-check (headless browser)
#   view       (the view's GL packages: see VIEW_PKGS below)
#   serve      (--serve, the view in a browser: see SERVE_PKGS below)
#   all        every one of the above: `make setup`, the README's set-up
#
#   scripts/setup/ensure_deps.sh --list WHAT...   print the packages, one a line
#
# CUNIT_PREFIX=/path/usr counts as "CUnit is there" when its header exists.
# Exit: 0 everything there, 1 a group could not be installed (the others
# were), 2 bad usage or missing packages and no right to install them.
# .ci/run installs the same packages; tests/suite_docs.c checks that the
# README's set-up and .ci/run name every package of `--list all`.
set -euo pipefail
cc=${CC:-gcc}
# The view's GL packages: GLFW, EGL/OpenGL (glvnd), Mesa's llvmpipe for EGL and
# GLX, stb_easy_font.h, and Xvfb, which the view tests start for themselves.
VIEW_PKGS=(libglfw3-dev libegl-dev libopengl-dev libgl-dev libegl-mesa0 libglx-mesa0 libgl1-mesa-dri libstb-dev xvfb)
# --serve: HTTP (libmicrohttpd), WebSocket frames (wslay), the handshake's
# SHA-1 (nettle), JPEG (libjpeg-turbo), and python3 for its tests
# (tests/serve_check.py drives chromium, above, and raw WebSocket clients).
SERVE_PKGS=(libmicrohttpd-dev libwslay-dev nettle-dev libturbojpeg0-dev python3)
# The race checks of the tests (common/tsan.mk): clang, its ThreadSanitizer
# runtime, LLVM's OpenMP runtime with its TSan tool Archer (libarcher.so),
# and llvm-symbolizer (the reports' file:line).  Bookworm's clang is clang-14.
TSAN_PKGS=(clang libclang-rt-14-dev libomp-14-dev llvm-14)
ALL=(png cunit grade tsan gnuplot ffmpeg chromium view serve)

pkgs_of() {
  case $1 in
    png) echo libpng-dev pkg-config ;;
    cunit) echo libcunit1-dev ;;
    grade) echo python3 ;;
    tsan) echo "${TSAN_PKGS[@]}" ;;
    gnuplot) echo gnuplot-nox ;;
    ffmpeg) echo ffmpeg ;;
    chromium) echo chromium ;;
    view) echo "${VIEW_PKGS[@]}" ;;
    serve) echo "${SERVE_PKGS[@]}" ;;
    *) echo "ensure_deps: unknown dependency '$1' (one of: ${ALL[*]} all)" >&2; return 2 ;;
  esac
}
# present WHAT: 0 when what WHAT stands for is usable here
present() {
  case $1 in
    cunit)
      if [ -n "${CUNIT_PREFIX:-}" ]; then
        [ -f "$CUNIT_PREFIX/include/CUnit/CUnit.h" ] && return 0
        echo "ensure_deps: CUNIT_PREFIX=$CUNIT_PREFIX has no include/CUnit/CUnit.h" >&2; exit 2
      fi
      echo '#include <CUnit/CUnit.h>' | $cc -E -x c - >/dev/null 2>&1 ;;
    png)
      command -v pkg-config >/dev/null 2>&1 &&
        echo '#include <png.h>' | $cc -E -x c - $(pkg-config --cflags libpng 2>/dev/null) >/dev/null 2>&1 ;;
    grade) command -v python3 >/dev/null 2>&1 ;;
    gnuplot) command -v gnuplot >/dev/null 2>&1 ;;
    ffmpeg) command -v ffmpeg >/dev/null 2>&1 ;;
    chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
    *) local p; for p in $(pkgs_of "$1"); do dpkg -s "$p" >/dev/null 2>&1 || return 1; done ;;
  esac
}

# The commands of the distributions that name a group's packages otherwise
# than Debian 12 (whose names pkgs_of gives): one "DISTRIBUTION: COMMAND" a
# line, printed when the group fails.
alt_cmds() {
  case $1 in
    chromium) echo "Ubuntu: sudo apt-get install -y chromium-browser"
              echo "Fedora: sudo dnf install -y chromium" ;;
    tsan) echo "Ubuntu 22.04: sudo apt-get install -y clang-14 libomp-14-dev llvm-14 (ThreadSanitizer's runtime comes with clang-14)" ;;
    png) echo "Fedora: sudo dnf install -y libpng-devel pkgconf-pkg-config" ;;
    cunit) echo "Fedora: sudo dnf install -y CUnit-devel" ;;
    gnuplot) echo "Fedora: sudo dnf install -y gnuplot" ;;
  esac
}

list=0
[ "${1:-}" != --list ] || { list=1; shift; }
whats=()
for w in "$@"; do
  if [ "$w" = all ]; then whats+=("${ALL[@]}"); else pkgs_of "$w" >/dev/null || exit 2; whats+=("$w"); fi
done
if [ $list = 1 ]; then
  for w in "${whats[@]}"; do for p in $(pkgs_of "$w"); do echo "$p"; done; done | awk '!seen[$0]++'
  exit 0
fi
missing=() groups=()
for w in "${whats[@]}"; do
  present "$w" && continue
  [[ " ${groups[*]} " == *" $w "* ]] && continue
  groups+=("$w")
  for p in $(pkgs_of "$w"); do missing+=("$p"); done
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo"
else
  echo "missing ${missing[*]}: run  sudo apt-get install -y ${missing[*]}  (or, for CUnit without root: unpack the .deb and use make check-all CUNIT_PREFIX=DIR/usr)" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2 || echo "ensure_deps: apt-get update failed; installing from the package lists there are" >&2
failed=()
for w in "${groups[@]}"; do
  read -r -a pk <<< "$(pkgs_of "$w")"
  echo "ensure_deps: installing $w: ${pk[*]}" >&2
  if ! $sudo apt-get install -y -qq "${pk[@]}" >&2; then
    failed+=("$w")
    echo "ensure_deps: the group '$w' was not installed (apt-get install ${pk[*]} failed; the other groups go on)" >&2
    alt_cmds "$w" | sed 's/^/ensure_deps:   on /' >&2
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "ensure_deps: not installed: ${failed[*]} (of ${groups[*]}); see above for the command on other distributions" >&2
  exit 1
fi
