/* suite_common.c -- tests of common/: the references themselves (against
 * hand-computed cases and an analytic orbit), the models' units, the RNG,
 * the parser, the state file, the statistics. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_mem.h"
#include "nb_options.h"
#include "nb_testutil.h"
#include "nb_timer.h"
#include "nb_validate.h"
#include "nb_verify.h"
#include <dirent.h>
#include <signal.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "nb_fuzz.h"

static void set_body(nb_state *s, int i, float m, float x, float y, float z, float vx, float vy, float vz)
{
    s->m[i] = m; s->x[i] = x; s->y[i] = y; s->z[i] = z;
    s->vx[i] = vx; s->vy[i] = vy; s->vz[i] = vz;
}

static void t_ref_two_body(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 2) == 0);
    set_body(&s, 0, 1, 0, 0, 0, 0, 0, 0);
    set_body(&s, 1, 2, 1, 0, 0, 0, 0, 0);
    int64_t idx[2] = { 0, 1 };
    double ax[2], ay[2], az[2];
    nb_ref_accel(&s, 0.1, idx, 2, ax, ay, az);
    double d = pow(1.01, 1.5);                  /* (r^2 + eps^2)^(3/2) */
    CU_ASSERT_DOUBLE_EQUAL(ax[0], 2.0 / d, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(ax[1], -1.0 / d, 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(ay[0], 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(az[1], 0.0, 0.0);
    nb_state_free(&s);
}

static void t_ref_three_body(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 3) == 0);
    set_body(&s, 0, 1, 0, 0, 0, 0, 0, 0);
    set_body(&s, 1, 1, 3, 0, 0, 0, 0, 0);
    set_body(&s, 2, 2, 0, 4, 0, 0, 0, 0);
    int64_t idx[3] = { 0, 1, 2 };
    double ax[3], ay[3], az[3], e2 = 0.25 * 0.25;
    nb_ref_accel(&s, 0.25, idx, 3, ax, ay, az);
    /* body 0: pulled by 1 along +x (distance 3) and by 2 along +y (distance 4) */
    CU_ASSERT_DOUBLE_EQUAL(ax[0], 3.0 / pow(9 + e2, 1.5), 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(ay[0], 2.0 * 4.0 / pow(16 + e2, 1.5), 1e-14);
    /* body 1: toward 0 (-x, 3) and toward 2 ((-3, 4), distance 5) */
    CU_ASSERT_DOUBLE_EQUAL(ax[1], -3.0 / pow(9 + e2, 1.5) + 2.0 * -3.0 / pow(25 + e2, 1.5), 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(ay[1], 2.0 * 4.0 / pow(25 + e2, 1.5), 1e-14);
    CU_ASSERT_DOUBLE_EQUAL(az[2], 0.0, 0.0);
    nb_state_free(&s);
}

static void t_energy_known(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 2) == 0);
    set_body(&s, 0, 1, 0, 0, 0, 1, 0, 0);
    set_body(&s, 1, 2, 0, 1, 0, 0, 0, 0.5f);
    double k, w, e = nb_energy(&s, 0.1, &k, &w);
    CU_ASSERT_DOUBLE_EQUAL(k, 0.5 * 1 * 1 + 0.5 * 2 * 0.25, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(w, -2.0 / sqrt(1.01), 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(e, k + w, 1e-15);
    double p[3];
    nb_momentum(&s, p);
    CU_ASSERT_DOUBLE_EQUAL(p[0], 1.0, 0);
    CU_ASSERT_DOUBLE_EQUAL(p[2], 1.0, 0);
    nb_state_free(&s);
}

/* Two equal masses on a circular orbit: separation 1, speed 1/2 each
 * (v^2 / (1/2) = (1/2) / 1^2 with eps -> 0), period 2 pi.  After a quarter
 * period the pair has turned by 90 degrees. */
static void t_ref_leapfrog_orbit(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 2) == 0);
    set_body(&s, 0, 0.5f, 0.5f, 0, 0, 0, 0.5f, 0);
    set_body(&s, 1, 0.5f, -0.5f, 0, 0, 0, -0.5f, 0);
    double dt = 1e-3;
    int steps = (int)lround(0.5 * 3.14159265358979323846 / dt);
    CU_ASSERT_FATAL(nb_ref_leapfrog(&s, 1e-5, dt, steps) == 0);
    double t = steps * dt, ang = t;             /* angular velocity 1 */
    CU_ASSERT_DOUBLE_EQUAL(s.x[0], 0.5 * cos(ang), 2e-6);
    CU_ASSERT_DOUBLE_EQUAL(s.y[0], 0.5 * sin(ang), 2e-6);
    CU_ASSERT_DOUBLE_EQUAL(s.vx[0], -0.5 * sin(ang), 2e-6);
    CU_ASSERT_DOUBLE_EQUAL(s.x[1], -0.5 * cos(ang), 2e-6);
    nb_state_free(&s);
}

static void t_plummer_units(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 16384, 1, &s) == 0);
    double m = 0, p[3], k, w;
    for (int64_t i = 0; i < s.n; i++) m += s.m[i];
    CU_ASSERT_DOUBLE_EQUAL(m, 1.0, 1e-5);
    nb_momentum(&s, p);
    CU_ASSERT(fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < 1e-6);
    double e = nb_energy(&s, 1e-4, &k, &w);
    printf("       plummer N=16384: E %.4f (Henon: -0.25), 2K/|W| %.4f\n", e, 2 * k / fabs(w));
    CU_ASSERT(fabs(e + 0.25) < 0.25 * 0.03);    /* E = -1/4 within 3% */
    CU_ASSERT(fabs(2 * k / fabs(w) - 1.0) < 0.05);   /* virial equilibrium */
    nb_state_free(&s);
}

static void t_models(void)
{
    const char *names[] = { "cube", "disk" };
    for (int k = 0; k < 2; k++) {
        nb_state s;
        CU_ASSERT_FATAL(nb_ic_generate(names[k], 5000, 3, &s) == 0);
        double m = 0;
        for (int64_t i = 0; i < s.n; i++) {
            m += s.m[i];
            if (k == 0) {
                CU_ASSERT(fabsf(s.x[i]) <= 1 && fabsf(s.y[i]) <= 1 && fabsf(s.z[i]) <= 1);
                CU_ASSERT(s.vx[i] == 0 && s.vy[i] == 0 && s.vz[i] == 0);
            }
        }
        CU_ASSERT_DOUBLE_EQUAL(m, 1.0, 1e-5);
        nb_state_free(&s);
    }
    /* disk: body 1.. on circular orbits in the plane: v perpendicular to r */
    nb_state d;
    CU_ASSERT_FATAL(nb_ic_generate("disk", 2000, 4, &d) == 0);
    double worst = 0;
    for (int64_t i = 1; i < d.n; i++) {
        double x = d.x[i] - d.x[0], y = d.y[i] - d.y[0];          /* around the central body */
        double vx = d.vx[i] - d.vx[0], vy = d.vy[i] - d.vy[0];
        double rv = x * vx + y * vy, r = hypot(x, y), v = hypot(vx, vy);
        worst = fmax(worst, fabs(rv) / (r * v));
    }
    CU_ASSERT(worst < 1e-5);                    /* circular: v perpendicular to r */
    CU_ASSERT(nb_ic_generate("nosuch", 10, 1, &d) == NB_EXIT_USAGE);
    nb_state_free(&d);
}

static void t_rng(void)
{
    nb_rng a, b, c;
    nb_rng_seed(&a, 42); nb_rng_seed(&b, 42); nb_rng_seed(&c, 43);
    int same = 1, diff = 0;
    double sum = 0;
    for (int k = 0; k < 100000; k++) {
        uint64_t x = nb_rng_next(&a), y = nb_rng_next(&b), z = nb_rng_next(&c);
        same &= x == y;
        diff += x != z;
    }
    CU_ASSERT(same);
    CU_ASSERT(diff > 99990);
    for (int k = 0; k < 100000; k++) {
        double u = nb_rng_uniform(&a);
        CU_ASSERT_FATAL(u >= 0.0 && u < 1.0);
        sum += u;
    }
    CU_ASSERT_DOUBLE_EQUAL(sum / 100000, 0.5, 0.005);
    nb_state s1, s2;                            /* models: same (N, seed), same bits */
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 999, 7, &s1) == 0);
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 999, 7, &s2) == 0);
    CU_ASSERT(!memcmp(s1.x, s2.x, 999 * sizeof(float)) && !memcmp(s1.vz, s2.vz, 999 * sizeof(float)));
    nb_state_free(&s1); nb_state_free(&s2);
}

static int parse(unsigned caps, nb_options *o, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, o);
    argv[argc++] = "nbody";
    for (char *a; (a = va_arg(ap, char *)) && argc < 31;) argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    return nb_parse_options(argc, argv, caps, "nbody", o);
}

static void t_parser(void)
{
    nb_options o;
    CU_ASSERT(parse(0, &o, NULL) == 0);
    CU_ASSERT(o.n == 16384 && o.steps == 10 && o.dt == 1e-3 && o.eps == 0.01 && o.seed == 1);
    CU_ASSERT(!strcmp(o.ic, "plummer") && o.threads == 1 && o.theta == 0.5 && !o.check);
    CU_ASSERT(parse(NB_OPT_BLOCK, &o, "-n", "4097", "--steps=3", "--dt", "2.5e-4", "--eps", "0.05",
                    "--seed", "18446744073709551615", "--check", "--block", "96", "--csv-header", NULL) == 0);
    CU_ASSERT(o.n == 4097 && o.steps == 3 && o.dt == 2.5e-4 && o.eps == 0.05);
    CU_ASSERT(o.seed == UINT64_MAX && o.check && o.block == 96 && o.csv && o.csv_header);
    CU_ASSERT(parse(0, &o, "-n4096", "-s", "0", NULL) == 0 && o.n == 4096 && o.steps == 0);
    /* rejections: code 2 and a message that names the option */
    CU_ASSERT(parse(0, &o, "-n", "12x", NULL) == NB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "--bodies"));
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "12x"));
    /* -0 where the range has no negative value (it was accepted) */
    CU_ASSERT(parse(NB_OPT_THETA, &o, "--theta", "-0", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(NB_OPT_THETA, &o, "--theta", "-0.0e0", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(NB_OPT_THETA, &o, "--theta", "0", NULL) == 0 && o.theta == 0 && !signbit(o.theta));
    CU_ASSERT(parse(0, &o, "-s", "-0", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--bench", "--warmup", "-0", NULL) == NB_EXIT_USAGE);
    /* options that would do nothing, or too much */
    CU_ASSERT(parse(0, &o, "--warmup", "2", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--render-size", "64", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--bench", "-s", "0", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--bench", "--save", "x.txt", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--bench", "--warmup", "0", "--save", "x.txt", NULL) == 0);
    CU_ASSERT(parse(0, &o, "--eps", "0", NULL) == NB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "(0, 10]"));
    CU_ASSERT(parse(0, &o, "--dt", "NaN", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--dt", "-inf", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "-n", "-1", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--theta", "0.3", NULL) == NB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "step05"));
    CU_ASSERT(parse(NB_OPT_THETA, &o, "--theta", "0", NULL) == 0 && o.theta == 0);
    CU_ASSERT(parse(0, &o, "--steps", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--unknown", NULL) == NB_EXIT_USAGE);
    int64_t i64; uint64_t u64; double d;
    CU_ASSERT(nb_parse_i64("17", &i64) == 0 && i64 == 17);
    CU_ASSERT(nb_parse_i64("  17", &i64) == -1);              /* leading blanks: refused too */
    CU_ASSERT(nb_parse_u64("\n-1", &u64) == -1);             /* would wrap to 2^64-1 */
    CU_ASSERT(nb_parse_double(" 1", &d) == -1);
    /* values that vanish in float (the precision the steps compute in) */
    CU_ASSERT(parse(0, &o, "--dt", "1e-50", NULL) == NB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), "float"));
    CU_ASSERT(parse(NB_OPT_THETA, &o, "--theta", "1e-320", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(parse(0, &o, "--eps", "1e-20", NULL) == NB_EXIT_USAGE);   /* eps^2 below FLT_MIN */
    CU_ASSERT(parse(0, &o, "--eps", "2e-19", NULL) == 0 && o.eps == 2e-19);
    CU_ASSERT(parse(0, &o, "--seed", "\n-1", NULL) == NB_EXIT_USAGE);
    CU_ASSERT(nb_parse_i64("17 ", &i64) == -1);
    CU_ASSERT(nb_parse_i64("99999999999999999999", &i64) == -1);
    CU_ASSERT(nb_parse_u64("-3", &u64) == -1);
    CU_ASSERT(nb_parse_double("1e-3", &d) == 0 && d == 1e-3);
    CU_ASSERT(nb_parse_double("0x", &d) == -1);
    CU_ASSERT(nb_parse_double("1e999", &d) == -1);
}

static void t_state_roundtrip(void)
{
    nb_state a, b;
    const char *f = nb_t_tmpfile(0, ".txt");
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 1234, 9, &a) == 0);
    a.x[3] = 1e-30f; a.y[5] = -3.4e38f; a.z[7] = 0x1.fffffep-1f;   /* awkward floats */
    CU_ASSERT_FATAL(nb_state_write(f, &a) == 0);
    CU_ASSERT_FATAL(nb_state_read(f, &b) == 0);
    CU_ASSERT_EQUAL(b.n, 1234);
    size_t bytes = 1234 * sizeof(float);
    CU_ASSERT(!memcmp(a.m, b.m, bytes) && !memcmp(a.x, b.x, bytes) && !memcmp(a.y, b.y, bytes) &&
              !memcmp(a.z, b.z, bytes) && !memcmp(a.vx, b.vx, bytes) && !memcmp(a.vy, b.vy, bytes) &&
              !memcmp(a.vz, b.vz, bytes));
    nb_state_free(&b);
    FILE *fp = fopen(f, "w");
    fprintf(fp, "# comment\n\n1 0 0 0 0 0 0   # trailing comment\n1 0 0 0 0 0 0 7\n");
    fclose(fp);
    CU_ASSERT(nb_state_read(f, &b) == NB_EXIT_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), ":4:"));
    CU_ASSERT(nb_state_read("/nonexistent/x", &b) == NB_EXIT_USAGE);
    CU_ASSERT(nb_state_write("/nonexistent/x", &a) == NB_EXIT_RUNTIME);
    unlink(f);
    nb_state_free(&a);
}


/* ---- files written whole or not at all (nb_out) ---------------------------- */

/* The whole file into a malloc'ed buffer (*len bytes); NULL if unreadable. */
static char *whole(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    fclose(f);
    *len = n;
    return b;
}

static int same_state(const nb_state *a, const nb_state *b)
{
    size_t bytes = (size_t)a->n * sizeof(float);
    return a->n == b->n && !memcmp(a->m, b->m, bytes) && !memcmp(a->x, b->x, bytes) &&
           !memcmp(a->y, b->y, bytes) && !memcmp(a->z, b->z, bytes) &&
           !memcmp(a->vx, b->vx, bytes) && !memcmp(a->vy, b->vy, bytes) &&
           !memcmp(a->vz, b->vz, bytes);
}

/* A saved file cut at any byte is refused (exit 2, with a line number), not
 * read as a smaller system: the header's count and the final newline.  It
 * used to load with fewer bodies.  Also a body past the count, a bad
 * header, and a file without the header (read as it is). */
static void t_state_cut_short(void)
{
    nb_state a, b;
    const char *f = nb_t_tmpfile(0, ".txt");
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 17, 3, &a) == 0);
    CU_ASSERT_FATAL(nb_state_write(f, &a) == 0);
    size_t len = 0;
    char *text = whole(f, &len);
    CU_ASSERT_FATAL(text != NULL && len > 100);
    int64_t accepted = 0, unlined = 0;
    for (size_t cut = 0; cut < len; cut++) {
        FILE *fp = fopen(f, "wb");
        fwrite(text, 1, cut, fp);
        fclose(fp);
        nb_clear_error();
        int rc = nb_state_read(f, &b);
        if (rc == 0) { accepted++; nb_state_free(&b); continue; }
        /* with the file's line, or (cut inside the first 23 bytes, before
         * the header is one) "holds no bodies" */
        if (rc != NB_EXIT_USAGE || !(strstr(nb_errmsg(), ".txt:") || strstr(nb_errmsg(), "no bodies")))
            unlined++;
    }
    NB_ASSERT(accepted == 0, "%lld of the %zu prefixes of a saved file were read as a state",
              (long long)accepted, len);
    NB_ASSERT(unlined == 0, "%lld prefixes refused without exit 2 and 'file:line:'", (long long)unlined);
    /* the whole file, and one body more than the header says */
    FILE *fp = fopen(f, "wb");
    fwrite(text, 1, len, fp);
    fclose(fp);
    CU_ASSERT_FATAL(nb_state_read(f, &b) == 0);
    NB_ASSERT(same_state(&a, &b), "the whole file: not the state that was saved");
    nb_state_free(&b);
    fp = fopen(f, "ab");
    fprintf(fp, "1 0 0 0 0 0 0\n");
    fclose(fp);
    NB_ASSERT(nb_state_read(f, &b) == NB_EXIT_USAGE && strstr(nb_errmsg(), ":20:"),
              "a body past the header's count: %s", nb_errmsg());
    fp = fopen(f, "wb");
    fprintf(fp, "# nbody-lab state file: many bodies\n1 0 0 0 0 0 0\n");
    fclose(fp);
    NB_ASSERT(nb_state_read(f, &b) == NB_EXIT_USAGE && strstr(nb_errmsg(), ":1:"),
              "a bad header: %s", nb_errmsg());
    fp = fopen(f, "wb");
    fprintf(fp, "# no header\n1 0 0 0 0 0 0\n1 1 0 0 0 0 0");   /* no newline: fine here */
    fclose(fp);
    NB_ASSERT(nb_state_read(f, &b) == 0 && b.n == 2, "a file without the header: %s", nb_errmsg());
    if (b.n) nb_state_free(&b);
    free(text);
    unlink(f);
    nb_state_free(&a);
}

/* nb_state_write in a child with SIGXFSZ ignored (as nb_main does) and the
 * file size limited to 'limit' bytes: its code (0, 3), or -1 if it died. */
static int write_limited(const char *path, const nb_state *s, long limit)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl;
        getrlimit(RLIMIT_FSIZE, &rl);
        rl.rlim_cur = (rlim_t)limit;
        setrlimit(RLIMIT_FSIZE, &rl);
        _exit(nb_state_write(path, s));
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The save/load round trip under faults, at every file size limit from 0
 * to past the file's size (a full disk, an interrupted copy): the write
 * either succeeds and the file loads to the same bits, or fails with exit 3
 * and leaves the file that was there before, and no temporary file.  It
 * used to leave a truncated file that loaded as a smaller system. */
static void t_save_under_faults(void)
{
    nb_state a, old, b;
    const char *f = nb_t_tmpfile(0, ".txt");
    CU_ASSERT_FATAL(nb_ic_generate("disk", 300, 5, &a) == 0);
    CU_ASSERT_FATAL(nb_ic_generate("cube", 7, 6, &old) == 0);
    CU_ASSERT_FATAL(nb_state_write(f, &a) == 0);
    size_t len = 0;
    char *text = whole(f, &len);
    free(text);
    int64_t bad = 0, ok = 0, failed = 0;
    for (long limit = 0; limit <= (long)len + 4096; limit += limit < 64 ? 1 : 997) {
        CU_ASSERT_FATAL(nb_state_write(f, &old) == 0);         /* what was there before */
        int rc = write_limited(f, &a, limit);
        int read = nb_state_read(f, &b);
        int kept = read == 0 && same_state(&b, rc == 0 ? &a : &old);
        if (read == 0) nb_state_free(&b);
        int left = nb_out_leftovers(f);
        if (!((rc == 0 || rc == NB_EXIT_RUNTIME) && kept && left == 0)) {
            if (bad++ == 0)
                printf("       limit %ld bytes: code %d, file %s, %d temporary files left\n", limit,
                       rc, kept ? "as it should be" : "wrong", left);
        }
        if (rc == 0) ok++;
        else failed++;
    }
    NB_ASSERT(bad == 0, "save under a file size limit: %lld cases broke (see above)", (long long)bad);
    NB_ASSERT(ok > 0 && failed > 0, "both outcomes exercised: %lld saved, %lld refused", (long long)ok,
              (long long)failed);
    unlink(f);
    nb_state_free(&a);
    nb_state_free(&old);
}

/* Ctrl-C in the middle of a save: the temporary file is removed and the
 * target left as it was; the signal still ends the program.  (A file of
 * 3 million bodies takes a few seconds to write; the signal comes as soon
 * as the temporary file has data.) */
static void t_save_interrupted(void)
{
    const char *f = nb_t_tmpfile(0, ".txt");
    nb_state a, old, b;
    CU_ASSERT_FATAL(nb_ic_generate("cube", 3000000, 8, &a) == 0);
    CU_ASSERT_FATAL(nb_ic_generate("cube", 5, 9, &old) == 0);
    CU_ASSERT_FATAL(nb_state_write(f, &old) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        _exit(nb_state_write(f, &a));
    }
    char dir[300], prefix[300];
    const char *slash = strrchr(f, '/');
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - f), f);
    snprintf(prefix, sizeof prefix, ".%s.", slash + 1);
    int seen = 0;
    for (int k = 0; k < 3000 && !seen; k++) {           /* up to 30 s */
        DIR *d = opendir(dir);
        for (struct dirent *e; d && (e = readdir(d));) {
            char p[700];
            struct stat st;
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            if (!strncmp(e->d_name, prefix, strlen(prefix)) && stat(p, &st) == 0 && st.st_size > 0)
                seen = 1;
        }
        if (d) closedir(d);
        struct timespec ts = { 0, 10000000 };
        if (!seen) nanosleep(&ts, NULL);
    }
    kill(pid, SIGINT);
    int st = 0;
    waitpid(pid, &st, 0);
    NB_ASSERT(seen, "the temporary file was never seen");
    NB_ASSERT(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "the writer was not ended by SIGINT "
              "(status %d): it should die of it, after removing its temporary file", st);
    NB_ASSERT(nb_out_leftovers(f) == 0, "%d temporary files left after SIGINT", nb_out_leftovers(f));
    NB_ASSERT(nb_state_read(f, &b) == 0 && same_state(&b, &old),
              "after SIGINT the file is not what it was: %s", nb_errmsg());
    if (b.n) nb_state_free(&b);
    unlink(f);
    nb_state_free(&a);
    nb_state_free(&old);
}

/* What nb_out_check refuses before a run, and what it lets through. */
static void t_save_path_checks(void)
{
    const char *f = nb_t_tmpfile(0, ".txt"), *d = nb_t_tmpfile(1, ".d");
    CU_ASSERT_EQUAL(nb_out_check("--save", f, NULL), 0);
    NB_ASSERT(access(f, F_OK) != 0 && nb_out_leftovers(f) == 0, "the check left a file behind");
    CU_ASSERT_EQUAL_FATAL(mkdir(d, 0700), 0);
    NB_ASSERT(nb_out_check("--save", d, NULL) == NB_EXIT_USAGE && strstr(nb_errmsg(), "directory"),
              "a directory: %s", nb_errmsg());
    NB_ASSERT(nb_out_check("--save", "/dev/null", NULL) == NB_EXIT_USAGE &&
              strstr(nb_errmsg(), "not a regular file"), "/dev/null: %s", nb_errmsg());
    NB_ASSERT(nb_out_check("--save", "/nonexistent-nbody-dir/x.txt", NULL) == NB_EXIT_USAGE,
              "a missing directory: %s", nb_errmsg());
    FILE *fp = fopen(f, "w");
    fputs("1 0 0 0 0 0 0\n", fp);
    fclose(fp);
    NB_ASSERT(nb_out_check("--save", f, f) == NB_EXIT_USAGE && strstr(nb_errmsg(), "--ic"),
              "the input file: %s", nb_errmsg());
    chmod(f, 0444);                            /* the rename would replace it: kept */
    NB_ASSERT(nb_out_check("--save", f, NULL) == NB_EXIT_USAGE && strstr(nb_errmsg(), "read-only"),
              "a read-only file: %s", nb_errmsg());
    chmod(f, 0644);
    char link[320];
    snprintf(link, sizeof link, "%s/link.txt", d);
    CU_ASSERT_EQUAL(symlink(f, link), 0);
    NB_ASSERT(nb_out_check("--save", link, f) == NB_EXIT_USAGE, "a link to the input: %s",
              nb_errmsg());
    nb_state a, b;
    CU_ASSERT_FATAL(nb_ic_generate("cube", 9, 1, &a) == 0);
    CU_ASSERT_EQUAL(nb_state_write(link, &a), 0);     /* through the link, which stays a link */
    struct stat st;
    NB_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode), "the symbolic link was replaced");
    NB_ASSERT(nb_state_read(f, &b) == 0 && same_state(&a, &b), "not written through the link");
    if (b.n) nb_state_free(&b);
    unlink(link);
    rmdir(d);
    unlink(f);
    nb_state_free(&a);
}

/* Read 'text' (len bytes) as a text state file; returns the code. */
static int read_text(const char *text, size_t len, nb_state *s)
{
    const char *f = nb_t_tmpfile(0, ".txt");
    FILE *fp = fopen(f, "wb");
    if (!fp) return -1;
    fwrite(text, 1, len, fp);
    fclose(fp);
    nb_clear_error();
    int rc = nb_state_read(f, s);
    unlink(f);
    return rc;
}

/* The message must hold 'what' (printed when it does not). */
static void msg_has(const char *what)
{
    if (!strstr(nb_errmsg(), what)) printf("       message without '%s': %s\n", what, nb_errmsg());
    CU_ASSERT_PTR_NOT_NULL(strstr(nb_errmsg(), what));
    CU_ASSERT_PTR_NULL(strchr(nb_errmsg(), '\n'));
}

static void t_reader_limits(void)
{
    nb_state s;
    static char line[NB_LINE_MAX + 100];
    memset(line, '1', sizeof line);
    CU_ASSERT_EQUAL(read_text(line, NB_LINE_MAX + 1, &s), NB_EXIT_USAGE);    /* no newline at all */
    msg_has(":1: malformed line: longer than 4096");
    memcpy(line, "1 0 0 0 0 0 0", 13);
    memset(line + 13, ' ', NB_LINE_MAX - 13);
    line[NB_LINE_MAX] = '\n';                                           /* exactly 4096 bytes: fine */
    CU_ASSERT_EQUAL(read_text(line, NB_LINE_MAX + 1, &s), 0);
    if (s.n) nb_state_free(&s);
    const char nul[] = "1 0 0 0 0 0 0\n1 1 0 0\0 0 0 0\n";
    CU_ASSERT_EQUAL(read_text(nul, sizeof nul - 1, &s), NB_EXIT_USAGE);
    msg_has(":2: malformed line: a NUL byte at column 8");
    const char big[] = "1 0 0 0 0 0 0\n1 1 0 0 0 -4e38 0\n";
    CU_ASSERT_EQUAL(read_text(big, sizeof big - 1, &s), NB_EXIT_USAGE);
    msg_has(":2: vy -4e+38 overflows float");
    const char inf[] = "1 0 0 0 0 0 0\n1 1 0 0 0 inf 0\n";
    CU_ASSERT_EQUAL(read_text(inf, sizeof inf - 1, &s), NB_EXIT_USAGE);
    msg_has(":2: malformed line");
    const char ok[] = "1 0 0 0 0 0 0\r\n\t# tab and CR\n2 1 0 0 0 3.4e38 0\n";
    CU_ASSERT_EQUAL_FATAL(read_text(ok, sizeof ok - 1, &s), 0);
    CU_ASSERT(s.n == 2 && s.m[1] == 2.0f && s.vy[1] == 3.4e38f);
    nb_state_free(&s);
    /* a directory is bad input (2), not a read error (3) */
    const char *d = nb_t_tmpfile(1, ".d");
    CU_ASSERT_EQUAL_FATAL(mkdir(d, 0700), 0);
    nb_clear_error();
    CU_ASSERT_EQUAL(nb_state_read(d, &s), NB_EXIT_USAGE);
    msg_has("is a directory");
    CU_ASSERT_EQUAL(nb_ic_load(d, 0, 0, 1, &s), NB_EXIT_USAGE);
    rmdir(d);
    /* a stream (here a memory buffer) is read once, the same way */
    char buf[] = "0.5 0 0 0 0 0 0\n0.5 1 0 0 0 0 0\n";
    nb_src src;
    FILE *fp = fmemopen(buf, sizeof buf - 1, "rb");
    CU_ASSERT_FATAL(fp != NULL);
    CU_ASSERT_EQUAL_FATAL(nb_src_from_file(&src, fp, "stream", -1), 0);
    CU_ASSERT_EQUAL(nb_state_read_src(&src, &s), 0);
    CU_ASSERT_EQUAL(s.n, 2);
    nb_src_close(&src);
    nb_state_free(&s);
    /* the arrays grow only while the host memory allows it */
    setenv("NB_FAKE_MEM_AVAILABLE", "1000", 1);
    CU_ASSERT_EQUAL(read_text(ok, sizeof ok - 1, &s), NB_EXIT_RUNTIME);
    unsetenv("NB_FAKE_MEM_AVAILABLE");
    msg_has("out of host memory reading");
    msg_has("1024 bodies need about 28 KiB (28 B/body), 1 KiB are available (NB_FAKE_MEM_AVAILABLE)");
}

static void t_validate(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 3) == 0);
    set_body(&s, 0, 1, 0, 0, 0, 0, 0, 0);
    set_body(&s, 1, 1, 1, 0, 0, 0, 0, 0);
    set_body(&s, 2, 0, -1e18f, 1e18f, 0, 3e38f, 0, 0);
    CU_ASSERT_EQUAL(nb_state_validate(&s, 0.01), 0);
    CU_ASSERT_EQUAL(nb_state_validate(&s, 1e-12), NB_EXIT_USAGE);       /* M/eps^3 = 2e36 */
    msg_has("--eps 1e-12 is too small for these masses: M/eps^3 = 2e+36");
    msg_has("eps >= 1.26e-12");
    CU_ASSERT_EQUAL(nb_eps_check(1.0, 1e-14), NB_EXIT_USAGE);
    msg_has("overflows float");
    CU_ASSERT_EQUAL(nb_eps_check(1.0, 1e-12), 0);
    s.y[2] = 2e18f;
    CU_ASSERT_EQUAL(nb_state_validate(&s, 0.01), NB_EXIT_USAGE);
    msg_has("body 2 has y = 2e+18");
    s.y[2] = 0;
    s.m[1] = 1e-40f;                                             /* a denormal: 0 on the GPU */
    CU_ASSERT_EQUAL(nb_state_validate(&s, 0.01), NB_EXIT_USAGE);
    msg_has("body 1 has mass");
    s.m[0] = s.m[1] = 0;
    CU_ASSERT_EQUAL(nb_state_validate(&s, 0.01), NB_EXIT_USAGE);
    msg_has("every mass is 0");
    s.m[0] = 1;
    s.vz[1] = NAN;
    CU_ASSERT_EQUAL(nb_state_validate(&s, 0.01), NB_EXIT_USAGE);
    msg_has("body 1 has a non-finite vz");
    /* the watchdog: exit 3, the first bad body, what and when */
    CU_ASSERT_EQUAL(nb_state_finite(&s, "after step 7"), NB_EXIT_RUNTIME);
    msg_has("body 1 has a non-finite velocity (vz = nan) after step 7");
    s.vz[1] = 0;
    s.x[2] = INFINITY;
    CU_ASSERT_EQUAL(nb_state_finite(&s, "after step 1"), NB_EXIT_RUNTIME);
    msg_has("body 2 has a non-finite position (x = inf) after step 1");
    s.x[2] = 0;
    CU_ASSERT_EQUAL(nb_state_finite(&s, "after step 1"), 0);
    float a[3] = { 0, 0, 0 }, b[3] = { 0, NAN, 0 };
    CU_ASSERT_EQUAL(nb_accel_finite(a, b, a, 3, "after step 0 (--check)"), NB_EXIT_RUNTIME);
    msg_has("body 1 has a non-finite acceleration (ay = nan) after step 0");
    CU_ASSERT_EQUAL(nb_accel_finite(a, a, a, 3, "x"), 0);
    nb_state_free(&s);
}

static void t_messages_and_memory(void)
{
    static char path[100001];
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    nb_fail(NB_EXIT_USAGE, "%s:12: malformed line: expected 7 finite numbers", path);
    CU_ASSERT(strlen(nb_errmsg()) < 1024);
    msg_has(":12: malformed line: expected 7 finite numbers");          /* the reason survives */
    CU_ASSERT(strlen(nb_short(path)) == 2 * NB_SHORT_KEEP + 5);
    CU_ASSERT_STRING_EQUAL(nb_short("short"), "short");
    nb_fail(NB_EXIT_USAGE, "a\nb\rc");
    CU_ASSERT_STRING_EQUAL(nb_errmsg(), "a?b?c");
    char why[64];
    setenv("NB_FAKE_MEM_AVAILABLE", "123456789", 1);
    CU_ASSERT_DOUBLE_EQUAL(nb_mem_available(why, sizeof why), 123456789.0, 0);
    CU_ASSERT_STRING_EQUAL(why, "NB_FAKE_MEM_AVAILABLE");
    CU_ASSERT_EQUAL(nb_mem_check(1000, 100, 0, "", ""), 0);
    CU_ASSERT_EQUAL(nb_mem_check(2000000, 100, 0, "", "; use a smaller -n"), NB_EXIT_RUNTIME);
    msg_has("out of host memory: 2000000 bodies need about 190.7 MiB (100 B/body), 117.7 MiB are "
            "available (NB_FAKE_MEM_AVAILABLE); use a smaller -n");
    setenv("NB_FAKE_MEM_AVAILABLE", "lots", 1);                        /* not a number: ignored */
    double real = nb_mem_available(why, sizeof why);
    unsetenv("NB_FAKE_MEM_AVAILABLE");
    printf("       available here: %.2f GiB (%s)\n", real / 1073741824.0, why);
    CU_ASSERT(real > 0);
    CU_ASSERT(!strcmp(why, "MemAvailable") || !strcmp(why, "cgroup limit"));
}


/* The fuzz corpus and every input the fuzzers ever broke the kit with
 * (tests/fuzz/regressions/<target>/), replayed through the normal build. */
static void t_fuzz_replay(void)
{
    static const char *const sets[] = { "corpus", "regressions" };
    static const char *const targets[] = { "state", "tipsy", "options" };
    int count = 0, broke = 0;
    setenv("NB_FAKE_MEM_AVAILABLE", "268435456", 1);       /* as under the fuzzer */
    for (int a = 0; a < 2; a++)
        for (int t = 0; t < 3; t++) {
            char dir[1024];
            snprintf(dir, sizeof dir, "%s/%s/%s", NB_FUZZ_DIR, sets[a], targets[t]);
            fflush(stdout);
            broke += nb_fuzz_replay(dir, targets[t], &count);   /* names each on stderr */
        }
    unsetenv("NB_FAKE_MEM_AVAILABLE");
    printf("       %d inputs replayed from %s, %d broke an invariant\n", count, NB_FUZZ_DIR, broke);
    CU_ASSERT_EQUAL(broke, 0);
    CU_ASSERT(count > 0);
}

static void t_statistics(void)
{
    double v[] = { 5, 1, 4, 2, 3 };
    CU_ASSERT_DOUBLE_EQUAL(nb_median(v, 5), 3, 0);
    double w[] = { 4, 1, 3, 2 };
    CU_ASSERT_DOUBLE_EQUAL(nb_median(w, 4), 2.5, 0);
    double p[100];
    for (int k = 0; k < 100; k++) p[k] = 100 - k;
    CU_ASSERT_DOUBLE_EQUAL(nb_percentile(p, 100, 0.99), 99, 0);
    int64_t idx[10], sa[10], sb[10];
    nb_ref_sample_seed(0);                   /* the programs' --check: evenly spread */
    CU_ASSERT_EQUAL(nb_ref_sample(5, 10, idx), 5);
    CU_ASSERT_EQUAL(nb_ref_sample(1000, 10, idx), 10);
    CU_ASSERT(idx[0] == 0 && idx[9] == 999);
    /* the grader's: a body of each tenth, where the seed says, another seed elsewhere */
    int64_t same = 0;
    nb_ref_sample_seed(12345);
    CU_ASSERT_EQUAL(nb_ref_sample(1000, 10, sa), 10);
    nb_ref_sample_seed(67890);
    CU_ASSERT_EQUAL(nb_ref_sample(1000, 10, sb), 10);
    for (int k = 0; k < 10; k++) {
        CU_ASSERT(sa[k] >= 100 * k && sa[k] < 100 * (k + 1) && sb[k] >= 100 * k && sb[k] < 100 * (k + 1));
        same += sa[k] == sb[k];
    }
    NB_ASSERT(same < 5, "two seeds drew %lld of the same 10 bodies", (long long)same);
    CU_ASSERT_EQUAL(nb_ref_sample(5, 10, idx), 5);   /* all of them where n is small */
    CU_ASSERT(idx[0] == 0 && idx[4] == 4);
    nb_ref_sample_seed(0);
    nb_step_time t[3] = { { 0.5, 2, 3, 100 }, { 0.5, 1, 2, 100 }, { 0.5, 4, 5, 100 } };
    nb_bench b;
    nb_bench_summarize(t, 3, &b);
    CU_ASSERT(b.force_med == 2 && b.force_min == 1 && b.step_med == 3 && b.step_min == 2);
    CU_ASSERT_DOUBLE_EQUAL(b.force_mean, 7.0 / 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(b.step_mean, 10.0 / 3, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(b.inter_per_s, 100 / 2e-3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(b.gflops, 100 / 2e-3 * 20 / 1e9, 1e-12);
}

/* Where the pulls on a body cancel, its error is measured against their
 * size (nb_rel_error, NB_REF_CANCEL), not against what is left of their
 * sum.  Five equal bodies in a row: the middle one's reference is ~1e-17;
 * a float code leaves ~1e-8 of its pulls (0.5): that is no error (it was
 * 1e9 before), while 1e-3 of the pulls, or of any other body's
 * acceleration, still fails the all-pairs bound. */
static void t_error_cancelling_pulls(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 5) == 0);
    for (int i = 0; i < 5; i++) set_body(&s, i, 0.2f, (float)i, 0, 0, 0, 0, 0);
    int64_t idx[5];
    double rx[5], ry[5], rz[5], pull[5];
    nb_ref_sample(5, 5, idx);
    nb_ref_accel_pulls(&s, 0.01, idx, 5, rx, ry, rz, pull);
    NB_ASSERT(fabs(rx[2]) < 1e-15 && pull[2] > 0.49 && pull[2] < 0.51,
              "middle body: a_ref %.3g (want ~0), pulls %.3g (want 0.2 (2 + 2/4) = 0.5)", rx[2], pull[2]);
    float ax[5], ay[5] = { 0 }, az[5] = { 0 };
    for (int i = 0; i < 5; i++) ax[i] = (float)rx[i];
    ax[2] = 3e-8f;                              /* float rounding of the cancelling sum */
    nb_errstats e;
    nb_tolerance tol = nb_tolerance_for(0, 0);
    CU_ASSERT_FATAL(nb_accel_errors(&s, 0.01, ax, ay, az, 1024, &e) == 0);
    NB_ASSERT(nb_within_tolerance(&e, &tol), "rounding of a cancelling sum: max %.3g, bound %.3g",
              e.max, tol.max);
    ax[2] = 5e-4f;                              /* 1e-3 of its pulls: wrong */
    CU_ASSERT_FATAL(nb_accel_errors(&s, 0.01, ax, ay, az, 1024, &e) == 0);
    NB_ASSERT(!nb_within_tolerance(&e, &tol), "1e-3 of the pulls off: max %.3g passes", e.max);
    ax[2] = 3e-8f;
    ax[0] *= 1.001f;                            /* an end body 1e-3 off: wrong */
    CU_ASSERT_FATAL(nb_accel_errors(&s, 0.01, ax, ay, az, 1024, &e) == 0);
    NB_ASSERT(!nb_within_tolerance(&e, &tol), "an end body 1e-3 off: max %.3g passes", e.max);
    /* N = 1: no pull, a_ref = 0: the absolute error */
    NB_ASSERT(nb_rel_error(2e-3, 0, 0, 0, 0, 0, 0) == 2e-3, "N = 1: the absolute error");
    nb_state_free(&s);
}

/* The test hooks in the environment take decimal integers only: "1e3" and
 * "0x100000" (strtod read them as 1000 and 1048576) and "12x" are ignored,
 * as documented. */
static void t_env_hooks(void)
{
    int64_t v = -1;
    static const char *const bad[] = { "1e3", "0x100000", "12x", " 12", "12 ", "+", "-", "1.5",
                                       "99999999999999999999" };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        setenv("NB_TEST_HOOK", bad[k], 1);
        NB_ASSERT(nb_env_i64("NB_TEST_HOOK", 0, INT64_MAX, &v) == -1, "'%s' taken as a number",
                  bad[k]);
        char why[64] = "";
        setenv("NB_FAKE_MEM_AVAILABLE", bad[k], 1);
        nb_mem_available(why, sizeof why);
        NB_ASSERT(strcmp(why, "NB_FAKE_MEM_AVAILABLE") != 0, "NB_FAKE_MEM_AVAILABLE='%s' was used",
                  bad[k]);
    }
    setenv("NB_TEST_HOOK", "-3", 1);
    NB_ASSERT(nb_env_i64("NB_TEST_HOOK", 0, 10, &v) == -1, "-3 is outside [0, 10]");
    setenv("NB_TEST_HOOK", "1000", 1);
    NB_ASSERT(nb_env_i64("NB_TEST_HOOK", 0, INT64_MAX, &v) == 1 && v == 1000, "1000: %lld",
              (long long)v);
    unsetenv("NB_TEST_HOOK");
    NB_ASSERT(nb_env_i64("NB_TEST_HOOK", 0, 10, &v) == 0, "unset: not 0");
    char why[64] = "";
    setenv("NB_FAKE_MEM_AVAILABLE", "1000", 1);
    double m = nb_mem_available(why, sizeof why);
    NB_ASSERT(m == 1000 && !strcmp(why, "NB_FAKE_MEM_AVAILABLE"), "NB_FAKE_MEM_AVAILABLE=1000: %g (%s)",
              m, why);
    unsetenv("NB_FAKE_MEM_AVAILABLE");
}

static void t_error_stats(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 500, 5, &s) == 0);
    int64_t idx[500];
    double rx[500], ry[500], rz[500];
    int64_t m = nb_ref_sample(500, 500, idx);
    nb_ref_accel(&s, 0.01, idx, m, rx, ry, rz);
    float ax[500], ay[500], az[500];
    for (int i = 0; i < 500; i++) { ax[i] = (float)rx[i]; ay[i] = (float)ry[i]; az[i] = (float)rz[i]; }
    nb_errstats e;
    CU_ASSERT_FATAL(nb_accel_errors(&s, 0.01, ax, ay, az, 1024, &e) == 0);
    CU_ASSERT(e.count == 500 && e.max < 1e-7);
    nb_tolerance tol = nb_tolerance_for(0, 0.5);
    CU_ASSERT(nb_within_tolerance(&e, &tol));
    ax[17] *= 1.001f;                           /* one wrong body must fail the all-pairs check */
    CU_ASSERT_FATAL(nb_accel_errors(&s, 0.01, ax, ay, az, 1024, &e) == 0);
    CU_ASSERT(!nb_within_tolerance(&e, &tol));
    ay[3] = NAN;                                /* NaN never passes */
    CU_ASSERT_FATAL(nb_accel_errors(&s, 0.01, ax, ay, az, 1024, &e) == 0);
    CU_ASSERT(e.nonfinite == 1 && !nb_within_tolerance(&e, &tol));
    nb_tolerance tl = nb_tolerance_for_n(0, 0, 4194304);      /* large N: median/p99 */
    CU_ASSERT(tl.max == 0 && tl.median == 1e-3 && tl.p99 == 1e-2);
    tl = nb_tolerance_for_n(0, 0, 65536);
    CU_ASSERT(tl.max == 1e-4 && tl.median == 0);
    nb_tolerance tt = nb_tolerance_for(1, 0.5);
    CU_ASSERT(tt.median == 1e-3 && tt.p99 == 1e-2);
    nb_state_free(&s);
}

/* The references on a double state (--precision double and mixed) are the
 * float ones on a float state: the same loops (the accelerations to the
 * last bit; the energy, whose threads add in any order, to 1e-13); the double
 * leapfrog keeps what rounding to float throws away; the tolerances per
 * precision: double max <= 1e-10 at every N, mixed single's. */
static void t_ref_double_state(void)
{
    nb_state s;
    nb_state64 d;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 777, 5, &s) == 0);
    CU_ASSERT_FATAL(nb_state64_from(&d, &s) == 0);
    int64_t idx[777];
    int64_t m = nb_ref_sample(777, 1024, idx);
    double a32[3][777], a64[3][777];
    nb_ref_accel(&s, 0.01, idx, m, a32[0], a32[1], a32[2]);
    nb_ref_accel64(&d, 0.01, idx, m, a64[0], a64[1], a64[2]);
    NB_ASSERT(!memcmp(a32, a64, sizeof a32), "nb_ref_accel64 on the widened state differs from nb_ref_accel");
    double e32 = nb_energy(&s, 0.01, NULL, NULL), e64 = nb_energy64(&d, 0.01, NULL, NULL);
    NB_ASSERT(fabs(e32 - e64) <= 1e-13 * fabs(e32),       /* its threads add in any order */
              "nb_energy64 on the widened state: %.17g, nb_energy: %.17g", e64, e32);
    nb_errstats e;
    NB_ASSERT_FATAL(nb_accel_errors64(&d, 0.01, a64[0], a64[1], a64[2], 1024, &e) == 0, "errors64");
    NB_ASSERT(e.count == 777 && e.max == 0, "the reference against itself: %lld bodies, max %.3g",
              (long long)e.count, e.max);
    a64[1][40] *= 1.0 + 1e-9;                    /* a float-sized slip fails double's bound */
    NB_ASSERT_FATAL(nb_accel_errors64(&d, 0.01, a64[0], a64[1], a64[2], 1024, &e) == 0, "errors64");
    nb_tolerance td = nb_tolerance_for_precision(0, 0, 4194304, NB_PREC_DOUBLE);
    NB_ASSERT(td.max == 1e-10 && !nb_within_tolerance(&e, &td), "double: max %.3g passed %.3g", e.max, td.max);
    nb_tolerance tm = nb_tolerance_for_precision(0, 0, 4194304, NB_PREC_MIXED), ts = nb_tolerance_for_n(0, 0, 4194304);
    NB_ASSERT(tm.median == ts.median && tm.p99 == ts.p99 && tm.max == ts.max, "mixed: not single's bounds");
    /* one step: the double leapfrog on the double state, then rounded, is nb_ref_leapfrog */
    nb_state r;
    CU_ASSERT_FATAL(nb_state_copy(&r, &s) == 0);
    CU_ASSERT_FATAL(nb_ref_leapfrog(&r, 0.01, 1e-3, 3) == 0 && nb_ref_leapfrog64(&d, 0.01, 1e-3, 3) == 0);
    int64_t same = 0, kept = 0;
    for (int64_t i = 0; i < 777; i++) {
        same += r.x[i] == (float)d.x[i] && r.vz[i] == (float)d.vz[i];
        kept += d.x[i] != (double)(float)d.x[i];
    }
    NB_ASSERT(same == 777 && kept > 700, "leapfrog64: %lld of 777 round to nb_ref_leapfrog's floats, %lld keep "
              "bits float has not", (long long)same, (long long)kept);
    nb_state64_free(&d);
    nb_state_free(&r);
    nb_state_free(&s);
}

/* scripts/accel_error (make bench-tree's check of ECL-BH): another code's
 * accelerations, read as text, against the double direct sum.  Two bodies
 * of mass 1/2 at x = -1/2 and +1/2, softening 0.1: each feels
 * a = (1/2) / (1 + 0.01)^(3/2) towards the other.  Written to 9 digits the
 * error is float rounding; 1 % off on one body is 1e-2 on it; a NaN is
 * counted (exit 1, one line); a file one line short or one too long, a
 * line that is not three numbers, a missing file, a directory, N = 0 or
 * EPS = 0: exit 2 and one line. */
static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs(text, f);
    CU_ASSERT_FATAL(fclose(f) == 0);
}

static void t_peer_accel_error(void)
{
    const char *pos = nb_t_tmpfile(0, ".pos"), *acc = nb_t_tmpfile(1, ".acc");
    char line[256];
    const double a = 0.5 / pow(1.01, 1.5);
    write_text(pos, "-0.5 0 0\n0.5 0 0\n");
    static char out[4096], err[4096];
    const struct { const char *n, *acc, *pos; double f1; int rc; double lo, hi; } c[] = {
        { "2", NULL, NULL, 1.0, 0, 0, 1e-7 },          /* exact to float rounding */
        { "2", NULL, NULL, 1.01, 0, 0.9e-2, 1.1e-2 },   /* body 1 off by 1 % */
        { "2", "1 0 0\n", NULL, 0, 2, 0, 0 },           /* one line short */
        { "2", "1 0 0\n1 0\n", NULL, 0, 2, 0, 0 },      /* not three numbers */
        { "2", "1 0 0\n-1 0 0\n1 0 0\n", NULL, 0, 2, 0, 0 },  /* one line too many */
        { "2", "nan 0 0\n-1 0 0\n", NULL, 0, 1, 0, 0 },   /* not finite: counted */
        { "2", NULL, "/nonexistent/pos", 1.0, 2, 0, 0 },
        { "2", NULL, "/", 1.0, 2, 0, 0 },               /* not a regular file */
        { "0", NULL, NULL, 1.0, 2, 0, 0 },
        { "2", NULL, NULL, 1.0, 2, 0, 0 },              /* EPS 0 (argv below) */
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        if (c[k].acc) write_text(acc, c[k].acc);
        else {
            snprintf(line, sizeof line, "%.9g 0 0\n%.9g 0 0\n", a, -a * c[k].f1);
            write_text(acc, line);
        }
        const int last = k + 1 == sizeof c / sizeof *c;
        char *argv[] = { "./accel_error", (char *)c[k].n, last ? "0" : "0.1",
                         (char *)(c[k].pos ? c[k].pos : pos), (char *)acc, NULL };
        int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 30);
        long long count = -1, bad = -1;
        double med = -1, p99 = -1, max = -1;
        int got = sscanf(out, "%lld %lf %lf %lf %lld", &count, &med, &p99, &max, &bad);
        if (c[k].rc == 0)
            NB_ASSERT(rc == 0 && got == 5 && count == 2 && bad == 0 && max >= c[k].lo && max <= c[k].hi,
                      "case %zu: exit %d, '%s' (want 2 bodies, max error in [%g, %g])", k, rc, out,
                      c[k].lo, c[k].hi);
        else if (c[k].rc == 1)
            NB_ASSERT(rc == 1 && got == 5 && count == 2 && bad == 1 && nb_t_count_lines(err) == 1,
                      "case %zu: exit %d, '%s', stderr '%.200s' (want exit 1, 1 of 2 not finite, one line)",
                      k, rc, out, err);
        else
            NB_ASSERT(rc == c[k].rc && nb_t_count_lines(err) == 1 && !*out,
                      "case %zu: exit %d (want %d), stdout '%.60s', stderr '%.200s' (want one line)", k, rc,
                      c[k].rc, out, err);
    }
}

static const nb_test common_tests[] = {
    { "ref_two_body_hand_computed", t_ref_two_body, 2 },
    { "ref_three_body_hand_computed", t_ref_three_body, 2 },
    { "energy_momentum_known_configuration", t_energy_known, 2 },
    { "ref_leapfrog_circular_orbit", t_ref_leapfrog_orbit, 2 },
    { "plummer_henon_units", t_plummer_units, 3 },
    { "cube_disk_models", t_models, 2 },
    { "rng_and_models_deterministic", t_rng, 2 },
    { "parser_accepts_and_rejects", t_parser, 3 },
    { "state_file_roundtrip_and_errors", t_state_roundtrip, 2 },
    { "state_reader_bounded_streams_dirs", t_reader_limits, 2 },
    { "state_file_cut_short_refused", t_state_cut_short, 1 },
    { "save_under_file_size_limits", t_save_under_faults, 2 },
    { "save_interrupted_by_sigint", t_save_interrupted, 1 },
    { "save_path_checked_before_the_run", t_save_path_checks, 1 },
    { "validate_in_float_and_watchdog", t_validate, 2 },
    { "messages_one_line_memory_check", t_messages_and_memory, 1 },
    { "fuzz_regressions_replay", t_fuzz_replay, 1 },
    { "statistics_and_bench_summary", t_statistics, 1 },
    { "error_stats_and_tolerance", t_error_stats, 2 },
    { "references_on_a_double_state", t_ref_double_state, 1 },
    { "error_where_the_pulls_cancel", t_error_cancelling_pulls, 1 },
    { "env_hooks_decimal_integers_only", t_env_hooks, 1 },
    { "peer_accelerations_against_the_double_sum", t_peer_accel_error, 1 },
    NB_TEST_END
};

void nb_suite_common_register(void) { nb_grade_suite("common", common_tests, NULL); }
