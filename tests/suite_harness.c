/* suite_harness.c -- tests of the grading harness itself.  The common runner
 * re-runs itself with --selftest-* to grade a fake set of suites in a
 * separate process, and checks that process's output:
 *  - a GPU suite without a device is SKIPPED with the reason, never counted
 *    as passed, and the runner says "not graded" instead of a score (the
 *    device probe runs in a child, never in the runner);
 *  - a failing test fails the run;
 *  - a test that segfaults, calls exit(3) or hangs fails with that reason
 *    and the tests after it still run; a suite whose setup fails fails
 *    every test of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_testutil.h"

const char *nb_harness_self;    /* argv[0] of the common runner */

/* ---- the fake suites graded by the child process ---- */
static int probe_ran_here;      /* set if the probe ran in the runner itself */
static int fake_probe(const nb_options *o)
{
    (void)o;
    probe_ran_here = 1;
    return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: CUDA driver version is insufficient "
                                  "for CUDA runtime version (fake)");
}
static const nb_step fake_gpu_step = { .name = "fake_gpu", .probe = fake_probe };
static void must_not_run(void) { CU_FAIL("a test of an inactive suite ran"); }
static void passes(void) { CU_ASSERT(1 + 1 == 2); }
static void fails(void) { CU_ASSERT_EQUAL(1 + 1, 3); }
static void talks_and_fails(void)
{
    printf("       fake measurement 1.5 (bound 1)\n");
    printf("       second line of the test\n");
    CU_ASSERT(1.5 <= 1.0);
}
static void segfaults(void)
{
    volatile int *volatile p = NULL;   /* the compiler cannot see it is NULL */
    *p = 1;
}
static void exits_3(void) { exit(3); }
static int init_fails(void) { return 1; }
static void hangs(void)
{
    for (;;) {
        struct timespec ts = { 1, 0 };
        nanosleep(&ts, NULL);
    }
}

int nb_harness_selftest(const char *mode)
{
    static const nb_test gpu_tests[] = { { "gpu_a", must_not_run, 5 }, { "gpu_b", must_not_run, 5 }, NB_TEST_END };
    static const nb_test cpu_tests[] = { { "ok", passes, 2 }, NB_TEST_END };
    static const nb_test bad_tests[] = { { "ok", passes, 2 }, { "broken", fails, 3 }, NB_TEST_END };
    static const nb_test crash_tests[] = {
        { "before", passes, 2 }, { "talks", talks_and_fails, 1 }, { "segv", segfaults, 3 },
        { "exit3", exits_3, 3 }, { "hang", hangs, 3 }, { "after", passes, 2 }, NB_TEST_END
    };
    setenv("NB_GRADE_NO_RESULTS", "1", 1);
    char *argv[] = { "selftest", NULL };
    if (!strcmp(mode, "--selftest-skip")) {
        nb_grade_suite("fake_gpu", gpu_tests, nb_grade_gpu_skip(&fake_gpu_step));
        nb_grade_suite("fake_cpu", cpu_tests, NULL);
        if (probe_ran_here) printf("the device probe ran in the runner process\n");
    } else if (!strcmp(mode, "--selftest-crash")) {
        nb_grade_suite("fake_crash", crash_tests, NULL);
        nb_grade_suite("fake_init", cpu_tests, NULL);            /* its setup fails */
        CU_pSuite fi = CU_get_suite("fake_init");
        if (fi) fi->pInitializeFunc = init_fails;
    } else {
        nb_grade_suite("fake_bad", bad_tests, NULL);
    }
    return nb_grade_main("selftest", 1, argv);
}

/* ---- checks that print what they measured ---- */
static char out[1 << 16], err[1 << 13];

#define EXPECT_RC(rc, want)                                                              \
    do {                                                                                 \
        if ((rc) != (want)) printf("       exit status %d (expected %d)\n", (rc), (want)); \
        CU_ASSERT_EQUAL((rc), (want));                                                   \
    } while (0)
/* needle must be in hay (print the needle and the output when it is not) */
#define EXPECT_HAS(hay, needle)                                                                  \
    do {                                                                                         \
        const char *n_ = (needle);                                                               \
        if (!strstr((hay), n_)) printf("       expected \"%s\" in the output:\n%.3000s\n", n_, (hay)); \
        CU_ASSERT_PTR_NOT_NULL(strstr((hay), n_));                                               \
    } while (0)
#define EXPECT_LACKS(hay, needle)                                                                \
    do {                                                                                         \
        const char *n_ = (needle);                                                               \
        if (strstr((hay), n_)) printf("       \"%s\" must not be in the output:\n%.3000s\n", n_, (hay)); \
        CU_ASSERT_PTR_NULL(strstr((hay), n_));                                                   \
    } while (0)

/* ---- the tests ---- */

static void t_skip_is_not_graded(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-skip", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 0);                            /* skipped suites do not fail the run */
    EXPECT_HAS(out, "SKIPPED (no usable CUDA device: CUDA driver version is insufficient");
    EXPECT_HAS(out, "selftest: 1 passed, 0 failed, 2 skipped");
    EXPECT_HAS(out, "selftest: not graded (no usable CUDA device: CUDA driver version is insufficient "
                    "for CUDA runtime version (fake)); 10 of 12 points in 2 skipped tests did not run");
    EXPECT_LACKS(out, "score ");                 /* never a score such as 2/2 */
    EXPECT_LACKS(out, "inactive suite ran");
    EXPECT_LACKS(out, "the device probe ran in the runner process");
    /* NB_GRADE_REQUIRE_GPU=1: a runner that is not graded fails */
    setenv("NB_GRADE_REQUIRE_GPU", "1", 1);
    rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_GRADE_REQUIRE_GPU");
    EXPECT_RC(rc, 1);
}

static void t_failure_fails(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-fail", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "selftest: 1 passed, 1 failed, 0 skipped");
    EXPECT_HAS(out, "FAIL   0/3   fake_bad/broken: CU_ASSERT_EQUAL(1 + 1,3)");
    EXPECT_HAS(out, "score 2/5 points");
}

static void t_crash_exit_hang(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-crash", NULL };
    setenv("NB_TEST_TIMEOUT", "2", 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsetenv("NB_TEST_TIMEOUT");
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "PASS   2/2   fake_crash/before\n");
    EXPECT_HAS(out, "FAIL   0/3   fake_crash/segv: crashed: SIGSEGV in fake_crash/segv\n");
    EXPECT_HAS(out, "FAIL   0/3   fake_crash/exit3: exited with status 3 inside the test\n");
    EXPECT_HAS(out, "FAIL   0/3   fake_crash/hang: timed out after 2 s\n");
    EXPECT_HAS(out, "PASS   2/2   fake_crash/after\n");   /* the tests after them still ran */
    EXPECT_HAS(out, "FAIL   0/2   fake_init/ok: suite initialization failed\n");
    EXPECT_HAS(out, "selftest: 2 passed, 5 failed, 0 skipped");
    EXPECT_HAS(out, "selftest: score 4/16 points");
    /* a test's own lines come before its result line, in order */
    EXPECT_HAS(out, "       fake measurement 1.5 (bound 1)\n       second line of the test\n"
                    "  FAIL   0/1   fake_crash/talks: 1.5 <= 1.0");
    /* the hang costs its time limit (2 s), not the runner's */
    if (secs > 30) printf("       the crash selftest took %.1f s (bound 30 s)\n", secs);
    CU_ASSERT(secs <= 30);
}

static const nb_test harness_tests[] = {
    { "gpu_suite_without_device_is_not_graded", t_skip_is_not_graded, 2 },
    { "failing_test_fails_the_run", t_failure_fails, 2 },
    { "crash_exit_hang_fail_only_their_test", t_crash_exit_hang, 2 },
    NB_TEST_END
};

void nb_suite_harness_register(void) { nb_grade_suite("harness", harness_tests, NULL); }
