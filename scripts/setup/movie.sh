#!/usr/bin/env bash
# scripts/setup/movie.sh -- assemble the PNG frames of a run into an MP4 with ffmpeg.
#
#   scripts/setup/movie.sh DIR [OUT.mp4]
#
# DIR holds frame_000000.png, frame_000001.png, ... as written by
# `nbody --render DIR`; OUT defaults to DIR/movie.mp4.  H.264, 25 frames/s,
# yuv420p so that every player shows it.  FPS=... in the environment changes
# the frame rate.
#
# Exit codes as for the programs: 0 ok, 2 bad usage / no frames / no ffmpeg
# (one line on stderr saying what to do), 3 ffmpeg failed.
set -u

prog=$(basename "$0")
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
    echo "usage: $prog DIR [OUT.mp4]   (DIR holds frame_NNNNNN.png from --render DIR)" >&2
    exit 2
fi
dir=${1%/}
out=${2:-$dir/movie.mp4}
fps=${FPS:-25}

if [ ! -d "$dir" ]; then
    echo "$prog: $dir is not a directory (run nbody with --render $dir first)" >&2
    exit 2
fi
if [ ! -e "$dir/frame_000000.png" ]; then
    echo "$prog: no $dir/frame_000000.png (run nbody with --render $dir first)" >&2
    exit 2
fi
case "$fps" in
    ''|*[!0-9]*|0) echo "$prog: FPS must be a positive integer (got '$fps')" >&2; exit 2 ;;
esac
if ! command -v ffmpeg >/dev/null 2>&1; then
    echo "$prog: ffmpeg is not installed; install it with: sudo apt-get install ffmpeg" >&2
    exit 2
fi

nframes=$(find "$dir" -maxdepth 1 -name 'frame_[0-9][0-9][0-9][0-9][0-9][0-9].png' | wc -l)
# The scale filter rounds odd sizes down to even ones, which H.264 needs.
if ! ffmpeg -hide_banner -loglevel error -y -framerate "$fps" -start_number 0 \
        -i "$dir/frame_%06d.png" -vf 'scale=trunc(iw/2)*2:trunc(ih/2)*2' \
        -c:v libx264 -pix_fmt yuv420p -movflags +faststart "$out"; then
    echo "$prog: ffmpeg could not make $out from $dir/frame_*.png (see its message above)" >&2
    exit 3
fi
echo "$prog: wrote $out ($nframes frames at $fps frames/s)"
