/* nb_render.c -- PNG frames of the system (--render DIR), with libpng.
 *
 * Image geometry: a frame shows the square [cx - half, cx + half] x
 * [cy - half, cy + half] of the x-y plane in size x size pixels; column i
 * covers x in [cx - half + i w, cx - half + (i + 1) w), w = 2 half / size,
 * and row 0 is the top (largest y), so +y is up as on a plot:
 *
 *     col = floor((x - (cx - half)) / w),   row = floor(((cy + half) - y) / w)
 *
 * Density: each body adds its mass to the one pixel that holds it (nearest
 * bin, no smoothing, so a body lights exactly one pixel; bodies outside the
 * view are not drawn).  Pixel mass p > 0 maps to a level on a log scale,
 *
 *     level = 255 (log10 p - log_lo) / (log_hi - log_lo), clamped to [1, 255],
 *
 * so that any pixel with mass is visible; empty pixels are 0.  The frame
 * colours the level with a colour map (black - indigo - crimson - orange -
 * pale yellow, an "inferno"-like ramp) built by linear interpolation between
 * a few control colours chosen by eye.
 *
 * View (nb_render_setup, once per run, from the first state): the centre of
 * mass, half = 1.1 x the projected radius holding 99% of the bodies (about
 * the centre of mass), and a colour scale whose top is the 99th percentile
 * of the non-empty pixels of that first frame, and at least 1.5 decades
 * above the bottom (brighter pixels saturate: the cores, and the disk
 * models' central body holding half of the mass), and whose bottom puts a
 * pixel holding one body of the smallest mass at 30% of the scale, so lone
 * bodies in the tails stay visible.
 *
 * Tree overlay (cells != NULL): each cell's cube projects to the square
 * [cx - half, cx + half] x [cy - half, cy + half]; its four edges are drawn
 * as 1-pixel lines (clipped to the image); every pixel on some edge is
 * blended once, half way towards a pale cyan, so the density stays visible
 * under the lines and edges shared by many cells (the projections of a 3-D
 * tree overlap) are no brighter than others.  Cells narrower than 3 pixels
 * are skipped: they would only fill the pixels they cover.  An edge at coordinate x is drawn in the column that
 * holds x; the right and top edges of a cell (x = cx + half) are drawn in the
 * last column inside the cell, so a cell [0, 1) x [0, 1) that maps to
 * columns c0..c1-1 draws columns c0 and c1 - 1. */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "nb_error.h"
#include "nb_io.h"
#include "nb_render.h"
#include "nb_timer.h"

/* ---- small helpers ------------------------------------------------------ */

/* mkdir -p: create dir and its missing parents. */
static int make_dirs(const char *dir)
{
    if (!dir || !*dir)
        return nb_fail(NB_EXIT_RUNTIME, "--render: empty directory name");
    size_t len = strlen(dir);
    char *p = malloc(len + 1);
    if (!p)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory");
    memcpy(p, dir, len + 1);
    for (size_t k = 1; k <= len; k++) {
        if (p[k] != '/' && p[k] != '\0')
            continue;
        char c = p[k];
        p[k] = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            int err = errno;
            int rc = nb_fail(NB_EXIT_RUNTIME, "--render: cannot create directory %s: %s",
                             p, strerror(err));
            free(p);
            return rc;
        }
        p[k] = c;
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return nb_fail(NB_EXIT_RUNTIME, "--render: %s exists and is not a directory", dir);
    return 0;
}

int nb_render_check(const char *dir)
{
    int rc = make_dirs(dir);
    if (rc) return rc;
    size_t len = strlen(dir) + 32;
    char *first = malloc(len);
    if (!first) return nb_fail(NB_EXIT_RUNTIME, "out of memory");
    snprintf(first, len, "%s/frame_000000.png", dir);
    rc = nb_out_check("--render", first, NULL);
    free(first);
    return rc;
}

/* Pixel column/row holding (x, y); 0 if inside the image. */
static int pixel_of(const nb_render_view *v, double x, double y, int64_t *col, int64_t *row)
{
    double w = 2.0 * v->half / v->size;
    double fc = floor((x - (v->cx - v->half)) / w), fr = floor(((v->cy + v->half) - y) / w);
    if (!(fc >= 0 && fc < v->size && fr >= 0 && fr < v->size))   /* also NaN */
        return -1;
    *col = (int64_t)fc;
    *row = (int64_t)fr;
    return 0;
}

/* Mass per pixel (size*size doubles, calloc'ed). NULL on out of memory. */
static double *bin_mass(const nb_render_view *v, const nb_state *s)
{
    size_t np = (size_t)v->size * (size_t)v->size;
    double *acc = calloc(np, sizeof *acc);
    if (!acc)
        return NULL;
    for (int64_t i = 0; i < s->n; i++) {
        int64_t c, r;
        if (pixel_of(v, s->x[i], s->y[i], &c, &r) == 0)
            acc[r * v->size + c] += s->m[i];
    }
    return acc;
}

/* ---- view --------------------------------------------------------------- */

int nb_render_setup(nb_render_view *v, const nb_state *s, int size, const char *dir)
{
    memset(v, 0, sizeof *v);
    if (size < 1 || size > 65536)
        return nb_fail(NB_EXIT_USAGE, "--render-size: %d pixels is out of range", size);
    if (dir) {
        int rc = make_dirs(dir);
        if (rc)
            return rc;
    }
    v->size = size;

    /* Centre of mass (plain mean if every mass is 0) and smallest mass > 0. */
    double mt = 0.0, sx = 0.0, sy = 0.0, ux = 0.0, uy = 0.0, mmin = INFINITY;
    int64_t nfin = 0;
    for (int64_t i = 0; i < s->n; i++) {
        double m = s->m[i], x = s->x[i], y = s->y[i];
        if (!isfinite(x) || !isfinite(y))
            continue;
        nfin++;
        ux += x;
        uy += y;
        if (m > 0.0) {
            mt += m;
            sx += m * x;
            sy += m * y;
            if (m < mmin)
                mmin = m;
        }
    }
    if (mt > 0.0)      { v->cx = sx / mt;   v->cy = sy / mt; }
    else if (nfin > 0) { v->cx = ux / nfin; v->cy = uy / nfin; }
    if (!isfinite(mmin))
        mmin = 1.0;

    /* Radius holding 99% of the bodies, projected, from a sample of at most
     * 65536 bodies spread over the index range. */
    int64_t ns = s->n < 65536 ? s->n : 65536, k = 0;
    double *r = malloc((size_t)(ns > 0 ? ns : 1) * sizeof *r);
    if (!r)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory setting up the render view");
    for (int64_t j = 0; j < ns; j++) {
        int64_t i = (int64_t)((double)j * (double)s->n / (double)ns);
        double dx = s->x[i] - v->cx, dy = s->y[i] - v->cy, d = sqrt(dx * dx + dy * dy);
        if (isfinite(d))
            r[k++] = d;
    }
    double r99 = 0.0;
    if (k > 0) {
        r99 = nb_percentile(r, k, 0.99);
    }
    free(r);
    v->half = r99 > 0.0 ? 1.1 * r99 : 1.0;

    /* Colour scale from the first frame's pixel masses. */
    v->log_lo = log10(mmin) - 0.3;    /* placeholder until the top is known */
    v->log_hi = v->log_lo + 1.0;
    double *acc = bin_mass(v, s);
    if (!acc)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory: a %dx%d frame", size, size);
    size_t np = (size_t)size * (size_t)size, nz = 0;
    for (size_t p = 0; p < np; p++)
        if (acc[p] > 0.0)
            acc[nz++] = acc[p];
    double top = mmin;
    if (nz > 0) {
        top = nb_percentile(acc, (int64_t)nz, 0.99);
    }
    free(acc);
    double lmin = log10(mmin), ltop = log10(top > mmin ? top : mmin);
    /* At least 1.5 decades, so sparse frames (one body per pixel) still show
     * later crowding; one lightest body sits at 30% of the scale. */
    if (ltop < lmin + 1.5)
        ltop = lmin + 1.5;
    v->log_lo = lmin - 0.3 / 0.7 * (ltop - lmin);
    v->log_hi = ltop;
    return 0;
}

/* ---- density ------------------------------------------------------------ */

int nb_render_density(const nb_render_view *v, const nb_state *s, unsigned char *img)
{
    if (v->size < 1 || !(v->half > 0.0) || !(v->log_hi > v->log_lo))
        return nb_fail(NB_EXIT_USAGE, "render view not set up (call nb_render_setup first)");
    double *acc = bin_mass(v, s);
    if (!acc)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory: a %dx%d frame", v->size, v->size);
    size_t np = (size_t)v->size * (size_t)v->size;
    double scale = 255.0 / (v->log_hi - v->log_lo);
    for (size_t p = 0; p < np; p++) {
        if (!(acc[p] > 0.0)) {
            img[p] = 0;
            continue;
        }
        double lv = floor((log10(acc[p]) - v->log_lo) * scale + 0.5);
        img[p] = (unsigned char)(lv < 1.0 ? 1.0 : lv > 255.0 ? 255.0 : lv);
    }
    free(acc);
    return 0;
}

/* ---- colours ------------------------------------------------------------ */

/* Control colours of the map at levels 0, 1/6, ..., 1. */
static const unsigned char ramp[7][3] = {
    {   0,   0,   0 },   /* empty sky */
    {  40,  10,  90 },   /* deep indigo */
    { 120,  30, 150 },   /* violet: a lone body sits near here */
    { 200,  50, 110 },   /* crimson */
    { 245, 110,  45 },   /* orange */
    { 255, 190,  60 },   /* amber */
    { 255, 250, 215 },   /* pale yellow-white: the cores */
};

/* Colours by value (the GL view's mass and speed modes): bright at every
 * value, so that a pixel's brightness can still tell its density: blue,
 * cyan, near-white, orange, red at 0, 1/4, ..., 1. */
static const unsigned char attr_ramp[5][3] = {
    {  70, 110, 255 },
    {  60, 215, 255 },
    { 235, 235, 225 },
    { 255, 170,  50 },
    { 255,  60,  40 },
};

static void interpolate(const unsigned char (*r)[3], int segments, unsigned char level,
                        unsigned char rgb[3])
{
    double t = level / 255.0 * segments;
    int k = (int)t;
    if (k >= segments)
        k = segments - 1;
    double f = t - k;
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lrint(r[k][c] + f * (r[k + 1][c] - r[k][c]));
}

void nb_render_colour(int mode, unsigned char level, unsigned char rgb[3])
{
    if (mode == NB_COLOUR_DENSITY)
        interpolate(ramp, 6, level, rgb);
    else
        interpolate(attr_ramp, 4, level, rgb);
}

static void colour(unsigned char level, unsigned char rgb[3])
{
    nb_render_colour(NB_COLOUR_DENSITY, level, rgb);
}

/* ---- tree overlay ------------------------------------------------------- */

static int64_t clampi(int64_t a, int64_t lo, int64_t hi) { return a < lo ? lo : a > hi ? hi : a; }

/* Mark the edge pixels of every cell in mask (size*size bytes), then blend
 * each marked pixel once towards the line colour. */
static void overlay(const nb_render_view *v, const nb_cells *cells, unsigned char *rgb,
                    unsigned char *mask)
{
    const int64_t S = v->size;
    const double w = 2.0 * v->half / S, x0 = v->cx - v->half, y1 = v->cy + v->half;
    for (int64_t k = 0; k < cells->count; k++) {
        double h = cells->half[k];
        if (!(h > 0.0) || 2.0 * h / w < 3.0)
            continue;
        /* Pixel columns c0..c1 and rows r0..r1 (top to bottom) of the square. */
        double fc0 = floor((cells->cx[k] - h - x0) / w), fc1 = ceil((cells->cx[k] + h - x0) / w) - 1;
        double fr0 = floor((y1 - (cells->cy[k] + h)) / w), fr1 = ceil((y1 - (cells->cy[k] - h)) / w) - 1;
        if (!(fc1 >= 0 && fc0 < S && fr1 >= 0 && fr0 < S))  /* off the image or NaN */
            continue;
        int64_t c0 = (int64_t)fmax(fc0, -1.0), c1 = (int64_t)fmin(fc1, (double)S);
        int64_t r0 = (int64_t)fmax(fr0, -1.0), r1 = (int64_t)fmin(fr1, (double)S);
        int64_t ca = clampi(c0, 0, S - 1), cb = clampi(c1, 0, S - 1);
        int64_t ra = clampi(r0, 0, S - 1), rb = clampi(r1, 0, S - 1);
        /* Top row r0, bottom row r1, left column c0, right column c1, each
         * where it is on the image (a mask: pixels are marked once). */
        for (int e = 0; e < 2; e++) {
            int64_t r = e ? r1 : r0, c = e ? c1 : c0;
            if (r >= 0 && r < S)
                for (int64_t k2 = ca; k2 <= cb; k2++)
                    mask[r * S + k2] = 1;
            if (c >= 0 && c < S)
                for (int64_t k2 = ra; k2 <= rb; k2++)
                    mask[k2 * S + c] = 1;
        }
    }
    static const unsigned char line[3] = { 150, 225, 255 };   /* pale cyan */
    for (int64_t p = 0; p < S * S; p++)
        if (mask[p])
            for (int c = 0; c < 3; c++)
                rgb[3 * p + c] = (unsigned char)lrint(rgb[3 * p + c] + 0.5 * (line[c] - rgb[3 * p + c]));
}

/* ---- PNG ---------------------------------------------------------------- */

/* libpng reports an error by calling this, then longjmp; its default prints
 * "libpng error: ..." on stderr, a second line next to the kit's own.  The
 * message is kept (in the write's own buffer: the frame writer is a thread
 * of its own) for the kit's line instead; warnings are dropped. */
static void png_error_fn(png_structp png, png_const_charp msg)
{
    snprintf((char *)png_get_error_ptr(png), 128, "%s", msg);
    png_longjmp(png, 1);
}

static void png_warning_fn(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* The PNG of a w x h RGB image into f: 1 when libpng wrote it all; on a
 * libpng error its message is left in lib (128 bytes). */
static int png_stream(FILE *f, const unsigned char *rgb, int w, int h, char *lib)
{
    png_bytep *rows = malloc((size_t)h * sizeof *rows);
    if (!rows) {
        snprintf(lib, 128, "out of memory");
        return 0;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, lib, png_error_fn, png_warning_fn);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int ok = png && info;
    if (!ok) {
        snprintf(lib, 128, "out of memory");
    } else if (setjmp(png_jmpbuf(png))) {    /* libpng reports errors by longjmp */
        ok = 0;
    } else {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        /* zlib level 1 and no row filter: our frames are points and text on
         * black, where the default (level 6, a filter chosen per row) took
         * 4-5x the time for a larger file -- a 1024x768 frame of 1M bodies
         * from the H100: 25.5 ms and 233 kB, against 5.0 ms and 116 kB
         * (the frame writer must keep up with a step of ~30 ms) */
        png_set_compression_level(png, 1);
        png_set_filter(png, 0, PNG_FILTER_NONE);
        for (int r = 0; r < h; r++)
            rows[r] = (png_bytep)(rgb + (size_t)3 * w * r);
        png_write_info(png, info);
        png_write_image(png, rows);
        png_write_end(png, NULL);
    }
    png_destroy_write_struct(&png, &info);
    free(rows);
    return ok;
}

/* Write rgb (w x h, 3 bytes a pixel, row 0 on top) as a PNG to path,
 * atomically (nb_out: a temporary file in the same directory, fsync,
 * rename, so a full disk never leaves half a frame).  On failure why gets
 * one line and path does not exist (or keeps its old contents). */
int nb_png_write(const char *path, const unsigned char *rgb, int w, int h, char *why, size_t len)
{
    char lib[128] = "";
    nb_out o;
    int rc = nb_out_open(&o, "frame", path);
    if (rc) {
        snprintf(why, len, "%s", nb_errmsg());
        return rc;
    }
    if (!png_stream(o.f, rgb, w, h, lib)) {
        int err = o.err ? o.err : ferror(o.f) ? errno : 0;
        nb_out_abort(&o);
        snprintf(why, len, "cannot write %s: %s", path, err ? strerror(err) : lib);
        return NB_EXIT_RUNTIME;
    }
    nb_out_ok(&o);
    if ((rc = nb_out_close(&o))) snprintf(why, len, "%s", nb_errmsg());
    return rc;
}

int nb_png_encode(const unsigned char *rgb, int w, int h, unsigned char **out, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    *out = NULL;
    *len = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return NB_EXIT_RUNTIME;
    char lib[128] = "";
    int ok = png_stream(f, rgb, w, h, lib);
    if (fclose(f) != 0 || !ok) {
        free(buf);
        return NB_EXIT_RUNTIME;
    }
    *out = (unsigned char *)buf;
    *len = n;
    return 0;
}

unsigned char *nb_png_read(const char *path, int *w, int *h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path))
        return NULL;
    im.format = PNG_FORMAT_RGB;
    unsigned char *buf = malloc(PNG_IMAGE_SIZE(im));
    if (!buf || !png_image_finish_read(&im, NULL, buf, 0, NULL)) {
        free(buf);
        png_image_free(&im);
        return NULL;
    }
    *w = (int)im.width;
    *h = (int)im.height;
    return buf;
}

int nb_render_rgb(const nb_render_view *v, const nb_state *s, const nb_cells *cells,
                  unsigned char *rgb)
{
    size_t np = (size_t)v->size * (size_t)v->size;
    unsigned char *lev = malloc(np);
    if (!lev)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory: a %dx%d frame", v->size, v->size);
    int rc = nb_render_density(v, s, lev);
    if (!rc) {
        unsigned char lut[256][3];
        for (int l = 0; l < 256; l++)
            colour((unsigned char)l, lut[l]);
        for (size_t p = 0; p < np; p++)
            memcpy(rgb + 3 * p, lut[lev[p]], 3);
        if (cells) {
            memset(lev, 0, np);         /* reused as the overlay's mask */
            overlay(v, cells, rgb, lev);
        }
    }
    free(lev);
    return rc;
}

int nb_render_frame(const nb_render_view *v, const char *dir, int frame,
                    const nb_state *s, const nb_cells *cells)
{
    if (frame < 0 || frame > 999999)
        return nb_fail(NB_EXIT_RUNTIME, "--render: frame number %d out of range 0..999999", frame);
    size_t np = (size_t)v->size * (size_t)v->size;
    unsigned char *rgb = malloc(3 * np);
    size_t plen = strlen(dir) + 32;
    char *path = malloc(plen);
    if (!rgb || !path) {
        free(rgb); free(path);
        return nb_fail(NB_EXIT_RUNTIME, "out of memory: a %dx%d frame", v->size, v->size);
    }
    int rc = nb_render_rgb(v, s, cells, rgb);
    if (!rc) {
        char why[1200];
        snprintf(path, plen, "%s/frame_%06d.png", dir, frame);
        if (nb_png_write(path, rgb, v->size, v->size, why, sizeof why))
            rc = nb_fail(NB_EXIT_RUNTIME, "--render: %s", why);
    }
    free(rgb); free(path);
    return rc;
}
