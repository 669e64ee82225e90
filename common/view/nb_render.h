/* nb_render.h -- PNG frames of the system (--render DIR), with libpng.
 *
 * A frame is the projection of the bodies on the x-y plane, binned into a
 * size x size image, mass per pixel shown on a logarithmic scale.  The view
 * (centre, half width, colour scale) is fixed from the first frame for the
 * whole run so frames can be compared.  Optional overlay: the edges of
 * octree cells (step05 --render-tree), projected. */
#ifndef NB_RENDER_H
#define NB_RENDER_H
#include <stdint.h>
#include "nb_state.h"
#include "nb_step.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_render_view {
    double cx, cy;        /* centre of the image in simulation units */
    double half;          /* half width of the image in simulation units */
    double log_lo, log_hi;/* colour scale: log10 of pixel mass at black / white */
    int    size;          /* pixels per side */
} nb_render_view;

/* Before the run: create dir if needed, and check that it takes the frames
 * (nb_out_check() on its first frame).  0, or the code with the reason. */
int nb_render_check(const char *dir);
/* Choose the view from the state (centre of mass, radius holding ~99% of
 * the bodies, colour range) and create dir if needed.  NB_EXIT_RUNTIME if
 * dir cannot be created. */
int nb_render_setup(nb_render_view *v, const nb_state *s, int size, const char *dir);
/* Write dir/frame_NNNNNN.png. cells may be NULL. NB_EXIT_RUNTIME on I/O error. */
int nb_render_frame(const nb_render_view *v, const char *dir, int frame,
                    const nb_state *s, const nb_cells *cells);
/* The density image alone (size*size bytes, 0..255), for tests. */
int nb_render_density(const nb_render_view *v, const nb_state *s, unsigned char *img);
/* The frame as RGB (3*size*size bytes, row 0 on top), without writing it. */
int nb_render_rgb(const nb_render_view *v, const nb_state *s, const nb_cells *cells,
                  unsigned char *rgb);
/* PNG of an RGB image (w x h, row 0 on top) written atomically (temporary
 * file, fsync, rename); NB_EXIT_RUNTIME with one line in why on failure. */
int nb_png_write(const char *path, const unsigned char *rgb, int w, int h, char *why, size_t len);

/* A PNG decoded as 8-bit RGB (malloc'ed, row 0 on top), or NULL. */
unsigned char *nb_png_read(const char *path, int *w, int *h);
/* The same PNG bytes nb_png_write() writes, into memory (*out: malloc'ed,
 * *len bytes).  0, or NB_EXIT_RUNTIME when out of memory. */
int nb_png_encode(const unsigned char *rgb, int w, int h, unsigned char **out, size_t *len);

/* Colour modes: the density frames of this module (colour by mass per
 * pixel), and the GL view's colour by body mass or speed (brightness by
 * mass per pixel). */
enum { NB_COLOUR_DENSITY = 0, NB_COLOUR_MASS = 1, NB_COLOUR_SPEED = 2, NB_COLOUR_MODES = 3 };
/* The colour of a level 0..255 in mode's colour map (the legend's colours;
 * the GL renderer builds its lookup tables from it). */
void nb_render_colour(int mode, unsigned char level, unsigned char rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
