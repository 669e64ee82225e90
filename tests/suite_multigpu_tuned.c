/* suite_multigpu_tuned.c -- step06's tuned build (step06_multigpu/tuned,
 * nbody_tuned: step05's tuned tree over every GPU of a host).
 *
 * "step06 tuned split", no GPU needed: the walk's split by measured cost
 * (tmg_split(), run in the worker through its extension "split"), checked
 * against what tmg.h promises -- P contiguous ranges covering the groups
 * [0, ngroups) in order; each range's summed cost within the costliest
 * group of total / P; by count without costs; every cost that is not a
 * positive finite number counted as 1; the same bounds on a second call
 * (every GPU computes them on its own and must agree).
 *
 * "step06 tuned" (a GPU; SKIPPED without one):
 *  - P = 1 and P = all GPUs against step05's tuned build, body for body:
 *    the same state bits after 5 leapfrog steps at theta 1 (step05 tuned's
 *    default: a build, three refits, a build), the same acceleration bits.
 *    Why they must be: the same tree on every GPU (the lesson's build, the
 *    quadrupoles and refits summed in a fixed order), a group's sums do not
 *    depend on the GPU, the warp or the order that walks it, the exchanges
 *    copy bits, the integration is elementwise (tmg.c's header).
 *  - theta 0: the direct sum over all GPUs (N^2 body-body interactions in
 *    all, none with a cell), and the walk's split covers every group.
 *  - the walk in parts, each part's all-gather beside the next part's walk
 *    (NB_TUNE=parts=3, P = all): the saved state's bits are those of one
 *    part, and --bench prints every part on the timeline; parts=0 and
 *    parts=17 are exit 2 with one line.
 *  - --bench reports the walk's spread over the GPUs and the split.
 *  - --gpus past the GPUs present: exit 2 naming how many there are.
 *  - a GPU that fails before its all-gather (NB_FAKE_GPU_FAIL): exit 3
 *    naming it, one line, no hang. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_remote.h"
#include "nb_testutil.h"
#include "nb_verify.h"
#include "tuned.h"                   /* TUNED_THETA */

static const nb_step *S6, *S5, *SPLIT;  /* the tables of the worker: step06 tuned, step05 tuned, "split" */

#ifndef STEP06T_BINARY
#define STEP06T_BINARY "../step06_multigpu/tuned/nbody_tuned"
#endif

static char out[1 << 16], err[1 << 14];

/* ---- the split (no GPU) ------------------------------------------------- */

/* tmg_split() in the worker: b[0 .. P]; cost NULL: none given.  0 or -1. */
static int split(const float *cost, int64_t ng, int P, int64_t *b)
{
    nb_state one;
    nb_options o;
    nb_options_default(&o);
    if (nb_ic_generate("plummer", 1, 1, &one)) return -1;
    void *ctx = NULL;
    int rc = SPLIT->init(&ctx, &one, &o);
    nb_state_free(&one);
    nb_wbuf a = { 0 }, r = { 0 };
    nb_wput_i64(&a, ng);
    nb_wput_i64(&a, P);
    nb_wput_i64(&a, cost != NULL);
    if (cost) nb_wput_floats(&a, cost, ng);
    if (!rc) rc = nb_remote_ext(ctx, "split", &a, &r);
    for (int k = 0; !rc && k <= P; k++) b[k] = nb_wget_i64(&r);
    if (!rc && r.bad) rc = -1;
    if (rc) printf("       the worker's split: %s\n", nb_errmsg());
    nb_wbuf_free(&a);
    nb_wbuf_free(&r);
    if (ctx) SPLIT->destroy(ctx);
    return rc ? -1 : 0;
}

static double weight(float c) { return c > 0 && c < INFINITY ? (double)c : 1.0; }

/* What tmg.h promises of b for cost (NULL: by count); 1 if it holds. */
static int split_ok(const float *cost, int64_t ng, int P, const int64_t *b)
{
    if (b[0] != 0 || b[P] != ng) {
        printf("       b[0] = %lld, b[P] = %lld: not [0, %lld)\n", (long long)b[0], (long long)b[P],
               (long long)ng);
        return 0;
    }
    for (int r = 0; r < P; r++)
        if (b[r + 1] < b[r]) { printf("       b[%d] = %lld > b[%d] = %lld\n", r, (long long)b[r], r + 1,
                                      (long long)b[r + 1]); return 0; }
    double total = 0, cmax = 0;
    for (int64_t g = 0; g < ng; g++) {
        double w = cost ? weight(cost[g]) : 1.0;
        total += w;
        cmax = fmax(cmax, w);
    }
    for (int r = 0; r < P; r++) {
        double s = 0;
        for (int64_t g = b[r]; g < b[r + 1]; g++) s += cost ? weight(cost[g]) : 1.0;
        if (fabs(s - total / P) > cmax * (1 + 1e-9) + 1e-9 * total) {
            printf("       GPU %d of %d: groups [%lld, %lld) cost %.6g, the share %.6g, the costliest "
                   "group %.6g\n", r, P, (long long)b[r], (long long)b[r + 1], s, total / P, cmax);
            return 0;
        }
    }
    return 1;
}

static void check_split(const float *cost, int64_t ng, int P)
{
    int64_t *b = calloc((size_t)P + 1, sizeof *b), *b2 = calloc((size_t)P + 1, sizeof *b2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b2);
    CU_ASSERT_EQUAL_FATAL(split(cost, ng, P, b), 0);
    CU_ASSERT_EQUAL_FATAL(split(cost, ng, P, b2), 0);
    int ok = split_ok(cost, ng, P, b);
    if (!ok) printf("       %lld groups, P = %d\n", (long long)ng, P);
    CU_ASSERT(ok);
    NB_ASSERT(memcmp(b, b2, ((size_t)P + 1) * sizeof *b) == 0, "two calls, two splits");
    free(b);
    free(b2);
}

static void t_split_by_count(void)
{
    const int Ps[] = { 1, 2, 3, 4, 8 };
    for (size_t k = 0; k < sizeof Ps / sizeof *Ps; k++) {
        check_split(NULL, 313, Ps[k]);
        int64_t b[9];
        CU_ASSERT_EQUAL_FATAL(split(NULL, 313, Ps[k], b), 0);
        for (int r = 0; r <= Ps[k]; r++) CU_ASSERT_EQUAL(b[r], (int64_t)313 * r / Ps[k]);
    }
}

/* A dense core in the middle of the tree order, as a Plummer sphere's. */
static void t_split_by_cost(void)
{
    const int64_t ng = 31250;       /* 2M bodies in groups of 64 */
    float *c = malloc((size_t)ng * sizeof *c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    for (int64_t g = 0; g < ng; g++) {
        double u = (double)(g - ng / 3) / (ng / 20.0);
        c[g] = (float)(200 + 5000 * exp(-u * u));
    }
    const int Ps[] = { 1, 2, 4, 7, 8 };
    for (size_t k = 0; k < sizeof Ps / sizeof *Ps; k++) check_split(c, ng, Ps[k]);
    /* the GPU with the core takes fewer groups than a count split gives it */
    int64_t b[5];
    CU_ASSERT_EQUAL_FATAL(split(c, ng, 4, b), 0);
    int64_t core = 0;
    for (int r = 0; r < 4; r++)
        if (b[r] <= ng / 3 && ng / 3 < b[r + 1]) core = b[r + 1] - b[r];
    printf("       the core's GPU walks %lld of %lld groups (a count split: %lld)\n", (long long)core,
           (long long)ng, (long long)(ng / 4));
    CU_ASSERT(core > 0 && core < ng / 4);
    free(c);
}

/* More GPUs than groups, costs that are no costs, one group dearer than
 * all the others: still P ranges over [0, ngroups), in order. */
static void t_split_edges(void)
{
    float c3[3] = { 5, 1, 2 };
    check_split(c3, 3, 8);
    check_split(c3, 0, 4);
    float bad[6] = { NAN, 0, -3, INFINITY, 1, 1 };
    check_split(bad, 6, 3);
    float zero[5] = { 0, 0, 0, 0, 0 };
    check_split(zero, 5, 2);
    float *one = malloc(1000 * sizeof *one);
    CU_ASSERT_PTR_NOT_NULL_FATAL(one);
    for (int g = 0; g < 1000; g++) one[g] = g == 500 ? 1e6f : 1.f;
    check_split(one, 1000, 4);
    free(one);
}

/* ---- on the GPUs ----------------------------------------------------------- */

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

static int64_t first_diff(const nb_state *a, const nb_state *b)
{
    for (int64_t i = 0; i < a->n; i++)
        if (memcmp(&a->x[i], &b->x[i], 4) || memcmp(&a->y[i], &b->y[i], 4) ||
            memcmp(&a->z[i], &b->z[i], 4) || memcmp(&a->vx[i], &b->vx[i], 4) ||
            memcmp(&a->vy[i], &b->vy[i], 4) || memcmp(&a->vz[i], &b->vz[i], 4))
            return i;
    return -1;
}

/* step05 tuned and step06 tuned at --gpus=gpus (0: all) from the same
 * state, at step05 tuned's theta: 5 steps (built, refitted 3 times, built),
 * then the states and the accelerations, bit for bit. */
static void against_step05_tuned(int gpus)
{
    nb_state s, a, b;
    const int64_t n = 20011;                    /* not a multiple of 64 */
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", n, 61, &s), 0);
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.gpus = gpus;
    o.theta = TUNED_THETA;
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&a, &s), 0);
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&b, &s), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_run(S5, &a, &o, 5), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_run(S6, &b, &o, 5), 0);
    int64_t d = first_diff(&a, &b);
    if (d >= 0)
        printf("       body %lld differs after 5 steps: step05 tuned x %.9g v %.9g, step06 tuned x %.9g "
               "v %.9g\n", (long long)d, a.x[d], a.vx[d], b.x[d], b.vx[d]);
    CU_ASSERT(d < 0);
    float *a5[3], *a6[3];
    CU_ASSERT_EQUAL_FATAL(nb_t_step_accel(S5, &a, &o, &a5[0], &a5[1], &a5[2]), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_step_accel(S6, &a, &o, &a6[0], &a6[1], &a6[2]), 0);
    int same = 1;
    for (int c = 0; c < 3; c++) same &= memcmp(a5[c], a6[c], (size_t)n * sizeof(float)) == 0;
    if (!same) printf("       the accelerations of the same state differ\n");
    CU_ASSERT(same);
    for (int c = 0; c < 3; c++) { free(a5[c]); free(a6[c]); }
    nb_state_free(&s); nb_state_free(&a); nb_state_free(&b);
}

static void t_p1_equals_step05_tuned(void) { against_step05_tuned(1); }
static void t_pall_equals_step05_tuned(void)
{
    int count = device_count();
    printf("       %d GPU%s here\n", count, count == 1 ? "" : "s");
    against_step05_tuned(0);
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
    /* the split of that walk: P ranges over every group (64 bodies a group) */
    const int64_t ng = (n + 63) / 64;
    int64_t b0 = worker_number(ctx, "interactions", 3), bp = worker_number(ctx, "interactions", 3 + gpus);
    NB_ASSERT(gpus >= 1 && b0 == 0 && bp == ng, "the walk's split: [%lld, %lld) on %d GPUs, expected "
              "[0, %lld)", (long long)b0, (long long)bp, gpus, (long long)ng);
    nb_errstats e;
    CU_ASSERT_EQUAL(nb_accel_errors(&s, o.eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &e), 0);
    nb_tolerance tol = nb_tolerance_for(1, 0.0);
    printf("       errors: median %.3g, max %.3g (%s)\n", e.median, e.max, tol.why);
    CU_ASSERT(nb_within_tolerance(&e, &tol));
    free(a);
    S6->destroy(ctx);
    nb_state_free(&s);
}

static void t_bench_spread(void)
{
    char *argv[] = { STEP06T_BINARY, "-n", "20000", "-s", "3", "--bench", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 120);
    const char *musts[] = { "walk spread over the GPUs", "the split (groups of the tree order",
                            "NCCL_NVLS_ENABLE=0", "GPU 0: gather x",
                            "bodies kept in tree order" };
    int ok = rc == 0;
    for (size_t k = 0; k < sizeof musts / sizeof *musts; k++) ok &= strstr(out, musts[k]) != NULL;
    if (!ok) { printf("       exit %d:\n", rc); nb_t_show(out); nb_t_show(err); }
    CU_ASSERT_EQUAL(rc, 0);
    for (size_t k = 0; k < sizeof musts / sizeof *musts; k++)
        NB_ASSERT(strstr(out, musts[k]) != NULL, "--bench prints no '%s'", musts[k]);
}

/* nbody_tuned -n 20011 -s 5 --save file (NULL: --bench instead) with
 * NB_TUNE=tune (NULL: unset); its exit status, the output in out/err. */
static int run_tuned(const char *tune, const char *save)
{
    if (tune) setenv("NB_TUNE", tune, 1);
    char *argv[] = { STEP06T_BINARY, "-n", "20011", "-s", "5", "--seed", "63", save ? "--save" : "--bench",
                     (char *)save, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 120);
    unsetenv("NB_TUNE");
    return rc;
}

static void t_parts_same_bits(void)
{
    char one[512];
    snprintf(one, sizeof one, "%s", nb_t_tmpfile(0, ".txt"));
    const char *three = nb_t_tmpfile(1, ".txt");
    int rc1 = run_tuned(NULL, one);
    if (rc1) { printf("       one part: exit %d:\n", rc1); nb_t_show(err); }
    int rc3 = run_tuned("parts=3", three);
    if (rc3) { printf("       parts=3: exit %d:\n", rc3); nb_t_show(err); }
    CU_ASSERT_EQUAL_FATAL(rc1, 0);
    CU_ASSERT_EQUAL_FATAL(rc3, 0);
    nb_state a, b;
    CU_ASSERT_EQUAL_FATAL(nb_t_state_read(one, &a), 0);
    CU_ASSERT_EQUAL_FATAL(nb_t_state_read(three, &b), 0);
    CU_ASSERT_EQUAL_FATAL(a.n, b.n);
    int64_t d = first_diff(&a, &b);
    if (d >= 0)
        printf("       body %lld differs after 5 steps: one part x %.9g v %.9g, three parts x %.9g v %.9g\n",
               (long long)d, a.x[d], a.vx[d], b.x[d], b.vx[d]);
    CU_ASSERT(d < 0);
    nb_state_free(&a);
    nb_state_free(&b);
    int rcb = run_tuned("parts=3", NULL);
    if (rcb) { printf("       parts=3 --bench: exit %d:\n", rcb); nb_t_show(err); }
    CU_ASSERT_EQUAL_FATAL(rcb, 0);
    /* the timeline: the three parts' walks and exchanges */
    const char *musts[] = { "walked in 3 parts (NB_TUNE=parts=3)", "timeline of the last timed step, GPU 0",
                            " walk3 ", " exchange3 " };
    for (size_t k = 0; k < sizeof musts / sizeof *musts; k++)
        NB_ASSERT(strstr(out, musts[k]) != NULL, "--bench with parts=3 prints no '%s'", musts[k]);
    const char *t = strstr(out, "timeline of the last timed step, GPU 0");
    double w[6] = { 0 }, x[6] = { 0 };
    const char *nums = t ? strstr(t, "):") : NULL;     /* past the parenthesis, which has colons */
    int got = nums ? sscanf(nums + 2,
                         " walk1 %lf %lf exchange1 %lf %lf walk2 %lf %lf exchange2 %lf %lf walk3 %lf %lf "
                         "exchange3 %lf %lf", &w[0], &w[1], &x[0], &x[1], &w[2], &w[3], &x[2], &x[3],
                         &w[4], &w[5], &x[4], &x[5]) : 0;
    int order = got == 12;          /* each part walked before it is exchanged, the parts in order */
    for (int k = 0; order && k < 3; k++)
        order = w[2 * k] <= w[2 * k + 1] && w[2 * k + 1] <= x[2 * k] + 1e-3 && x[2 * k] <= x[2 * k + 1] &&
                (k == 0 || w[2 * k - 1] <= w[2 * k] + 1e-3);
    if (!order) { printf("       %d numbers read from the timeline:\n", got); nb_t_show(t ? t : out); }
    NB_ASSERT(order, "the timeline's parts are not walked, then exchanged, in order");
}

static void t_parts_refused(void)
{
    const char *bad[] = { "parts=0", "parts=17", "parts=2,parts=2", "parts=x" };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        int rc = run_tuned(bad[k], nb_t_tmpfile(2, ".txt"));
        int ok = rc == 2 && nb_t_count_lines(err) == 1 && strstr(err, "parts=K (1..16)");
        if (!ok) { printf("       NB_TUNE=%s: exit %d:\n", bad[k], rc); nb_t_show(err); }
        NB_ASSERT(ok, "NB_TUNE=%s: not exit 2 with one line naming parts=K (1..16)", bad[k]);
    }
}

static void t_too_many_gpus(void)
{
    int count = device_count();
    char want[32], must[64];
    snprintf(want, sizeof want, "%d", count + 1);
    snprintf(must, sizeof must, "only %d GPU", count);
    char *argv[] = { STEP06T_BINARY, "-n", "1000", "-s", "1", "--gpus", want, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    if (rc != 2 || !strstr(err, must)) { printf("       --gpus %s: exit %d:\n", want, rc); nb_t_show(err); }
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(nb_t_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, must));
}

static void t_failing_gpu(void)
{
    int count = device_count();
    char fail[16], must[32];
    snprintf(fail, sizeof fail, "%d", count - 1);
    snprintf(must, sizeof must, "GPU %d:", count - 1);
    setenv("NB_FAKE_GPU_FAIL", fail, 1);
    setenv("NB_NCCL_TIMEOUT_S", "60", 1);
    char *argv[] = { STEP06T_BINARY, "-n", "5000", "-s", "3", NULL };
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

void nb_multigpu_tuned_register(const nb_step *step06t, const nb_step *step05t, const nb_step *split_table)
{
    S6 = step06t;
    S5 = step05t;
    SPLIT = split_table;
    static const nb_test split_tests[] = {
        { "no costs yet: by count, P ranges over every group", t_split_by_count, 1 },
        { "by cost: contiguous, each range within the costliest group of 1/P, the same twice",
          t_split_by_cost, 2 },
        { "more GPUs than groups, costs that are no costs, one dear group", t_split_edges, 1 },
        NB_TEST_END
    };
    nb_grade_suite("step06 tuned split", split_tests, NULL);
    static const nb_test tests[] = {
        { "P = 1 equals step05 tuned body for body (bit-identical, 5 steps, theta 1)",
          t_p1_equals_step05_tuned, 3 },
        { "P = all GPUs equals step05 tuned body for body (bit-identical, 5 steps, theta 1)",
          t_pall_equals_step05_tuned, 3 },
        { "theta 0 = direct sum over all GPUs (N^2 interactions, max 1e-4); the split covers every "
          "group", t_theta0_direct_sum, NB_FORCES(2) },
        { "--bench reports the walk's spread over the GPUs and the split", t_bench_spread, 1 },
        { "the walk in 3 parts, each exchanged beside the next one's walk: the bits of one part "
          "(P = all, 5 steps), every part on --bench's timeline", t_parts_same_bits, 1 },
        { "NB_TUNE parts=0, 17, twice, not a number: exit 2 with one line", t_parts_refused, 1 },
        { "--gpus past the GPUs present: exit 2 naming the count", t_too_many_gpus, 1 },
        { "a failing GPU: exit 3 naming it, no hang", t_failing_gpu, 1 },
        NB_TEST_END
    };
    nb_grade_suite("step06 tuned", tests, nb_grade_gpu_skip(S6));
    static char what[160];
    snprintf(what, sizeof what, "%s: its accelerations at N = 1000 and 4097 (theta 0.5)", S6->name);
    nb_grade_gate("step06 tuned", gate, what);
}
