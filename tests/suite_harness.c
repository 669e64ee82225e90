/* suite_harness.c -- tests of the grading harness itself: a GPU suite on a
 * machine without a device is SKIPPED with the reason and never counted as
 * passed; a failing test fails the run.  The common runner re-runs itself
 * with --selftest-* to grade a fake set of suites in a separate process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_grade.h"
#include "nb_testutil.h"

const char *nb_harness_self;    /* argv[0] of the common runner */

/* ---- the fake suites graded by the child process ---- */
static int fake_probe(const nb_options *o)
{
    (void)o;
    return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: CUDA driver version is insufficient "
                                  "for CUDA runtime version (fake)");
}
static const nb_step fake_gpu_step = { .name = "fake_gpu", .probe = fake_probe };
static void must_not_run(void) { CU_FAIL("a test of an inactive suite ran"); }
static void passes(void) { CU_ASSERT(1 + 1 == 2); }
static void fails(void) { CU_ASSERT_EQUAL(1 + 1, 3); }

int nb_harness_selftest(const char *mode)
{
    static const nb_test gpu_tests[] = { { "gpu_a", must_not_run, 5 }, { "gpu_b", must_not_run, 5 }, NB_TEST_END };
    static const nb_test cpu_tests[] = { { "ok", passes, 2 }, NB_TEST_END };
    static const nb_test bad_tests[] = { { "ok", passes, 2 }, { "broken", fails, 3 }, NB_TEST_END };
    setenv("NB_GRADE_NO_RESULTS", "1", 1);
    char *argv[] = { "selftest", NULL };
    if (!strcmp(mode, "--selftest-skip")) {
        nb_grade_suite("fake_gpu", gpu_tests, nb_grade_gpu_skip(&fake_gpu_step));
        nb_grade_suite("fake_cpu", cpu_tests, NULL);
    } else {
        nb_grade_suite("fake_bad", bad_tests, NULL);
    }
    return nb_grade_main("selftest", 1, argv);
}

/* ---- the tests ---- */
static char out[1 << 14], err[1 << 12];

static void t_skip_is_not_pass(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-skip", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    CU_ASSERT_EQUAL(rc, 0);                      /* skipped suites do not fail the run */
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "SKIPPED (no usable CUDA device: CUDA driver version is insufficient"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "selftest: 1 passed, 0 failed, 2 skipped"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "score 2/2 points (10 points in 2 skipped tests not graded)"));
    CU_ASSERT_PTR_NULL(strstr(out, "inactive suite ran"));
}

static void t_failure_fails(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-fail", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    CU_ASSERT_EQUAL(rc, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "selftest: 1 passed, 1 failed, 0 skipped"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "FAIL   0/3   fake_bad/broken"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "score 2/5 points"));
}

static const nb_test harness_tests[] = {
    { "gpu_suite_without_device_is_skipped", t_skip_is_not_pass, 2 },
    { "failing_test_fails_the_run", t_failure_fails, 2 },
    NB_TEST_END
};

void nb_suite_harness_register(void) { nb_grade_suite("harness", harness_tests, NULL); }
