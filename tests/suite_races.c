/* suite_races.c -- the CPU codes under ThreadSanitizer, as a graded test:
 * a data race fails it on any machine, every run.  step01's force loop
 * (suite "races") and step05's --cpu tree code (suite "races (cpu)": its
 * build, walk and evaluation, at theta 0.5 with the tree's tolerance).
 *
 * A variable of the force loop declared before `#pragma omp parallel for`
 * -- the sums, j, or xi, yi, zi -- is shared by every thread: a data race.
 * Whether it changes a result depends on how the threads happen to
 * interleave, and on a machine with few cores they mostly run one after the
 * other: the comparisons of the conformance suite (the accelerations, runs
 * with 1 and several threads bit-identical) can pass.  ThreadSanitizer does
 * not wait for the race to do harm: it follows which accesses are ordered
 * (happens-before), so two threads writing one variable with nothing
 * between them are reported however the threads were scheduled.
 *
 * TSan understands OpenMP only through LLVM's runtime, libomp, with its
 * OMPT tool Archer (libarcher.so): the step's code and common/ are built a
 * third time, with clang -fsanitize=thread -fopenmp, into
 * tests/work_<runner>_tsan (common/tsan.mk).  The test
 *  1. runs the kit's own controls (tests/tsan_control.c) in the sandbox:
 *     a race-free OpenMP loop must pass without a report (else TSan does not
 *     see OpenMP's synchronization: Archer is not loaded) and the same loop
 *     with shared sums must be reported and exit 66 (else TSan is not
 *     watching here); either failure is the kit's, and says so;
 *  2. runs the step in the race-checking worker with more threads than the
 *     machine has cores (4 and 8) at N = 257 and 1001 (no multiple of a
 *     vector or of the thread count): init, accel, two timed advance steps,
 *     download, destroy.  The accelerations must match the double direct
 *     sum (the all-pairs tolerance), so that a loop that computes nothing
 *     cannot pass; any TSan report ends the worker (halt_on_error=1, exit
 *     66) and fails the test with the report's summary line ("data race
 *     step01_cpu/forces.c:27:13 in ..."); the whole report is printed under
 *     the test.
 * TSAN_OPTIONS and the OpenMP tool variables are the test's own, whatever
 * the grader's environment says.  ASLR is turned off for the test's
 * processes (personality(ADDR_NO_RANDOMIZE), inherited through the sandbox
 * and exec): TSan of LLVM 14 cannot place its shadow memory on kernels that
 * randomize mmap with more than 30 bits ("FATAL: ThreadSanitizer:
 * unexpected memory mapping"), and it costs nothing where it is not needed.
 *
 * Where clang, the TSan runtime, libomp or libarcher.so is missing the
 * worker is not built and the suite is SKIPPED (not graded, never counted
 * as passed), saying why and what to install. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_remote.h"
#include "nb_testutil.h"

#define TSAN_EXIT 66                /* exitcode= of TSAN_OPTIONS: a report */

static const nb_step *S;            /* the table, run in the race-checking worker */
static const char *WORKER_PATH, *CONTROL, *SYMBOLIZER;

/* The test's processes (the controls, the worker, both in the sandbox)
 * inherit this environment and personality. */
static void tsan_environment(void)
{
    char opts[700];
    int k = snprintf(opts, sizeof opts, "halt_on_error=1:exitcode=%d:ignore_noninstrumented_modules=1",
                     TSAN_EXIT);
    if (SYMBOLIZER && access(SYMBOLIZER, X_OK) == 0 && k > 0 && (size_t)k < sizeof opts)
        snprintf(opts + k, sizeof opts - (size_t)k, ":external_symbolizer_path=%s", SYMBOLIZER);
    setenv("TSAN_OPTIONS", opts, 1);
    setenv("OMP_TOOL", "enabled", 1);           /* Archer, linked into the worker, is the tool */
    setenv("OMP_DYNAMIC", "false", 1);          /* num_threads(threads) gets them all */
    unsetenv("OMP_TOOL_LIBRARIES");
    unsetenv("ARCHER_OPTIONS");
    unsetenv("OMP_THREAD_LIMIT");
    int p = personality(0xffffffff);
    if (p != -1 && !(p & ADDR_NO_RANDOMIZE)) personality((unsigned long)p | ADDR_NO_RANDOMIZE);
}

/* The first line of text that holds mark, into line ("" if none). */
static void line_with(const char *text, const char *mark, char *line, size_t len)
{
    const char *hit = strstr(text, mark);
    line[0] = '\0';
    if (!hit) return;
    while (hit > text && hit[-1] != '\n') hit--;
    size_t n = strcspn(hit, "\n");
    snprintf(line, len, "%.*s", (int)(n < len - 1 ? n : len - 1), hit);
}

/* text without the tree's path (NB_TOP_DIR/), in place */
static void strip_top(char *text)
{
    const char *top = NB_TOP_DIR "/";
    size_t k = strlen(top);
    for (char *q; (q = strstr(text, top));) memmove(q, q + k, strlen(q + k) + 1);
}

/* The kit's controls: 0, or -1 with the reason in why. */
static int controls(char *why, size_t len)
{
    static char out[4096], err[1 << 15];
    char line[400];
    char *clean[] = { (char *)CONTROL, "clean", "4", "257", NULL };
    int rc = nb_t_run(clean, out, sizeof out, err, sizeof err, 120);
    if (rc != 0 || strstr(err, "ThreadSanitizer")) {
        line_with(err, "SUMMARY: ThreadSanitizer", line, sizeof line);
        if (!line[0]) line_with(err, "ThreadSanitizer", line, sizeof line);
        if (!line[0]) line_with(err, "", line, sizeof line);
        strip_top(line);
        printf("       the kit's race-free control:\n%s\n", err);
        snprintf(why, len, "the KIT's check is broken here, not the student's code: its race-free OpenMP control "
                 "(tests/tsan_control clean) exited %d: %.200s (is libarcher.so loaded?)", rc, line);
        return -1;
    }
    char *race[] = { (char *)CONTROL, "race", "4", "257", NULL };
    rc = nb_t_run(race, out, sizeof out, err, sizeof err, 120);
    line_with(err, "SUMMARY: ThreadSanitizer: data race", line, sizeof line);
    strip_top(line);
    if (rc != TSAN_EXIT || !line[0] || !strstr(line, "tsan_control.c")) {
        if (!line[0]) line_with(err, "ThreadSanitizer", line, sizeof line);
        printf("       the kit's racing control:\n%s\n", err);
        snprintf(why, len, "the KIT's check is broken here, not the student's code: its racing OpenMP control "
                 "(tests/tsan_control race) exited %d (expected %d, a data race in tsan_control.c): %.200s",
                 rc, TSAN_EXIT, line[0] ? line : "no report");
        return -1;
    }
    printf("       the kit's controls: race-free loop clean, shared sums reported (%s)\n",
           strstr(line, "data race"));
    return 0;
}

/* A worker's death message, TSan's summary line first ("ThreadSanitizer:
 * data race step01_cpu/forces.c:24:12 in ... (during init)"), without the
 * tree's path. */
static void shorten(char *msg, size_t len)
{
    const char *p = strstr(msg, "SUMMARY: ThreadSanitizer: ");
    if (p) {
        char during[40] = "", *d = strstr(msg, " during ");
        if (d && d < p) snprintf(during, sizeof during, " (%.*s)", (int)strcspn(d + 1, ":"), d + 1);
        char summary[800];
        snprintf(summary, sizeof summary, "%s%s", p + 9, during);
        snprintf(msg, len, "%s", summary);
    }
    strip_top(msg);
}

/* One worker: init, accel (checked against the double sum), two timed
 * advance steps, download, destroy; the first failure in why. */
static int run_case(int64_t n, int threads, uint64_t seed, char *why, size_t len)
{
    char what[80];
    snprintf(what, sizeof what, "N=%lld, %d threads", (long long)n, threads);
    nb_state s;
    if (nb_ic_generate(seed % 2 ? "cube" : "plummer", n, seed, &s)) {
        snprintf(why, len, "%s: the initial conditions could not be made", what);
        return -1;
    }
    nb_t_unequal_masses(&s, seed + 1);
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.threads = threads;
    o.theta = 0.5;                           /* the tree code's default */
    float *a = malloc((size_t)(3 * n) * sizeof *a);
    nb_state after;
    int have_after = nb_state_copy(&after, &s) == 0;
    nb_step_time t[2];
    void *ctx = NULL;
    int rc = a && have_after ? S->init(&ctx, &s, &o) : -1;
    if (!rc) rc = S->accel(ctx, a, a + n, a + 2 * n);
    if (!rc) rc = S->advance(ctx, 2, t);
    if (!rc) rc = S->download(ctx, &after);
    char end[800] = "ok";
    int ended = ctx ? nb_remote_finish(ctx, end, sizeof end) : 0;
    int bad = 0;
    if (rc || ended) {                       /* a report ends the worker: its summary line */
        char msg[800];
        snprintf(msg, sizeof msg, "%s", rc < 0 ? "out of memory" : rc ? nb_errmsg() : end);
        shorten(msg, sizeof msg);
        snprintf(why, len, "%s: %s", what, msg);
        bad = -1;
    }
    if (!bad) {                              /* the accelerations: every one written, and right */
        int64_t unwritten = 0;
        for (int64_t i = 0; i < n; i++)
            unwritten += !isfinite(a[i]) || !isfinite(a[n + i]) || !isfinite(a[2 * n + i]);
        nb_errstats e = { 0 };
        nb_tolerance tol = nb_tolerance_for_n(S->tree, o.theta, n);
        if (unwritten) {
            bad = -1;
            snprintf(why, len, "%s: %lld of %lld accelerations unwritten or non-finite, expected 0", what,
                     (long long)unwritten, (long long)n);
        } else if (nb_accel_errors(&s, o.eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &e) ||
                   !nb_within_tolerance(&e, &tol)) {
            bad = -1;
            snprintf(why, len, "%s: accelerations vs double: median %.3g p99 %.3g max %.3g; bounds median "
                     "%.3g p99 %.3g max %.3g", what, e.median, e.p99, e.max, tol.median, tol.p99, tol.max);
        }
    }
    if (!bad) {                              /* the advanced state: written and finite */
        int64_t nonfinite = 0;
        for (int64_t i = 0; i < n; i++)
            nonfinite += !isfinite(after.x[i]) || !isfinite(after.y[i]) || !isfinite(after.z[i]) ||
                         !isfinite(after.vx[i]) || !isfinite(after.vy[i]) || !isfinite(after.vz[i]);
        if (nonfinite) {
            bad = -1;
            snprintf(why, len, "%s: %lld bodies non-finite after 2 steps, expected 0", what, (long long)nonfinite);
        }
    }
    if (bad) printf("       %s\n", why);
    else printf("       %s: no race reported, accelerations right\n", what);
    free(a);
    if (have_after) nb_state_free(&after);
    nb_state_free(&s);
    return bad;
}

static void t_races(void)
{
    char why[900];
    NB_ASSERT_FATAL(access(WORKER_PATH, X_OK) == 0 && access(CONTROL, X_OK) == 0,
                    "the KIT is broken here, not the student's code: %s or %s was not built (make -C tests "
                    "run_step01_cpu builds them)", WORKER_PATH, CONTROL);
    tsan_environment();
    int bad = controls(why, sizeof why);
    NB_ASSERT_FATAL(!bad, "%s", why);
    const struct { int64_t n; int threads; } cases[] = { { 257, 4 }, { 1001, 8 }, { 257, 8 }, { 1001, 4 } };
    for (size_t k = 0; k < sizeof cases / sizeof *cases && !bad; k++)
        bad = run_case(cases[k].n, cases[k].threads, 900 + k, why, sizeof why);
    NB_ASSERT(!bad, "%s", why);
}

void nb_races_register(const nb_step *tsan_table, const char *worker, const char *control,
                       const char *symbolizer, const char *why_not)
{
    S = tsan_table;
    WORKER_PATH = worker;
    CONTROL = control;
    SYMBOLIZER = symbolizer;
    static char skip[600];
    if (why_not && *why_not)
        snprintf(skip, sizeof skip, "no ThreadSanitizer with LLVM's OpenMP here: %s", why_not);
    static const nb_test tests[] = { { "tsan_no_data_race_threads_4_8_n257_n1001", t_races, 3 }, NB_TEST_END };
    nb_grade_suite(S->tree ? "races (cpu)" : "races", tests, skip[0] ? skip : NULL);
}
