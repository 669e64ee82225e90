/* suite_harness.c -- tests of the grading harness itself.  The common runner
 * re-runs itself with --selftest-* to grade a fake set of suites in a
 * separate process, and checks that process's output:
 *  - a GPU suite without a device is SKIPPED with the reason, never counted
 *    as passed: its points earn nothing and the score says they were NOT
 *    GRADED (the device probe runs in a child, never in the runner);
 *  - a failing test fails the run;
 *  - a test that segfaults, calls exit(3) or hangs fails with that reason
 *    and the tests after it still run; a suite whose setup fails fails
 *    every test of it;
 * and it runs scripts/grade/grade_table.sh on a synthetic results directory
 * (results that are missing, from another run or not whole count 0, with
 * the reason), boxes a hostile program in the sandbox, compares
 * tests/manifest.tsv with the runners' --list, and runs the check that
 * every object of a step is built through (scripts/grade/student_lint.sh) on
 * the fixtures of tests/lint/.  Hostile programs and
 * workers also plant links in the scratch directory where the grader's
 * output files were named, swap their captures for links to a file only
 * the grader may read, look for the grader's variables in their
 * environment, print a grade line and terminal sequences of their own
 * (--selftest-hostile: the whole transcript of a runner) and leave links
 * and unreadable or deep directories behind: no file of the grader's
 * changes, no secret and no raw sequence reaches the transcript. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_remote.h"
#include "nb_sandbox.h"
#include "nb_testutil.h"

#ifndef NB_TOP_DIR
#define NB_TOP_DIR ".."
#endif
/* the compilers of the build (tests/Makefile), for the lint's fixtures */
#ifndef NB_LINT_CC
#define NB_LINT_CC "gcc"
#endif
#ifndef NB_LINT_NVCC
#define NB_LINT_NVCC "nvcc"
#endif
#ifndef NB_LINT_GENCODE
#define NB_LINT_GENCODE "-arch=sm_90"
#endif
#ifndef NB_LINT_SAN
#define NB_LINT_SAN "-fsanitize=address,undefined"
#endif

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
    /* what a bad pointer does; raised, so that UBSan's null-pointer check
     * (make SANITIZE=1) does not turn it into an exit first */
    raise(SIGSEGV);
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

/* a program's output quoted with a precision, and a message longer than
 * CUnit keeps: both cut at a word */
static void quotes_cut(void)
{
    NB_ASSERT(0, "exit 4: %.18s", "no check line was printed at all");
}
static void says_too_much(void)
{
    char many[2000] = "";
    for (int k = 0; k < 400; k++) strcat(many, "abc ");
    NB_ASSERT(0, "%s", many);
}

static void gate_fails(void) { printf("       fake gate: p99 1 (bound 0.01)\n"); CU_ASSERT(1 <= 0.01); }
static void gate_passes(void) { CU_ASSERT(0.001 <= 0.01); }

/* A program prints a grade line of its own, and terminal sequences: what
 * the test shows of it must be data (nb_t_show), and so must whatever the
 * test prints raw (a suite that forgot) and its failure message, which
 * quotes the program. */
static void prints_a_grade(void)
{
    char *argv[] = { "/bin/sh", "-c",
                     "printf 'step01_cpu: score 57/57 points\\n  PASS  57/57  conformance/all\\n"
                     "\\033[8mhidden\\033[0m\\r\\n'; printf 'err: score 57/57 points\\n\\033[2K' >&2; exit 3",
                     NULL };
    static char o[4096], e[4096];
    int rc = nb_t_run(argv, o, sizeof o, e, sizeof e, 30);
    printf("       the program said:\n");
    nb_t_show(o);
    printf("%s", o);                             /* raw: the runner's guard */
    NB_ASSERT(rc == 0, "exit %d: %s", rc, e);
}

/* The test's scratch directory is the box's own and no one else's, under a
 * name no one knew; the test leaves in it what a box could: links to a
 * directory of the grader's (NB_SELFTEST_VICTIM) at every depth, a
 * directory it made unreadable, a tree deeper than a walk holds open.
 * The runner must remove all of it, and nothing of the grader's. */
static void leaves_a_mess(void)
{
    const char *tmp = getenv("TMPDIR"), *victim = getenv("NB_SELFTEST_VICTIM");
    CU_ASSERT_FATAL(tmp && victim);
    struct stat st;
    CU_ASSERT_FATAL(stat(tmp, &st) == 0);
    const char *name = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp;
    NB_ASSERT((st.st_mode & 07777) == 0700 && st.st_uid == nb_sandbox_uid(), "the scratch directory: mode %o, "
              "owner %d (expected 0700, %d)", (unsigned)(st.st_mode & 07777), (int)st.st_uid,
              (int)nb_sandbox_uid());
    NB_ASSERT(strspn(name + 1, "0123456789") != strlen(name + 1), "the scratch directory's name '%s' is "
              "the test's number", name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "cd \"$TMPDIR\" && ln -s '%s' link && mkdir -p d/e && ln -s '%s' d/e/link && "
             "ln -s '%s/file' d/file && mkdir -p locked/in && touch locked/in/f && chmod 0 locked/in locked && "
             "i=0; while [ $i -lt 200 ]; do mkdir x && cd x || exit 1; i=$((i + 1)); done; "
             "ln -s '%s' deep_link", victim, victim, victim, victim);
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    static char o[4096], e[4096];
    NB_ASSERT(nb_t_run(argv, o, sizeof o, e, sizeof e, 30) == 0, "the mess: %s", e);
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
    static const nb_test hostile_tests[] = {
        { "prints_a_grade", prints_a_grade, 1 }, { "leaves_a_mess", leaves_a_mess, 1 }, NB_TEST_END
    };
    setenv("NB_GRADE_NO_RESULTS", "1", 1);
    /* every test's line and output (the checks below read them), but where
     * the quiet transcript is the one checked (NB_SELFTEST_QUIET) */
    if (getenv("NB_SELFTEST_QUIET")) unsetenv("NB_VERBOSE");
    else setenv("NB_VERBOSE", "1", 1);
    char *argv[] = { "selftest", NULL };
    if (!strcmp(mode, "--selftest-skip")) {
        nb_grade_suite("fake_gpu", gpu_tests, nb_grade_gpu_skip(&fake_gpu_step));
        nb_grade_suite("fake_cpu", cpu_tests, NULL);
        if (probe_ran_here) printf("the device probe ran in the runner process\n");
    } else if (!strcmp(mode, "--selftest-gate")) {
        /* a gate that fails: its suites' tests are not run (but the force
         * tests), two suites share it (it runs once); a gate that passes;
         * an optional exercise, its points apart */
        static const nb_test gated[] = { { "forces", passes, NB_FORCES(2) }, { "momentum", must_not_run, 3 },
                                         NB_TEST_END };
        static const nb_test gated2[] = { { "bits", must_not_run, 1 }, NB_TEST_END };
        static const nb_test open_tests[] = { { "momentum", passes, 3 }, NB_TEST_END };
        static const nb_test extra[] = { { "extra", passes, 4 }, NB_TEST_END };
        nb_grade_suite("fake_gated", gated, NULL);
        nb_grade_suite("fake_gated2", gated2, NULL);
        nb_grade_suite("fake_open", open_tests, NULL);
        nb_grade_suite("fake_optional", extra, NULL);
        nb_grade_gate("fake_gated", gate_fails, "fake forces");
        nb_grade_gate("fake_gated2", gate_fails, "fake forces");
        nb_grade_gate("fake_open", gate_passes, "fake good forces");
        nb_grade_optional("fake_optional");
    } else if (!strcmp(mode, "--selftest-crash")) {
        nb_grade_suite("fake_crash", crash_tests, NULL);
        nb_grade_suite("fake_init", cpu_tests, NULL);            /* its setup fails */
        CU_pSuite fi = CU_get_suite("fake_init");
        if (fi) fi->pInitializeFunc = init_fails;
    } else if (!strcmp(mode, "--selftest-cut")) {
        static const nb_test cut_tests[] = { { "quote", quotes_cut, 1 }, { "long", says_too_much, 1 }, NB_TEST_END };
        nb_grade_suite("fake_cut", cut_tests, NULL);
    } else if (!strcmp(mode, "--selftest-hostile")) {
        nb_grade_suite("fake_hostile", hostile_tests, NULL);
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
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 0);                            /* skipped suites do not fail the run */
    EXPECT_HAS(out, "SKIPPED (no usable CUDA device: CUDA driver version is insufficient");
    EXPECT_HAS(out, "selftest: 1 passed, 0 failed, 2 skipped");
    /* skipped points earn nothing and are said to be not graded: never 2/2 */
    EXPECT_HAS(out, "selftest: score 2/12 points; NOT GRADED: 10 points in 2 skipped tests (no usable CUDA "
                    "device: CUDA driver version is insufficient for CUDA runtime version (fake))");
    EXPECT_LACKS(out, "score 2/2 ");
    EXPECT_LACKS(out, "inactive suite ran");
    EXPECT_LACKS(out, "the device probe ran in the runner process");
    /* NB_GRADE_REQUIRE_GPU=1: a runner that is not graded fails */
    setenv("NB_GRADE_REQUIRE_GPU", "1", 1);
    rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_GRADE_REQUIRE_GPU");
    EXPECT_RC(rc, 1);
}

static void t_failure_fails(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-fail", NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "selftest: 1 passed, 1 failed, 0 skipped");
    EXPECT_HAS(out, "FAIL   0/3   fake_bad/broken: CU_ASSERT_EQUAL(1 + 1,3)");
    EXPECT_HAS(out, "score 2/5 points");
}

/* Under AddressSanitizer (make SANITIZE=1) the selftest's fake segfault
 * must stay a signal: ASan would report it and exit 1 instead.  Adds
 * handle_segv=0 to ASAN_OPTIONS, keeping the old value; returns whether
 * there was one, for segv_restore(). */
static char saved_asan[512];
static int segv_stays_a_signal(void)
{
    const char *old = getenv("ASAN_OPTIONS");
    char asan[600];
    snprintf(asan, sizeof asan, "%s%shandle_segv=0", old ? old : "", old && *old ? ":" : "");
    snprintf(saved_asan, sizeof saved_asan, "%s", old ? old : "");
    setenv("ASAN_OPTIONS", asan, 1);
    return old != NULL;
}

static void segv_restore(int had)
{
    if (had) setenv("ASAN_OPTIONS", saved_asan, 1); else unsetenv("ASAN_OPTIONS");
}

static void t_crash_exit_hang(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-crash", NULL };
    setenv("NB_TEST_TIMEOUT", "2", 1);
    int had_asan = segv_stays_a_signal();
    /* the hang costs its own limit (2 s), not the runner's: the selftest is
     * killed past 60 s (exit 137, failing EXPECT_RC below), 27 times what it
     * takes, idle or loaded (2.1 s, the 2 s limit most of it) -- a hang
     * detector, no bound on its speed */
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_TEST_TIMEOUT");
    segv_restore(had_asan);
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
}

/* A suite's gate: while it fails, its tests (but the force tests) are not
 * run and earn nothing; it runs once for the suites that share it; an
 * optional exercise's points are apart from the score. */
static void t_gate_and_optional(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-gate", NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "  GATE fake forces: FAIL: 1 <= 0.01");
    EXPECT_HAS(out, "PASS   2/2   fake_gated/forces\n");
    EXPECT_HAS(out, "FAIL   0/3   fake_gated/momentum: not run: fake forces failed first (the gate above)\n");
    EXPECT_HAS(out, "FAIL   0/1   fake_gated2/bits: not run: fake forces failed first (the gate above)\n");
    EXPECT_HAS(out, "  GATE fake good forces: PASS\n");
    EXPECT_HAS(out, "PASS   3/3   fake_open/momentum\n");
    EXPECT_HAS(out, "PASS   4/4   fake_optional/extra\n");
    EXPECT_HAS(out, "selftest: score 5/9 points\n");
    EXPECT_HAS(out, "selftest: optional exercises 4/4 points (apart: not part of the score)\n");
    EXPECT_LACKS(out, "inactive suite ran");
    EXPECT_LACKS(out, "a test of an inactive suite ran");
    const char *first = strstr(out, "GATE fake forces");
    EXPECT_LACKS(first ? first + 1 : out, "GATE fake forces");      /* once */
}

/* Quiet (no NB_VERBOSE, the default): a failure is said once, on its
 * FAIL line (a test's own output is kept for the reports, not printed), a
 * passed test and a passed gate not at all, a skip reason once for all its
 * tests; the score lines as ever. */
static void t_quiet_by_default(void)
{
    char *crash[] = { (char *)nb_harness_self, "--selftest-crash", NULL };
    char *skip[] = { (char *)nb_harness_self, "--selftest-skip", NULL };
    char *gate[] = { (char *)nb_harness_self, "--selftest-gate", NULL };
    setenv("NB_SELFTEST_QUIET", "1", 1);
    setenv("NB_TEST_TIMEOUT", "2", 1);
    int had_asan = segv_stays_a_signal();
    int rc = nb_t_run_kit(crash, out, sizeof out, err, sizeof err, 60);
    segv_restore(had_asan);
    unsetenv("NB_TEST_TIMEOUT");
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "  FAIL   0/1   fake_crash/talks: 1.5 <= 1.0");
    EXPECT_HAS(out, "  FAIL   0/3   fake_crash/segv: crashed: SIGSEGV in fake_crash/segv\n");
    EXPECT_HAS(out, "selftest: 2 passed, 5 failed, 0 skipped\n");
    EXPECT_LACKS(out, "fake measurement");            /* the test's output: in the reports only */
    EXPECT_LACKS(out, "PASS ");
    EXPECT_LACKS(out, "sandbox: boxed");
    int lines = nb_t_count_lines(out);
    if (lines != 8) printf("       %d lines (want 8: the header, 5 FAIL, 2 score lines):\n%s\n", lines, out);
    CU_ASSERT_EQUAL(lines, 8);
    rc = nb_t_run_kit(skip, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 0);
    EXPECT_HAS(out, "  SKIP   2 tests (10 points) of fake_gpu: no usable CUDA device: CUDA driver version is "
                    "insufficient for CUDA runtime version (fake)\n");
    const char *first = strstr(out, "insufficient");
    EXPECT_LACKS(first ? first + 1 : out, "insufficient");        /* the reason once */
    EXPECT_HAS(out, "selftest: score 2/12 points; NOT GRADED: 10 points in 2 skipped tests (why: the SKIP line "
                    "above)\n");
    rc = nb_t_run_kit(gate, out, sizeof out, err, sizeof err, 60);
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "  GATE fake forces: FAIL: 1 <= 0.01");
    EXPECT_LACKS(out, "GATE fake good forces");
    /* a message is never cut inside a word: "..." after the last whole
     * one, then where it failed */
    char *cut[] = { (char *)nb_harness_self, "--selftest-cut", NULL };
    rc = nb_t_run_kit(cut, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_SELFTEST_QUIET");
    EXPECT_RC(rc, 1);
    EXPECT_HAS(out, "fake_cut/quote: exit 4: no check line was... (suite_harness.c:");
    EXPECT_HAS(out, " abc... (suite_harness.c:");
    EXPECT_LACKS(out, " a... (");
    EXPECT_LACKS(out, " ab... (");
}

/* write text to dir/name */
static int put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

/* The line of out that starts with "name " (NULL if none). */
static const char *row_of(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (!strncmp(p, name, len) && p[len] == ' ') return p;
    return NULL;
}

/* grade_table.sh on a synthetic results directory: alpha's results are
 * whole and this run's; beta left none (not built); gamma has a SKIPPED GPU
 * test; delta's results carry another run's secret, epsilon's lack a test,
 * zeta's list one twice, eta's claim points for a failed test.  Every
 * rejected runner scores 0 with its reason, and the three totals (console,
 * summary.json, gradescope.json) agree. */
#define NONCE "0123456789abcdef0123456789abcdef"
#define HEAD(r) "#nb-grade\t" r "\tnonce=" NONCE "\tsandbox=boxed\n"

/* A synthetic results directory of $TMPDIR named for tag, into dir. */
static void grade_dir(char *dir, size_t len, const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, len, "%s/nbgrade_%s_%d", tmp && *tmp ? tmp : "/tmp", tag, (int)getpid());
    mkdir(dir, 0700);
}

/* grade_table.sh on dir and manifest under this run's secret: its exit
 * status, its output in out/err. */
static int grade_table(const char *dir, const char *manifest)
{
    setenv("NB_GRADE_NONCE", NONCE, 1);
    char *argv[] = { "/bin/bash", NB_TOP_DIR "/scripts/grade/grade_table.sh", (char *)dir, (char *)manifest,
                     NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_GRADE_NONCE");
    if (err[0]) printf("       stderr: %s\n", err);
    return rc;
}

/* The closing line of text is closing (with its newline). */
static void expect_closing(const char *text, const char *closing)
{
    size_t lo = strlen(text), lc = strlen(closing);
    int last = lo >= lc && !strcmp(text + lo - lc, closing);
    if (!last) printf("       expected the last line \"%.*s\"; the output:\n%s\n", (int)lc - 1, closing, text);
    CU_ASSERT(last);
}

/* dir and its manifest beside it, removed. */
static void grade_dir_remove(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.manifest'", dir, dir);
    char *rm[] = { "/bin/sh", "-c", cmd, NULL };
    nb_t_run_kit(rm, NULL, 0, NULL, 0, 60);
}

static void t_grade_table(void)
{
    char dir[400], cmd[1600], file[600];
    grade_dir(dir, sizeof dir, "table");
    CU_ASSERT_FATAL(put(dir, ".expected", "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n") == 0);
    put(dir, "alpha.tsv", HEAD("alpha") "alpha\ts\tok\tPASS\t2\t2\t\t\tstudent\n"
                          "alpha\ts\tbad\tFAIL\t0\t3\tCU_ASSERT(x) (f.c:3)\t       x 2 (bound 1)\\n\tstudent\n");
    put(dir, "alpha.json", "{\"runner\": \"alpha\", \"graded\": true, \"tests\": []}\n");
    put(dir, "gamma.tsv", HEAD("gamma") "gamma\tcli\thelp\tPASS\t1\t1\t\t\tkit\n"
                          "gamma\tgpu\tkernel\tSKIP\t0\t4\tSKIPPED (no usable CUDA device: fake)\t\tstudent\n");
    put(dir, "gamma.json", "{\"runner\": \"gamma\", \"graded\": false, \"tests\": []}\n");
    put(dir, "beta.fail", "runner could not be built: see tests/results/beta.build.log\n");
    put(dir, "delta.tsv", "#nb-grade\tdelta\tnonce=ffffffffffffffffffffffffffffffff\tsandbox=boxed\n"
                          "delta\ts\tok\tPASS\t5\t5\t\t\tstudent\n");
    put(dir, "epsilon.tsv", HEAD("epsilon") "epsilon\ts\tone\tPASS\t1\t1\t\t\tstudent\n");
    put(dir, "zeta.tsv", HEAD("zeta") "zeta\ts\tone\tPASS\t1\t1\t\t\tstudent\n"
                         "zeta\ts\tone\tPASS\t1\t1\t\t\tstudent\n");
    put(dir, "eta.tsv", HEAD("eta") "eta\ts\tone\tFAIL\t1\t1\t\t\tstudent\n");
    snprintf(file, sizeof file, "%s.manifest", dir);                 /* outside the results */
    FILE *mf = fopen(file, "w");
    CU_ASSERT_FATAL(mf != NULL);
    fputs("# runner\tsuite\ttest\tpoints\tkind\n"
          "alpha\ts\tok\t2\tstudent\nalpha\ts\tbad\t3\tstudent\n"
          "beta\tconformance\tone\t2\tstudent\nbeta\tconformance\ttwo\t3\tstudent\nbeta\tcli\tthree\t1\tkit\n"
          "gamma\tcli\thelp\t1\tkit\ngamma\tgpu\tkernel\t4\tstudent\n"
          "delta\ts\tok\t5\tstudent\nepsilon\ts\tone\t1\tstudent\nepsilon\ts\ttwo\t1\tstudent\n"
          "zeta\ts\tone\t1\tstudent\nzeta\ts\ttwo\t1\tstudent\neta\ts\tone\t1\tstudent\n", mf);
    fclose(mf);
    int rc = grade_table(dir, file);
    EXPECT_RC(rc, 1);                            /* tests failed */
    /* the notices come before the table, each with its reason and the score 0 */
    const char *notice = strstr(out, "check-all: beta: runner could not be built: see tests/results/beta.build.log: "
                                     "beta scored 0/5 points");
    const char *table = strstr(out, "== grade ==");
    if (!notice || !table || notice > table) printf("       notice at %p, table at %p:\n%s\n", (void *)notice, (void *)table, out);
    CU_ASSERT(notice && table && notice < table);
    EXPECT_HAS(out, "check-all: delta: results rejected: not from this run (its secret differs): delta scored 0/5");
    EXPECT_HAS(out, "check-all: epsilon: results rejected: a test missing: s/two: epsilon scored 0/2");
    EXPECT_HAS(out, "check-all: zeta: results rejected: a test twice: s/one: zeta scored 0/2");
    EXPECT_HAS(out, "check-all: eta: results rejected: points for a FAIL: s/one: eta scored 0/1");
    EXPECT_LACKS(out, "check-all: alpha:");
    EXPECT_LACKS(out, "check-all: gamma:");
    /* beta: its student tests failed (5 points), its kit check could not run */
    const char *beta = row_of(table ? table : out, "beta");
    int p = -1, f = -1, sk = -1, e = -1, pos = -1, ke = -1, kpos = -1;
    if (beta) sscanf(beta, "beta %d %d %d %d/%d %d/%d", &p, &f, &sk, &e, &pos, &ke, &kpos);
    if (p != 0 || f != 2 || sk != 1 || e != 0 || pos != 5 || ke != 0 || kpos != 1)
        printf("       beta row: passed %d failed %d skipped %d points %d/%d kit %d/%d (expected 0 2 1 0/5 0/1)\n",
               p, f, sk, e, pos, ke, kpos);
    CU_ASSERT(p == 0 && f == 2 && sk == 1 && e == 0 && pos == 5 && ke == 0 && kpos == 1);
    /* gamma: its kit check apart, its GPU points not graded (they earn nothing) */
    const char *gamma = row_of(table ? table : out, "gamma");
    EXPECT_HAS(gamma ? gamma : "", " 0/4 ");
    EXPECT_HAS(gamma ? gamma : "", " 1/1 ");
    EXPECT_HAS(gamma ? gamma : "", "NOT GRADED: 4 points (no usable CUDA device: fake)\n");
    const char *total = row_of(table ? table : out, "total");
    EXPECT_HAS(total ? total : "", " 2/24 ");
    EXPECT_HAS(total ? total : "", "(NOT GRADED: 4 points of 1 runner: no usable GPU)\n");
    EXPECT_HAS(out, "student score: 2/24 points (4 NOT GRADED); the kit's own checks: 1/2 (not part of the score)\n");
    /* the closing line is the last line and counts every runner's tests */
    expect_closing(out, "check-all: 2 passed, 9 failed, 2 skipped\n");
    /* the files: beta's synthesized results, summary.json, gradescope.json */
    snprintf(file, sizeof file, "%s/beta.tsv", dir);
    static char text[1 << 15];
    nb_t_slurp(file, text, sizeof text);
    EXPECT_HAS(text, "beta\tconformance\ttwo\tFAIL\t0\t3\trunner could not be built");
    EXPECT_HAS(text, "beta\tcli\tthree\tSKIP\t0\t1\tSKIPPED (not run: runner could not be built");
    snprintf(file, sizeof file, "%s/summary.json", dir);
    nb_t_slurp(file, text, sizeof text);
    EXPECT_HAS(text, "{\"score\": 2, \"max_score\": 24, \"not_graded_points\": 4,");
    EXPECT_HAS(text, "\"kit\": {\"score\": 1, \"max_score\": 2, \"failed\": 0}");
    EXPECT_HAS(text, "\"runner\": \"beta\"");
    EXPECT_HAS(text, "\"runner_error\": \"results rejected: not from this run (its secret differs)\"");
    snprintf(file, sizeof file, "%s/gradescope.json", dir);
    nb_t_slurp(file, text, sizeof text);
    EXPECT_HAS(text, "\"name\": \"beta/conformance/two\"");
    EXPECT_HAS(text, "\"status\": \"failed\"");
    EXPECT_HAS(text, "not graded: no usable CUDA device: fake");
    EXPECT_HAS(text, "\"score\": 2,");           /* alpha 2; gamma's cli is the kit's */
    EXPECT_HAS(text, "2 of 24 points");
    EXPECT_HAS(text, "\"name\": \"kit: gamma/cli/help\", \"score\": 0, \"max_score\": 0");
    /* both JSON files parse (python3 is one of the kit's packages: without
     * it this fails, exit 127, rather than pass unchecked) */
    snprintf(cmd, sizeof cmd,
             "python3 -m json.tool '%s/summary.json' >/dev/null && python3 -m json.tool '%s/gradescope.json' >/dev/null",
             dir, dir);
    char *sh[] = { "/bin/sh", "-c", cmd, NULL };
    rc = nb_t_run_kit(sh, out, sizeof out, err, sizeof err, 60);
    if (rc) printf("       python3 -m json.tool: exit %d: %s\n", rc, err);
    CU_ASSERT_EQUAL(rc, 0);
    grade_dir_remove(dir);
}

/* The kit's own checks fail where the kit is at fault: "kits", a runner of
 * the kit's checks only (as common), left no results (nothing of a
 * student's ran in it); "stale"'s tests are not the manifest's (the
 * manifest is the kit's: a test added without `make -C tests manifest`),
 * though it also has a student test.  Their kit checks FAIL, and the grade
 * exits 1, where a runner a student's code may have stopped (t_grade_table:
 * beta) has them SKIPPED. */
static void t_grade_table_kit_fault(void)
{
    char dir[400], file[600];
    grade_dir(dir, sizeof dir, "kit");
    CU_ASSERT_FATAL(put(dir, ".expected", "kits\nstale\n") == 0);
    put(dir, "kits.fail", "runner crashed: SIGSEGV\n");
    put(dir, "stale.tsv", HEAD("stale") "stale\ts\tone\tPASS\t1\t1\t\t\tstudent\n"
                          "stale\tdocs\tnew_test\tPASS\t1\t1\t\t\tkit\n");
    put(dir, "stale.json", "{\"runner\": \"stale\", \"graded\": true, \"tests\": []}\n");
    snprintf(file, sizeof file, "%s.manifest", dir);
    FILE *mf = fopen(file, "w");
    CU_ASSERT_FATAL(mf != NULL);
    fputs("# runner\tsuite\ttest\tpoints\tkind\n"
          "kits\tdocs\ta\t2\tkit\nkits\tdocs\tb\t1\tkit\n"
          "stale\ts\tone\t1\tstudent\nstale\tdocs\told_test\t1\tkit\n", mf);
    fclose(mf);
    EXPECT_RC(grade_table(dir, file), 1);
    EXPECT_HAS(out, "the kit's own checks: 0/4");
    expect_closing(out, "check-all: 0 passed, 4 failed, 0 skipped\n");
    static char text[1 << 14];
    snprintf(file, sizeof file, "%s/kits.tsv", dir);
    nb_t_slurp(file, text, sizeof text);
    EXPECT_HAS(text, "kits\tdocs\ta\tFAIL\t0\t2\trunner crashed: SIGSEGV");
    snprintf(file, sizeof file, "%s/stale.tsv", dir);
    nb_t_slurp(file, text, sizeof text);
    EXPECT_HAS(text, "stale\tdocs\told_test\tFAIL\t0\t1\tresults rejected: the tests differ from the manifest");
    snprintf(file, sizeof file, "%s/summary.json", dir);
    nb_t_slurp(file, text, sizeof text);
    EXPECT_HAS(text, "\"kit\": {\"score\": 0, \"max_score\": 4, \"failed\": 3}");
    grade_dir_remove(dir);
}

/* tests/grade_report_test.py: the reports that grade_table.sh writes
 * (summary.json, gradescope.json) and grades.csv (grade_class.sh) hold
 * hostile test texts -- quotes, control characters, ESC sequences, bytes
 * that are not UTF-8, 1 MB -- and read back as they were meant (JSON and
 * CSV parsers); the console has no control character.  The checks are the
 * script's own; its lines are printed when one fails. */
static void t_grade_reports_hostile_text(void)
{
    char *argv[] = { "/bin/sh", "-c", "exec python3 -I '" NB_TOP_DIR "/tests/grade_report_test.py'", NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 120);
    if (rc) printf("       tests/grade_report_test.py:\n%.6000s\n%.2000s\n", out, err);
    EXPECT_RC(rc, 0);
}

/* A hostile program in the sandbox (nb_sandbox.h), as a student's code
 * would be: it tries to write into the tree and into tests/results, to read
 * the results, to kill the grader (whose pid it is given), to find the
 * grader's processes and descriptors in /proc, to use descriptors it was
 * not given, and leaves a setsid() child that would write a file a second
 * later.  None of it may work: the program sees a read-only tree, an empty
 * results directory, a /proc of its own box (pid 2, its init pid 1), the
 * grader alive, and its child dies with it. */
static void t_sandbox(void)
{
    char script[2000], marker[600], tree_file[600];
    const char *tmp = getenv("TMPDIR");
    snprintf(marker, sizeof marker, "%s/late_marker", tmp && *tmp ? tmp : "/tmp");
    snprintf(tree_file, sizeof tree_file, "%s/tests/results/forged.tsv", NB_TOP_DIR);
    snprintf(script, sizeof script,
             "echo pid $$; "
             "touch '%s/tests/forged' 2>/dev/null && echo WROTE-TREE; "
             "mkdir -p '%s/tests/results' 2>/dev/null; echo forged > '%s' 2>/dev/null && echo WROTE-RESULTS; "
             "ls -A '%s/tests/results' | grep -q . && echo SEES-RESULTS; "
             "kill -9 %d 2>/dev/null && echo KILLED-GRADER; kill -9 -1 2>/dev/null; "
             "ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' '; echo; "
             "for fd in 5 6 7 8 9 10; do (true >&$fd) 2>/dev/null && echo FD-$fd-OPEN; done; "
             "(setsid sh -c 'sleep 1; echo late > %s' &) ; "
             "echo uid $(id -u); exit 0",
             NB_TOP_DIR, NB_TOP_DIR, tree_file, NB_TOP_DIR, (int)getpid(), marker);
    char *argv[] = { "/bin/sh", "-c", script, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    printf("       sandbox: %s\n       the program said:\n", nb_sandbox_mode());
    nb_t_show(out);
    EXPECT_RC(rc, 0);
    if (nb_sandbox_degraded()) {
        printf("       (the sandbox is degraded here: only the grader's own defences are checked)\n");
        return;
    }
    EXPECT_HAS(out, "pid 2\n");                  /* its own PID namespace */
    EXPECT_LACKS(out, "WROTE-TREE");
    EXPECT_LACKS(out, "WROTE-RESULTS");
    EXPECT_LACKS(out, "SEES-RESULTS");
    EXPECT_LACKS(out, "KILLED-GRADER");
    EXPECT_LACKS(out, "FD-");
    if (geteuid() == 0) EXPECT_LACKS(out, "uid 0\n");
    CU_ASSERT(access(tree_file, F_OK) != 0);
    struct timespec ts = { 1, 500000000 };
    nanosleep(&ts, NULL);
    CU_ASSERT(access(marker, F_OK) != 0);        /* the setsid() child died with the box */
    if (access(marker, F_OK) == 0) printf("       the program's setsid() child outlived it\n");
}

/* ---- symbolic links planted in the scratch directory ---- */

/* A file of the grader's that no box can reach: dir (0700, made here in
 * /tmp, the grader's own) and dir/name (0600) holding text.  0 or -1. */
static int private_file(char *dir, size_t dlen, char *file, size_t flen, const char *text)
{
    snprintf(dir, dlen, "/tmp/nbprivate.XXXXXX");
    if (!mkdtemp(dir)) return -1;
    snprintf(file, flen, "%s/file", dir);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    return close(fd) == 0 && n == (ssize_t)strlen(text) ? 0 : -1;
}

static void remove_private(const char *dir, const char *file)
{
    unlink(file);
    rmdir(dir);
}

/* The file's text (up to len - 1 bytes), never through a link: "" if it
 * is not a regular file. */
static void read_private(const char *file, char *buf, size_t len)
{
    buf[0] = '\0';
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, buf, len - 1) : 0;
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
}

/* A script in the scratch directory, run as a step's worker or program. */
static int put_script(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    return close(fd) == 0 && n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A boxed program and a boxed worker plant symbolic links to a file of the
 * grader's wherever the grader used to open the next program's or
 * worker's output by name: "worker.PID.N.out" (nb_remote), "nbtest_PID_2.out"
 * and "nbtest_PID_3.err" (nb_t_run) in the scratch directory, the test's
 * pid being one the program can learn or guess.  The grader, root in CI,
 * truncated the target and wrote the next worker's output into it (a
 * worker rewrote scripts/grade/grade_table.sh and /bin/rm that way), and read
 * the target back as the program's output.  Now the outputs have no name:
 * the target stays as it was, and each capture holds what its process
 * printed. */
static void t_planted_output_links(void)
{
    char dir[64], victim[96], text[256], script[2000], path[600];
    CU_ASSERT_FATAL(private_file(dir, sizeof dir, victim, sizeof victim, "precious\n") == 0);
    const char *tmp = getenv("TMPDIR");
    snprintf(script, sizeof script,
             "#!/bin/sh\n"
             "for n in 0 1 2 3 4 5 6 7; do ln -sf '%s' \"$TMPDIR/worker.%d.$n.out\"; done\n"
             "for s in 0 1 2 3; do ln -sf '%s' \"$TMPDIR/nbtest_%d_$s.out\"; ln -sf '%s' \"$TMPDIR/nbtest_%d_$s.err\"; done\n"
             "for fd in 1 2; do f=$(readlink /proc/self/fd/$fd); [ -f \"$f\" ] && ln -sf '%s' \"$f\"; done\n"
             "echo planted; echo planted-err >&2\n",
             victim, (int)getpid(), victim, (int)getpid(), victim, (int)getpid(), victim);
    snprintf(path, sizeof path, "%s/planter", tmp && *tmp ? tmp : "/tmp");
    CU_ASSERT_FATAL(put_script(path, script) == 0);
    /* a program plants, the next program runs */
    char *planter[] = { path, NULL };
    int rc = nb_t_run(planter, out, sizeof out, err, sizeof err, 30);
    EXPECT_RC(rc, 0);
    NB_ASSERT(!strcmp(out, "planted\n") && !strcmp(err, "planted-err\n"),
              "the planter's own output: stdout '%.40s', stderr '%.40s' (expected 'planted', 'planted-err')",
              out, err);
    char *second[] = { "/bin/sh", "-c", "echo second; echo second-err >&2", NULL };
    rc = nb_t_run(second, out, sizeof out, err, sizeof err, 30);
    EXPECT_RC(rc, 0);
    NB_ASSERT(!strcmp(out, "second\n") && !strcmp(err, "second-err\n"),
              "the next program's output: stdout '%.40s', stderr '%.40s' (expected 'second', 'second-err')",
              out, err);
    /* a worker plants, the next worker starts */
    static const nb_remote_spec spec = { "fake", "fake worker", 0, 0, NULL };
    const nb_step *planting = nb_remote(path, &spec);
    char next[600];
    snprintf(next, sizeof next, "%s/next_worker", tmp && *tmp ? tmp : "/tmp");
    CU_ASSERT_FATAL(put_script(next, "#!/bin/sh\necho next-worker-said\n") == 0);
    const nb_step *speaking = nb_remote(next, &spec);
    nb_state s;
    CU_ASSERT_FATAL(nb_state_alloc(&s, 1) == 0);
    s.m[0] = 1; s.x[0] = s.y[0] = s.z[0] = s.vx[0] = s.vy[0] = s.vz[0] = 0;
    nb_options o;
    nb_options_default(&o);
    char why[800];
    for (int k = 0; k < 2; k++) {
        const nb_step *w = k ? speaking : planting;
        void *ctx = NULL;
        rc = w->init(&ctx, &s, &o);                 /* no protocol: the hello fails */
        snprintf(why, sizeof why, "%s", nb_errmsg());
        CU_ASSERT(rc != 0);
        if (ctx) nb_remote_finish(ctx, NULL, 0);
    }
    NB_ASSERT(strstr(why, "next-worker-said") != NULL, "the next worker's output: '%.200s' (expected its "
              "line 'next-worker-said')", why);
    nb_state_free(&s);
    read_private(victim, text, sizeof text);
    NB_ASSERT(!strcmp(text, "precious\n"), "the grader's file behind the planted links: '%.60s' (expected "
              "'precious', untouched)", text);
    remove_private(dir, victim);
}

/* A program replaces its stdout and stderr files by links to a file only
 * the grader may read (root's 0600 file in CI): the grader read it through
 * them and showed it in the transcript.  Now the captures are the
 * program's own output, never the file's. */
static void t_swapped_capture_links(void)
{
    char dir[64], secret[96], script[1200];
    char text[64];
    snprintf(text, sizeof text, "top-secret-%d\n", (int)getpid());
    CU_ASSERT_FATAL(private_file(dir, sizeof dir, secret, sizeof secret, text) == 0);
    snprintf(script, sizeof script,
             "echo own-out; echo own-err >&2; "
             "for fd in 1 2; do f=$(readlink /proc/self/fd/$fd); [ -f \"$f\" ] && ln -sf '%s' \"$f\"; done; "
             "cat '%s' 2>/dev/null | grep -q top-secret && echo READ-IT-ITSELF; exit 0",
             secret, secret);
    char *argv[] = { "/bin/sh", "-c", script, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    EXPECT_RC(rc, 0);
    EXPECT_LACKS(out, "top-secret");
    EXPECT_LACKS(err, "top-secret");
    EXPECT_HAS(out, "own-out\n");
    EXPECT_HAS(err, "own-err\n");
    if (geteuid() == 0 && !nb_sandbox_degraded()) EXPECT_LACKS(out, "READ-IT-ITSELF");
    remove_private(dir, secret);
}

/* The box's environment carries nothing of the grader's own: not the
 * directories it hides (NB_SANDBOX_HIDE: where the answers and the class's
 * submissions are), not NB_GRADE_*; the rest of the environment is passed
 * on (NB_HARNESS_PASSED). */
static void t_box_environment(void)
{
    setenv("NB_SANDBOX_HIDE", "/nonexistent-nb-answers:/nonexistent-nb-submissions", 1);
    setenv("NB_GRADE_REQUIRE_GPU", "0", 1);
    setenv("NB_HARNESS_PASSED", "yes", 1);
    char *argv[] = { "/bin/sh", "-c", "env", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    unsetenv("NB_SANDBOX_HIDE");
    unsetenv("NB_GRADE_REQUIRE_GPU");
    unsetenv("NB_HARNESS_PASSED");
    EXPECT_RC(rc, 0);
    EXPECT_HAS(out, "NB_HARNESS_PASSED=yes\n");
    EXPECT_LACKS(out, "NB_SANDBOX_HIDE");
    EXPECT_LACKS(out, "nonexistent-nb-answers");
    EXPECT_LACKS(out, "NB_GRADE_");
}

/* A program's grade line and terminal sequences reach the transcript as
 * data: behind "       | " where the test shows them, escaped and
 * indented where a test printed them raw, escaped in the failure message
 * of the grade line; the transcript holds no ESC and no CR, and no line of
 * it starts as a grade line the program printed. */
static void t_transcript_is_data(void)
{
    /* nb_t_show() itself, its output caught in a file: ESC, CR, a C1 CSI,
     * a right-to-left override and a byte that is no UTF-8 escaped, "é"
     * kept, every line behind the bar, the rest of a long text counted */
    static char shown[8192], text[10000];
    snprintf(text, sizeof text, "ok: score 57/57\n\033[8mx\r\xc2\x9b" "2K\xe2\x80\xae" "ab \xff \xc3\xa9\n");
    size_t len = strlen(text);
    memset(text + len, 'y', sizeof text - 1 - len);
    text[sizeof text - 1] = '\0';
    fflush(stdout);
    int keep = dup(1), cap = memfd_create("shown", MFD_CLOEXEC);
    CU_ASSERT_FATAL(keep >= 0 && cap >= 0 && dup2(cap, 1) == 1);
    nb_t_show(text);
    fflush(stdout);
    dup2(keep, 1);
    close(keep);
    ssize_t n = pread(cap, shown, sizeof shown - 1, 0);
    shown[n > 0 ? n : 0] = '\0';
    close(cap);
    EXPECT_HAS(shown, "       | ok: score 57/57\n       | \\x1b[8mx\\x0d\\xc2\\x9b2K\\xe2\\x80\\xae" "ab \\xff \xc3\xa9\n"
                      "       | yyy");
    char more[80];
    snprintf(more, sizeof more, "\n       | ... (%zu more bytes not shown)\n", sizeof text - 1 - NB_T_SHOW_MAX);
    EXPECT_HAS(shown, more);
    EXPECT_LACKS(shown, "\033");
    EXPECT_LACKS(shown, "\r");
    EXPECT_LACKS(shown, "\xc2\x9b");
    EXPECT_LACKS(shown, "\xe2\x80\xae");
    /* the whole transcript of a runner whose test runs such a program */
    char dir[64], victim[96];
    CU_ASSERT_FATAL(private_file(dir, sizeof dir, victim, sizeof victim, "precious\n") == 0);
    setenv("NB_SELFTEST_VICTIM", dir, 1);
    char *argv[] = { (char *)nb_harness_self, "--selftest-hostile", NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 120);
    unsetenv("NB_SELFTEST_VICTIM");
    EXPECT_RC(rc, 1);                            /* prints_a_grade fails */
    EXPECT_HAS(out, "       | step01_cpu: score 57/57 points\n       |   PASS  57/57  conformance/all\n"
                    "       | \\x1b[8mhidden\\x1b[0m\\x0d\n");
    EXPECT_HAS(out, "\n       step01_cpu: score 57/57 points\n");           /* raw, indented */
    EXPECT_HAS(out, "  FAIL   0/1   fake_hostile/prints_a_grade: exit 3: err: score 57/57 points\\n\\x1b[2K");
    EXPECT_LACKS(out, "\033");
    EXPECT_LACKS(out, "\r");
    EXPECT_LACKS(out, "\nstep01_cpu: score");
    EXPECT_LACKS(out, "\n  PASS  57/57");
    EXPECT_LACKS(out, "\nerr: score");
    EXPECT_HAS(out, "  PASS   1/1   fake_hostile/leaves_a_mess\n");
    EXPECT_HAS(out, "selftest: 1 passed, 1 failed, 0 skipped");
    /* the runner removed its scratch directories, and nothing else */
    char was[64];
    read_private(victim, was, sizeof was);
    NB_ASSERT(!strcmp(was, "precious\n"), "the grader's file behind the links: '%.40s' (expected 'precious')",
              was);
    const char *tmp = getenv("TMPDIR");
    DIR *d = opendir(tmp && *tmp ? tmp : "/tmp");
    CU_ASSERT_FATAL(d != NULL);
    int left = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (!strncmp(e->d_name, "nbgrade.", 8)) { printf("       left behind: %s\n", e->d_name); left++; }
    closedir(d);
    CU_ASSERT_EQUAL(left, 0);
    remove_private(dir, victim);
}

/* What a program leaves in the scratch directory is read back by name only
 * through nb_testutil.h's readers: the links a box planted are gone when it
 * ends (nb_sandbox_unlink_links), and a link planted later (a worker still
 * running) is refused, at the end of the path or in it, as is a FIFO (no
 * hang); a regular file reads as it is. */
static void t_files_by_name(void)
{
    char dir[64], secret[96], cmd[1500], path[600];
    CU_ASSERT_FATAL(private_file(dir, sizeof dir, secret, sizeof secret, "1 2 3 4 5 6 7\n") == 0);
    const char *tmp = getenv("TMPDIR");
    CU_ASSERT_FATAL(tmp && *tmp);
    snprintf(cmd, sizeof cmd, "ln -s '%s' state.txt && ln -s '%s' sub && mkdir d && ln -s '%s' d/sub && "
             "printf '1 0 0 0 0 0 0\\n' > real.txt && mkfifo fifo", secret, dir, dir);
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    EXPECT_RC(rc, 0);
    static const char *const gone[] = { "state.txt", "sub", "d/sub" };
    struct stat st;
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", tmp, gone[k]);
        NB_ASSERT(lstat(path, &st) != 0, "the box's link %s is still there after it ended", gone[k]);
    }
    snprintf(path, sizeof path, "%s/fifo", tmp);
    NB_ASSERT(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "the box's FIFO is gone (only links go)");
    /* links planted while the grader reads */
    snprintf(path, sizeof path, "%s/later.txt", tmp);
    CU_ASSERT_FATAL(symlink(secret, path) == 0);
    char text[256] = "x";
    nb_t_slurp(path, text, sizeof text);
    NB_ASSERT(!text[0], "nb_t_slurp through a link: '%.40s'", text);
    nb_state s;
    rc = nb_t_state_read(path, &s);
    NB_ASSERT(rc != 0, "nb_t_state_read through a link: exit %d, %lld bodies", rc, rc ? 0LL : (long long)s.n);
    if (!rc) nb_state_free(&s);
    snprintf(path, sizeof path, "%s/later", tmp);
    CU_ASSERT_FATAL(symlink(dir, path) == 0);
    snprintf(path, sizeof path, "%s/later/file", tmp);
    text[0] = 'x';
    nb_t_slurp(path, text, sizeof text);
    NB_ASSERT(!text[0], "nb_t_slurp through a linked directory: '%.40s'", text);
    snprintf(path, sizeof path, "%s/fifo", tmp);
    errno = 0;
    FILE *f = nb_t_fopen_read(path);
    NB_ASSERT(!f && errno == EINVAL, "nb_t_fopen_read of a FIFO: %s (expected EINVAL)", f ? "opened" : strerror(errno));
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/real.txt", tmp);
    rc = nb_t_state_read(path, &s);
    NB_ASSERT(rc == 0 && s.n == 1 && s.m[0] == 1.0f, "nb_t_state_read of a regular file: exit %d: %s", rc,
              rc ? nb_errmsg() : "");
    if (!rc) nb_state_free(&s);
    remove_private(dir, secret);
}

/* tests/manifest.tsv lists every test of every runner; compare it with
 * run_common --list and with the --list of the runners named in
 * NB_GRADE_RUNNERS (make check-all names those it has just built). */
static void t_manifest(void)
{
    static char manifest[1 << 16], want[1 << 16], listed[1 << 16];
    nb_t_slurp(NB_TOP_DIR "/tests/manifest.tsv", manifest, sizeof manifest);
    if (!manifest[0]) printf("       no tests/manifest.tsv: make -C tests manifest\n");
    CU_ASSERT_FATAL(manifest[0] != '\0');
    char self[512], names[1024];
    snprintf(self, sizeof self, "%s", nb_harness_self);
    const char *dir = dirname(self);
    const char *env = getenv("NB_GRADE_RUNNERS");
    snprintf(names, sizeof names, "common %s", env ? env : "");
    int stale = 0;
    for (char *save = NULL, *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        if (!strcmp(name, "common") && name != names) continue;     /* listed twice */
        char bin[700];
        snprintf(bin, sizeof bin, "%s/run_%s", dir, name);
        char *argv[] = { bin, "--list", NULL };
        int rc = nb_t_run_kit(argv, listed, sizeof listed, err, sizeof err, 120);
        if (rc) printf("       %s --list: exit %d (expected 0): %s\n", bin, rc, err);
        CU_ASSERT_EQUAL(rc, 0);
        if (rc) continue;
        /* the manifest's rows of this runner, without the runner column */
        size_t len = strlen(name), w = 0;
        want[0] = '\0';
        for (const char *p = manifest; *p;) {
            const char *nl = strchr(p, '\n');
            size_t l = nl ? (size_t)(nl - p + 1) : strlen(p);
            if (!strncmp(p, name, len) && p[len] == '\t' && w + l < sizeof want) {
                memcpy(want + w, p + len + 1, l - len - 1);
                w += l - len - 1;
                want[w] = '\0';
            }
            p += l;
        }
        if (strcmp(want, listed)) {
            const char *a = want, *b = listed;
            while (*a && *a == *b) a++, b++;
            while (a > want && a[-1] != '\n') a--, b--;
            printf("       tests/manifest.tsv is out of date for run_%s:\n"
                   "         manifest: %.*s\n         --list:   %.*s\n",
                   name, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
            stale = 1;
        }
    }
    if (stale) printf("       regenerate it with: make -C tests manifest  (and commit tests/manifest.tsv)\n");
    CU_ASSERT(!stale);
}

/* scripts/grade/student_lint.sh, through which common/step.mk compiles every
 * object of a step, on each fixture of tests/lint/ (*.c, *.cu).  A
 * fixture's first line says what must happen:
 *   lint: clean                 exit 0, nothing printed, the object made
 *   lint: [--san: ][FILE:]LINE: TEXT
 *                               exit 1, a line "tests/lint/FILE:LINE: ..."
 *                               holding TEXT and ": refused (", no object
 * (FILE: the header where the finding is, by default the fixture; --san:
 * linted as a sanitized object, scripts/grade/student_lint.sh --san).  The
 * fixtures hold every form the lint refuses (no_sanitize plain, pasted, in
 * a system macro, in a "system" header; the optimize attribute and
 * pragmas, _Pragma; an #include of a source or of a non-header; assembly,
 * .incbin; a line marker; the grade's reference called, aliased, its
 * verdict defined; dlsym; the sanitizers' options; code that differs under
 * the sanitizers; the system library beyond memory, strings, math, OpenMP
 * and printing: the environment, the program's name, the clock, exit
 * handlers; a weak reference to a kit function) and clean code, C and
 * CUDA; and the list of the kit's files
 * that may read the environment is the tree's. */
static void t_student_lint(void)
{
    const char *dirpath = NB_TOP_DIR "/tests/lint";
    DIR *dir = opendir(dirpath);
    if (!dir) printf("       cannot open %s\n", dirpath);
    CU_ASSERT_FATAL(dir != NULL);
    int nfix = 0, nclean = 0, ncu = 0;
    char obj[400];
    const char *tmp = getenv("TMPDIR");
    snprintf(obj, sizeof obj, "%s/nblint_%d.o", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    for (struct dirent *e; (e = readdir(dir));) {
        size_t len = strlen(e->d_name);
        int cu = len > 3 && !strcmp(e->d_name + len - 3, ".cu");
        if (!cu && !(len > 2 && !strcmp(e->d_name + len - 2, ".c"))) continue;
        char src[600], first[400], line[1024];
        snprintf(src, sizeof src, "%s/%s", dirpath, e->d_name);
        FILE *f = fopen(src, "r");
        if (!f || !fgets(first, sizeof first, f)) {
            printf("       %s: cannot read its first line\n", src);
            CU_FAIL("a fixture without its first line");
            if (f) fclose(f);
            continue;
        }
        fclose(f);
        /* what the first line expects */
        const char *x = strstr(first, "lint: ");
        if (!x) {
            printf("       %s: the first line says no \"lint: ...\"\n", src);
            CU_FAIL("a fixture without its expectation");
            continue;
        }
        x += 6;
        int clean = !strncmp(x, "clean", 5), san = 0;
        char where[300] = "", text[300] = "";
        if (!clean) {
            if (!strncmp(x, "--san: ", 7)) san = 1, x += 7;
            const char *colon = strchr(x, ':');
            char file[200];
            snprintf(file, sizeof file, "%s", e->d_name);
            if (colon && (*x < '0' || *x > '9')) {             /* FILE:LINE: */
                snprintf(file, sizeof file, "%.*s", (int)(colon - x), x);
                x = colon + 1;
            }
            int at = atoi(x);
            const char *t = strstr(x, ": ");
            snprintf(text, sizeof text, "%s", t ? t + 2 : "");
            char *end = strstr(text, " */");
            if (end) *end = '\0';
            snprintf(where, sizeof where, "tests/lint/%s:%d: ", file, at);
            if (at <= 0 || !text[0]) {
                printf("       %s: cannot read its expectation \"%s\"\n", src, first);
                CU_FAIL("a fixture's expectation unreadable");
                continue;
            }
        }
        /* the lint, with the build's compiler */
        char *argv[32], ccbuf[200];
        int k = 0;
        argv[k++] = "/bin/bash";
        argv[k++] = NB_TOP_DIR "/scripts/grade/student_lint.sh";
        if (san) argv[k++] = "--san", argv[k++] = NB_LINT_SAN;
        argv[k++] = obj;
        argv[k++] = src;
        argv[k++] = "--";
        if (cu) {
            if (access(NB_LINT_NVCC, X_OK) != 0) {
                printf("       %s: no %s here: not run\n", e->d_name, NB_LINT_NVCC);
                continue;
            }
            argv[k++] = NB_LINT_NVCC;
            argv[k++] = "-std=c++17";
            argv[k++] = NB_LINT_GENCODE;
            argv[k++] = "-Xcompiler";
            argv[k++] = "-Wall,-Wextra";
        } else {
            snprintf(ccbuf, sizeof ccbuf, "%s", NB_LINT_CC);   /* "ccache gcc": two words */
            for (char *save = NULL, *w = strtok_r(ccbuf, " ", &save); w && k < 20; w = strtok_r(NULL, " ", &save))
                argv[k++] = w;
            argv[k++] = "-std=c11";
            argv[k++] = "-D_POSIX_C_SOURCE=200809L";
            argv[k++] = "-fopenmp";
            argv[k++] = "-Wall";
            argv[k++] = "-Wextra";
        }
        argv[k++] = "-I" NB_TOP_DIR "/common";
        argv[k] = NULL;
        unlink(obj);
        int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 300);
        int made = access(obj, F_OK) == 0;
        unlink(obj);
        nfix++;
        ncu += cu;
        if (clean) {
            nclean++;
            int ok = rc == 0 && !err[0] && !out[0] && made;
            if (!ok) printf("       %s: expected clean (exit 0, silent, an object): exit %d, %s\n%s%s", e->d_name,
                            rc, made ? "an object" : "no object", out, err);
            CU_ASSERT(ok);
            continue;
        }
        /* the line that names the place, the finding and the refusal */
        int found = 0;
        for (const char *p = err; p && *p && !found; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
            snprintf(line, sizeof line, "%.*s", (int)strcspn(p, "\n"), p);
            found = !strncmp(line, where, strlen(where)) && strstr(line, text) && strstr(line, ": refused (");
        }
        int ok = rc == 1 && found && !made;
        if (!ok) printf("       %s: expected exit 1, \"%s...%s...: refused (\" and no object: exit %d, %s:\n%s%s",
                        e->d_name, where, text, rc, made ? "an object left" : "no object", out, err);
        CU_ASSERT(ok);
    }
    closedir(dir);
    printf("       %d fixtures (%d clean, %d CUDA)\n", nfix, nclean, ncu);
    CU_ASSERT(nfix >= 20 && nclean >= 1);
    /* the kit's files that may read the environment, as the kit wrote them:
     * the lint's list is the tree's (make lint-kit-files) */
    char *argv[] = { "/bin/bash", NB_TOP_DIR "/scripts/grade/lint_kit_files.sh", "--check", NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    NB_ASSERT(rc == 0, "scripts/grade/lint_kit_files.sha256 is not the tree's (make lint-kit-files): %.300s%.300s",
              out, err);
}

static const nb_test harness_tests[] = {
    { "gpu_suite_without_device_is_not_graded", t_skip_is_not_graded, 2 },
    { "failing_test_fails_the_run", t_failure_fails, 2 },
    { "crash_exit_hang_fail_only_their_test", t_crash_exit_hang, 2 },
    { "gate_fails_its_suites_optional_apart", t_gate_and_optional, 2 },
    { "quiet_by_default", t_quiet_by_default, 2 },
    { "grade_table_rejects_missing_foreign_and_partial_results", t_grade_table, 2 },
    { "grade_table_fails_the_kit_checks_where_the_kit_is_at_fault", t_grade_table_kit_fault, 1 },
    { "grade_reports_survive_hostile_text", t_grade_reports_hostile_text, 2 },
    { "sandbox_contains_a_hostile_program", t_sandbox, 2 },
    { "planted_links_redirect_no_output", t_planted_output_links, 2 },
    { "swapped_capture_links_read_no_secret", t_swapped_capture_links, 2 },
    { "box_environment_has_no_grader_variables", t_box_environment, 1 },
    { "files_by_name_never_through_a_link", t_files_by_name, 2 },
    { "transcript_shows_program_text_as_data", t_transcript_is_data, 2 },
    { "manifest_matches_runners_list", t_manifest, 1 },
    { "student_lint_refuses_each_form", t_student_lint, 2 },
    NB_TEST_END
};

void nb_suite_harness_register(void) { nb_grade_suite("harness", harness_tests, NULL); }
