/* suite_gpu_allpairs.c -- the GPU suite of the all-pairs steps (02, 03, 04):
 * odd N, other block sizes, poisoned output buffers, agreement with step01
 * and with the double-precision leapfrog after 10 steps.  Inactive (SKIPPED)
 * without a usable device.
 *
 * Bounds: accelerations max relative error 1e-4 for N <= 65536, the
 * large-N statistics above (nb_tolerance_for_n in nb_verify.h).  After 10
 * leapfrog steps (dt = 1e-3) of a Plummer sphere, two float32 codes that sum
 * in different orders differ by ~1e-7 in position; the bound 1e-5 (absolute,
 * in units where the half-mass radius is ~0.77) is 100x that and far below
 * what one wrong force term in one step would cause (~dt^2 |a| / N...). The
 * velocity bound 1e-4 is relative to the largest speed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_testutil.h"
#include "nb_verify.h"

static const nb_step *S, *CPU;

static void check_accel(int64_t n, int block, int poison, const char *ic, uint64_t seed)
{
    nb_state s;
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.block = block;
    o.poison = poison;
    CU_ASSERT_FATAL(nb_ic_generate(ic, n, seed, &s) == 0);
    float *ax = NULL, *ay = NULL, *az = NULL;
    int rc = nb_t_step_accel(S, &s, &o, &ax, &ay, &az);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc) printf("       N=%lld block %d: %s\n", (long long)n, block, nb_errmsg());
    if (!rc) {
        int64_t bad = 0;                         /* every element written and finite */
        for (int64_t i = 0; i < n; i++) bad += !isfinite(ax[i]) || !isfinite(ay[i]) || !isfinite(az[i]);
        CU_ASSERT_EQUAL(bad, 0);
        nb_errstats e;
        CU_ASSERT_FATAL(nb_accel_errors(&s, o.eps, ax, ay, az, NB_REF_SAMPLES, &e) == 0);
        nb_tolerance tol = nb_tolerance_for_n(0, 0, n);
        if (!nb_within_tolerance(&e, &tol) || bad)
            printf("       N=%lld block %d: max error %.3g, %lld unwritten/non-finite\n", (long long)n,
                   block, e.max, (long long)bad);
        CU_ASSERT(nb_within_tolerance(&e, &tol));
    }
    free(ax); free(ay); free(az);
    nb_state_free(&s);
}

static void t_odd_n(void)
{
    const int64_t ns[] = { 1, 2, 3, 31, 4097, 100003 };
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) check_accel(ns[k], 0, 0, "plummer", 100 + k);
}

static void t_blocks(void)
{
    const int blocks[] = { 32, 64, 96, 128, 160, 512, 1024 };
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
        check_accel(4097, blocks[k], 0, "cube", 200 + k);
    check_accel(33, 1024, 0, "plummer", 299);   /* one block, mostly idle threads */
}

static void t_poison(void)
{
    check_accel(1000, 0, 1, "disk", 301);
    check_accel(4099, 96, 1, "plummer", 302);
    check_accel(70001, 256, 1, "plummer", 303);
}

static double max_diff(const float *a, const float *b, int64_t n)
{
    double d = 0;
    for (int64_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - (double)b[i]));
    return d;
}

static void compare_states(const nb_state *a, const nb_state *b, const char *what)
{
    double vmax = 0;
    for (int64_t i = 0; i < b->n; i++)
        vmax = fmax(vmax, sqrt((double)b->vx[i] * b->vx[i] + (double)b->vy[i] * b->vy[i] +
                               (double)b->vz[i] * b->vz[i]));
    double dx = fmax(max_diff(a->x, b->x, a->n), fmax(max_diff(a->y, b->y, a->n), max_diff(a->z, b->z, a->n)));
    double dv = fmax(max_diff(a->vx, b->vx, a->n), fmax(max_diff(a->vy, b->vy, a->n), max_diff(a->vz, b->vz, a->n)));
    printf("       vs %s after 10 steps: max |dx| %.3g, max |dv| / vmax %.3g\n", what, dx, dv / vmax);
    CU_ASSERT(dx < 1e-5);
    CU_ASSERT(dv < 1e-4 * vmax);
}

static void t_agree_step01(void)
{
    nb_state g, c, d;
    nb_options o;
    nb_options_default(&o);
    o.n = 2049;
    o.threads = 2;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 2049, 401, &g) == 0);
    CU_ASSERT_FATAL(nb_state_copy(&c, &g) == 0);
    CU_ASSERT_FATAL(nb_state_copy(&d, &g) == 0);
    CU_ASSERT_FATAL(nb_t_step_run(S, &g, &o, 10) == 0);
    CU_ASSERT_FATAL(nb_t_step_run(CPU, &c, &o, 10) == 0);
    CU_ASSERT_FATAL(nb_ref_leapfrog(&d, o.eps, o.dt, 10) == 0);
    compare_states(&g, &c, "step01_cpu");
    compare_states(&g, &d, "double leapfrog");
    nb_state_free(&g); nb_state_free(&c); nb_state_free(&d);
}

static const nb_test gpu_tests[] = {
    { "accel_odd_n_1_2_3_31_4097_100003", t_odd_n, 4 },
    { "accel_other_block_sizes", t_blocks, 3 },
    { "poisoned_output_buffers", t_poison, 3 },
    { "agrees_with_step01_and_double_after_10_steps", t_agree_step01, 3 },
    NB_TEST_END
};

void nb_gpu_allpairs_register(const nb_step *step, const nb_step *cpu_reference)
{
    S = step;
    CPU = cpu_reference;
    nb_grade_suite("gpu", gpu_tests, nb_grade_gpu_skip(step));
}
