/* nb_annot.h -- the facts a frame carries, as coloured rectangles: the text
 * (program, step, t, N, and the view's heads-up line), a length scale bar
 * and the colour legend.
 *
 * One layout, two painters: the CPU splatter fills the rectangles into its
 * image (nb_annot_fill) and the GL renderer draws the same rectangles as
 * triangles, so a frame carries the same facts, pixel for pixel, whichever
 * drew it.  Rectangles are in pixels, [x0, x1) x [y0, y1), row 0 on top. */
#ifndef NB_ANNOT_H
#define NB_ANNOT_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct nb_rect {
    int x0, y0, x1, y1;
    unsigned char rgb[3];
} nb_rect;

typedef struct nb_annot {
    nb_rect *r;
    int      n, cap;
} nb_annot;

/* What a frame says about itself. */
typedef struct nb_facts {
    const char *program;   /* "step05_barneshut" */
    int64_t     step;      /* steps done */
    double      t;         /* simulated time, step * dt */
    int64_t     n;         /* bodies */
    double      unit_px;   /* length units per pixel (the scale bar) */
    int         mode;      /* NB_COLOUR_* (nb_render.h): the legend's colour map */
    double      lo, hi;    /* the legend's range: log10 values in the density and
                            * mass modes, speeds in the speed mode */
    const char *hud;       /* a second line of text (the view's heads-up line), or NULL */
} nb_facts;

/* Lay out the facts of a w x h frame into a (its rectangles replace what
 * was there).  0, or NB_EXIT_RUNTIME when out of memory. */
int  nb_annot_build(nb_annot *a, int w, int h, const nb_facts *f);
/* Paint the rectangles into rgb (w x h, 3 bytes a pixel, row 0 on top). */
void nb_annot_fill(const nb_annot *a, unsigned char *rgb, int w, int h);
void nb_annot_free(nb_annot *a);
/* Where the legend's colour bar is in a w x h frame: column x0 shows level
 * 0 of the colour map and column x0 + len - 1 level 255, rows y0 .. y1 - 1. */
void nb_annot_legend(int w, int h, int *x0, int *len, int *y0, int *y1);
/* The length the scale bar shows (a 1, 2 or 5 times a power of ten, at
 * most a fifth of the frame's width) and its length in pixels. */
double nb_annot_scale(int w, double unit_px, int *px);
/* 1 if this build draws text (stb_easy_font.h was found), else 0: the
 * frames then carry the scale bar and the legend's bar without labels. */
int  nb_annot_has_text(void);

#ifdef __cplusplus
}
#endif
#endif
