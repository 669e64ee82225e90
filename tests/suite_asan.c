/* suite_asan.c -- the CPU codes under AddressSanitizer and
 * UndefinedBehaviorSanitizer, as graded tests: the CPU counterpart of the
 * GPU steps' compute-sanitizer tests (suite_sanitizer.c,
 * suite_gpu_allpairs.c).
 *
 * Some mistakes leave the sums right and still break the program: a force
 * loop that reads one body past the end (j <= n) adds whatever lies there,
 * often a zero mass; a walk whose fixed stack is too small for a deep tree
 * writes past it into memory nobody reads in an ordinary run; an interaction
 * list that reserves less room than it pushes writes past its end.  The step's
 * code is built a second time with -fsanitize=address,undefined
 * (tests/work_<runner>_asan: the step's sources and common/, instrumented)
 * and runs small inputs that take every path: N = 1, 2, 3 (fewer bodies than
 * a SIMD vector, a group, a tile), 33, 1001, one and three threads, a timed
 * advance and a download; for the tree code also theta 0 and 0.5, 1000
 * coincident bodies (a leaf list at the depth cap), a body 1e20 away, the
 * two deep trees of nb_tree_deep_state() (~430 cells on a walk's stack) and
 * 5003 bodies at theta 0 (interaction lists past their first 4096 entries).
 * Any report -- the worker then stops with it -- or a non-zero exit fails
 * the test, with the report's first line; the full report is printed under
 * the test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_remote.h"
#include "nb_testutil.h"
#include "nb_tree.h"

static const nb_step *S;            /* the table, run in the sanitized worker */

/* One worker: init, accel, a timed advance, download, destroy; the first
 * failure (a sanitizer's report kills the worker) in why. */
static int run_case(const char *what, const nb_state *s0, int threads, double theta, char *why, size_t len)
{
    nb_options o;
    nb_options_default(&o);
    o.n = s0->n;
    o.threads = threads;
    o.theta = theta;
    nb_state s;
    if (nb_state_copy(&s, s0)) { snprintf(why, len, "%s: out of memory", what); return -1; }
    int64_t n = s.n;
    float *a = malloc((size_t)(3 * n + 1) * sizeof *a);
    nb_step_time t[2];
    void *ctx = NULL;
    int rc = a ? S->init(&ctx, &s, &o) : -1;
    if (!rc) rc = S->accel(ctx, a, a + n, a + 2 * n);
    if (!rc) rc = S->advance(ctx, 2, t);
    if (!rc) rc = S->download(ctx, &s);
    char end[800] = "ok";
    int ended = ctx ? nb_remote_finish(ctx, end, sizeof end) : 0;
    if (rc) snprintf(why, len, "%s: %s", what, rc < 0 ? "out of memory" : nb_errmsg());
    else if (ended) snprintf(why, len, "%s: %s", what, end);
    free(a);
    nb_state_free(&s);
    printf("       %s: %s\n", what, rc || ended ? why : "clean");
    return rc || ended ? -1 : 0;
}

static void t_runs(void)
{
    const int64_t ns[] = { 1, 2, 3, 33, 1001 };
    char why[900], what[80];
    int bad = 0;
    for (size_t k = 0; k < sizeof ns / sizeof *ns && !bad; k++) {
        nb_state s;
        CU_ASSERT_FATAL(nb_ic_generate(k % 2 ? "cube" : "plummer", ns[k], 700 + k, &s) == 0);
        nb_t_unequal_masses(&s, 700 + k);
        int threads = k % 2 ? 3 : 1;
        snprintf(what, sizeof what, "N=%lld, %d thread%s", (long long)ns[k], threads, threads > 1 ? "s" : "");
        bad = run_case(what, &s, threads, 0.5, why, sizeof why);
        if (!bad && S->tree) {
            snprintf(what, sizeof what, "N=%lld, theta 0", (long long)ns[k]);
            bad = run_case(what, &s, 2, 0.0, why, sizeof why);
        }
        nb_state_free(&s);
    }
    NB_ASSERT(!bad, "%s", why);
}

static void t_tree_cases(void)
{
    char why[900];
    int bad = 0;
    nb_state s;
    for (int mirror = 0; mirror < 2 && !bad; mirror++) {
        CU_ASSERT_FATAL(nb_tree_deep_state(&s, mirror) == 0);
        const char *what = mirror ? "deep tree (octant 7 path), theta 0" : "deep tree (octant 0 path), theta 0";
        bad = run_case(what, &s, 2, 0.0, why, sizeof why);
        if (!bad) bad = run_case(mirror ? "deep tree (octant 7 path), theta 0.5" : "deep tree (octant 0 path), theta 0.5",
                                 &s, 1, 0.5, why, sizeof why);
        nb_state_free(&s);
    }
    if (!bad) {
        CU_ASSERT_FATAL(nb_ic_generate("plummer", 3001, 705, &s) == 0);
        for (int64_t i = 0; i < 1000; i++) { s.x[3 * i] = 0.1234567f; s.y[3 * i] = -0.3456789f; s.z[3 * i] = 0.0567891f; }
        bad = run_case("1000 coincident + 2001", &s, 3, 0.5, why, sizeof why);
        if (!bad) bad = run_case("1000 coincident + 2001, theta 0", &s, 1, 0.0, why, sizeof why);
        nb_state_free(&s);
    }
    if (!bad) {                                  /* interaction lists of ~5000 entries */
        CU_ASSERT_FATAL(nb_ic_generate("plummer", 5003, 706, &s) == 0);
        bad = run_case("plummer 5003, theta 0 (long interaction lists)", &s, 1, 0.0, why, sizeof why);
        nb_state_free(&s);
    }
    if (!bad) {
        CU_ASSERT_FATAL(nb_state_alloc(&s, 3) == 0);
        const float x[3] = { 0, 1, 1e20f }, m[3] = { 0.4f, 0.4f, 0.2f };
        for (int i = 0; i < 3; i++) {
            s.x[i] = x[i]; s.y[i] = s.z[i] = 0; s.m[i] = m[i];
            s.vx[i] = s.vy[i] = s.vz[i] = 0;
        }
        bad = run_case("a body 1e20 away", &s, 1, 0.5, why, sizeof why);
        nb_state_free(&s);
    }
    NB_ASSERT(!bad, "%s", why);
}

static char gate_what[160];
static void gate(void) { nb_t_gate_table(S); }

void nb_asan_register(const nb_step *asan_table)
{
    S = asan_table;
    static const nb_test allpairs[] = {
        { "asan_ubsan_clean_n1_n2_n3_n33_n1001_threads", t_runs, 3 }, NB_TEST_END };
    static const nb_test tree[] = {
        { "asan_ubsan_clean_n1_n2_n3_n33_n1001_threads", t_runs, 2 },
        { "asan_ubsan_clean_deep_trees_coincident_far_body", t_tree_cases, 3 }, NB_TEST_END };
    nb_grade_suite(S->tree ? "sanitizers (cpu)" : "sanitizers", S->tree ? tree : allpairs, NULL);
    snprintf(gate_what, sizeof gate_what, "%s under ASan: its accelerations at N = 1000 and 4097", S->name);
    nb_grade_gate(S->tree ? "sanitizers (cpu)" : "sanitizers", gate, gate_what);
}
