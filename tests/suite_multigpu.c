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
#include "nb_remote.h"

static const nb_step *S6, *S5;           /* step06's table and step05's GPU table (workers) */

/* A number the worker reports through an extension (NULL ctx: a worker of
 * its own, on one body). */
static int64_t worker_number(void *ctx, const char *ext, int k)
{
    nb_state one;
    void *own = NULL;
    int64_t v = -1;
    if (!ctx) {
        nb_options o;
        nb_options_default(&o);
        if (nb_ic_generate("plummer", 1, 1, &one)) return -1;
        if (S6->init(&own, &one, &o) == 0) ctx = own;
        nb_state_free(&one);
    }
    nb_wbuf b = { 0 };
    if (ctx && nb_remote_ext(ctx, ext, NULL, &b) == 0) {
        for (int q = 0; q <= k; q++) v = nb_wget_i64(&b);
        if (b.bad) v = -1;
    }
    nb_wbuf_free(&b);
    if (own) S6->destroy(own);
    return v;
}

static int device_count(void) { return (int)worker_number(NULL, "device_count", 0); }

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
    CU_ASSERT_EQUAL_FATAL(nb_t_step_run(S5, &a, &o, 5), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_run(S6, &b, &o, 5), 0);
    int64_t d = first_diff(&a, &b);
    if (d >= 0)
        printf("       body %lld differs after 5 steps: step05 x %.9g v %.9g, step06 x %.9g v %.9g\n",
               (long long)d, a.x[d], a.vx[d], b.x[d], b.vx[d]);
    CU_ASSERT(d < 0);
    float *a5[3], *a6[3];
    CU_ASSERT_EQUAL_FATAL(nb_t_step_accel(S5, &a, &o, &a5[0], &a5[1], &a5[2]), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_accel(S6, &a, &o, &a6[0], &a6[1], &a6[2]), 0);
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
    int count = device_count();
    printf("       %d GPU%s here\n", count, count == 1 ? "" : "s");
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
    int rc = S6->init(&ctx, &s, &o);
    if (rc) printf("       init: %s\n", nb_errmsg());
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    float *a = malloc((size_t)n * 3 * sizeof *a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(S6->accel(ctx, a, a + n, a + 2 * n), 0);
    int64_t bb = worker_number(ctx, "interactions", 0), bc = worker_number(ctx, "interactions", 1);
    int gpus = (int)worker_number(ctx, "interactions", 2);
    printf("       %d GPU%s: %lld body-body, %lld body-cell interactions (N^2 = %lld)\n",
           gpus, gpus == 1 ? "" : "s", (long long)bb, (long long)bc, (long long)(n * n));
    CU_ASSERT_EQUAL(bb, n * n);
    CU_ASSERT_EQUAL(bc, 0);
    nb_errstats e;
    CU_ASSERT_EQUAL(nb_accel_errors(&s, o.eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &e), 0);
    nb_tolerance tol = nb_tolerance_for(1, 0.0);
    printf("       errors: median %.3g, max %.3g (%s)\n", e.median, e.max, tol.why);
    CU_ASSERT(nb_within_tolerance(&e, &tol));
    free(a);
    S6->destroy(ctx);
    nb_state_free(&s);
}

static void t_too_many_gpus(void)
{
    int count = device_count();
    char want[32], must[64];
    snprintf(want, sizeof want, "%d", count + 1);
    snprintf(must, sizeof must, "only %d GPU", count);
    char *argv[] = { STEP06_BINARY, "-n", "1000", "-s", "1", "--gpus", want, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    if (rc != 2 || !strstr(err, must)) { printf("       --gpus %s: exit %d:\n", want, rc); nb_t_show(err); }
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(nb_t_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
}

static void t_nvls_off(void)
{
    /* the step's probe sets it (in its worker) ... */
    nb_state one;
    nb_options o;
    nb_options_default(&o);
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 1, 1, &one), 0);
    void *ctx = NULL;
    int rc = S6->init(&ctx, &one, &o);
    nb_wbuf b = { 0 };
    if (!rc) rc = nb_remote_ext(ctx, "nvls", NULL, &b);
    const char *v = rc ? "" : nb_wget_str(&b);
    NB_ASSERT(rc == 0 && !b.bad && !strcmp(v, "0"), "NCCL_NVLS_ENABLE after the step's probe: '%s' "
              "(exit code %d), expected '0'", v, rc);
    nb_wbuf_free(&b);
    if (ctx) S6->destroy(ctx);
    nb_state_free(&one);
    /* ... and the program reports it */
    unsetenv("NCCL_NVLS_ENABLE");               /* the program run inherits it unset */
    char *argv[] = { STEP06_BINARY, "-n", "2000", "-s", "2", "--bench", NULL };
    rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 120);
    if (rc || !strstr(out, "NCCL_NVLS_ENABLE=0")) { printf("       exit %d:\n", rc); nb_t_show(out); nb_t_show(err); }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "NCCL_NVLS_ENABLE=0"));
}

static void t_failing_gpu(void)
{
    int count = device_count();
    char fail[16], must[32];
    snprintf(fail, sizeof fail, "%d", count - 1);
    snprintf(must, sizeof must, "GPU %d:", count - 1);
    setenv("NB_FAKE_GPU_FAIL", fail, 1);
    setenv("NB_NCCL_TIMEOUT_S", "60", 1);
    char *argv[] = { STEP06_BINARY, "-n", "5000", "-s", "3", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 90);
    unsetenv("NB_FAKE_GPU_FAIL");
    unsetenv("NB_NCCL_TIMEOUT_S");
    if (rc != 3 || !strstr(err, must)) { printf("       exit %d (137: it hung):\n", rc); nb_t_show(err); }
    CU_ASSERT_EQUAL(rc, 3);
    CU_ASSERT_EQUAL(nb_t_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fake failure"));
}

static void gate(void) { nb_t_gate_table(S6); }

void nb_multigpu_register(const nb_step *step06, const nb_step *step05)
{
    S6 = step06;
    S5 = step05;
    static const nb_test tests[] = {
        { "P = 1 equals step05 body for body (bit-identical, 5 steps)", t_p1_equals_step05, 3 },
        { "P = all GPUs equals step05 body for body (bit-identical, 5 steps)",
          t_pall_equals_step05, 3 },
        { "theta 0 = direct sum over all GPUs (N^2 interactions, max 1e-4)", t_theta0_direct_sum,
          NB_FORCES(2) },
        { "--gpus past the GPUs present: exit 2 naming the count", t_too_many_gpus, 1 },
        { "NCCL_NVLS_ENABLE is 0 inside the program", t_nvls_off, 1 },
        { "a failing GPU: exit 3 naming it, no hang", t_failing_gpu, 1 },
        NB_TEST_END
    };
    nb_grade_suite("step06 multigpu", tests, nb_grade_gpu_skip(S6));
    static char what[160];
    snprintf(what, sizeof what, "%s: its accelerations at N = 1000 and 4097 (theta 0.5)", S6->name);
    nb_grade_gate("step06 multigpu", gate, what);
}
