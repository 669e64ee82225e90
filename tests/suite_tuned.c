/* suite_tuned.c -- the suite "tuned" of step04's tuned build
 * (step04_shared/tuned/tuned.cu): every code path of it, not only the one its
 * picker chooses for the N of the other suites.  The picker's choice is
 * overridden with NB_TUNE (each test runs in its own process, so setenv()
 * stays there).  Inactive (SKIPPED) without a usable device.
 *
 * The paths: the warp per target kernel with R = 1, 2, 4 bodies per warp;
 * the tile kernel with j-slices (their partial sums and ticket), with R = 2
 * and 4, and plain (one slice, separate kick, no graph); the each-pair-once
 * kernel (newton) with one warp per block, three (not a power of two),
 * two tiles set by hand (several register chunks per tile: the reactions
 * read-add-write), and a separate kick without a graph.  Each one:
 *  - accelerations within the all-pairs tolerance of the double direct sum
 *    at N = 1, 2, 33 (fewer bodies than a warp, a tile or a slice), 1000 and
 *    4097 (partial blocks, tiles and slices), unequal masses (a reaction
 *    weighted by the wrong body's mass cannot hide), output buffers
 *    poisoned;
 *  - bit-identical states after 5 steps of the same input, run twice (no
 *    float atomics, no order that depends on scheduling), and the same bits
 *    with the kick fused or separate and with or without the CUDA graph
 *    (they change where the arithmetic runs, not the arithmetic);
 *  - compute-sanitizer memcheck clean at N = 333; racecheck and synccheck
 *    too on the newton paths (warps hand shared memory to each other);
 *  - a malformed NB_TUNE: exit 2 with one line.
 * --precision double and mixed (tuned_kernels.cuh, compiled once per
 * precision): every path's accelerations as the step holds them (accel64)
 * within that precision's tolerance at N = 1, 33, 1000, 4097; the same bits
 * twice and fused or not; memcheck on a path of each kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_testutil.h"
#include "nb_verify.h"

static const nb_step *S;
static const char *BIN;

static const char *const TUNINGS[] = {
    "warp=1,r=1,block=64",
    "warp=1,r=2,block=128",
    "warp=1,r=4,block=256",
    "warp=0,r=2,slices=7,block=96",
    "warp=0,r=4,slices=3,block=128",
    "warp=0,r=1,slices=1,fuse=0,graph=0,block=256",
    "newton=1,r=1,block=32",
    "newton=1,r=2,block=96",
    "newton=1,r=2,block=64,tiles=2",
    "newton=1,r=4,block=256,fuse=0,graph=0",
};
#define NEWTON_FIRST 6                               /* TUNINGS[6..]: each pair once */
#define NTUNINGS (sizeof TUNINGS / sizeof *TUNINGS)

static void t_every_path_accel(void)
{
    const int64_t ns[] = { 1, 2, 33, 1000, 4097 };
    char label[96];
    for (size_t k = 0; k < NTUNINGS; k++) {
        setenv("NB_TUNE", TUNINGS[k], 1);
        snprintf(label, sizeof label, "NB_TUNE=%s: ", TUNINGS[k]);
        for (size_t q = 0; q < sizeof ns / sizeof *ns; q++)
            nb_t_check_accel(S, ns[q], 0, 1, "plummer", 500 + 10 * k + q, 1, label);
    }
    unsetenv("NB_TUNE");
}

/* --precision p: every path's accelerations (accel64, unrounded) within
 * p's tolerance; poisoned buffers, unequal masses */
static void wide_paths_accel(int p)
{
    const int64_t ns[] = { 1, 33, 1000, 4097 };
    for (size_t k = 0; k < NTUNINGS; k++) {
        setenv("NB_TUNE", TUNINGS[k], 1);
        for (size_t q = 0; q < sizeof ns / sizeof *ns; q++) {
            nb_state s;
            nb_options o;
            nb_options_default(&o);
            o.n = ns[q];
            o.poison = 1;
            o.precision = p;
            CU_ASSERT_FATAL(nb_ic_generate("plummer", ns[q], 700 + 10 * k + q, &s) == 0);
            nb_t_unequal_masses(&s, 701 + 10 * k + q);
            double *ax = NULL, *ay = NULL, *az = NULL;
            int rc = nb_t_step_accel64(S, &s, &o, &ax, &ay, &az);
            NB_ASSERT(rc == 0, "--precision %s NB_TUNE=%s N=%lld: exit code %d: %.120s", nb_precision_name(p),
                      TUNINGS[k], (long long)ns[q], rc, rc ? nb_errmsg() : "");
            if (!rc) {
                nb_state64 d;
                nb_errstats e;
                CU_ASSERT_FATAL(nb_state64_from(&d, &s) == 0);
                CU_ASSERT_FATAL(nb_accel_errors64(&d, o.eps, ax, ay, az, NB_REF_SAMPLES, &e) == 0);
                nb_state64_free(&d);
                nb_tolerance tol = nb_tolerance_for_precision(0, 0, ns[q], p);
                if (!nb_within_tolerance(&e, &tol) || ns[q] == 4097)
                    printf("       --precision %s NB_TUNE=%s N=%lld: median %.3g p99 %.3g max %.3g\n",
                           nb_precision_name(p), TUNINGS[k], (long long)ns[q], e.median, e.p99, e.max);
                NB_ASSERT(nb_within_tolerance(&e, &tol), "--precision %s NB_TUNE=%s N=%lld: median %.3g p99 %.3g "
                          "max %.3g, %lld non-finite; bounds max %.3g", nb_precision_name(p), TUNINGS[k],
                          (long long)ns[q], e.median, e.p99, e.max, (long long)e.nonfinite, tol.max);
            }
            free(ax); free(ay); free(az);
            nb_state_free(&s);
        }
    }
    unsetenv("NB_TUNE");
}

static void t_double_paths_accel(void) { wide_paths_accel(NB_PREC_DOUBLE); }
static void t_mixed_paths_accel(void) { wide_paths_accel(NB_PREC_MIXED); }

/* 5 steps of state s0 with NB_TUNE=tune in precision p, into s (a copy). */
static int run5p(const char *tune, int p, const nb_state *s0, nb_state *s)
{
    nb_options o;
    nb_options_default(&o);
    o.n = s0->n;
    o.precision = p;
    setenv("NB_TUNE", tune, 1);
    int rc = nb_state_copy(s, s0);
    if (!rc) rc = nb_t_step_run(S, s, &o, 5);
    unsetenv("NB_TUNE");
    return rc;
}

static int run5(const char *tune, const nb_state *s0, nb_state *s)
{
    return run5p(tune, NB_PREC_SINGLE, s0, s);
}

static int same_bits(const nb_state *a, const nb_state *b)
{
    size_t len = (size_t)a->n * sizeof(float);
    return a->n == b->n && !memcmp(a->x, b->x, len) && !memcmp(a->y, b->y, len) &&
           !memcmp(a->z, b->z, len) && !memcmp(a->vx, b->vx, len) && !memcmp(a->vy, b->vy, len) &&
           !memcmp(a->vz, b->vz, len);
}

static void t_every_path_same_bits(void)
{
    nb_state s0, a, b;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 1000, 601, &s0) == 0);
    nb_t_unequal_masses(&s0, 602);
    for (size_t k = 0; k < NTUNINGS; k++) {
        int rc = run5(TUNINGS[k], &s0, &a);
        if (!rc) rc = run5(TUNINGS[k], &s0, &b);
        NB_ASSERT(rc == 0, "NB_TUNE=%s: exit code %d: %.120s", TUNINGS[k], rc, rc ? nb_errmsg() : "");
        if (!rc)
            NB_ASSERT(same_bits(&a, &b), "NB_TUNE=%s: two runs of the same input differ after 5 steps",
                      TUNINGS[k]);
        nb_state_free(&a); nb_state_free(&b);
    }
    /* the same arithmetic, launched differently */
    static const char *const pairs[][2] = {
        { "warp=1,r=2,block=128,fuse=1,graph=1", "warp=1,r=2,block=128,fuse=0,graph=0" },
        { "warp=0,r=2,slices=7,block=96,fuse=1,graph=1", "warp=0,r=2,slices=7,block=96,fuse=0,graph=1" },
        { "warp=0,r=1,slices=1,block=256,fuse=1,graph=0", "warp=0,r=1,slices=1,block=256,fuse=1,graph=1" },
        { "newton=1,r=2,block=96,fuse=1,graph=1", "newton=1,r=2,block=96,fuse=0,graph=0" },
    };
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        int rc = run5(pairs[k][0], &s0, &a);
        if (!rc) rc = run5(pairs[k][1], &s0, &b);
        NB_ASSERT(rc == 0, "NB_TUNE=%s / %s: exit code %d: %.120s", pairs[k][0], pairs[k][1], rc,
                  rc ? nb_errmsg() : "");
        if (!rc)
            NB_ASSERT(same_bits(&a, &b), "NB_TUNE=%s and NB_TUNE=%s differ after 5 steps",
                      pairs[k][0], pairs[k][1]);
        nb_state_free(&a); nb_state_free(&b);
    }
    nb_state_free(&s0);
}

/* compute-sanitizer --tool tool on the program with NB_TUNE=tune (and
 * --precision precision, NULL: the default): exit 0 (9: the sanitizer
 * reported errors). */
static void sanitize_one(const char *tool, const char *tune, const char *n, const char *steps,
                         const char *precision)
{
    static char sout[1 << 16], serr[1 << 14];
    const char *cs = nb_t_sanitizer_path();
    NB_ASSERT_FATAL(cs != NULL, "compute-sanitizer not found (it comes with the CUDA toolkit: "
                    "put its bin/ on PATH)");
    char *argv[] = { (char *)cs, "--tool", (char *)tool, "--error-exitcode", "9", (char *)BIN,
                     "-n", (char *)n, "-s", (char *)steps, "--check", precision ? "--precision" : NULL,
                     (char *)precision, NULL };
    setenv("NB_TUNE", tune, 1);
    int rc = nb_t_run(argv, sout, sizeof sout, serr, sizeof serr, 100);
    unsetenv("NB_TUNE");
    const char *sum = strstr(sout, "ERROR SUMMARY");
    printf("       NB_TUNE=%s%s%s %s: exit %d, %.*s\n", tune, precision ? " --precision " : "",
           precision ? precision : "", tool, rc, sum ? (int)strcspn(sum, "\n") : 10, sum ? sum : "no summary");
    if (rc) { nb_t_show(sout); nb_t_show(serr); }
    NB_ASSERT(rc == 0, "NB_TUNE=%s%s%s compute-sanitizer --tool %s -n %s -s %s --check: exit %d (9: "
              "sanitizer errors), expected 0: %.110s", tune, precision ? " --precision " : "",
              precision ? precision : "", tool, n, steps, rc, serr);
}

/* compute-sanitizer --tool tool on the paths TUNINGS[first..] */
static void sanitize_paths(const char *tool, size_t first, const char *n, const char *steps, const char *precision)
{
    for (size_t k = first; k < NTUNINGS; k++) sanitize_one(tool, TUNINGS[k], n, steps, precision);
}

static void t_every_path_memcheck(void) { sanitize_paths("memcheck", 0, "333", "2", NULL); }

/* The each-pair-once kernel hands 32-body subsets from warp to warp through
 * shared memory: racecheck and synccheck on its paths, several tiles. */
static void t_newton_racecheck(void) { sanitize_paths("racecheck", NEWTON_FIRST, "700", "1", NULL); }
static void t_newton_synccheck(void) { sanitize_paths("synccheck", NEWTON_FIRST, "700", "1", NULL); }

/* double and mixed: the same bits twice, and fused or not, on a path of
 * each kernel; memcheck (and racecheck on the pairs) on those paths */
static const char *const WIDE_TUNINGS[] = {
    "warp=1,r=2,block=128", "warp=0,r=2,slices=7,block=96", "newton=1,r=2,block=64,tiles=2",
};
#define NWIDE (sizeof WIDE_TUNINGS / sizeof *WIDE_TUNINGS)

static void t_wide_same_bits(void)
{
    nb_state s0, a, b;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 1000, 611, &s0) == 0);
    nb_t_unequal_masses(&s0, 612);
    for (int p = NB_PREC_DOUBLE; p <= NB_PREC_MIXED; p++)
        for (size_t k = 0; k < NWIDE; k++) {
            char sep[160];
            snprintf(sep, sizeof sep, "%s,fuse=0,graph=0", WIDE_TUNINGS[k]);
            int rc = run5p(WIDE_TUNINGS[k], p, &s0, &a);
            if (!rc) rc = run5p(WIDE_TUNINGS[k], p, &s0, &b);
            NB_ASSERT(rc == 0, "--precision %s NB_TUNE=%s: exit code %d: %.120s", nb_precision_name(p),
                      WIDE_TUNINGS[k], rc, rc ? nb_errmsg() : "");
            if (!rc) NB_ASSERT(same_bits(&a, &b), "--precision %s NB_TUNE=%s: two runs of the same input differ "
                               "after 5 steps", nb_precision_name(p), WIDE_TUNINGS[k]);
            nb_state_free(&b);
            if (!rc) rc = run5p(sep, p, &s0, &b);
            if (!rc) NB_ASSERT(same_bits(&a, &b), "--precision %s NB_TUNE=%s: fused and separate kicks differ "
                               "after 5 steps", nb_precision_name(p), WIDE_TUNINGS[k]);
            nb_state_free(&a); nb_state_free(&b);
        }
    nb_state_free(&s0);
}

static void wide_sanitize(const char *tool, const char *n)
{
    for (size_t k = 0; k < NWIDE; k++) {
        if (!strcmp(tool, "racecheck") && strncmp(WIDE_TUNINGS[k], "newton", 6)) continue;
        sanitize_one(tool, WIDE_TUNINGS[k], n, "1", "double");
        sanitize_one(tool, WIDE_TUNINGS[k], n, "1", "mixed");
    }
}

static void t_wide_memcheck(void) { wide_sanitize("memcheck", "333"); }
static void t_wide_racecheck(void) { wide_sanitize("racecheck", "700"); }

static void t_bad_tune(void)
{
    /* "block=128x", "r=1e0" and "warp=0x1" were read as 128, 1 and 0 */
    static const char *const bad[] = { "r=3", "warp=2", "block=48", "slices", "speed=11", "newton=2",
                                       "tiles=0", "block=128x", "r=1e0", "warp=0x1", "=1" };
    static char sout[1 << 12], serr[1 << 12];
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char *argv[] = { (char *)BIN, "-n", "100", "-s", "1", NULL };
        setenv("NB_TUNE", bad[k], 1);
        int rc = nb_t_run(argv, sout, sizeof sout, serr, sizeof serr, 60);
        unsetenv("NB_TUNE");
        int lines = nb_t_count_lines(serr);
        NB_ASSERT(rc == 2 && lines == 1 && strstr(serr, "NB_TUNE"),
                  "NB_TUNE=%s: exit %d with %d stderr lines, expected exit 2 and one line naming "
                  "NB_TUNE: %.100s", bad[k], rc, lines, serr);
    }
}

static const nb_test tuned_tests[] = {
    { "every_path_accel_vs_reference_n1_2_33_1000_4097", t_every_path_accel, NB_FORCES(4) },
    { "every_path_bit_identical_runs_fused_or_not_graph_or_not", t_every_path_same_bits, 3 },
    { "every_path_compute_sanitizer_memcheck", t_every_path_memcheck, 2 },
    { "newton_paths_compute_sanitizer_racecheck", t_newton_racecheck, 1 },
    { "newton_paths_compute_sanitizer_synccheck", t_newton_synccheck, 1 },
    { "malformed_nb_tune_exit_2", t_bad_tune, 1 },
    { "double_every_path_accel_n1_33_1000_4097", t_double_paths_accel, NB_FORCES(2) },
    { "mixed_every_path_accel_n1_33_1000_4097", t_mixed_paths_accel, NB_FORCES(2) },
    { "double_mixed_bit_identical_fused_or_not", t_wide_same_bits, 2 },
    { "double_mixed_compute_sanitizer_memcheck", t_wide_memcheck, 1 },
    { "double_mixed_newton_compute_sanitizer_racecheck", t_wide_racecheck, 1 },
    NB_TEST_END
};

static void gate(void) { nb_t_gate_table(S); }

void nb_tuned_register(const nb_step *step, const char *binary)
{
    S = step;
    BIN = binary;
    nb_grade_suite("tuned", tuned_tests, nb_grade_gpu_skip(step));
    static char what[160];
    snprintf(what, sizeof what, "%s: its accelerations at N = 1000 and 4097", step->name);
    nb_grade_gate("tuned", gate, what);
}
