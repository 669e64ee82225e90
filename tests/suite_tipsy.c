/* suite_tipsy.c -- TIPSY reader/writer and the collision model.
 *
 * TIPSY: round trips of generated bodies in both byte orders (bit for bit),
 * a hand-written file mixing gas, dark and star particles in both byte
 * orders, detection, and refusals with exit 2 and a clear message: truncated
 * file, foreign file (text state file, random bytes, too short), header
 * counts that do not match the file size, ndim != 3.
 * Collision model: deterministic in (n, seed), total mass 1, centre of mass
 * at rest at the origin, two separated clumps approaching each other, small
 * n (1, 2, 3, 5). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nb_error.h"
#include "nb_grade.h"
#include "nb_testutil.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_state.h"

/* ---- helpers ------------------------------------------------------------ */

static const char *tp_path(int slot, const char *suffix)
{
    static char buf[4][256];
    const char *dir = getenv("TMPDIR");
    snprintf(buf[slot & 3], sizeof buf[0], "%s/nb_tipsy_%ld_%d%s",
             dir && *dir ? dir : "/tmp", (long)getpid(), slot, suffix);
    return buf[slot & 3];
}

static int64_t tp_file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fclose(f);
    return sz;
}

static int tp_write_bytes(const char *path, const void *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(b, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

static int same_state(const nb_state *a, const nb_state *b)
{
    if (a->n != b->n) return 0;
    size_t bytes = (size_t)a->n * sizeof(float);
    return !memcmp(a->m, b->m, bytes) && !memcmp(a->x, b->x, bytes) &&
           !memcmp(a->y, b->y, bytes) && !memcmp(a->z, b->z, bytes) &&
           !memcmp(a->vx, b->vx, bytes) && !memcmp(a->vy, b->vy, bytes) &&
           !memcmp(a->vz, b->vz, bytes);
}

/* A byte buffer being built in one byte order. */
typedef struct tp_buf { unsigned char b[4096]; size_t len; int big; } tp_buf;

static void tp_u32(tp_buf *t, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        t->b[t->len + k] = (unsigned char)(v >> (t->big ? 24 - 8 * k : 8 * k));
    t->len += 4;
}
static void tp_f32(tp_buf *t, float f) { uint32_t u; memcpy(&u, &f, 4); tp_u32(t, u); }
static void tp_f64(tp_buf *t, double d)
{
    uint64_t u; memcpy(&u, &d, 8);
    if (t->big) { tp_u32(t, (uint32_t)(u >> 32)); tp_u32(t, (uint32_t)u); }
    else        { tp_u32(t, (uint32_t)u); tp_u32(t, (uint32_t)(u >> 32)); }
}
static void tp_header(tp_buf *t, double time, int nbodies, int ndim, int nsph, int ndark, int nstar)
{
    tp_f64(t, time);
    tp_u32(t, (uint32_t)nbodies); tp_u32(t, (uint32_t)ndim); tp_u32(t, (uint32_t)nsph);
    tp_u32(t, (uint32_t)ndark);   tp_u32(t, (uint32_t)nstar); tp_u32(t, 0);
}

/* Particle k's value c (0 mass, 1-3 pos, 4-6 vel) in the hand-made files. */
static float tp_val(int k, int c)
{
    return c == 0 ? 0.01f * (float)(k + 1) : (float)(k + 1) * 1.25f - (float)c * 0.375f;
}

/* gas, dark, star counts; extra floats per kind after mass/pos/vel are junk. */
static void tp_make_mixed(tp_buf *t, int big, int nsph, int ndark, int nstar)
{
    memset(t, 0, sizeof *t);
    t->big = big;
    tp_header(t, 0.75, nsph + ndark + nstar, 3, nsph, ndark, nstar);
    int k = 0;
    const int extra[3] = { 5, 2, 4 };          /* gas: rho temp h metals phi; dark: eps phi; star */
    const int count[3] = { nsph, ndark, nstar };
    for (int kind = 0; kind < 3; kind++)
        for (int i = 0; i < count[kind]; i++, k++) {
            for (int c = 0; c < 7; c++) tp_f32(t, tp_val(k, c));
            for (int e = 0; e < extra[kind]; e++) tp_f32(t, 1e30f * (float)(e + 1));
        }
}

/* ---- TIPSY round trips --------------------------------------------------- */

static void roundtrip(int big)
{
    nb_state a, b;
    const int64_t n = 1237;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", n, 4242 + big, &a), 0);
    const char *path = tp_path(0, big ? "_be.bin" : "_le.bin");
    CU_ASSERT_EQUAL(nb_tipsy_write(path, &a, big), 0);
    CU_ASSERT_EQUAL(tp_file_size(path), 32 + 36 * n);
    CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 1);
    /* The header is in the byte order asked for: nbodies at offset 8. */
    unsigned char h[32];
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fread(h, 1, 32, f), 32u);
    fclose(f);
    uint32_t nb = big ? (uint32_t)h[8] << 24 | (uint32_t)h[9] << 16 | (uint32_t)h[10] << 8 | h[11]
                      : (uint32_t)h[11] << 24 | (uint32_t)h[10] << 16 | (uint32_t)h[9] << 8 | h[8];
    CU_ASSERT_EQUAL(nb, (uint32_t)n);
    memset(&b, 0, sizeof b);
    CU_ASSERT_EQUAL(nb_tipsy_read(path, &b), 0);
    CU_ASSERT_TRUE(same_state(&a, &b));
    /* And through --ic: detected by its header, and with the tipsy: prefix. */
    nb_state c;
    char pre[1100];
    snprintf(pre, sizeof pre, "tipsy:%s", path);
    CU_ASSERT_EQUAL(nb_ic_load(path, 0, 0, 1, &c), 0);
    CU_ASSERT_TRUE(same_state(&a, &c));
    nb_state_free(&c);
    CU_ASSERT_EQUAL(nb_ic_load(pre, 0, 0, 1, &c), 0);
    CU_ASSERT_TRUE(same_state(&a, &c));
    nb_state_free(&c);
    nb_state_free(&a);
    nb_state_free(&b);
    remove(path);
}
static void t_roundtrip_native(void) { roundtrip(0); }
static void t_roundtrip_big_endian(void) { roundtrip(1); }

/* ---- hand-made files: star + dark (+ gas) -------------------------------- */

static void mixed(int big, int nsph)
{
    tp_buf t;
    const int ndark = 3, nstar = 4, n = nsph + ndark + nstar;
    tp_make_mixed(&t, big, nsph, ndark, nstar);
    CU_ASSERT_EQUAL(t.len, (size_t)(32 + 48 * nsph + 36 * ndark + 44 * nstar));
    const char *path = tp_path(1, ".bin");
    CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, t.b, t.len), 0);
    CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 1);
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_tipsy_read(path, &s), 0);
    CU_ASSERT_EQUAL_FATAL(s.n, n);
    int bad = 0;
    for (int k = 0; k < n; k++) {
        const float got[7] = { s.m[k], s.x[k], s.y[k], s.z[k], s.vx[k], s.vy[k], s.vz[k] };
        for (int c = 0; c < 7; c++)
            if (got[c] != tp_val(k, c)) bad++;
    }
    CU_ASSERT_EQUAL(bad, 0);
    nb_state_free(&s);
    remove(path);
}
static void t_star_dark_native(void) { mixed(0, 0); }
static void t_star_dark_big_endian(void) { mixed(1, 0); }
static void t_gas_read_as_bodies(void) { mixed(0, 2); mixed(1, 2); }

/* ---- refusals ------------------------------------------------------------ */

/* Read must fail with exit 2 and a message containing 'what'. */
static void expect_refused(const char *path, const char *what)
{
    nb_state s;
    nb_clear_error();
    int rc = nb_tipsy_read(path, &s);
    CU_ASSERT_EQUAL(rc, NB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), what));
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), path));
    CU_ASSERT_PTR_NULL(strchr(nb_errmsg(), '\n'));
    if (rc == 0) nb_state_free(&s);
}

static void t_truncated(void)
{
    nb_state a;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("cube", 101, 77, &a), 0);
    const char *path = tp_path(2, ".bin");
    for (int big = 0; big < 2; big++) {
        CU_ASSERT_EQUAL_FATAL(nb_tipsy_write(path, &a, big), 0);
        CU_ASSERT_EQUAL_FATAL(truncate(path, 32 + 36 * 101 - 5), 0);
        /* Still recognised as TIPSY (so --ic names the real problem)... */
        CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 1);
        /* ...but refused: exit 2, "truncated". */
        expect_refused(path, "truncated");
        nb_state s;
        CU_ASSERT_EQUAL(nb_ic_load(path, 0, 0, 1, &s), NB_EXIT_USAGE);
        /* Header only. */
        CU_ASSERT_EQUAL_FATAL(truncate(path, 32), 0);
        expect_refused(path, "truncated");
    }
    nb_state_free(&a);
    remove(path);
}

static void t_foreign_text_file(void)
{
    const char *path = tp_path(3, ".txt");
    const char *text = "# m x y z vx vy vz\n"
                       "0.5 1.25 -2.5 0.125 0 0 0\n"
                       "0.5 -1.25 2.5 -0.125 0 0 0\n";
    CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, text, strlen(text)), 0);
    CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 0);
    expect_refused(path, "not a TIPSY file");
    remove(path);
}

static void t_foreign_random_bytes(void)
{
    const char *path = tp_path(3, ".rnd");
    unsigned char b[1000];
    int detected = 0;
    for (uint64_t seed = 11; seed < 31; seed++) {
        nb_rng r;
        nb_rng_seed(&r, seed);
        for (size_t k = 0; k < sizeof b; k += 8) {
            uint64_t v = nb_rng_next(&r);
            memcpy(b + k, &v, 8);
        }
        CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, b, sizeof b), 0);
        detected += nb_tipsy_is_tipsy(path);
        expect_refused(path, "not a TIPSY file");
    }
    CU_ASSERT_EQUAL(detected, 0);
    /* Too short for a header, empty, missing. */
    CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, b, 20), 0);
    CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 0);
    expect_refused(path, "not a TIPSY file");
    CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, b, 0), 0);
    CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 0);
    expect_refused(path, "not a TIPSY file");
    remove(path);
    CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 0);
    expect_refused(path, "cannot open");
}

static void t_header_mismatch(void)
{
    const char *path = tp_path(2, ".bin");
    for (int big = 0; big < 2; big++) {
        /* Header says 3 dark + 4 star, the file holds a fifth star. */
        tp_buf t;
        tp_make_mixed(&t, big, 0, 3, 5);
        t.b[big ? 27 : 24] = 4;               /* nstar 5 -> 4 */
        t.b[big ? 11 : 8] = 7;                /* nbodies 8 -> 7 */
        CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, t.b, t.len), 0);
        CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 1);
        expect_refused(path, "do not match");
        /* nbodies != nsph + ndark + nstar: not TIPSY at all. */
        t.b[big ? 11 : 8] = 9;
        CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, t.b, t.len), 0);
        CU_ASSERT_EQUAL(nb_tipsy_is_tipsy(path), 0);
        expect_refused(path, "not a TIPSY file");
        /* ndim = 2. */
        tp_make_mixed(&t, big, 0, 3, 4);
        t.b[big ? 15 : 12] = 2;
        CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, t.b, t.len), 0);
        expect_refused(path, "ndim");
    }
    remove(path);
}

/* A header with good counts and a NaN (or infinite) time: refused with a
 * message about the time -- it said the counts made no sense. */
static void t_nan_time(void)
{
    const char *path = tp_path(2, ".bin");
    const double bad[2] = { NAN, INFINITY };
    for (int big = 0; big < 2; big++)
        for (int k = 0; k < 2; k++) {
            tp_buf t;
            tp_make_mixed(&t, big, 1, 2, 3);
            size_t len = t.len;
            t.len = 0;
            tp_f64(&t, bad[k]);                        /* the header's time replaced */
            t.len = len;
            CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, t.b, t.len), 0);
            expect_refused(path, "time");
            nb_state s;
            nb_clear_error();
            int rc = nb_ic_load(path, 0, 0, 1, &s);   /* found by its header, or not */
            NB_ASSERT(rc == NB_EXIT_USAGE && strstr(nb_errmsg(), "time"), "--ic with a %s TIPSY "
                      "time: exit %d, '%.200s'", k ? "inf" : "NaN", rc, nb_errmsg());
            if (rc == 0) nb_state_free(&s);
        }
    remove(path);
}

static void t_write_error(void)
{
    nb_state a;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("cube", 9, 5, &a), 0);
    nb_clear_error();
    CU_ASSERT_EQUAL(nb_tipsy_write("/nonexistent-dir-nbody/x.bin", &a, 0), NB_EXIT_RUNTIME);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "/nonexistent-dir-nbody/x.bin"));
    nb_state_free(&a);
}


/* ---- streams, memory, binary files that are not TIPSY ------------------- */

/* Read the buffer as a stream (no size), as from a FIFO or a pipe. */
static int read_stream(unsigned char *b, size_t len, nb_state *s)
{
    FILE *f = fmemopen(b, len, "rb");
    if (!f) return -1;
    nb_src src;
    nb_clear_error();
    int rc = nb_src_from_file(&src, f, "pipe", -1);
    if (!rc) rc = nb_tipsy_read_src(&src, s);
    nb_src_close(&src);
    return rc;
}

static void t_streams(void)
{
    for (int big = 0; big < 2; big++) {
        tp_buf t;
        tp_make_mixed(&t, big, 2, 3, 4);
        nb_state s;
        char why[400];
        FILE *f = fmemopen(t.b, t.len, "rb");
        nb_src src;
        CU_ASSERT_EQUAL_FATAL(nb_src_from_file(&src, f, "pipe", -1), 0);
        CU_ASSERT_EQUAL(nb_tipsy_detect(&src, why, sizeof why), 1);    /* from the header alone */
        nb_src_close(&src);
        CU_ASSERT_EQUAL_FATAL(read_stream(t.b, t.len, &s), 0);
        CU_ASSERT_EQUAL(s.n, 9);
        CU_ASSERT_EQUAL(s.vz[8], tp_val(8, 6));
        nb_state_free(&s);
        CU_ASSERT_EQUAL(read_stream(t.b, t.len - 3, &s), NB_EXIT_USAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "truncated"));
        t.b[t.len++] = 7;                                              /* one byte too many */
        CU_ASSERT_EQUAL(read_stream(t.b, t.len, &s), NB_EXIT_USAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "more bytes follow"));
    }
}

static void t_huge_count_memory(void)
{
    tp_buf t;
    memset(&t, 0, sizeof t);
    tp_header(&t, 0, 2000000000, 3, 0, 2000000000, 0);
    nb_state s;
    setenv("NB_FAKE_MEM_AVAILABLE", "1073741824", 1);
    int rc = read_stream(t.b, t.len, &s);
    unsetenv("NB_FAKE_MEM_AVAILABLE");
    CU_ASSERT_EQUAL(rc, NB_EXIT_RUNTIME);
    if (rc != NB_EXIT_RUNTIME) printf("       got %d: %s\n", rc, nb_errmsg());
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "out of host memory reading TIPSY file 'pipe'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "2000000000 bodies need about 52.2 GiB"));
    if (rc == 0) nb_state_free(&s);
}

static void t_binary_not_tipsy(void)
{
    const char *path = tp_path(3, ".bin");
    tp_buf t;
    tp_make_mixed(&t, 0, 0, 3, 4);
    t.b[8] = 99;                                     /* nbodies != gas + dark + star */
    CU_ASSERT_EQUAL_FATAL(tp_write_bytes(path, t.b, t.len), 0);
    nb_state s;
    nb_clear_error();
    CU_ASSERT_EQUAL(nb_ic_load(path, 0, 0, 1, &s), NB_EXIT_USAGE);
    const char *m = nb_errmsg();
    if (!strstr(m, "neither a text state file")) printf("       %s\n", m);
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "neither a text state file"));
    CU_ASSERT_PTR_NOT_NULL(strstr(m, "little-endian: nbodies 99"));
    CU_ASSERT_PTR_NULL(strstr(m, "malformed line"));
    remove(path);
}

/* ---- collision model ------------------------------------------------------ */

static void com(const nb_state *s, int64_t lo, int64_t hi, double *M, double c[6])
{
    *M = 0;
    memset(c, 0, 6 * sizeof *c);
    for (int64_t i = lo; i < hi; i++) {
        double m = s->m[i];
        *M += m;
        c[0] += m * s->x[i];  c[1] += m * s->y[i];  c[2] += m * s->z[i];
        c[3] += m * s->vx[i]; c[4] += m * s->vy[i]; c[5] += m * s->vz[i];
    }
    for (int k = 0; k < 6; k++) c[k] /= *M;
}

static void t_collision_deterministic(void)
{
    nb_state a, b, c;
    CU_ASSERT_EQUAL_FATAL(nb_ic_collision(3001, 987654321, &a), 0);
    CU_ASSERT_EQUAL_FATAL(nb_ic_collision(3001, 987654321, &b), 0);
    CU_ASSERT_TRUE(same_state(&a, &b));
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("collision", 3001, 987654321, &c), 0);
    CU_ASSERT_TRUE(same_state(&a, &c));
    nb_state_free(&c);
    CU_ASSERT_EQUAL_FATAL(nb_ic_collision(3001, 987654322, &c), 0);
    CU_ASSERT_FALSE(same_state(&a, &c));
    nb_state_free(&a); nb_state_free(&b); nb_state_free(&c);
}

static void t_collision_mass_com(void)
{
    const int64_t ns[] = { 1, 2, 3, 5, 1001, 4097 };
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        nb_state s;
        CU_ASSERT_EQUAL_FATAL(nb_ic_collision(ns[t], 31 + t, &s), 0);
        CU_ASSERT_EQUAL_FATAL(s.n, ns[t]);
        int bad = 0;
        for (int64_t i = 0; i < s.n; i++) {
            const float v[7] = { s.m[i], s.x[i], s.y[i], s.z[i], s.vx[i], s.vy[i], s.vz[i] };
            for (int k = 0; k < 7; k++) bad += !isfinite(v[k]);
            bad += !(s.m[i] > 0.0f);
        }
        CU_ASSERT_EQUAL(bad, 0);
        double M, c[6];
        com(&s, 0, s.n, &M, c);
        CU_ASSERT_DOUBLE_EQUAL(M, 1.0, 1e-5);
        for (int k = 0; k < 6; k++) CU_ASSERT_DOUBLE_EQUAL(c[k], 0.0, 1e-6);
        if (ns[t] == 1) {
            CU_ASSERT_EQUAL(s.m[0], 1.0f);
            CU_ASSERT_EQUAL(s.x[0], 0.0f);
            CU_ASSERT_EQUAL(s.vx[0], 0.0f);
        }
        nb_state_free(&s);
    }
    nb_state s;
    nb_clear_error();
    CU_ASSERT_EQUAL(nb_ic_collision(0, 1, &s), NB_EXIT_USAGE);
}

static void t_collision_two_clumps(void)
{
    const int64_t n = 4001, na = n / 2;
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_collision(n, 2718, &s), 0);
    double Ma, Mb, a[6], b[6];
    com(&s, 0, na, &Ma, a);
    com(&s, na, n, &Mb, b);
    CU_ASSERT_DOUBLE_EQUAL(Ma, (double)na / n, 1e-5);
    CU_ASSERT_DOUBLE_EQUAL(Mb, (double)(n - na) / n, 1e-5);
    double dp[3] = { b[0] - a[0], b[1] - a[1], b[2] - a[2] };
    double dv[3] = { b[3] - a[3], b[4] - a[4], b[5] - a[5] };
    double dist = sqrt(dp[0] * dp[0] + dp[1] * dp[1] + dp[2] * dp[2]);
    CU_ASSERT(dist > 2.5 && dist < 4.0);
    /* Approaching: the separation shrinks. */
    CU_ASSERT(dp[0] * dv[0] + dp[1] * dv[1] + dp[2] * dv[2] < 0.0);
    /* Bound (negative two-body energy of the centres, G = 1). */
    double v2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2];
    CU_ASSERT(0.5 * v2 - (Ma + Mb) / dist < 0.0);
    /* Each galaxy's bodies lie within its disk (radius 1) around its centre,
     * so the clumps are separated. */
    int outside = 0;
    for (int64_t i = 0; i < n; i++) {
        const double *c = i < na ? a : b;
        double dx = s.x[i] - c[0], dy = s.y[i] - c[1], dz = s.z[i] - c[2];
        outside += dx * dx + dy * dy + dz * dz > 1.02 * 1.02;
    }
    CU_ASSERT_EQUAL(outside, 0);
    /* The two disks are tilted relative to each other: their spin axes differ. */
    double L[2][3] = { { 0 } };
    for (int64_t i = 0; i < n; i++) {
        int g = i >= na;
        const double *c = g ? b : a;
        double x = s.x[i] - c[0], y = s.y[i] - c[1], z = s.z[i] - c[2];
        double vx = s.vx[i] - c[3], vy = s.vy[i] - c[4], vz = s.vz[i] - c[5];
        L[g][0] += s.m[i] * (y * vz - z * vy);
        L[g][1] += s.m[i] * (z * vx - x * vz);
        L[g][2] += s.m[i] * (x * vy - y * vx);
    }
    double la = sqrt(L[0][0] * L[0][0] + L[0][1] * L[0][1] + L[0][2] * L[0][2]);
    double lb = sqrt(L[1][0] * L[1][0] + L[1][1] * L[1][1] + L[1][2] * L[1][2]);
    double cosang = (L[0][0] * L[1][0] + L[0][1] * L[1][1] + L[0][2] * L[1][2]) / (la * lb);
    CU_ASSERT(cosang < 0.95);
    nb_state_free(&s);
}

void nb_suite_tipsy_register(void)
{
    static const nb_test tests[] = {
        { "roundtrip_little_endian_bit_exact", t_roundtrip_native, 2 },
        { "roundtrip_big_endian_xdr_bit_exact", t_roundtrip_big_endian, 2 },
        { "dark_and_star_little_endian", t_star_dark_native, 2 },
        { "dark_and_star_big_endian", t_star_dark_big_endian, 1 },
        { "gas_read_as_bodies", t_gas_read_as_bodies, 1 },
        { "truncated_file_exit_2", t_truncated, 2 },
        { "text_state_file_not_tipsy", t_foreign_text_file, 1 },
        { "random_short_missing_refused", t_foreign_random_bytes, 1 },
        { "header_counts_vs_size_and_ndim", t_header_mismatch, 2 },
        { "write_error_exit_3", t_write_error, 1 },
        { "nan_time_in_header_says_so", t_nan_time, 1 },
        { "streams_read_once_to_their_end", t_streams, 1 },
        { "huge_header_count_out_of_memory", t_huge_count_memory, 1 },
        { "binary_not_tipsy_says_why", t_binary_not_tipsy, 1 },
        { "collision_deterministic", t_collision_deterministic, 1 },
        { "collision_mass_com_small_n", t_collision_mass_com, 2 },
        { "collision_two_clumps_approaching", t_collision_two_clumps, 2 },
        NB_TEST_END
    };
    nb_grade_suite("tipsy", tests, NULL);
}
