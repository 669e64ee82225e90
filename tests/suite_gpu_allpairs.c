/* suite_gpu_allpairs.c -- the GPU suite of the all-pairs steps (02, 03, 04):
 * odd N, other block sizes, poisoned output buffers, agreement with a
 * float32 leapfrog (the grader's own, nb_t_float_leapfrog) and with the
 * double-precision one after 10 steps.  Inactive (SKIPPED)
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
#include <unistd.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_testutil.h"
#include "nb_verify.h"

static const nb_step *S;
static const char *BIN;

static void check_accel(int64_t n, int block, int poison, const char *ic, uint64_t seed)
{
    nb_t_check_accel(S, n, block, poison, ic, seed, 0, "");
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
    NB_ASSERT(dx < 1e-5, "vs %s after 10 steps: max |dx|: got %.3g, bound 1e-05", what, dx);
    NB_ASSERT(dv < 1e-4 * vmax, "vs %s after 10 steps: max |dv| / vmax: got %.3g, bound 1e-04", what, dv / vmax);
}

static void t_agree_float_double(void)
{
    nb_state g, c, d;
    nb_options o;
    nb_options_default(&o);
    o.n = 2049;
    o.threads = 2;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 2049, 401, &g) == 0);
    CU_ASSERT_FATAL(nb_state_copy(&c, &g) == 0);
    CU_ASSERT_FATAL(nb_state_copy(&d, &g) == 0);
    NB_ASSERT_OK_FATAL("the step: init/advance/download", nb_t_step_run(S, &g, &o, 10));
    NB_ASSERT_OK_FATAL("the float leapfrog", nb_t_float_leapfrog(&c, o.eps, o.dt, 10));
    NB_ASSERT_OK_FATAL("the double leapfrog", nb_ref_leapfrog(&d, o.eps, o.dt, 10));
    compare_states(&g, &c, "the float32 leapfrog");
    compare_states(&g, &d, "double leapfrog");
    nb_state_free(&g); nb_state_free(&c); nb_state_free(&d);
}

/* The program under compute-sanitizer: memcheck (a read or write past an
 * array: a kernel without its i < n bound, a tile not padded past N) and
 * racecheck (shared memory: a missing __syncthreads() between loading a
 * tile and using it, or between using it and loading the next).  N = 333,
 * block 96: three full blocks and a partial one, tiles padded; 2 steps and
 * --check.  Each run must exit 0: no sanitizer error (exit 9), --check
 * within tolerance.  Value tests may miss these mistakes (a race can give
 * the right sum by luck; a write past the end may land in unused memory). */
static void t_sanitizer(void)
{
    static char sout[1 << 16], serr[1 << 14];
    const char *cs = nb_t_sanitizer_path();
    NB_ASSERT_FATAL(cs != NULL, "compute-sanitizer not found (it comes with the CUDA toolkit: "
                    "put its bin/ on PATH)");
    const char *tools[] = { "memcheck", "racecheck" };
    for (size_t k = 0; k < sizeof tools / sizeof *tools; k++) {
        char *argv[] = { (char *)cs, "--tool", (char *)tools[k], "--error-exitcode", "9",
                         (char *)BIN, "-n", "333", "-s", "2", "--block", "96", "--check", NULL };
        int rc = nb_t_run(argv, sout, sizeof sout, serr, sizeof serr, 100);
        const char *sum = strstr(sout, "ERROR SUMMARY");
        if (!sum) sum = strstr(sout, "RACECHECK SUMMARY");
        const char *first = strstr(sout, "========= ");
        char line[160] = "";
        if (rc && first) snprintf(line, sizeof line, "%.*s", (int)strcspn(first, "\n"), first);
        printf("       %s: exit %d, %.*s\n", tools[k], rc, sum ? (int)strcspn(sum, "\n") : 10,
               sum ? sum : "no summary");
        if (rc) { nb_t_show(sout); nb_t_show(serr); }
        NB_ASSERT(rc == 0, "compute-sanitizer --tool %s %s -n 333 -s 2 --block 96 --check: exit %d "
                  "(9: sanitizer errors), expected 0: %.110s", tools[k], S->name, rc, rc == 9 ? line : serr);
    }
}

static const nb_test gpu_tests[] = {
    { "accel_odd_n_1_2_3_31_4097_100003", t_odd_n, NB_FORCES(4) },
    { "accel_other_block_sizes", t_blocks, NB_FORCES(3) },
    { "poisoned_output_buffers", t_poison, NB_FORCES(3) },
    { "agrees_with_float_and_double_leapfrog_after_10_steps", t_agree_float_double, 3 },
    { "compute_sanitizer_memcheck_racecheck", t_sanitizer, 3 },
    NB_TEST_END
};

static char gate_what[160];
static void gate(void) { nb_t_gate_table(S); }

void nb_gpu_allpairs_register(const nb_step *step, const char *binary)
{
    S = step;
    BIN = binary;
    nb_grade_suite("gpu", gpu_tests, nb_grade_gpu_skip(step));
    snprintf(gate_what, sizeof gate_what, "%s: its accelerations at N = 1000 and 4097", step->name);
    nb_grade_gate("gpu", gate, gate_what);
}
