/* suite_precision.c -- the suite "precision": --precision double and mixed
 * of a step that has them (step01's optional exercise, step04's tuned
 * build; handouts/08_precision.md).  Everything through the grader's own
 * references: what the step holds unrounded (nb_step.accel64, state64)
 * against long double formulas, the double direct sum and the double
 * leapfrog, and, as the yardstick of mixed, the grader's own one running
 * float sum per body (nb_t_float_sum_errors: the lesson kernels' sum).
 *
 * Bounds and why:
 *  - double, hand-computed configurations (two bodies at 1 and at 1.5 eps,
 *    a square, three bodies in a row, unequal masses; accelerations by
 *    formula in long double): relative error <= 1e-12 per body.  A double
 *    path gets ~1e-16; one float operation anywhere (sqrtf, a float eps^2,
 *    a float accumulator) costs 1e-9 or more;
 *  - double leapfrog, a small planetary system, 200 steps of dt 0.01 against
 *    nb_ref_leapfrog64: |x - x_ref|, |v - v_ref| <= 1e-10 (measured 4e-16
 *    on step01; a float half step, 2e-8 relative: 6e-8);
 *  - every precision's accelerations at N = 1, 2, 3, 1000, 4097 within its
 *    --check tolerance (nb_tolerance_for_precision);
 *  - mixed on the offset clusters (--ic clusters, N = 30000: pulls of the
 *    other two clusters that nearly cancel): p99 at least 10x below what one
 *    float sum per body gets (measured ~1.9e-4 against ~5e-7);
 *  - mixed at large N (65536 on the CPU, 1048576 on the GPU, there also with
 *    NB_TUNE=newton=0: the tuned build's tile kernel, one thread summing all
 *    N sources), Plummer: p99 <= 1e-7 and 10x below one float sum: with
 *    compensated sums the error no longer grows with N (measured ~3e-8 on
 *    the CPU; sums that lost their compensation: 5e-7 at 65536);
 *  - mixed on a system far from 0 (the planets moved to x = 4096, where a
 *    float resolves 4.9e-4): 200 steps of dt 0.01 against the double
 *    leapfrog, |x - x_ref| <= 1e-5 (measured 2e-8 on step01; positions
 *    rounded to float before their difference from the origin: 5.6e-5;
 *    single, printed: worse);
 *  - double and mixed: the same bits twice (and, on the CPU, on 1 and 3
 *    threads); --check passes in both. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_testutil.h"
#include "nb_verify.h"

static const nb_step *S;
static const char *BIN;

static nb_options opts(int64_t n, int precision)
{
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.threads = 2;
    o.precision = precision;
    return o;
}

/* ---- double: hand-computed configurations ---- */

typedef struct config {
    const char *name;
    int n;
    double eps;
    double m[4], x[4][3];
} config;

static const config CONFIGS[] = {
    { "two bodies at distance 1", 2, 0.01, { 0.75, 0.25 }, { { 0, 0, 0 }, { 1, 0, 0 } } },
    { "two bodies at distance 1.5 eps", 2, 0.01, { 0.5, 0.1 },
      { { 0.25, -0.5, 0 }, { 0.25, -0.5, 0.015 } } },
    { "a square of equal masses", 4, 0.05, { 0.25, 0.25, 0.25, 0.25 },
      { { 1, 1, 0 }, { -1, 1, 0 }, { 1, -1, 0 }, { -1, -1, 0 } } },
    { "three bodies in a row, far from 0", 3, 0.001, { 0.5, 0.3125, 0.1875 },
      { { 1024, 0, 3 }, { 1024.5, 0, 3 }, { 1026, 0, 3 } } },
};

/* a of body i of s (the configuration as the step got it: in float) by
 * the formula, in long double */
static void exact(const nb_state *s, double eps, int i, long double a[3])
{
    const float *x[3] = { s->x, s->y, s->z };
    a[0] = a[1] = a[2] = 0;
    for (int j = 0; j < s->n; j++) {
        long double d[3], r2 = (long double)eps * eps;
        for (int q = 0; q < 3; q++) {
            d[q] = (long double)x[q][j] - x[q][i];
            r2 += d[q] * d[q];
        }
        long double w = s->m[j] / (r2 * sqrtl(r2));
        for (int q = 0; q < 3; q++) a[q] += w * d[q];
    }
}

static void t_double_hand(void)
{
    double worst = 0;
    for (size_t k = 0; k < sizeof CONFIGS / sizeof *CONFIGS; k++) {
        const config *c = &CONFIGS[k];
        nb_state s;
        CU_ASSERT_FATAL(nb_state_alloc(&s, c->n) == 0);
        for (int i = 0; i < c->n; i++) {
            s.m[i] = (float)c->m[i];
            s.x[i] = (float)c->x[i][0]; s.y[i] = (float)c->x[i][1]; s.z[i] = (float)c->x[i][2];
            s.vx[i] = s.vy[i] = s.vz[i] = 0.0f;
        }
        nb_options o = opts(c->n, NB_PREC_DOUBLE);
        o.eps = c->eps;
        double *ax = NULL, *ay = NULL, *az = NULL;
        int rc = nb_t_step_accel64(S, &s, &o, &ax, &ay, &az);
        NB_ASSERT(rc == 0, "%s: exit code %d: %.150s", c->name, rc, rc ? nb_errmsg() : "");
        for (int i = 0; !rc && i < c->n; i++) {
            long double a[3];
            exact(&s, c->eps, i, a);
            long double dx = ax[i] - a[0], dy = ay[i] - a[1], dz = az[i] - a[2];
            double e = (double)(sqrtl(dx * dx + dy * dy + dz * dz) / sqrtl(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
            printf("       %s, body %d: a = (%.17g, %.17g, %.17g), relative error %.3g\n", c->name, i, ax[i],
                   ay[i], az[i], e);
            NB_ASSERT(e <= 1e-12, "%s, body %d: relative error %.3g of the double acceleration, bound 1e-12",
                      c->name, i, e);
            worst = isnan(e) || e > worst ? e : worst;
        }
        free(ax); free(ay); free(az);
        nb_state_free(&s);
    }
    printf("       worst relative error %.3g (bound 1e-12)\n", worst);
}

/* ---- trajectories: a small planetary system ---- */

/* The largest |x - x_ref| and |v - v_ref| over the bodies (a NaN stays). */
static void diff64(const nb_state64 *a, const nb_state64 *b, double *ex, double *ev)
{
    *ex = *ev = 0;
    for (int64_t i = 0; i < a->n; i++) {
        double dx = sqrt((a->x[i] - b->x[i]) * (a->x[i] - b->x[i]) + (a->y[i] - b->y[i]) * (a->y[i] - b->y[i]) +
                         (a->z[i] - b->z[i]) * (a->z[i] - b->z[i]));
        double dv = sqrt((a->vx[i] - b->vx[i]) * (a->vx[i] - b->vx[i]) +
                         (a->vy[i] - b->vy[i]) * (a->vy[i] - b->vy[i]) +
                         (a->vz[i] - b->vz[i]) * (a->vz[i] - b->vz[i]));
        *ex = isnan(dx) || dx > *ex ? dx : *ex;
        *ev = isnan(dv) || dv > *ev ? dv : *ev;
    }
}

#define ORBIT_STEPS 200
#define ORBIT_DT    0.01
#define ORBIT_EPS   1e-3

/* precision's run of the planets at x0 against the double leapfrog:
 * *ex, *ev; the step's code */
static int orbit(double x0, int precision, double *ex, double *ev)
{
    nb_state s;
    nb_state64 ref, got;
    nb_t_planets(&s, x0);
    nb_options o = opts(4, precision);
    o.eps = ORBIT_EPS;
    o.dt = ORBIT_DT;
    CU_ASSERT_FATAL(nb_state64_from(&ref, &s) == 0);
    CU_ASSERT_FATAL(nb_ref_leapfrog64(&ref, ORBIT_EPS, ORBIT_DT, ORBIT_STEPS) == 0);
    int rc = nb_t_step_run64(S, &s, &o, ORBIT_STEPS, &got);
    *ex = *ev = INFINITY;
    if (!rc) diff64(&got, &ref, ex, ev);
    nb_state64_free(&got);
    nb_state64_free(&ref);
    nb_state_free(&s);
    return rc;
}

static void t_double_leapfrog(void)
{
    double ex, ev;
    int rc = orbit(0.0, NB_PREC_DOUBLE, &ex, &ev);
    NB_ASSERT_OK_FATAL("double, 200 steps", rc);
    printf("       double, %d steps of dt %g: max |x - x_ref| %.3g, max |v - v_ref| %.3g (bound 1e-10)\n",
           ORBIT_STEPS, ORBIT_DT, ex, ev);
    NB_ASSERT_LE("double leapfrog vs the double reference, max |x - x_ref|", ex, 1e-10);
    NB_ASSERT_LE("double leapfrog vs the double reference, max |v - v_ref|", ev, 1e-10);
}

#define FAR_X0    4096.0
#define FAR_BOUND 1e-5

static void t_mixed_far(void)
{
    double ex, ev, sx, sv;
    int rc = orbit(FAR_X0, NB_PREC_MIXED, &ex, &ev);
    NB_ASSERT_OK_FATAL("mixed, planets at x = 4096", rc);
    if (!orbit(FAR_X0, NB_PREC_SINGLE, &sx, &sv))
        printf("       single, the same run: max |x - x_ref| %.3g, max |v - v_ref| %.3g (not graded)\n", sx, sv);
    printf("       mixed, planets at x = %g, %d steps: max |x - x_ref| %.3g, max |v - v_ref| %.3g (bound %g)\n",
           FAR_X0, ORBIT_STEPS, ex, ev, FAR_BOUND);
    NB_ASSERT_LE("mixed, planets at x = 4096, vs the double leapfrog, max |x - x_ref|", ex, FAR_BOUND);
    NB_ASSERT_LE("mixed, planets at x = 4096, vs the double leapfrog, max |v - v_ref|", ev, FAR_BOUND);
}

/* ---- accelerations: every precision within its tolerance ---- */

static void accel_case(const char *ic, int64_t n, uint64_t seed, int precision, nb_errstats *e)
{
    nb_state s;
    nb_options o = opts(n, precision);
    o.poison = 1;
    CU_ASSERT_FATAL(nb_ic_generate(ic, n, seed, &s) == 0);
    if (strcmp(ic, "clusters")) nb_t_unequal_masses(&s, seed);
    double *ax = NULL, *ay = NULL, *az = NULL;
    int rc = nb_t_step_accel64(S, &s, &o, &ax, &ay, &az);
    memset(e, 0, sizeof *e);
    e->max = e->p99 = e->median = INFINITY;
    NB_ASSERT(rc == 0, "%s, %s N=%lld: exit code %d: %.150s", nb_precision_name(precision), ic, (long long)n, rc,
              rc ? nb_errmsg() : "");
    if (!rc) {
        nb_state64 d;
        CU_ASSERT_FATAL(nb_state64_from(&d, &s) == 0);
        CU_ASSERT_FATAL(nb_accel_errors64(&d, o.eps, ax, ay, az, NB_REF_SAMPLES, e) == 0);
        nb_state64_free(&d);
        nb_tolerance tol = nb_tolerance_for_precision(0, 0, n, precision);
        printf("       %s, %s N=%lld: median %.3g, p99 %.3g, max %.3g, %lld non-finite\n",
               nb_precision_name(precision), ic, (long long)n, e->median, e->p99, e->max, (long long)e->nonfinite);
        NB_ASSERT(nb_within_tolerance(e, &tol), "%s, %s N=%lld: median %.3g p99 %.3g max %.3g, %lld non-finite; "
                  "bounds median %.3g p99 %.3g max %.3g", nb_precision_name(precision), ic, (long long)n,
                  e->median, e->p99, e->max, (long long)e->nonfinite, tol.median, tol.p99, tol.max);
    }
    free(ax); free(ay); free(az);
    nb_state_free(&s);
}

static void t_accel_each(void)
{
    static const int64_t ns[] = { 1, 2, 3, 1000, 4097 };
    nb_errstats e;
    for (int p = NB_PREC_DOUBLE; p <= NB_PREC_MIXED; p++)
        for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
            accel_case(k == 4 ? "disk" : "plummer", ns[k], 70 + k, p, &e);
}

/* ---- mixed against one float sum per body ---- */

static void vs_float_sum(const char *ic, int64_t n, uint64_t seed, double abs_bound)
{
    nb_state s;
    nb_errstats mixed, fsum;
    accel_case(ic, n, seed, NB_PREC_MIXED, &mixed);
    CU_ASSERT_FATAL(nb_ic_generate(ic, n, seed, &s) == 0);
    if (strcmp(ic, "clusters")) nb_t_unequal_masses(&s, seed);
    nb_options o = opts(n, NB_PREC_MIXED);
    CU_ASSERT_FATAL(nb_t_float_sum_errors(&s, o.eps, &fsum) == 0);
    nb_state_free(&s);
    printf("       %s N=%lld: one float sum per body (the grader's): median %.3g, p99 %.3g, max %.3g; mixed: p99 "
           "%.3g, %.1fx better\n", ic, (long long)n, fsum.median, fsum.p99, fsum.max, mixed.p99,
           fsum.p99 / mixed.p99);
    NB_ASSERT(mixed.p99 * 10 <= fsum.p99, "%s N=%lld: mixed p99 %.3g, one float sum per body %.3g: expected at "
              "least 10x better", ic, (long long)n, mixed.p99, fsum.p99);
    if (abs_bound > 0) NB_ASSERT_LE("mixed, Plummer, p99 (the error must not grow with N)", mixed.p99, abs_bound);
}

static void t_mixed_clusters(void) { vs_float_sum("clusters", 30000, 81, 0); }

/* the large N: what the device computes in about a second; on the GPU
 * (step04's tuned build) also with NB_TUNE=newton=0, its one-sided tile
 * kernel, where each body's sum runs over all N sources in one thread */
static void t_mixed_large_n(void)
{
    vs_float_sum("plummer", S->probe ? 1048576 : 65536, 82, 1e-7);
    if (!S->probe) return;
    setenv("NB_TUNE", "newton=0", 1);
    printf("       NB_TUNE=newton=0:\n");
    vs_float_sum("plummer", 1048576, 83, 1e-7);
    unsetenv("NB_TUNE");
}

/* ---- the same bits, --check ---- */

static int same_bits64(const nb_state64 *a, const nb_state64 *b)
{
    size_t len = (size_t)a->n * sizeof(double);
    return a->n == b->n && !memcmp(a->x, b->x, len) && !memcmp(a->y, b->y, len) && !memcmp(a->z, b->z, len) &&
           !memcmp(a->vx, b->vx, len) && !memcmp(a->vy, b->vy, len) && !memcmp(a->vz, b->vz, len);
}

static void t_same_bits(void)
{
    nb_state s;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 3001, 91, &s) == 0);
    nb_t_unequal_masses(&s, 91);
    for (int p = NB_PREC_DOUBLE; p <= NB_PREC_MIXED; p++) {
        nb_state64 a, b;
        nb_options o = opts(s.n, p);
        o.threads = 1;
        NB_ASSERT_OK_FATAL("first run", nb_t_step_run64(S, &s, &o, 20, &a));
        if (S->options & NB_OPT_THREADS) o.threads = 3;
        NB_ASSERT_OK_FATAL("second run", nb_t_step_run64(S, &s, &o, 20, &b));
        NB_ASSERT(same_bits64(&a, &b), "%s: 20 steps of the same input%s differ", nb_precision_name(p),
                  S->options & NB_OPT_THREADS ? ", on 1 and on 3 threads," : " twice");
        printf("       %s: 20 steps%s: %s\n", nb_precision_name(p),
               S->options & NB_OPT_THREADS ? ", 1 and 3 threads" : " twice", same_bits64(&a, &b) ? "the same bits" : "differ");
        nb_state64_free(&a);
        nb_state64_free(&b);
    }
    nb_state_free(&s);
}

static char out[1 << 16], err[1 << 14];

/* --check in double and mixed: exit 0 and its report, and the points from
 * what the program computed: the state it saved after 3 steps against the
 * double leapfrog from the same model */
static void t_check_exit(void)
{
    static const char *const runs[][8] = {
        { "-n", "1001", "-s", "3", "--precision", "double", "plummer" },
        { "-n", "1001", "-s", "3", "--precision", "mixed", "plummer" },
        { "-n", "3000", "-s", "3", "--precision", "double", "clusters" },
    };
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        char f[300];
        snprintf(f, sizeof f, "%s", nb_t_tmpfile(0, ".txt"));
        char *argv[14] = { (char *)BIN };
        for (int q = 0; q < 6; q++) argv[1 + q] = (char *)runs[k][q];
        argv[7] = "--check";
        argv[8] = "--ic";
        argv[9] = (char *)runs[k][6];
        argv[10] = "--save";
        argv[11] = f;
        int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 120);
        const char *line = strstr(out, "check:");
        printf("       %s %s %s %s %s %s --check: exit %d, %.*s\n", runs[k][0], runs[k][1], runs[k][2],
               runs[k][3], runs[k][4], runs[k][5], rc, line ? (int)strcspn(line, "\n") : 10,
               line ? line : "no check line");
        NB_ASSERT(rc == 0 && line && strstr(line, "-> PASS"), "%s %s %s %s --precision %s --check: exit %d, "
                  "expected 0 and '-> PASS': %.120s", runs[k][0], runs[k][1], runs[k][2], runs[k][3], runs[k][5],
                  rc, err);
        nb_state g, s1;
        int64_t n = atoi(runs[k][1]);
        CU_ASSERT_FATAL(nb_ic_generate(runs[k][6], n, 1, &g) == 0);
        if (rc == 0 && nb_t_state_read(f, &s1) == 0) {
            nb_options o = opts(n, 0);
            char what[120];
            snprintf(what, sizeof what, "--precision %s, --ic %s: the state --check saved", runs[k][5], runs[k][6]);
            NB_ASSERT(s1.n == n, "%s: %lld bodies, expected %lld", what, (long long)s1.n, (long long)n);
            if (s1.n == n) nb_t_assert_motion(&g, &s1, &o, 3, 0, what);
            nb_state_free(&s1);
        } else {
            NB_ASSERT(0, "--precision %s --check --save: no state saved (exit %d): %.120s", runs[k][5], rc, nb_errmsg());
        }
        nb_state_free(&g);
        unlink(f);
    }
}

/* The suite's gate: the double and the mixed path's accelerations at
 * N = 1000 (Plummer, unequal masses), as accel() rounds them to float,
 * within single precision's bounds: a path that computes nothing fails;
 * the tests above hold each to its own precision. */
static void gate(void)
{
    const int p[2] = { NB_PREC_DOUBLE, NB_PREC_MIXED };
    for (int k = 0; k < 2; k++) {
        nb_options o = opts(1000, p[k]);
        nb_state s;
        CU_ASSERT_FATAL(nb_ic_generate("plummer", 1000, 4242, &s) == 0);
        nb_t_unequal_masses(&s, 4243);
        float *ax = NULL, *ay = NULL, *az = NULL;
        int rc = nb_t_step_accel(S, &s, &o, &ax, &ay, &az);
        NB_ASSERT(rc == 0, "%s: init/accel: exit code %d", k ? "mixed" : "double", rc);
        if (!rc) {
            nb_errstats e;
            CU_ASSERT_FATAL(nb_accel_errors(&s, o.eps, ax, ay, az, NB_REF_SAMPLES, &e) == 0);
            nb_tolerance tol = nb_tolerance_for(0, o.theta);   /* rounded to float: a float's bounds */
            printf("       --precision %s: N = 1000: median %.3g p99 %.3g max %.3g\n", k ? "mixed" : "double",
                   e.median, e.p99, e.max);
            NB_ASSERT(nb_within_tolerance(&e, &tol), "--precision %s: accelerations vs the double sum: max %.3g, "
                      "bound %.3g", k ? "mixed" : "double", e.max, tol.max);
        }
        free(ax); free(ay); free(az);
        nb_state_free(&s);
    }
}

static const nb_test precision_tests[] = {
    { "double_hand_computed_configurations_1e-12", t_double_hand, NB_FORCES(2) },
    { "double_leapfrog_tracks_double_reference", t_double_leapfrog, 1 },
    { "accel_double_mixed_n1_2_3_1000_4097", t_accel_each, NB_FORCES(1) },
    { "mixed_offset_clusters_10x_better_than_float_sum", t_mixed_clusters, NB_FORCES(2) },
    { "mixed_large_n_error_does_not_grow", t_mixed_large_n, NB_FORCES(2) },
    { "mixed_system_far_from_origin_tracks_double", t_mixed_far, 1 },
    { "double_mixed_bit_identical_runs", t_same_bits, 1 },
    { "check_option_passes_double_mixed", t_check_exit, 1 },
    NB_TEST_END
};

void nb_precision_register(const nb_step *step, const char *binary)
{
    S = step;
    BIN = binary;
    nb_grade_suite("precision", precision_tests, nb_grade_gpu_skip(step));
    nb_grade_gate("precision", gate, "--precision double and mixed: their accelerations at N = 1000");
}
