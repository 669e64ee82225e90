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
 * and it runs scripts/grade_table.sh on a synthetic results directory
 * (results that are missing, from another run or not whole count 0, with
 * the reason), boxes a hostile program in the sandbox, compares
 * tests/manifest.tsv with the runners' --list, and runs the check that
 * every object of a step is built through (scripts/student_lint.sh) on
 * the fixtures of tests/lint/. */
#include <dirent.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "nb_grade.h"
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

static void t_crash_exit_hang(void)
{
    char *argv[] = { (char *)nb_harness_self, "--selftest-crash", NULL };
    setenv("NB_TEST_TIMEOUT", "2", 1);
    /* under AddressSanitizer (make SANITIZE=1) the fake segfault must stay a
     * signal: ASan would report it and exit 1 instead */
    char asan[512], *old_asan = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "%s%shandle_segv=0", old_asan ? old_asan : "", old_asan && *old_asan ? ":" : "");
    char saved[512];
    snprintf(saved, sizeof saved, "%s", old_asan ? old_asan : "");
    setenv("ASAN_OPTIONS", asan, 1);
    /* the hang costs its own limit (2 s), not the runner's: the selftest is
     * killed past 60 s (exit 137, failing EXPECT_RC below), 27 times what it
     * takes, idle or loaded (2.1 s, the 2 s limit most of it) -- a hang
     * detector, no bound on its speed */
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_TEST_TIMEOUT");
    if (old_asan) setenv("ASAN_OPTIONS", saved, 1); else unsetenv("ASAN_OPTIONS");
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
static void t_grade_table(void)
{
    const char *tmp = getenv("TMPDIR");
    char dir[400], cmd[1600], file[600];
    snprintf(dir, sizeof dir, "%s/nbgrade_table_%d", tmp && *tmp ? tmp : "/tmp", (int)getpid());
    mkdir(dir, 0700);
    CU_ASSERT_FATAL(put(dir, ".expected", "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\neta\n") == 0);
#define HEAD(r) "#nb-grade\t" r "\tnonce=" NONCE "\tsandbox=boxed\n"
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
    setenv("NB_GRADE_NONCE", NONCE, 1);
    char *argv[] = { "/bin/bash", NB_TOP_DIR "/scripts/grade_table.sh", dir, file, NULL };
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_GRADE_NONCE");
    EXPECT_RC(rc, 1);                            /* tests failed */
    if (err[0]) printf("       stderr: %s\n", err);
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
    const char *closing = "check-all: 2 passed, 9 failed, 2 skipped\n";
    size_t lo = strlen(out), lc = strlen(closing);
    int last = lo >= lc && !strcmp(out + lo - lc, closing);
    if (!last) printf("       expected the last line \"%.*s\"; the output:\n%s\n", (int)lc - 1, closing, out);
    CU_ASSERT(last);
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
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.manifest'", dir, dir);
    char *rm[] = { "/bin/sh", "-c", cmd, NULL };
    nb_t_run_kit(rm, NULL, 0, NULL, 0, 60);
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
    printf("       sandbox: %s\n       the program said: %s", nb_sandbox_mode(), out);
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

/* scripts/student_lint.sh, through which common/step.mk compiles every
 * object of a step, on each fixture of tests/lint/ (*.c, *.cu).  A
 * fixture's first line says what must happen:
 *   lint: clean                 exit 0, nothing printed, the object made
 *   lint: [--san: ][FILE:]LINE: TEXT
 *                               exit 1, a line "tests/lint/FILE:LINE: ..."
 *                               holding TEXT and ": refused (", no object
 * (FILE: the header where the finding is, by default the fixture; --san:
 * linted as a sanitized object, scripts/student_lint.sh --san).  The
 * fixtures hold every form the lint refuses (no_sanitize plain, pasted, in
 * a system macro, in a "system" header; the optimize attribute and
 * pragmas, _Pragma; an #include of a source or of a non-header; assembly,
 * .incbin; a line marker; the grade's reference called, aliased, its
 * verdict defined; dlsym; the sanitizers' options; code that differs under
 * the sanitizers) and clean code, C and CUDA. */
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
        argv[k++] = NB_TOP_DIR "/scripts/student_lint.sh";
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
}

static const nb_test harness_tests[] = {
    { "gpu_suite_without_device_is_not_graded", t_skip_is_not_graded, 2 },
    { "failing_test_fails_the_run", t_failure_fails, 2 },
    { "crash_exit_hang_fail_only_their_test", t_crash_exit_hang, 2 },
    { "grade_table_rejects_missing_foreign_and_partial_results", t_grade_table, 2 },
    { "sandbox_contains_a_hostile_program", t_sandbox, 2 },
    { "manifest_matches_runners_list", t_manifest, 1 },
    { "student_lint_refuses_each_form", t_student_lint, 2 },
    NB_TEST_END
};

void nb_suite_harness_register(void) { nb_grade_suite("harness", harness_tests, NULL); }
