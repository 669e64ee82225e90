/* suite_view.c -- the GL view (common/view/nb_gl.c, nb_egl.c, nb_view.c) and the
 * frame writer (nb_frames.c), in the common runner: no step's code, the
 * view is driven with a test step of known motion (bodies turning about
 * the z axis by 0.01 rad a step, a fixed two-level tree).
 *
 * "view" (a headless GL context: Mesa's llvmpipe in CI):
 *   two bodies at known places light exactly their pixels, +y up;
 *   the GL frame of equal-mass bodies is the CPU splatter's, colour for
 *   colour (the density map), within one level of the log scale;
 *   the tree's lines fall on the cells' boundaries, and the depth keys'
 *   filter keeps the cells down to the depth asked for;
 *   colours follow the legend: read back from the frame's own legend bar,
 *   a body's colour gives back its mass (mass mode) and its pixel's mass
 *   (density mode);
 *   the facts (text, scale bar, legend) are the same pixels in a GL frame
 *   and a CPU frame, and the scale bar is as long as it says;
 *   the writer never blocks the run: a slow writer drops frames, counts
 *   them, and the files it writes stay consecutive.
 * "view window" (a GLFW window under an Xvfb this suite starts):
 *   keys through the window's callbacks: space pauses, '.' steps once,
 *   'q' quits: the run has exactly the steps the keys asked for;
 *   the screenshot key writes the frame the headless renderer draws for
 *   that step, pixel for pixel;
 *   a window closed by the window manager stops the run;
 *   without events the window ends by itself after the last step, and
 *   prints its keys' line once on stderr; --view-hold keeps it open after
 *   the steps and the events, until told to stop;
 *   no display: --view and --view-hold are refused (exit 2) naming --render DIR. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
int usleep(unsigned int usec);

#include "nb_annot.h"
#include "nb_error.h"
#include "nb_frames.h"
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_render.h"
#include "nb_testutil.h"
#include "nb_timer.h"
#include "nb_turning.h"
#include "nb_view.h"
#ifdef NB_HAVE_GL
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
#include "nb_egl.h"
#include "nb_gl.h"
#endif

#ifdef NB_HAVE_GL
/* ---- the test step: rotation about z, a fixed tree (nb_turning.h) -------- */

static nb_step fake_step;

typedef struct run { nb_sim sim; nb_state st; nb_options o; void *ctx; } run;

static int rn_advance(nb_sim *sim, nb_step_time *t)
{
    int rc = sim->step->advance(sim->ctx, 1, t);
    sim->done++;
    return rc;
}
static int rn_check(nb_sim *sim) { (void)sim; return 0; }

/* A run of the test step on the model 'ic' (n bodies, seed 7). */
static void run_open(run *r, const char *ic, int64_t n, int steps)
{
    memset(r, 0, sizeof *r);
    nb_options_default(&r->o);
    r->o.steps = steps;
    r->o.n = n;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate(ic, n, 7, &r->st), 0);
    fake_step = nb_turning_step("viewtest", "bodies turning about z", NB_OPT_RENDER_TREE, 0.0);
    CU_ASSERT_EQUAL_FATAL(fake_step.init(&r->ctx, &r->st, &r->o), 0);
    r->sim = (nb_sim){ &fake_step, r->ctx, &r->st, &r->o, 0, 0, rn_advance, rn_check, r };
}
static void run_close(run *r)
{
    fake_step.destroy(r->ctx);
    nb_state_free(&r->st);
}

/* A state of n bodies of mass m, all far outside any view. */
static void far_state(nb_state *s, int64_t n, float m)
{
    CU_ASSERT_EQUAL_FATAL(nb_state_alloc(s, n), 0);
    for (int64_t i = 0; i < n; i++) {
        s->m[i] = m;
        s->x[i] = s->y[i] = s->z[i] = 1e3f;
        s->vx[i] = s->vy[i] = s->vz[i] = 0.0f;
    }
}

#endif

static const char *tmp_dir(int slot)
{
    static char buf[4][256];
    const char *d = getenv("TMPDIR");
    snprintf(buf[slot & 3], sizeof buf[0], "%s/nb_view_%ld_%d", d && *d ? d : "/tmp", (long)getpid(), slot);
    mkdir(buf[slot & 3], 0700);
    return buf[slot & 3];
}

static void rm_dir(const char *dir)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("       (could not remove %s)\n", dir);
}

/* ---- the frame writer (no GL) --------------------------------------------------- */

/* The run never waits for the writer: with the writer stopped (held, as a
 * writer stuck on a slow disk would be), 100 frames offered back to back
 * all return -- a run that waited would hang here, and fail by the test's
 * time limit -- the queue takes what it holds (at least 2 frames) and the
 * rest are dropped and counted; nothing is written while the writer is
 * stopped.  Let go, it writes what was queued: every frame written or
 * counted as dropped, the files frame_000000 .. in a row.  No clock: the
 * property holds however loaded the machine is. */
static void t_writer_never_blocks(void)
{
    const char *dir = tmp_dir(0);
    const int S = 256, offered = 100;
    nb_frames *f = NULL;
    CU_ASSERT_EQUAL_FATAL(nb_frames_open(&f, dir, S, S), 0);
    nb_frames_hold(f, 1);
    int accepted = 0;
    for (int k = 0; k < offered; k++) {
        unsigned char *p = nb_frames_slot(f);
        if (p) {
            memset(p, k * 37, (size_t)S * S * 3);
            nb_frames_submit(f);
            accepted++;
        }
    }
    char path[1400];
    snprintf(path, sizeof path, "%s/frame_000000.png", dir);
    int early = access(path, F_OK) == 0;
    NB_ASSERT(!early, "%s was written while the writer was held", path);
    nb_frames_hold(f, 0);
    int64_t written = -1, dropped = -1;
    CU_ASSERT_EQUAL_FATAL(nb_frames_close(f, &written, &dropped), 0);
    printf("       writer held: %d of %d frames queued; %lld written, %lld dropped\n", accepted, offered,
           (long long)written, (long long)dropped);
    NB_ASSERT(accepted >= 2 && accepted < offered, "with the writer stopped the queue took %d of %d frames "
              "(it holds at least 2, and fewer than all of them)", accepted, offered);
    NB_ASSERT_EQ("frames written (those queued)", written, accepted);
    NB_ASSERT_EQ("frames dropped (those offered to a full queue)", dropped, offered - accepted);
    for (int64_t k = 0; k <= written; k++) {
        snprintf(path, sizeof path, "%s/frame_%06lld.png", dir, (long long)k);
        int there = access(path, R_OK) == 0;
        NB_ASSERT(there == (k < written), "%s %s", path, there ? "exists past the frames written"
                                                                : "is missing: the files are not consecutive");
    }
    rm_dir(dir);
}

/* A write error (the directory gone) is reported at close, once, with the
 * file's name, and no later frame is taken. */
static void t_writer_error(void)
{
    const char *dir = tmp_dir(1);
    nb_frames *f = NULL;
    CU_ASSERT_EQUAL_FATAL(nb_frames_open(&f, dir, 64, 64), 0);
    rm_dir(dir);
    unsigned char *p = nb_frames_slot(f);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    memset(p, 7, 64 * 64 * 3);
    nb_frames_submit(f);
    int64_t written = -1, dropped = -1;
    nb_clear_error();
    NB_ASSERT_EQ("nb_frames_close after a failed write", nb_frames_close(f, &written, &dropped),
                 NB_EXIT_RUNTIME);
    NB_ASSERT(strstr(nb_errmsg(), "frame_000000.png") != NULL, "the message does not name the "
              "file: %s", nb_errmsg());
    NB_ASSERT_EQ("frames written", written, 0);
}

#ifdef NB_HAVE_GL
/* ---- headless GL ------------------------------------------------------------------ */

static nb_egl *EGL;

static void gl_up(void)
{
    if (!EGL) CU_ASSERT_EQUAL_FATAL(nb_egl_open(&EGL), 0);
}

/* The renderer's two forms of the bodies' pass (nb_gl.h): the suite "view"
 * runs its tests with the compute shader's sums, "view sprites" with the
 * point sprites of OpenGL 3.3; each checks it got the form it asked for. */
static int want_sprites;
static int form_sums(void) { want_sprites = 0; return setenv("NB_GL_SPRITES", "0", 1); }
static int form_sprites(void) { want_sprites = 1; return setenv("NB_GL_SPRITES", "1", 1); }

static nb_gl *gl_new(int64_t n)
{
    gl_up();
    nb_gl *g = NULL;
    CU_ASSERT_EQUAL_FATAL(nb_gl_create(&g, n), 0);
    const char *how = nb_gl_bodies_how(g);
    NB_ASSERT(strstr(how, want_sprites ? "sprites" : "compute shader") != NULL,
              "the renderer's bodies are %s, the suite asked for %s", how,
              want_sprites ? "point sprites (NB_GL_SPRITES=1)" : "the compute shader's sums");
    return g;
}

/* A scene of the view v as the CPU splatter would show it. */
static nb_gl_scene scene_of(const nb_state *s, const nb_render_view *v)
{
    nb_gl_scene sc;
    memset(&sc, 0, sizeof sc);
    nb_gl_scales(&sc, s, v);
    sc.cam = nb_gl_camera_of(v);
    return sc;
}

/* s drawn by GL with scene sc into a fresh w x h RGB image (malloc'ed). */
static unsigned char *gl_frame(const nb_state *s, const nb_gl_scene *sc, const nb_cells *cells,
                               int depth, int w, int h)
{
    nb_gl *g = gl_new(s->n);
    CU_ASSERT_EQUAL_FATAL(nb_gl_bodies_host(g, s), 0);
    if (cells) CU_ASSERT_EQUAL_FATAL(nb_gl_cells_host(g, cells, depth), 0);
    unsigned char *rgb = malloc((size_t)w * h * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rgb);
    int rc = nb_gl_draw(g, NB_GL_OFFSCREEN, w, h, sc);
    NB_ASSERT_OK_FATAL("nb_gl_draw", rc);
    NB_ASSERT_OK_FATAL("nb_gl_read", nb_gl_read(g, NB_GL_OFFSCREEN, w, h, rgb));
    nb_gl_destroy(g);
    return rgb;
}

static int lit(const unsigned char *p) { return p[0] || p[1] || p[2]; }

/* The level of the density map whose colour the pixel p has, or -1. */
static int density_level(const unsigned char *p)
{
    unsigned char c[3];
    for (int l = 0; l < 256; l++) {
        nb_render_colour(NB_COLOUR_DENSITY, (unsigned char)l, c);
        if (!memcmp(c, p, 3)) return l;
    }
    return -1;
}

/* The level a pixel of this mass has on the view's log scale (unclamped). */
static int level_of_mass(const nb_render_view *v, double mass)
{
    return (int)floor((log10(mass) - v->log_lo) * 255.0 / (v->log_hi - v->log_lo) + 0.5);
}

/* Two bodies at the centres of pixels (col 5, row 9) and (col 40, row 50)
 * of [-1, 1]^2 in 64 pixels (row 0 on top, so +y is up): exactly those two
 * pixels are lit, each in the colour of its level. */
static void t_two_bodies(void)
{
    const int S = 64;
    nb_render_view v = { 0.0, 0.0, 1.0, -4.0, 0.0, S };
    nb_state s;
    far_state(&s, 2, 1e-3f);
    const double w = 2.0 / S;
    int cols[2] = { 5, 40 }, rows[2] = { 9, 50 };
    for (int b = 0; b < 2; b++) {
        s.x[b] = (float)(-1.0 + (cols[b] + 0.5) * w);
        s.y[b] = (float)(1.0 - (rows[b] + 0.5) * w);     /* row 0 is the top */
        s.z[b] = 0.3f * b;
    }
    nb_gl_scene sc = scene_of(&s, &v);
    unsigned char *rgb = gl_frame(&s, &sc, NULL, -1, S, S);
    /* the level of a pixel of mass 1e-3 on the scale 1e-4 .. 1: 255 * 1/4 */
    unsigned char want[3];
    nb_render_colour(NB_COLOUR_DENSITY, (unsigned char)lrint(255.0 * (-3.0 + 4.0) / 4.0), want);
    int nlit = 0;
    for (int r = 0; r < S; r++)
        for (int c = 0; c < S; c++) {
            const unsigned char *p = rgb + 3 * ((size_t)r * S + c);
            int body = (c == cols[0] && r == rows[0]) || (c == cols[1] && r == rows[1]);
            nlit += lit(p);
            if (body)
                NB_ASSERT(abs(p[0] - want[0]) <= 2 && abs(p[1] - want[1]) <= 2 && abs(p[2] - want[2]) <= 2,
                          "body pixel (col %d, row %d): rgb %d %d %d, expected %d %d %d", c, r, p[0], p[1],
                          p[2], want[0], want[1], want[2]);
            else if (lit(p))
                NB_ASSERT(0, "pixel (col %d, row %d) is lit (%d %d %d) but holds no body", c, r, p[0], p[1], p[2]);
        }
    NB_ASSERT_EQ("lit pixels", nlit, 2);
    free(rgb);
    nb_state_free(&s);
}

/* Moved by at most 2% of a pixel so that no body is within 2% of a pixel
 * of a pixel's edge: there, the float projection on the GPU and the double
 * one of the CPU splatter may put it in neighbouring pixels. */
static double off_edge(double f)
{
    double fr = f - floor(f);
    return fr < 0.02 ? f + (0.02 - fr) : fr > 0.98 ? f - (fr - 0.98) : f;
}

/* Equal masses (1-pixel sprites): the GL frame of a Plummer sphere is the
 * CPU splatter's, pixel for pixel lit or dark, colours within one level
 * (the sums are float on the GPU, double on the CPU). */
static void t_gl_is_cpu_splatter(void)
{
    const int S = 160;
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 3000, 11, &s), 0);
    nb_render_view v;
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&v, &s, S, NULL), 0);
    const double w = 2.0 * v.half / S, x0 = v.cx - v.half, y1 = v.cy + v.half;
    for (int64_t i = 0; i < s.n; i++) {
        s.x[i] = (float)(x0 + off_edge((s.x[i] - x0) / w) * w);
        s.y[i] = (float)(y1 - off_edge((y1 - s.y[i]) / w) * w);
    }
    nb_gl_scene sc = scene_of(&s, &v);
    unsigned char *gl = gl_frame(&s, &sc, NULL, -1, S, S), *cpu = malloc((size_t)S * S * 3);
    unsigned char lev[256][3];
    for (int l = 0; l < 256; l++) nb_render_colour(NB_COLOUR_DENSITY, (unsigned char)l, lev[l]);
    CU_ASSERT_EQUAL_FATAL(nb_render_rgb(&v, &s, NULL, cpu), 0);
    int differ = 0, far = 0, nlit = 0;
    for (int p = 0; p < S * S; p++) {
        const unsigned char *a = gl + 3 * p, *b = cpu + 3 * p;
        nlit += lit(b);
        if (lit(a) != lit(b)) { differ++; continue; }
        if (memcmp(a, b, 3)) {
            /* within one level: a's colour is the map's at b's level +- 1 */
            int lb = -1;
            for (int l = 0; l < 256 && lb < 0; l++) if (!memcmp(lev[l], b, 3)) lb = l;
            int near = 0;
            for (int d = -1; d <= 1 && lb >= 0; d++)
                if (lb + d >= 0 && lb + d < 256 && !memcmp(lev[lb + d], a, 3)) near = 1;
            far += !near;
        }
    }
    printf("       %d lit pixels; %d lit in one and dark in the other, %d more than a level apart\n",
           nlit, differ, far);
    NB_ASSERT(nlit > 500, "only %d lit pixels: not a real comparison", nlit);
    NB_ASSERT_EQ("pixels lit in one frame and dark in the other", differ, 0);
    NB_ASSERT_EQ("pixels whose colours are more than one level apart", far, 0);
    free(gl);
    free(cpu);
    nb_state_free(&s);
}

/* Sums past 32 bits and in any order: a body of 2^23 times the lightest
 * mass adds 2^31 counts to its pixel in the compute form (1/256 of the
 * lightest mass a count), so three in one pixel carry into the high word:
 * that pixel is three times as heavy as the pixel of a lone one (30 levels
 * brighter on this scale), not one (a lost carry).  And the same bodies in
 * the reverse order, in the mass mode, give the same frame byte for byte
 * (the compute form: its sums are exact; blending floats is not). */
static void t_sums_exact(void)
{
    const int S = 64;
    nb_render_view v = { 0.0, 0.0, 1.0, -4.0, 0.0, S };
    nb_state s;
    far_state(&s, 6, 1e-9f);                    /* the lightest mass, out of the view */
    const float M = 8388608.0f * 1e-9f;         /* 2^23 of it */
    const double w = 2.0 / S;
    const int cols[5] = { 20, 20, 20, 45, 8 }, rows[5] = { 20, 20, 20, 45, 50 };
    for (int b = 0; b < 5; b++) {
        s.m[b] = b < 4 ? M : 1e-3f;
        s.x[b] = (float)(-1.0 + (cols[b] + 0.5) * w);
        s.y[b] = (float)(1.0 - (rows[b] + 0.5) * w);
    }
    nb_gl_scene sc = scene_of(&s, &v);
    unsigned char *rgb = gl_frame(&s, &sc, NULL, -1, S, S);
    const double mass[2] = { 3.0 * M, M };
    for (int k = 0; k < 2; k++) {
        int col = cols[3 * k], row = rows[3 * k];
        const unsigned char *p = rgb + 3 * ((size_t)row * S + col);
        int got = density_level(p), want = level_of_mass(&v, mass[k]);
        NB_ASSERT(got >= 0 && abs(got - want) <= 1, "pixel (col %d, row %d) holding %s of mass %.4g: "
                  "colour %d %d %d is level %d, expected level %d (mass %.4g)", col, row,
                  k ? "one body" : "three bodies", M, p[0], p[1], p[2], got, want, mass[k]);
    }
    free(rgb);
    /* the order: a Plummer sphere of masses over 3 decades, forwards and backwards */
    nb_state q;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 4000, 5, &q), 0);
    for (int64_t i = 0; i < q.n; i++) q.m[i] = (float)(1e-6 * pow(10.0, 3.0 * (double)((i * 7919) % 1000) / 1000.0));
    nb_render_view vq;
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&vq, &q, 128, NULL), 0);
    nb_gl_scene sq = scene_of(&q, &vq);
    sq.mode = NB_COLOUR_MASS;
    unsigned char *fwd = gl_frame(&q, &sq, NULL, -1, 128, 128);
    for (int64_t i = 0, j = q.n - 1; i < j; i++, j--) {
        float *f[7] = { q.x, q.y, q.z, q.vx, q.vy, q.vz, q.m };
        for (int a = 0; a < 7; a++) { float t = f[a][i]; f[a][i] = f[a][j]; f[a][j] = t; }
    }
    unsigned char *bwd = gl_frame(&q, &sq, NULL, -1, 128, 128);
    int differ = 0, nlit = 0;
    for (int p = 0; p < 128 * 128; p++) {
        differ += memcmp(fwd + 3 * p, bwd + 3 * p, 3) != 0;
        nlit += lit(fwd + 3 * p);
    }
    printf("       bodies in the reverse order: %d of %d lit pixels differ (%s)\n", differ, nlit,
           want_sprites ? "blended floats: not required to be 0" : "exact sums: must be 0");
    NB_ASSERT(nlit > 500, "only %d lit pixels: not a real comparison", nlit);
    if (!want_sprites) NB_ASSERT_EQ("pixels that change when the bodies come in the reverse order", differ, 0);
    free(fwd);
    free(bwd);
    nb_state_free(&q);
    nb_state_free(&s);
}

/* Bodies exactly on pixel edges light the pixel the CPU splatter gives
 * them (x rounds down, y up: its rows count from the top), in the compute
 * form (the sprites follow GL's rasterization rules there: not required).
 * And masses 1e20 times the lightest: pixels holding 1, 3 x 1 and 10 are
 * three distinct levels in both forms (the compute form's count grows with
 * the total mass, so no 64-bit sum overflows). */
static void t_edges_extremes(void)
{
    const int S = 64;
    nb_render_view v = { 0.0, 0.0, 1.0, -4.0, 0.0, S };
    nb_state s;
    far_state(&s, 4, 1e-3f);
    const int k[4][2] = { { 32, 32 }, { 10, 10 }, { 50, 40 }, { 1, 63 } };   /* edges: x = -1 + k w */
    for (int b = 0; b < 4; b++) {
        s.x[b] = (float)(-1.0 + k[b][0] / 32.0);
        s.y[b] = (float)(-1.0 + k[b][1] / 32.0);
    }
    nb_gl_scene sc = scene_of(&s, &v);
    unsigned char *gl = gl_frame(&s, &sc, NULL, -1, S, S), *cpu = malloc((size_t)S * S * 3);
    CU_ASSERT_EQUAL_FATAL(nb_render_rgb(&v, &s, NULL, cpu), 0);
    int differ = 0, nlit = 0;
    for (int p = 0; p < S * S; p++) {
        differ += lit(gl + 3 * p) != lit(cpu + 3 * p);
        nlit += lit(cpu + 3 * p);
    }
    printf("       4 bodies on pixel edges: %d of the %d CPU pixels lit differently (%s)\n", differ, nlit,
           want_sprites ? "GL's point rules: not required to be 0" : "must be 0");
    NB_ASSERT_EQ("bodies in the CPU frame", nlit, 4);
    if (!want_sprites) NB_ASSERT_EQ("pixels lit in one frame and not the other (bodies on pixel edges)", differ, 0);
    free(gl);
    free(cpu);
    nb_state_free(&s);

    /* 1e20: pixels of mass 1, 3 and 10 next to a body of 1e-20 */
    nb_render_view ve = { 0.0, 0.0, 1.0, -1.0, 2.0, S };
    far_state(&s, 6, 1e-20f);
    const int cols[5] = { 10, 30, 30, 30, 50 };
    const float ms[5] = { 1.0f, 1.0f, 1.0f, 1.0f, 10.0f };
    for (int b = 0; b < 5; b++) {
        s.m[b] = ms[b];
        s.x[b] = (float)(-1.0 + (cols[b] + 0.5) / 32.0);
        s.y[b] = (float)(1.0 - 20.5 / 32.0);
    }
    sc = scene_of(&s, &ve);
    gl = gl_frame(&s, &sc, NULL, -1, S, S);
    const double mass[3] = { 1.0, 3.0, 10.0 };
    const int at[3] = { 10, 30, 50 };
    for (int j = 0; j < 3; j++) {
        const unsigned char *p = gl + 3 * ((size_t)20 * S + at[j]);
        int got = density_level(p), want = level_of_mass(&ve, mass[j]);
        NB_ASSERT(got >= 0 && abs(got - want) <= 1, "lightest mass 1e-20: the pixel of mass %g is level %d, "
                  "expected %d", mass[j], got, want);
    }
    free(gl);
    nb_state_free(&s);
}

/* An image whose sums do not fit the largest storage buffer this GL lets a
 * shader read (Mesa: 128 MiB, 8 bytes a pixel: past about 4096 x 4096)
 * is drawn with the sprites, and the renderer says so and why; one that
 * fits keeps the compute form.  Either way the bodies are on their pixels. */
static void t_storage_limit(void)
{
    gl_up();
    GLint64 max = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &max);
    const int S = 4200;                         /* 8 S^2 = 141 MB */
    nb_render_view v = { 0.0, 0.0, 1.0, -4.0, 0.0, S };
    nb_state s;
    far_state(&s, 2, 1e-3f);
    const double w = 2.0 / S;
    const int cols[2] = { 100, 4000 }, rows[2] = { 3000, 17 };
    for (int b = 0; b < 2; b++) {
        s.x[b] = (float)(-1.0 + (cols[b] + 0.5) * w);
        s.y[b] = (float)(1.0 - (rows[b] + 0.5) * w);
    }
    nb_gl_scene sc = scene_of(&s, &v);
    nb_gl *g = gl_new(s.n);
    CU_ASSERT_EQUAL_FATAL(nb_gl_bodies_host(g, &s), 0);
    unsigned char *rgb = malloc((size_t)S * S * 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rgb);
    NB_ASSERT_OK_FATAL("nb_gl_draw", nb_gl_draw(g, NB_GL_OFFSCREEN, S, S, &sc));
    NB_ASSERT_OK_FATAL("nb_gl_read", nb_gl_read(g, NB_GL_OFFSCREEN, S, S, rgb));
    const char *how = nb_gl_bodies_how(g);
    int over = 8.0 * S * S > (double)max, sprites = strstr(how, "sprites") != NULL;
    printf("       %dx%d: sums of %.0f MiB, this GL's limit %.0f MiB: %s\n", S, S, 8.0 * S * S / 1048576.0,
           (double)max / 1048576.0, how);
    NB_ASSERT(sprites == (over || want_sprites), "%dx%d image, sums %s the %lld-byte limit: the bodies "
              "are %s", S, S, over ? "past" : "within", (long long)max, how);
    if (over && !want_sprites) NB_ASSERT(strstr(how, "limit") != NULL, "the report does not say why: %s", how);
    int nlit = 0, on = 0;
    for (size_t p = 0; p < (size_t)S * S; p++) nlit += lit(rgb + 3 * p);
    for (int b = 0; b < 2; b++) on += lit(rgb + 3 * ((size_t)rows[b] * S + cols[b]));
    NB_ASSERT(nlit == 2 && on == 2, "%d pixels lit, %d of the 2 bodies' pixels", nlit, on);
    nb_gl_destroy(g);
    free(rgb);
    nb_state_free(&s);
}

/* The line pixels of the test tree (root [-1, 1]^3, its 8 children) in
 * [-1.25, 1.25]^2 at 100 pixels (w = 1/40: cube edges on pixel
 * boundaries), seen from +z: the 3 boundaries x = -1, 0, 1 (and y) map to
 * the columns 10 (left edge of the root and of the left children), 49 and
 * 50 (right edge of the left children, left edge of the right ones) and 89
 * (right edge of the root): every lit pixel is on one of these lines within
 * the root's square, and every pixel of these lines but their last at each
 * end is lit.  At depth 0 only the root's square is drawn. */
static void t_tree_lines(void)
{
    const int S = 100;
    nb_render_view v = { 0.0, 0.0, 1.25, -4.0, 0.0, S };
    nb_state s;
    far_state(&s, 1, 1e-3f);
    run r;
    run_open(&r, "plummer", 10, 0);
    nb_cells c;
    CU_ASSERT_EQUAL_FATAL(fake_step.cells(r.ctx, &c), 0);
    nb_gl_scene sc = scene_of(&s, &v);
    sc.tree = 1;
    for (int depth = 1; depth >= 0; depth--) {
        unsigned char *rgb = gl_frame(&s, &sc, &c, depth, S, S);
        const int lines1[] = { 10, 49, 50, 89 }, lines0[] = { 10, 89 };
        const int *L = depth ? lines1 : lines0, nl = depth ? 4 : 2;
        int stray = 0, missing = 0;
        for (int row = 0; row < S; row++)
            for (int col = 0; col < S; col++) {
                int on_col = 0, on_row = 0;
                for (int k = 0; k < nl; k++) { on_col |= col == L[k]; on_row |= row == L[k]; }
                int inside = col >= 10 && col <= 89 && row >= 10 && row <= 89;
                int want = inside && (on_col || on_row);
                int ends = (on_col && (row <= 11 || row >= 88)) || (on_row && (col <= 11 || col >= 88));
                int is = lit(rgb + 3 * ((size_t)row * S + col));
                if (is && !want) stray++;
                if (!is && want && !ends) missing++;
            }
        printf("       depth %d: %d stray line pixels, %d missing\n", depth, stray, missing);
        NB_ASSERT(stray == 0, "depth %d: %d lit pixels off the cells' boundaries", depth, stray);
        NB_ASSERT(missing == 0, "depth %d: %d pixels of the cells' boundaries not drawn", depth, missing);
        free(rgb);
    }
    run_close(&r);
    nb_state_free(&s);
}

/* Colours follow the legend: isolated bodies of masses 1e-5 .. 1e-2 in the
 * mass mode; each body's centre pixel is read back, its brightness undone
 * (its level on the log scale, known from its mass), and the legend bar of
 * the same frame is searched for that colour: the column found gives back
 * log10 of the body's mass within one column.  The density mode likewise
 * gives back the pixel's mass. */
static void t_colours_follow_legend(void)
{
    const int S = 400;
    nb_render_view v = { 0.0, 0.0, 1.0, -6.0, -1.0, S };
    const float masses[] = { 1e-5f, 1e-4f, 1e-3f, 1e-2f, 3e-4f, 3e-3f };
    const int nb = 6;
    nb_state s;
    far_state(&s, nb, 1e-3f);
    const double w = 2.0 / S;
    for (int b = 0; b < nb; b++) {
        s.m[b] = masses[b];
        s.x[b] = (float)(-1.0 + (60 + 55 * b + 0.5) * w);
        s.y[b] = (float)(1.0 - (150 + 0.5) * w);
    }
    for (int mode = NB_COLOUR_DENSITY; mode <= NB_COLOUR_MASS; mode++) {
        nb_gl_scene sc = scene_of(&s, &v);
        sc.mode = mode;
        nb_facts f = { "viewtest", 0, 0.0, nb, w, mode, sc.lo[mode], sc.hi[mode], NULL };
        sc.facts = &f;
        unsigned char *rgb = gl_frame(&s, &sc, NULL, -1, S, S);
        int lx, ll, ly0, ly1;
        nb_annot_legend(S, S, &lx, &ll, &ly0, &ly1);
        const unsigned char *bar = rgb + 3 * ((size_t)((ly0 + ly1) / 2) * S);
        for (int b = 0; b < nb; b++) {
            int col = 60 + 55 * b, row = 150;
            const unsigned char *p = rgb + 3 * ((size_t)row * S + col);
            double lm = log10(masses[b]);
            double level = floor((lm - v.log_lo) * 255.0 / (v.log_hi - v.log_lo) + 0.5);
            double dim = mode == NB_COLOUR_DENSITY ? 1.0 : 0.4 + 0.6 * level / 255.0;
            int best = -1;
            double bestd = 1e9;
            for (int i = 0; i < ll; i++) {
                const unsigned char *q = bar + 3 * (lx + i);
                double d = 0;
                for (int k = 0; k < 3; k++) d += fabs(q[k] * dim - p[k]);
                if (d < bestd) { bestd = d; best = i; }
            }
            double got = sc.lo[mode] + (sc.hi[mode] - sc.lo[mode]) * best / (ll - 1.0);
            double one = (sc.hi[mode] - sc.lo[mode]) / (ll - 1.0);
            NB_ASSERT(fabs(got - lm) <= 1.5 * one + 1e-9 && bestd <= 9,
                      "%s mode, body of mass %.1e: its colour %d %d %d reads %.3f on the legend "
                      "(distance %.1f), log10 m = %.3f (one legend column: %.3f)",
                      mode ? "mass" : "density", masses[b], p[0], p[1], p[2], got, bestd, lm, one);
        }
        free(rgb);
    }
    nb_state_free(&s);
}

/* The facts are the same pixels whoever draws them: a CPU frame with its
 * rectangles filled and a GL frame of no bodies agree on every pixel; the
 * text is there (white pixels top left) and the scale bar is as long as
 * nb_annot_scale says, in the frame's own length units. */
static void t_facts(void)
{
    const int S = 320;
    nb_state s;
    far_state(&s, 1, 1e-3f);
    nb_render_view v = { 0.0, 0.0, 2.5, -4.0, 0.0, S };
    nb_facts f = { "viewtest", 1234, 1.234, 1, 2.0 * v.half / S, NB_COLOUR_DENSITY, -4.0, 0.0, NULL };
    nb_gl_scene sc = scene_of(&s, &v);
    sc.facts = &f;
    unsigned char *gl = gl_frame(&s, &sc, NULL, -1, S, S), *cpu = calloc((size_t)S * S * 3, 1);
    nb_annot a = { NULL, 0, 0 };
    CU_ASSERT_EQUAL_FATAL(nb_annot_build(&a, S, S, &f), 0);
    nb_annot_fill(&a, cpu, S, S);
    int differ = 0, text = 0;
    for (int p = 0; p < S * S; p++) differ += memcmp(gl + 3 * p, cpu + 3 * p, 3) != 0;
    for (int r = 0; r < 20; r++)
        for (int c = 0; c < S / 2; c++) text += gl[3 * (r * S + c)] == 240;
    int px;
    double len = nb_annot_scale(S, f.unit_px, &px);
    int bar = 0, row = S - 11;                      /* the bar's rows: S - 12, S - 11 */
    for (int c = 0; c < S / 2; c++) bar += gl[3 * (row * S + c)] == 240;   /* left: the legend is right */
    printf("       %d rectangles, %d pixels differ, %d text pixels; scale bar %g = %d px, %d drawn\n",
           a.n, differ, text, len, px, bar);
    NB_ASSERT_EQ("pixels where the GL and the CPU facts differ", differ, 0);
    if (nb_annot_has_text()) NB_ASSERT(text > 100, "only %d white pixels in the text line", text);
    NB_ASSERT(len == 1.0 && px == 64, "scale bar: %g units in %d px; expected 1 unit = 64 px at "
              "%g units a pixel", len, px, f.unit_px);
    NB_ASSERT_EQ("the scale bar's pixels on its row", bar, px);
    nb_annot_free(&a);
    free(gl);
    free(cpu);
    nb_state_free(&s);
}

/* ---- a window under Xvfb -------------------------------------------------------------- */

static pid_t xvfb_pid;
static int xvfb_fd = -1;   /* the display number's pipe, open while the server runs: it may
                            * write the number again, and must not die of a closed pipe */

/* 1 if an X server answers on /tmp/.X11-unix/X<num>. */
static int x_answers(const char *num)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/tmp/.X11-unix/X%s", num);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0) close(fd);
    return ok;
}

/* One Xvfb of our own (killed with the test): its display number in num,
 * or 0 if it did not come up answering within 20 s. */
static int xvfb_start(char *num, size_t len)
{
    int fd[2];
    if (pipe(fd)) return 0;
    fflush(stdout);
    pid_t p = fork();
    if (p < 0) return 0;
    if (p == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        close(fd[0]);
        char fdtxt[16];
        snprintf(fdtxt, sizeof fdtxt, "%d", fd[1]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) { dup2(null, 1); dup2(null, 2); }
        execlp("Xvfb", "Xvfb", "-displayfd", fdtxt, "-screen", "0", "800x600x24", "-nolisten", "tcp", "-noreset", "-noreset",
               (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    xvfb_pid = p;
    struct pollfd pf = { fd[0], POLLIN, 0 };
    ssize_t got = 0;
    if (poll(&pf, 1, 20000) == 1) got = read(fd[0], num, len - 1);
    xvfb_fd = fd[0];
    num[got > 0 ? got : 0] = '\0';
    num[strcspn(num, "\n")] = '\0';
    for (int k = 0; got > 0 && k < 200; k++) {     /* it says it is ready: check */
        if (x_answers(num)) return 1;
        usleep(10000);
    }
    return 0;
}

static void xvfb_down(void);

/* An Xvfb of our own, DISPLAY pointing at it (three tries). */
static void xvfb_up(void)
{
    char num[32] = "";
    int ok = 0;
    for (int t = 0; t < 3 && !ok; t++) {
        ok = xvfb_start(num, sizeof num);
        if (!ok) {
            printf("       (Xvfb try %d: display '%s' did not answer)\n", t + 1, num);
            xvfb_down();
        }
    }
    NB_ASSERT_FATAL(ok, "Xvfb did not come up answering (3 tries)");
    char disp[40];
    snprintf(disp, sizeof disp, ":%s", num);
    setenv("DISPLAY", disp, 1);
    unsetenv("WAYLAND_DISPLAY");
    unsetenv("NB_VIEW_HEADLESS");
}

static void xvfb_down(void)
{
    if (xvfb_pid > 0) {
        kill(xvfb_pid, SIGTERM);
        waitpid(xvfb_pid, NULL, 0);
        xvfb_pid = 0;
    }
    if (xvfb_fd >= 0) close(xvfb_fd);
    xvfb_fd = -1;
}

/* The view of the test step in a window of S x S, with the events ev. */
static int window_run(run *r, int S, const char *ev, char *report, size_t len)
{
    static char size[32];
    snprintf(size, sizeof size, "%dx%d", S, S);
    r->o.view = 1;
    r->o.view_size = size;
    r->o.view_w = r->o.view_h = S;
    setenv("NB_VIEW_EVENTS", ev, 1);
    /* the view's own lines (its keys) into the test's output, not the runner's stderr */
    fflush(stdout);
    fflush(stderr);
    int saved = dup(2);
    if (saved >= 0) dup2(1, 2);
    int rc = nb_view_run(&r->sim, report, len);
    fflush(stderr);
    if (saved >= 0) { dup2(saved, 2); close(saved); }
    unsetenv("NB_VIEW_EVENTS");
    return rc;
}

/* space pauses before the first step, each '.' runs one, the waits in
 * between run none, 's' writes the screenshot of step 2, 'q' quits. */
static void t_window_keys(void)
{
    xvfb_up();
    const char *dir = tmp_dir(2);
    CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
    run r;
    run_open(&r, "plummer", 2000, 1000);
    char report[2048];
    int rc = window_run(&r, 200, "space . wait:3 . wait:3 s q", report, sizeof report);
    NB_ASSERT_OK_FATAL("the view", rc);
    printf("%s", report);
    NB_ASSERT_EQ("steps run: paused, then two single steps", r.sim.done, 2);
    NB_ASSERT(strstr(report, "(window, 200x200)") && strstr(report, "(quit)"),
              "the report does not say it quit a 200x200 window: %.300s", report);
    NB_ASSERT(access("nbody_viewtest_000002.png", R_OK) == 0, "no screenshot nbody_viewtest_000002.png");
    /* running without a pause: one step a turn until 'q' */
    run_close(&r);
    run_open(&r, "plummer", 2000, 1000);
    rc = window_run(&r, 200, "wait:4 q", report, sizeof report);
    NB_ASSERT_OK("the view", rc);
    NB_ASSERT_EQ("steps run: one a turn for the 5 turns before q", r.sim.done, 5);
    run_close(&r);
    xvfb_down();
    rm_dir(dir);
}

/* The screenshot key's PNG is the frame the headless renderer draws of the
 * same step and size: the same pixels (both Mesa here), facts included. */
static void t_window_screenshot(void)
{
    xvfb_up();
    const char *dir = tmp_dir(3);
    CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
    const int S = 256;
    run r;
    run_open(&r, "collision", 3000, 1000);
    nb_state s0;
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&s0, &r.st), 0);
    char report[2048];
    NB_ASSERT_OK_FATAL("the view", window_run(&r, S, "space . . . s q", report, sizeof report));
    NB_ASSERT_EQ("steps", r.sim.done, 3);
    int w = 0, h = 0;
    unsigned char *shot = nb_png_read("nbody_viewtest_000003.png", &w, &h);
    NB_ASSERT_FATAL(shot != NULL, "the screenshot nbody_viewtest_000003.png does not decode");
    NB_ASSERT_FATAL(w == S && h == S, "screenshot %dx%d, expected %dx%d", w, h, S, S);
    /* the headless frame of step 3, as --render draws it */
    nb_render_view v;
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&v, &s0, S, NULL), 0);
    nb_gl_scene sc = scene_of(&s0, &v);
    CU_ASSERT_EQUAL_FATAL(fake_step.download(r.ctx, &r.st), 0);
    nb_facts f;
    nb_view_facts(&f, &r.sim, &v, S);
    sc.facts = &f;
    unsigned char *ref = gl_frame(&r.st, &sc, NULL, -1, S, S);
    int differ = 0, nlit = 0;
    for (int p = 0; p < S * S; p++) {
        differ += memcmp(shot + 3 * p, ref + 3 * p, 3) != 0;
        nlit += lit(ref + 3 * p);
    }
    printf("       %d lit pixels, %d differ\n", nlit, differ);
    NB_ASSERT(nlit > 1000, "the headless frame has only %d lit pixels", nlit);
    NB_ASSERT_EQ("pixels where the screenshot and the headless frame differ", differ, 0);
    free(shot);
    free(ref);
    nb_state_free(&s0);
    run_close(&r);
    xvfb_down();
    rm_dir(dir);
}

/* The window manager closes the window mid-run: the run stops there. */
static void t_window_closed(void)
{
    xvfb_up();
    run r;
    run_open(&r, "plummer", 500, 1000);
    char report[2048];
    NB_ASSERT_OK_FATAL("the view", window_run(&r, 128, "wait:2 close", report, sizeof report));
    NB_ASSERT(r.sim.done >= 1 && r.sim.done < 1000, "steps run before the close: %lld",
              (long long)r.sim.done);
    NB_ASSERT(strstr(report, "(window closed)") != NULL, "the report does not say the window "
              "was closed: %.300s", report);
    run_close(&r);
    xvfb_down();
}
/* No events: the view runs its 5 steps and ends by itself once their last
 * frame is drawn (exit 0, "all steps done"); the keys' line is on stderr,
 * once, alone. */
static void t_window_ends_after_steps(void)
{
    xvfb_up();
    const char *dir = tmp_dir(2);
    char errpath[600];
    snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
    run r;
    run_open(&r, "plummer", 500, 5);
    static char size[32] = "128x128";
    r.o.view = 1;
    r.o.view_size = size;
    r.o.view_w = r.o.view_h = 128;
    unsetenv("NB_VIEW_EVENTS");
    fflush(stderr);
    int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    NB_ASSERT_FATAL(saved >= 0 && fd >= 0, "cannot redirect stderr to %s", errpath);
    dup2(fd, 2);
    close(fd);
    char report[2048];
    int rc = nb_view_run(&r.sim, report, sizeof report);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    NB_ASSERT_OK("the view", rc);
    printf("%s", report);
    NB_ASSERT_EQ("steps run", r.sim.done, 5);
    NB_ASSERT(strstr(report, "stopped at step 5 of 5 (all steps done)") && strstr(report, "(window, 128x128)"),
              "the report does not say the window ended after its 5 steps: %.300s", report);
    FILE *f = fopen(errpath, "r");
    NB_ASSERT_FATAL(f != NULL, "no %s", errpath);
    char line[1024];
    int lines = 0, keys = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (!strncmp(line, "view keys: ", 11)) {
            keys++;
            NB_ASSERT(strstr(line, "q or Esc quit") && strstr(line, "space pause") && strstr(line, "--view-hold"),
                      "the keys' line: %s", line);
            printf("       stderr: %s", line);
        }
    }
    fclose(f);
    NB_ASSERT_EQ("keys' lines on stderr", keys, 1);
    NB_ASSERT_EQ("lines on stderr", lines, 1);
    run_close(&r);
    xvfb_down();
    rm_dir(dir);
}

/* --view-hold: the steps done and the events run out (3 steps, then a
 * screenshot), the window stays open; the run ends only when told (here
 * SIGTERM, which stops it as q does), at step 3 of 3.  In a child: the
 * test waits for the screenshot of step 3 (no clock), then signals. */
static void t_window_hold(void)
{
    xvfb_up();
    const char *dir = tmp_dir(3);
    CU_ASSERT_EQUAL_FATAL(chdir(dir), 0);
    int fd[2];
    NB_ASSERT_FATAL(pipe(fd) == 0, "pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    NB_ASSERT_FATAL(p >= 0, "fork");
    if (p == 0) {
        close(fd[0]);
        run r;
        run_open(&r, "plummer", 500, 3);
        r.o.view_hold = 1;
        char report[2048] = "";
        int rc = window_run(&r, 128, "wait:10 s", report, sizeof report);
        if (write(fd[1], report, strlen(report)) < 0) _exit(3);
        _exit(rc ? 2 : 0);
    }
    close(fd[1]);
    int st = 0, alive = 1;
    while (access("nbody_viewtest_000003.png", F_OK) != 0 && (alive = waitpid(p, &st, WNOHANG) == 0))
        usleep(20000);
    NB_ASSERT(alive, "the view ended before its screenshot of step 3");
    usleep(200000);                                 /* (a view that did not hold has ended by now) */
    alive = alive && waitpid(p, &st, WNOHANG) == 0;
    if (alive) kill(p, SIGTERM);
    static char report[4096];
    ssize_t n, got = 0;
    while ((n = read(fd[0], report + got, sizeof report - 1 - got)) > 0) got += n;
    report[got] = '\0';
    close(fd[0]);
    if (alive) waitpid(p, &st, 0);
    printf("%s", report);
    NB_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the view's child: status %d", st);
    NB_ASSERT(alive && strstr(report, "stopped at step 3 of 3 (interrupted: SIGTERM)"),
              "the window did not stay open after its steps and events: %.300s", report);
    xvfb_down();
    rm_dir(dir);
}
#else /* no OpenGL in this build: the suites that need it are skipped */
static void t_sums_exact(void) {}
static void t_storage_limit(void) {}
static void t_edges_extremes(void) {}
static void t_two_bodies(void) {}
static void t_gl_is_cpu_splatter(void) {}
static void t_tree_lines(void) {}
static void t_colours_follow_legend(void) {}
static void t_facts(void) {}
static void t_window_keys(void) {}
static void t_window_screenshot(void) {}
static void t_window_closed(void) {}
static void t_window_ends_after_steps(void) {}
static void t_window_hold(void) {}
#endif /* NB_HAVE_GL */

/* No display: refused before anything runs, naming --render DIR; a display
 * that does not answer: refused when the window cannot open. */
static void t_no_display(void)
{
    nb_options o;
    nb_options_default(&o);
    o.view = 1;
    unsetenv("DISPLAY");
    unsetenv("WAYLAND_DISPLAY");
    unsetenv("NB_VIEW_HEADLESS");
    nb_clear_error();
    NB_ASSERT_EQ("nb_view_usable without a display", nb_view_usable(&o), NB_EXIT_USAGE);
    NB_ASSERT(strstr(nb_errmsg(), "--render DIR") != NULL, "the message does not suggest --render "
              "DIR: %s", nb_errmsg());
    /* --view-hold is --view (that stays open): refused the same way */
    char *hv[] = { "nbody", "--view-hold", NULL };
    nb_options oh;
    NB_ASSERT_EQ("--view-hold parses", nb_parse_options(2, hv, 0, "nbody", &oh), 0);
    NB_ASSERT(oh.view && oh.view_hold, "--view-hold does not ask for the view");
    nb_clear_error();
    NB_ASSERT_EQ("nb_view_usable(--view-hold) without a display", nb_view_usable(&oh), NB_EXIT_USAGE);
    NB_ASSERT(strstr(nb_errmsg(), "--render DIR") != NULL, "--view-hold: the message does not suggest "
              "--render DIR: %s", nb_errmsg());
#ifdef NB_HAVE_GLFW
    setenv("DISPLAY", ":9999", 1);                  /* no server there */
    run r;
    run_open(&r, "plummer", 100, 10);
    r.o.view = 1;
    nb_clear_error();
    NB_ASSERT_EQ("nb_view_run on a display that does not answer", nb_view_run(&r.sim, NULL, 0),
                 NB_EXIT_USAGE);
    NB_ASSERT(strstr(nb_errmsg(), "--render DIR") != NULL, "the message does not suggest --render "
              "DIR: %s", nb_errmsg());
    NB_ASSERT_EQ("steps run", r.sim.done, 0);
    run_close(&r);
    unsetenv("DISPLAY");
#endif
}

/* ---- registration -------------------------------------------------------------- */

#ifdef NB_HAVE_GL
/* A headless context can be made (tried in a child: the runner itself
 * never touches GL); NULL, or why not. */
static const char *gl_skip(void)
{
    static char why[600];
    int fd[2];
    if (pipe(fd)) return "pipe failed";
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        close(fd[0]);
        nb_egl *e = NULL;
        int rc = nb_egl_open(&e);
        if (rc && write(fd[1], nb_errmsg(), strlen(nb_errmsg())) < 0) _exit(2);
        _exit(rc ? 1 : 0);
    }
    close(fd[1]);
    ssize_t n = p > 0 ? read(fd[0], why, sizeof why - 1) : -1;
    close(fd[0]);
    int st = 0;
    if (p > 0) waitpid(p, &st, 0);
    if (p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) return NULL;
    why[n > 0 ? n : 0] = '\0';
    static char msg[700];
    snprintf(msg, sizeof msg, "no headless GL context here: %s", n > 0 ? why : "the probe crashed");
    return msg;
}

static const char *xvfb_skip(void)
{
    const char *path = getenv("PATH");
    char buf[600];
    for (const char *p = path ? path : "/usr/bin"; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/Xvfb", (int)len, p);
        if (access(buf, X_OK) == 0) return NULL;
        p += len + (p[len] == ':');
    }
    return "Xvfb not found (apt-get install xvfb)";
}
#endif

void nb_suite_view_register(void)
{
    static const nb_test gl_tests[] = {
        { "two_bodies_on_their_pixels", t_two_bodies, 2 },
        { "gl_frame_is_cpu_splatter", t_gl_is_cpu_splatter, 2 },
        { "tree_lines_on_cell_boundaries", t_tree_lines, 2 },
        { "colours_follow_the_legend", t_colours_follow_legend, 2 },
        { "facts_same_pixels_gl_and_cpu", t_facts, 1 },
        { "sums_exact_past_32_bits_any_order", t_sums_exact, 1 },
        { "image_past_storage_limit_drawn", t_storage_limit, 1 },
        { "bodies_on_pixel_edges_and_extreme_masses", t_edges_extremes, 1 },
        NB_TEST_END
    };
    static const nb_test window_tests[] = {
        { "keys_pause_step_quit", t_window_keys, 2 },
        { "screenshot_is_headless_frame", t_window_screenshot, 2 },
        { "window_closed_stops_run", t_window_closed, 1 },
        { "ends_after_last_step_keys_once", t_window_ends_after_steps, 1 },
        { "view_hold_keeps_window_open", t_window_hold, 1 },
        { "no_display_refused", t_no_display, 1 },
        NB_TEST_END
    };
    static const nb_test writer_tests[] = {
        { "writer_drops_never_blocks", t_writer_never_blocks, 1 },
        { "writer_error_reported", t_writer_error, 1 },
        NB_TEST_END
    };
    nb_grade_suite("frame writer", writer_tests, NULL);
#ifdef NB_HAVE_GL
    const char *skip = gl_skip();
    nb_grade_suite_setup("view", gl_tests, skip, form_sums);
    nb_grade_suite_setup("view sprites", gl_tests, skip, form_sprites);
#ifdef NB_HAVE_GLFW
    nb_grade_suite_setup("view window", window_tests, skip ? skip : xvfb_skip(), form_sums);
#else
    nb_grade_suite("view window", window_tests, "built without GLFW (install libglfw3-dev)");
#endif
#else
    nb_grade_suite("view", gl_tests, "built without OpenGL (common/view/gl.mk: install libegl-dev "
                   "libopengl-dev libstb-dev)");
    nb_grade_suite("view sprites", gl_tests, "built without OpenGL (common/view/gl.mk: install libegl-dev "
                   "libopengl-dev libstb-dev)");
    nb_grade_suite("view window", window_tests, "built without OpenGL (common/view/gl.mk: install "
                   "libegl-dev libopengl-dev libglfw3-dev libstb-dev)");
#endif
}
