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
#include "nb_options.h"
#include "nb_testutil.h"
#include "nb_timer.h"
#include "nb_verify.h"

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

static void t_statistics(void)
{
    double v[] = { 5, 1, 4, 2, 3 };
    CU_ASSERT_DOUBLE_EQUAL(nb_median(v, 5), 3, 0);
    double w[] = { 4, 1, 3, 2 };
    CU_ASSERT_DOUBLE_EQUAL(nb_median(w, 4), 2.5, 0);
    double p[100];
    for (int k = 0; k < 100; k++) p[k] = 100 - k;
    CU_ASSERT_DOUBLE_EQUAL(nb_percentile(p, 100, 0.99), 99, 0);
    int64_t idx[10];
    CU_ASSERT_EQUAL(nb_ref_sample(5, 10, idx), 5);
    CU_ASSERT_EQUAL(nb_ref_sample(1000, 10, idx), 10);
    CU_ASSERT(idx[0] == 0 && idx[9] == 999);
    nb_step_time t[3] = { { 2, 3, 100 }, { 1, 2, 100 }, { 4, 5, 100 } };
    nb_bench b;
    nb_bench_summarize(t, 3, &b);
    CU_ASSERT(b.force_med == 2 && b.force_min == 1 && b.step_med == 3 && b.step_min == 2);
    CU_ASSERT_DOUBLE_EQUAL(b.inter_per_s, 100 / 2e-3, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(b.gflops, 100 / 2e-3 * 20 / 1e9, 1e-12);
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
    { "statistics_and_bench_summary", t_statistics, 1 },
    { "error_stats_and_tolerance", t_error_stats, 2 },
    NB_TEST_END
};

void nb_suite_common_register(void) { nb_grade_suite("common", common_tests, NULL); }
