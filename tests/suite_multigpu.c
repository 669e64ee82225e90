/* suite_multigpu.c -- step06_multigpu: the split over GPUs changes nothing
 * but the time (needs a GPU: SKIPPED without one).
 *
 *  - P = 1 and P = all GPUs against step05, body for body: the same state
 *    bits after 5 leapfrog steps, the same acceleration bits.  Why they must
 *    be bit-identical: every GPU builds the same tree from the same
 *    positions; the slices of the walk are multiples of 32 bodies of the
 *    tree order, so every warp holds the same 32 bodies as on one GPU and
 *    evaluates the same interactions in the same order; the all-gathers,
 *    pack and scatter copy bits; the integration is elementwise.
 *  - theta = 0: the direct sum over all GPUs (N^2 body-body interactions in
 *    all, none with a cell; max error 1e-4 as the all-pairs steps).
 *  - --gpus past the GPUs present: exit 2 naming how many there are.
 *  - NCCL_NVLS_ENABLE is 0 inside the program when the environment leaves
 *    it unset (NVLink multicast off), in-process and in --bench's report.
 *  - a GPU that fails before its all-gather (NB_FAKE_GPU_FAIL): exit 3
 *    naming it, one line, no hang (the others stop waiting). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_testutil.h"
#include "nb_verify.h"
#include "../step05_barneshut/bh_gpu.h"   /* tests/Makefile adds no -I for suites */
#include "../step06_multigpu/mg.h"

#ifndef STEP06_BINARY
#define STEP06_BINARY "../step06_multigpu/nbody"
#endif

static char out[1 << 16], err[1 << 14];

static int same_bits(const float *a, const float *b, int64_t n)
{
    return memcmp(a, b, (size_t)n * sizeof(float)) == 0;
}

static int64_t first_diff(const nb_state *a, const nb_state *b)
{
    for (int64_t i = 0; i < a->n; i++)
        if (memcmp(&a->x[i], &b->x[i], 4) || memcmp(&a->y[i], &b->y[i], 4) ||
            memcmp(&a->z[i], &b->z[i], 4) || memcmp(&a->vx[i], &b->vx[i], 4) ||
            memcmp(&a->vy[i], &b->vy[i], 4) || memcmp(&a->vz[i], &b->vz[i], 4))
            return i;
    return -1;
}

/* step05 and step06 at --gpus=gpus (0: all) from the same state: 5 steps,
 * then the states and the accelerations, bit for bit. */
static void against_step05(int gpus)
{
    nb_state s, a, b;
    const int64_t n = 20011;                    /* not a multiple of 32 */
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", n, 61, &s), 0);
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.gpus = gpus;
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&a, &s), 0);
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&b, &s), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_run(&nb_step05_gpu, &a, &o, 5), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_run(&nb_step06_multigpu, &b, &o, 5), 0);
    int64_t d = first_diff(&a, &b);
    if (d >= 0)
        printf("       body %lld differs after 5 steps: step05 x %.9g v %.9g, step06 x %.9g v %.9g\n",
               (long long)d, a.x[d], a.vx[d], b.x[d], b.vx[d]);
    CU_ASSERT(d < 0);
    float *a5[3], *a6[3];
    CU_ASSERT_EQUAL_FATAL(nb_t_step_accel(&nb_step05_gpu, &a, &o, &a5[0], &a5[1], &a5[2]), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_accel(&nb_step06_multigpu, &a, &o, &a6[0], &a6[1], &a6[2]), 0);
    int same = 1;
    for (int c = 0; c < 3; c++) same &= same_bits(a5[c], a6[c], n);
    if (!same) printf("       the accelerations of the same state differ\n");
    CU_ASSERT(same);
    for (int c = 0; c < 3; c++) { free(a5[c]); free(a6[c]); }
    nb_state_free(&s); nb_state_free(&a); nb_state_free(&b);
}

static void t_p1_equals_step05(void) { against_step05(1); }
static void t_pall_equals_step05(void)
{
    printf("       %d GPU%s here\n", mg_device_count(), mg_device_count() == 1 ? "" : "s");
    against_step05(0);
}

static void t_theta0_direct_sum(void)
{
    nb_state s;
    const int64_t n = 3001;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", n, 62, &s), 0);
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.theta = 0;
    o.poison = 1;                   /* an acceleration nobody wrote stays NaN */
    void *ctx = NULL;
    int rc = nb_step06_multigpu.init(&ctx, &s, &o);
    if (rc) printf("       init: %s\n", nb_errmsg());
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    float *a = malloc((size_t)n * 3 * sizeof *a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(nb_step06_multigpu.accel(ctx, a, a + n, a + 2 * n), 0);
    int64_t bb = -1, bc = -1;
    CU_ASSERT_EQUAL(mg_interactions(ctx, &bb, &bc), 0);
    printf("       %d GPU%s: %lld body-body, %lld body-cell interactions (N^2 = %lld)\n",
           mg_gpus(ctx), mg_gpus(ctx) == 1 ? "" : "s", (long long)bb, (long long)bc,
           (long long)(n * n));
    CU_ASSERT_EQUAL(bb, n * n);
    CU_ASSERT_EQUAL(bc, 0);
    nb_errstats e;
    CU_ASSERT_EQUAL(nb_accel_errors(&s, o.eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &e), 0);
    nb_tolerance tol = nb_tolerance_for(1, 0.0);
    printf("       errors: median %.3g, max %.3g (%s)\n", e.median, e.max, tol.why);
    CU_ASSERT(nb_within_tolerance(&e, &tol));
    free(a);
    nb_step06_multigpu.destroy(ctx);
    nb_state_free(&s);
}

static void t_too_many_gpus(void)
{
    int count = mg_device_count();
    char want[32], must[64];
    snprintf(want, sizeof want, "%d", count + 1);
    snprintf(must, sizeof must, "only %d GPU", count);
    char *argv[] = { STEP06_BINARY, "-n", "1000", "-s", "1", "--gpus", want, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    if (rc != 2 || !strstr(err, must)) printf("       --gpus %s: exit %d: %s", want, rc, err);
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(nb_t_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
}

static void t_nvls_off(void)
{
    unsetenv("NCCL_NVLS_ENABLE");
    nb_options o;
    nb_options_default(&o);
    o.n = 1000;
    CU_ASSERT_EQUAL(nb_step06_multigpu.probe(&o), 0);
    const char *v = getenv("NCCL_NVLS_ENABLE");
    CU_ASSERT(v && !strcmp(v, "0"));
    unsetenv("NCCL_NVLS_ENABLE");               /* the program run inherits it unset */
    char *argv[] = { STEP06_BINARY, "-n", "2000", "-s", "2", "--bench", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 120);
    if (rc || !strstr(out, "NCCL_NVLS_ENABLE=0")) printf("       exit %d: %s%s", rc, out, err);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NCCL_NVLS_ENABLE=0"));
}

static void t_failing_gpu(void)
{
    int count = mg_device_count();
    char fail[16], must[32];
    snprintf(fail, sizeof fail, "%d", count - 1);
    snprintf(must, sizeof must, "GPU %d:", count - 1);
    setenv("NB_FAKE_GPU_FAIL", fail, 1);
    setenv("NB_NCCL_TIMEOUT_S", "60", 1);
    char *argv[] = { STEP06_BINARY, "-n", "5000", "-s", "3", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 90);
    unsetenv("NB_FAKE_GPU_FAIL");
    unsetenv("NB_NCCL_TIMEOUT_S");
    if (rc != 3 || !strstr(err, must)) printf("       exit %d (137: it hung): %s", rc, err);
    CU_ASSERT_EQUAL(rc, 3);
    CU_ASSERT_EQUAL(nb_t_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fake failure"));
}

void nb_multigpu_register(void)
{
    static const nb_test tests[] = {
        { "P = 1 equals step05 body for body (bit-identical, 5 steps)", t_p1_equals_step05, 3 },
        { "P = all GPUs equals step05 body for body (bit-identical, 5 steps)",
          t_pall_equals_step05, 3 },
        { "theta 0 = direct sum over all GPUs (N^2 interactions, max 1e-4)", t_theta0_direct_sum, 2 },
        { "--gpus past the GPUs present: exit 2 naming the count", t_too_many_gpus, 1 },
        { "NCCL_NVLS_ENABLE is 0 inside the program", t_nvls_off, 1 },
        { "a failing GPU: exit 3 naming it, no hang", t_failing_gpu, 1 },
        NB_TEST_END
    };
    nb_grade_suite("step06 multigpu", tests, nb_grade_gpu_skip(&nb_step06_multigpu));
}
