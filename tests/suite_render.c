/* suite_render.c -- PNG frames (--render).
 *
 * The frame decodes with libpng and has the expected size and name; the
 * density of known configurations lands in the expected pixels (one body
 * lights exactly the pixel that holds it, heavier pixels are brighter, +y is
 * up); the view is centred on the centre of mass and holds the bodies; the
 * tree overlay draws exactly the expected rows and columns, clipped at the
 * border; a directory that cannot be created or written is exit 3. */
#include <math.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nb_error.h"
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_render.h"
#include "nb_state.h"
#include "nb_testutil.h"

static const char *rd_path(int slot, const char *suffix)
{
    static char buf[4][256];
    const char *dir = getenv("TMPDIR");
    snprintf(buf[slot & 3], sizeof buf[0], "%s/nb_render_%ld_%d%s",
             dir && *dir ? dir : "/tmp", (long)getpid(), slot, suffix);
    return buf[slot & 3];
}

/* Decode a PNG as 8-bit RGB with libpng; NULL if it does not decode. */
static unsigned char *rd_png(const char *path, int *w, int *h) { return nb_png_read(path, w, h); }

/* A fixed view: [-1, 1]^2 in 'size' pixels, colour scale 1e-4 .. 1. */
static nb_render_view rd_view(int size)
{
    nb_render_view v = { 0.0, 0.0, 1.0, -4.0, 0.0, size };
    return v;
}

/* A state of n bodies far outside any view (to be placed by the test). */
static void rd_state(nb_state *s, int64_t n)
{
    CU_ASSERT_EQUAL_FATAL(nb_state_alloc(s, n), 0);
    for (int64_t i = 0; i < n; i++) {
        s->m[i] = 1e-3f;
        s->x[i] = s->y[i] = s->z[i] = 1e3f;
        s->vx[i] = s->vy[i] = s->vz[i] = 0.0f;
    }
}

static void t_png_decodes(void)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 2001, 606, &s), 0);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/a/b", rd_path(0, ".d"));  /* parents created too */
    nb_render_view v;
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&v, &s, 97, dir), 0);
    CU_ASSERT_EQUAL(v.size, 97);
    CU_ASSERT_EQUAL_FATAL(nb_render_frame(&v, dir, 7, &s, NULL), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/frame_000007.png", dir);
    int w = 0, h = 0;
    unsigned char *rgb = rd_png(path, &w, &h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rgb);
    CU_ASSERT_EQUAL(w, 97);
    CU_ASSERT_EQUAL(h, 97);
    /* The frame is the density coloured: lit pixels exactly where the
     * density image is non-zero, and a bright centre. */
    unsigned char *lev = malloc(97 * 97);
    CU_ASSERT_EQUAL_FATAL(nb_render_density(&v, &s, lev), 0);
    int mismatch = 0, lit = 0;
    for (int p = 0; p < 97 * 97; p++) {
        int on = rgb[3 * p] | rgb[3 * p + 1] | rgb[3 * p + 2];
        mismatch += (on != 0) != (lev[p] != 0);
        lit += lev[p] != 0;
    }
    CU_ASSERT_EQUAL(mismatch, 0);
    CU_ASSERT(lit > 500);
    CU_ASSERT(lev[48 * 97 + 48] > 128);
    free(lev);
    free(rgb);
    nb_state_free(&s);
    remove(path);
    rmdir(dir);                         /* .../a/b, .../a, ... */
    *strrchr(dir, '/') = '\0';
    rmdir(dir);
    rmdir(rd_path(0, ".d"));
}

static void t_single_body_pixel(void)
{
    nb_render_view v = rd_view(10);     /* pixel width 0.2 */
    nb_state s;
    rd_state(&s, 3);
    s.x[0] = 0.35f;  s.y[0] = 0.55f;    /* column floor(1.35/0.2) = 6, row floor(0.45/0.2) = 2 */
    unsigned char img[100];
    memset(img, 0xA5, sizeof img);
    CU_ASSERT_EQUAL_FATAL(nb_render_density(&v, &s, img), 0);
    int others = 0;
    for (int p = 0; p < 100; p++)
        if (p != 2 * 10 + 6) others += img[p] != 0;
    CU_ASSERT_EQUAL(others, 0);
    /* log10(1e-3) = -3 on a -4..0 scale: a quarter of the way up. */
    CU_ASSERT(img[26] >= 63 && img[26] <= 65);
    /* +y is up: mirror the body to y < 0, it moves to row 7. */
    s.y[0] = -0.55f;
    CU_ASSERT_EQUAL_FATAL(nb_render_density(&v, &s, img), 0);
    CU_ASSERT_EQUAL(img[26], 0);
    CU_ASSERT(img[7 * 10 + 6] != 0);
    nb_state_free(&s);
}

static void t_brightness_order(void)
{
    nb_render_view v = rd_view(16);     /* pixel width 0.125 */
    nb_state s;
    rd_state(&s, 5);
    s.m[0] = 0.1f;  s.x[0] = -0.6f; s.y[0] = 0.3f;    /* col 3, row 5 */
    s.m[1] = 0.01f; s.x[1] = 0.6f;  s.y[1] = -0.3f;   /* col 12, row 10 */
    /* Two bodies of 0.01 in one pixel (col 8, row 8) outshine one of 0.01. */
    s.m[2] = 0.01f; s.x[2] = 0.01f; s.y[2] = -0.01f;
    s.m[3] = 0.01f; s.x[3] = 0.02f; s.y[3] = -0.02f;
    unsigned char img[256];
    CU_ASSERT_EQUAL_FATAL(nb_render_density(&v, &s, img), 0);
    int a = img[5 * 16 + 3], b = img[10 * 16 + 12], c = img[8 * 16 + 8];
    CU_ASSERT(a > c);
    CU_ASSERT(c > b);
    CU_ASSERT(b > 0);
    int lit = 0;
    for (int p = 0; p < 256; p++) lit += img[p] != 0;
    CU_ASSERT_EQUAL(lit, 3);
    /* A body lighter than the bottom of the scale is still visible. */
    s.m[4] = 1e-9f; s.x[4] = -0.9f; s.y[4] = -0.9f;   /* col 0, row 15 */
    CU_ASSERT_EQUAL_FATAL(nb_render_density(&v, &s, img), 0);
    CU_ASSERT_EQUAL(img[15 * 16 + 0], 1);
    nb_state_free(&s);
}

static void t_view_setup(void)
{
    /* A Plummer sphere moved to (5, -3): the view is centred there and holds
     * ~99% of the bodies; the brightest pixels are at the centre. */
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 3001, 99, &s), 0);
    for (int64_t i = 0; i < s.n; i++) { s.x[i] += 5.0f; s.y[i] -= 3.0f; }
    nb_render_view v;
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&v, &s, 64, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(v.cx, 5.0, 1e-3);
    CU_ASSERT_DOUBLE_EQUAL(v.cy, -3.0, 1e-3);
    CU_ASSERT(v.half > 1.0 && v.half < 20.0);
    CU_ASSERT(v.log_hi > v.log_lo);
    int64_t in = 0;
    for (int64_t i = 0; i < s.n; i++)
        in += fabs(s.x[i] - v.cx) < v.half && fabs(s.y[i] - v.cy) < v.half;
    CU_ASSERT(in >= (int64_t)(0.99 * s.n));
    /* One body: a view of half width 1 around it. */
    nb_state one;
    rd_state(&one, 1);
    one.x[0] = 2.5f; one.y[0] = 1.5f;
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&v, &one, 33, NULL), 0);
    CU_ASSERT_DOUBLE_EQUAL(v.cx, 2.5, 1e-6);
    CU_ASSERT(v.half > 0.0);
    unsigned char img[33 * 33];
    CU_ASSERT_EQUAL_FATAL(nb_render_density(&v, &one, img), 0);
    CU_ASSERT(img[16 * 33 + 16] > 0);
    nb_state_free(&one);
    nb_state_free(&s);
}

/* Render an empty frame (20 px, pixel width 0.1) with the given cells and
 * return the decoded RGB (caller frees). */
static unsigned char *rd_overlay(const float *cx, const float *cy, const float *half, int count)
{
    nb_render_view v = rd_view(20);
    nb_state s;
    rd_state(&s, 1);                    /* off the image: a black frame */
    const char *dir = rd_path(1, ".d");
    nb_cells cells = { count, cx, cy, cy, half, 0, 0 };
    nb_render_view made;                /* only to create the directory */
    int rc = nb_render_setup(&made, &s, 20, dir);
    CU_ASSERT_EQUAL(rc, 0);
    rc = nb_render_frame(&v, dir, 0, &s, &cells);
    CU_ASSERT_EQUAL(rc, 0);
    nb_state_free(&s);
    char path[1100];
    snprintf(path, sizeof path, "%s/frame_000000.png", dir);
    int w = 0, h = 0;
    unsigned char *rgb = rd_png(path, &w, &h);
    CU_ASSERT_EQUAL(w, 20);
    remove(path);
    rmdir(dir);
    return rgb;
}

static void t_overlay_rows_columns(void)
{
    /* A cell [-0.45, 0.55]^2: columns 5..15, rows 4 (top, y = 0.55) to 14. */
    const float cx[1] = { 0.05f }, cy[1] = { 0.05f }, half[1] = { 0.5f };
    unsigned char *rgb = rd_overlay(cx, cy, half, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rgb);
    int wrong = 0, drawn = 0;
    for (int r = 0; r < 20; r++)
        for (int c = 0; c < 20; c++) {
            int in_box = r >= 4 && r <= 14 && c >= 5 && c <= 15;
            int edge = in_box && (r == 4 || r == 14 || c == 5 || c == 15);
            int on = rgb[3 * (r * 20 + c)] | rgb[3 * (r * 20 + c) + 1] | rgb[3 * (r * 20 + c) + 2];
            wrong += (on != 0) != edge;
            drawn += on != 0;
        }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(drawn, 40);
    free(rgb);
}

static void t_overlay_clipped(void)
{
    /* A cell crossing the right border ([0.65, 1.25] x [-0.25, 0.35]): top
     * row 6 and bottom row 12 from column 16 to the border, its left edge in
     * column 16, no right edge; a cell one pixel wide is not drawn; a cell
     * entirely off the image is not drawn. */
    const float cx[3] = { 0.95f, -0.33f, 5.0f }, cy[3] = { 0.05f, -0.33f, 5.0f };
    const float half[3] = { 0.3f, 0.04f, 1.0f };
    unsigned char *rgb = rd_overlay(cx, cy, half, 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rgb);
    int wrong = 0;
    for (int r = 0; r < 20; r++)
        for (int c = 0; c < 20; c++) {
            int edge = (c >= 16 && (r == 6 || r == 12)) || (c == 16 && r >= 6 && r <= 12);
            int on = rgb[3 * (r * 20 + c)] | rgb[3 * (r * 20 + c) + 1] | rgb[3 * (r * 20 + c) + 2];
            wrong += (on != 0) != edge;
        }
    CU_ASSERT_EQUAL(wrong, 0);
    free(rgb);
}

/* A frame that cannot be written (past the file size limit, as on a full
 * disk): exit 3 with the kit's one line and nothing else on stderr --
 * libpng's default handler printed "libpng error: Write Error" too -- and
 * no frame, whole or half, nor a temporary file left.  In a child, with
 * SIGXFSZ ignored as nb_main() does. */
static void t_frame_write_error(void)
{
    const char *dir = rd_path(3, ".d"), *errf = rd_path(4, ".err");
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        nb_state s;
        nb_render_view v;
        signal(SIGXFSZ, SIG_IGN);
        if (!freopen(errf, "w", stderr) || nb_ic_generate("cube", 100000, 3, &s) ||
            nb_render_setup(&v, &s, 512, dir))
            _exit(100);
        struct rlimit rl;
        getrlimit(RLIMIT_FSIZE, &rl);
        rl.rlim_cur = 1000;
        setrlimit(RLIMIT_FSIZE, &rl);
        int rc = nb_render_frame(&v, dir, 0, &s, NULL);
        if (rc) fprintf(stderr, "nbody: %s\n", nb_errmsg());      /* what nb_main() prints */
        fflush(stderr);
        _exit(rc);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    char text[600] = "";
    FILE *f = fopen(errf, "r");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[got] = '\0';
    if (f) fclose(f);
    int lines = 0;
    for (char *p = text; *p; p++) lines += *p == '\n';
    NB_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == NB_EXIT_RUNTIME, "a frame past the file size "
              "limit: status %d, want exit 3", st);
    NB_ASSERT(lines == 1 && strstr(text, "--render"), "a frame that cannot be written: %d stderr "
              "lines, want 1: '%.300s'", lines, text);
    int files = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) files += e->d_name[0] != '.' || strlen(e->d_name) > 2;
    if (d) closedir(d);
    NB_ASSERT(files == 0, "%d files left in the frame directory", files);
    remove(errf);
    rmdir(dir);
}

static void t_bad_dir(void)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("cube", 11, 3, &s), 0);
    /* A regular file where a parent directory should be. */
    const char *file = rd_path(2, ".file");
    FILE *f = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fclose(f);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/frames", file);
    nb_render_view v;
    nb_clear_error();
    CU_ASSERT_EQUAL(nb_render_setup(&v, &s, 32, dir), NB_EXIT_RUNTIME);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), dir));
    CU_ASSERT_EQUAL(nb_render_setup(&v, &s, 32, file), NB_EXIT_RUNTIME);   /* not a dir */
    /* A frame into a directory that does not exist. */
    CU_ASSERT_EQUAL_FATAL(nb_render_setup(&v, &s, 32, NULL), 0);
    nb_clear_error();
    CU_ASSERT_EQUAL(nb_render_frame(&v, "/nonexistent-nbody-dir", 0, &s, NULL), NB_EXIT_RUNTIME);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "/nonexistent-nbody-dir/frame_000000.png"));
    remove(file);
    nb_state_free(&s);
}

void nb_suite_render_register(void)
{
    static const nb_test tests[] = {
        { "png_decodes_size_and_name", t_png_decodes, 2 },
        { "one_body_one_pixel_y_up", t_single_body_pixel, 2 },
        { "heavier_pixels_brighter", t_brightness_order, 1 },
        { "view_on_centre_of_mass", t_view_setup, 1 },
        { "overlay_rows_and_columns", t_overlay_rows_columns, 2 },
        { "overlay_clipped_tiny_skipped", t_overlay_clipped, 1 },
        { "bad_dir_exit_3", t_bad_dir, 1 },
        { "frame_write_error_one_line_nothing_left", t_frame_write_error, 1 },
        NB_TEST_END
    };
    nb_grade_suite("render", tests, NULL);
}
