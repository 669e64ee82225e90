# scripts/setup/carry_debs.sh -- sourced by the GPU scripts (gpu_session.sh,
# gpu_view_check.sh, gpu_serve_check.sh, gpu_precision_check.sh,
# gpu_check_step06.sh): the Debian packages carried to a GPU host without
# network, unpacked where the build finds them.  Fill the folders on a
# Debian 12 machine with `apt-get download`:
#   .carry/debs   libcunit1 libcunit1-dev
#   .carry/gl     libglvnd0 libegl1 libopengl0 libgl1 libglx0 libegl-dev
#                 libgl-dev libopengl-dev libglx-dev libstb-dev
#   .carry/serve  libmicrohttpd12 libmicrohttpd-dev libwslay1 libwslay-dev
#                 libnettle8 nettle-dev libturbojpeg0 libturbojpeg0-dev
#
# carry_cunit       when CUnit's header is neither installed nor under
#                   $CUNIT_PREFIX: .carry/debs unpacked into /tmp/cu, and
#                   CUNIT_PREFIX=/tmp/cu/usr exported.  Returns 1 when there
#                   is no CUnit at all.
# carry_gl [serve]  .carry/gl (and .carry/serve) unpacked into /tmp/gl:
#                   headers and link names for GL_PREFIX=/tmp/gl/usr.  Each
#                   runtime library the system lacks is unpacked into / as
#                   well (then ldconfig); for one the system has, the build
#                   links against the system's copy: a carried older copy
#                   found first breaks the system's libraries built on the
#                   newer one (Ubuntu 24.04's gnutls needs nettle 3.9, the
#                   carried nettle is 3.8).  The NVIDIA driver's EGL vendor
#                   library is the system's.  Returns 1 when a folder is
#                   empty.
# Both print what they did on stdout, a line each.

carry_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

carry_cunit() {
  if [ -n "${CUNIT_PREFIX:-}" ] && [ -f "$CUNIT_PREFIX/include/CUnit/CUnit.h" ]; then
    echo "CUnit: CUNIT_PREFIX=$CUNIT_PREFIX"; return 0
  fi
  if echo '#include <CUnit/CUnit.h>' | gcc -E -x c - >/dev/null 2>&1; then
    echo "CUnit: the system's"; return 0
  fi
  if ! ls "$carry_top"/.carry/debs/*.deb >/dev/null 2>&1; then
    echo "CUnit: not installed and no .carry/debs/*.deb"; return 1
  fi
  mkdir -p /tmp/cu
  local f
  for f in "$carry_top"/.carry/debs/*.deb; do dpkg -x "$f" /tmp/cu || return 1; done
  export CUNIT_PREFIX=/tmp/cu/usr
  echo "CUnit: .carry/debs unpacked, CUNIT_PREFIX=$CUNIT_PREFIX"
}

carry_gl() {
  local dirs=(gl) d f pkg name lib deb sys
  [ "${1:-}" = serve ] && dirs+=(serve)
  for d in "${dirs[@]}"; do
    ls "$carry_top/.carry/$d"/*.deb >/dev/null 2>&1 ||
      { echo "no .carry/$d/*.deb: carry the packages named in scripts/setup/carry_debs.sh"; return 1; }
  done
  rm -rf /tmp/gl && mkdir -p /tmp/gl
  for d in "${dirs[@]}"; do
    for f in "$carry_top/.carry/$d"/*.deb; do dpkg -x "$f" /tmp/gl || return 1; done
  done
  local libdir=/tmp/gl/usr/lib/x86_64-linux-gnu
  for pkg in libglvnd0:libGLdispatch.so.0 libegl1:libEGL.so.1 libopengl0:libOpenGL.so.0 \
             libgl1:libGL.so.1 libglx0:libGLX.so.0 libmicrohttpd12:libmicrohttpd.so.12 \
             libwslay1:libwslay.so.1 libnettle8:libnettle.so.8 libturbojpeg0:libturbojpeg.so.0; do
    name=${pkg%%:*} lib=${pkg#*:}
    deb=""
    for d in "${dirs[@]}"; do
      for f in "$carry_top/.carry/$d/${name}"_*.deb; do [ -e "$f" ] && deb=$f; done
    done
    [ -n "$deb" ] || continue          # not carried: not wanted here
    if ldconfig -p | grep -q "$lib "; then
      sys=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
      if [ -e "$libdir/$lib" ] && [ -n "$sys" ]; then
        rm -f "$libdir/$lib" "$libdir/$lib".*
        ln -sf "$sys" "$libdir/${lib%%.so*}.so"
        echo "system has $lib: linking against it ($sys), not the carried one"
      else
        echo "system has $lib"
      fi
    else
      dpkg -x "$deb" / && echo "unpacked $name into / ($lib)"
    fi
  done
  ldconfig
}
