/* nb_annot.c -- the facts a frame carries, laid out as rectangles (see
 * nb_annot.h): text top left, the scale bar bottom left, the legend bottom
 * right.  Frames narrower than NB_ANNOT_MIN pixels carry none (the text would
 * cover them).
 *
 * The font.  Text comes from stb_easy_font.h (Sean Barrett's public-domain
 * single-header library, Debian's libstb-dev): it turns a string into
 * axis-aligned quads with integer corners and needs no texture and no font
 * file.  That is what this module needs: the CPU splatter fills the quads
 * and the GL renderer draws them as two triangles each, so both paint the
 * same pixels, and nothing has to be found at run time on a GPU server that
 * has no fonts installed.  A TrueType font through FreeType would look
 * smoother but needs a font file on every machine and a glyph atlas in two
 * renderers.  Each quad is scaled by an integer (2 on frames of 700 pixels
 * and more), and drawn over a black copy shifted by one font pixel, so the
 * text stays legible over the bright cores. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_annot.h"
#include "nb_error.h"
#include "nb_render.h"

#ifdef NB_HAVE_STB
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop
#endif

#define NB_ANNOT_MIN 160

int nb_annot_has_text(void)
{
#ifdef NB_HAVE_STB
    return 1;
#else
    return 0;
#endif
}

static int scale_of(int w, int h) { return (w < h ? w : h) >= 700 ? 2 : 1; }

static int add(nb_annot *a, int x0, int y0, int x1, int y1, const unsigned char rgb[3])
{
    if (x1 <= x0 || y1 <= y0)
        return 0;
    if (a->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 256;
        nb_rect *r = realloc(a->r, (size_t)cap * sizeof *r);
        if (!r)
            return nb_fail(NB_EXIT_RUNTIME, "out of memory laying out a frame's text");
        a->r = r;
        a->cap = cap;
    }
    nb_rect *r = &a->r[a->n++];
    r->x0 = x0; r->y0 = y0; r->x1 = x1; r->y1 = y1;
    memcpy(r->rgb, rgb, 3);
    return 0;
}

static const unsigned char white[3] = { 240, 240, 240 }, black[3] = { 0, 0, 0 };

/* Text width in pixels at scale s. */
static int text_width(const char *txt, int s)
{
#ifdef NB_HAVE_STB
    return s * stb_easy_font_width((char *)txt);
#else
    (void)txt; (void)s;
    return 0;
#endif
}

/* txt with its top left corner at (x, y), scale s, over a black shadow. */
static int text(nb_annot *a, int x, int y, int s, const char *txt)
{
#ifdef NB_HAVE_STB
    static float quads[4 * 4 * 2000];        /* 4 vertices of 4 floats (x, y, z, colour) */
    int nq = stb_easy_font_print(0, 0, (char *)txt, NULL, quads, (int)sizeof quads);
    for (int pass = 0; pass < 2; pass++) {
        int d = pass ? 0 : s;
        for (int q = 0; q < nq; q++) {
            const float *v = quads + 16 * q;   /* corners 0 and 2 are opposite */
            int x0 = (int)lrintf(fminf(v[0], v[8])), x1 = (int)lrintf(fmaxf(v[0], v[8]));
            int y0 = (int)lrintf(fminf(v[1], v[9])), y1 = (int)lrintf(fmaxf(v[1], v[9]));
            int rc = add(a, x + d + s * x0, y + d + s * y0, x + d + s * x1, y + d + s * y1,
                         pass ? white : black);
            if (rc)
                return rc;
        }
    }
#else
    (void)a; (void)x; (void)y; (void)s; (void)txt;
#endif
    return 0;
}

double nb_annot_scale(int w, double unit_px, int *px)
{
    double most = 0.2 * w * unit_px, len = 0.0;
    if (most > 0.0 && isfinite(most)) {
        double p = pow(10.0, floor(log10(most)));
        len = most >= 5 * p ? 5 * p : most >= 2 * p ? 2 * p : p;
    }
    *px = len > 0.0 ? (int)lrint(len / unit_px) : 0;
    return len;
}

void nb_annot_legend(int w, int h, int *x0, int *len, int *y0, int *y1)
{
    int s = scale_of(w, h);
    *len = 128 * s < w / 3 ? 128 * s : w / 3;
    *x0 = w - 10 * s - *len;
    *y1 = h - 10 * s;
    *y0 = *y1 - 8 * s;
}

static void value_text(char *buf, size_t len, int mode, double v)
{
    if (mode == NB_COLOUR_SPEED)
        snprintf(buf, len, "%.3g", v);
    else
        snprintf(buf, len, "%.2g", pow(10.0, v));
}

int nb_annot_build(nb_annot *a, int w, int h, const nb_facts *f)
{
    a->n = 0;
    if (w < NB_ANNOT_MIN || h < NB_ANNOT_MIN)
        return 0;
    int s = scale_of(w, h), rc;
    char line[256];
    snprintf(line, sizeof line, "%s   step %lld   t = %.4g   N = %lld", f->program,
             (long long)f->step, f->t, (long long)f->n);
    if ((rc = text(a, 6 * s, 6 * s, s, line)))
        return rc;
    if (f->hud && (rc = text(a, 6 * s, 20 * s, s, f->hud)))
        return rc;

    /* Scale bar, bottom left: the bar, a tick at each end, its length above. */
    int px;
    double len = nb_annot_scale(w, f->unit_px, &px);
    if (px > 0) {
        int x0 = 10 * s, yb = h - 10 * s;
        if ((rc = add(a, x0 - s, yb - 2 * s - s, x0 + px + s, yb + s, black)) ||
            (rc = add(a, x0, yb - 2 * s, x0 + px, yb, white)) ||
            (rc = add(a, x0, yb - 6 * s, x0 + s, yb, white)) ||
            (rc = add(a, x0 + px - s, yb - 6 * s, x0 + px, yb, white)))
            return rc;
        snprintf(line, sizeof line, "%g", len);
        if ((rc = text(a, x0, yb - 20 * s, s, line)))
            return rc;
    }

    /* Legend, bottom right: the colour map from level 0 to 255, the range
     * below the title above it. */
    int lx, ll, ly0, ly1;
    nb_annot_legend(w, h, &lx, &ll, &ly0, &ly1);
    if ((rc = add(a, lx - s, ly0 - s, lx + ll + s, ly1 + s, white)))
        return rc;
    for (int i = 0; i < ll; i++) {
        unsigned char rgb[3];
        nb_render_colour(f->mode, (unsigned char)lrint(255.0 * i / (ll > 1 ? ll - 1 : 1)), rgb);
        if ((rc = add(a, lx + i, ly0, lx + i + 1, ly1, rgb)))
            return rc;
    }
    const char *title = f->mode == NB_COLOUR_DENSITY ? "mass per pixel"
                      : f->mode == NB_COLOUR_MASS ? "colour: body mass" : "colour: speed";
    char lo[32], hi[32];
    value_text(lo, sizeof lo, f->mode, f->lo);
    value_text(hi, sizeof hi, f->mode, f->hi);
    int ty = ly0 - 14 * s;
    if ((rc = text(a, lx, ty, s, lo)) ||
        (rc = text(a, lx + ll - text_width(hi, s), ty, s, hi)) ||
        (rc = text(a, lx + ll - text_width(title, s), ty - 13 * s, s, title)))
        return rc;
    return 0;
}

void nb_annot_fill(const nb_annot *a, unsigned char *rgb, int w, int h)
{
    for (int k = 0; k < a->n; k++) {
        const nb_rect *r = &a->r[k];
        int x0 = r->x0 < 0 ? 0 : r->x0, x1 = r->x1 > w ? w : r->x1;
        int y0 = r->y0 < 0 ? 0 : r->y0, y1 = r->y1 > h ? h : r->y1;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++)
                memcpy(rgb + 3 * ((size_t)y * w + x), r->rgb, 3);
    }
}

void nb_annot_free(nb_annot *a)
{
    free(a->r);
    memset(a, 0, sizeof *a);
}
