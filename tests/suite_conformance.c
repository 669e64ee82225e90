/* suite_conformance.c -- the conformance suite, written once, run on every
 * step (docs/conventions.md).  Two suites:
 *   conformance  physics through the nb_step interface (needs the step's
 *                device: inactive and SKIPPED without one);
 *   cli          the step's program: bad input refused, help, no device, and
 *                hostile input refused cleanly (values out of float's range,
 *                directories, NUL bytes, endless lines, a FIFO, a huge TIPSY
 *                header, too little host memory, results to a full device).
 * A program with a --cpu variant (step05) registers both of its tables:
 * "conformance (gpu)" and "cli" for its own, "conformance (cpu)" for the
 * variant, whose program runs get --cpu.  A program run two ways (step06 on
 * one GPU and on all) registers its table twice with
 * nb_conformance_register_as(): each registration's option is added to its
 * program runs and parsed into the options of its in-process runs.
 *
 * Bounds and why:
 *  - accelerations: the step's tolerance, nb_tolerance_for() (nb_verify.h);
 *  - momentum: forces are pairwise antisymmetric, so total momentum is
 *    conserved up to float rounding of the force sums.  After 100 steps the
 *    drift |P - P0| must stay below 1e-5 of sum m|v| for all-pairs steps.
 *    A Barnes-Hut force is not antisymmetric (a body and a cell do not see
 *    each other the same way): its bound is 1e-3 (theta = 0.5);
 *  - energy: leapfrog is symplectic, so on a short Plummer run without close
 *    encounters (N = 2048, eps = 0.05, dt = 1e-3, 100 steps) |dE/E| stays
 *    near the O(dt^2) level; the bound is 1e-5 (measured on step01: ~1e-7).
 *    The tree code's force errors do work on the system: bound 1e-3. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_testutil.h"
#include "nb_verify.h"

/* The table under test, its program, and the option that makes the program
 * run that table (NULL, or "--cpu": the last argument of every run below).
 * PARSE: the option also applies to the in-process runs (it is parsed into
 * their options).  Each registration keeps its own; its suite's setup
 * selects it. */
static const nb_step *S;
static const char *BIN, *FLAG;
static int PARSE;

#define MAX_REG 2
static struct { const nb_step *step; const char *binary, *flag; int parse; } reg[MAX_REG];
static int nreg;

static int use(int k)
{
    S = reg[k].step;
    BIN = reg[k].binary;
    FLAG = reg[k].flag;
    PARSE = reg[k].parse;
    return 0;
}
static int setup0(void) { return use(0); }
static int setup1(void) { return use(1); }
static const CU_InitializeFunc setups[MAX_REG] = { setup0, setup1 };

static nb_options opts(int64_t n)
{
    nb_options o;
    nb_options_default(&o);
    if (PARSE && FLAG) {
        char *argv[] = { (char *)S->name, (char *)FLAG, NULL };
        CU_ASSERT_EQUAL_FATAL(nb_parse_options(2, argv, S->options, S->name, &o), 0);
    }
    o.n = n;
    o.threads = 2;
    return o;
}

static void accel_case(const char *ic, int64_t n, uint64_t seed)
{
    nb_state s;
    nb_options o = opts(n);
    CU_ASSERT_FATAL(nb_ic_generate(ic, n, seed, &s) == 0);
    float *ax = NULL, *ay = NULL, *az = NULL;
    int rc = nb_t_step_accel(S, &s, &o, &ax, &ay, &az);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc == 0) {
        nb_errstats e;
        CU_ASSERT_FATAL(nb_accel_errors(&s, o.eps, ax, ay, az, NB_REF_SAMPLES, &e) == 0);
        nb_tolerance tol = nb_tolerance_for(S->tree, o.theta);
        CU_ASSERT(nb_within_tolerance(&e, &tol));
        if (!nb_within_tolerance(&e, &tol))
            printf("       N=%lld: median %.3g p99 %.3g max %.3g nonfinite %lld (%s)\n", (long long)n,
                   e.median, e.p99, e.max, (long long)e.nonfinite, tol.why);
    }
    free(ax); free(ay); free(az);
    nb_state_free(&s);
}

static void t_accel_n1(void) { accel_case("plummer", 1, 11); }
static void t_accel_n2(void) { accel_case("plummer", 2, 12); }
static void t_accel_n3(void) { accel_case("cube", 3, 13); }
static void t_accel_n1000(void) { accel_case("plummer", 1000, 14); }
static void t_accel_n4097(void) { accel_case("disk", 4097, 15); }
static void t_accel_n65536(void) { accel_case("plummer", 65536, 16); }

static void t_momentum(void)
{
    nb_state s;
    nb_options o = opts(1024);
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 1024, 21, &s) == 0);
    double p0[3], p1[3];
    nb_momentum(&s, p0);
    double scale = nb_momentum_scale(&s);
    CU_ASSERT_FATAL(nb_t_step_run(S, &s, &o, 100) == 0);
    nb_momentum(&s, p1);
    double d = sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                    (p1[2] - p0[2]) * (p1[2] - p0[2])) / scale;
    double bound = S->tree ? 1e-3 : 1e-5;
    printf("       momentum drift %.3g of sum m|v| (bound %.0e)\n", d, bound);
    CU_ASSERT(d < bound);
    nb_state_free(&s);
}

static void t_energy(void)
{
    nb_state s;
    nb_options o = opts(2048);
    o.eps = 0.05;
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 2048, 22, &s) == 0);
    double e0 = nb_energy(&s, o.eps, NULL, NULL);
    CU_ASSERT_FATAL(nb_t_step_run(S, &s, &o, 100) == 0);
    double e1 = nb_energy(&s, o.eps, NULL, NULL);
    double drift = fabs((e1 - e0) / e0);
    double bound = S->tree ? 1e-3 : 1e-5;
    printf("       energy drift %.3g (bound %.0e)\n", drift, bound);
    CU_ASSERT(drift < bound);
    nb_state_free(&s);
}

static int same_bits(const nb_state *a, const nb_state *b)
{
    size_t bytes = (size_t)a->n * sizeof(float);
    return a->n == b->n && !memcmp(a->x, b->x, bytes) && !memcmp(a->y, b->y, bytes) &&
           !memcmp(a->z, b->z, bytes) && !memcmp(a->vx, b->vx, bytes) &&
           !memcmp(a->vy, b->vy, bytes) && !memcmp(a->vz, b->vz, bytes);
}

static void t_deterministic(void)
{
    nb_state a, b, c;
    nb_options o = opts(3001);
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 3001, 31, &a) == 0);
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 3001, 31, &b) == 0);
    CU_ASSERT_FATAL(nb_ic_generate("plummer", 3001, 32, &c) == 0);
    CU_ASSERT(same_bits(&a, &b));
    CU_ASSERT(!same_bits(&a, &c));
    CU_ASSERT_FATAL(nb_t_step_run(S, &a, &o, 20) == 0);
    CU_ASSERT_FATAL(nb_t_step_run(S, &b, &o, 20) == 0);
    CU_ASSERT(same_bits(&a, &b));
    nb_state_free(&a); nb_state_free(&b); nb_state_free(&c);
}

static char out[1 << 16], err[1 << 14];

static void t_check_exit(void)
{
    char *argv[] = { (char *)BIN, "-n", "1001", "-s", "3", "--check", "--seed", "5", (char *)FLAG,
                     NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 120);
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "-> PASS"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "median"));
}

static void t_save_roundtrip(void)
{
    char f1[300], f2[300];
    snprintf(f1, sizeof f1, "%s", nb_t_tmpfile(0, ".txt"));
    snprintf(f2, sizeof f2, "%s", nb_t_tmpfile(1, ".txt"));
    char *a1[] = { (char *)BIN, "-n", "777", "-s", "0", "--ic", "disk", "--save", f1, (char *)FLAG,
                   NULL };
    CU_ASSERT_EQUAL_FATAL(nb_t_run(a1, out, sizeof out, err, sizeof err, 60), 0);
    char *a2[] = { (char *)BIN, "-s", "0", "--ic", f1, "--save", f2, (char *)FLAG, NULL };
    CU_ASSERT_EQUAL_FATAL(nb_t_run(a2, out, sizeof out, err, sizeof err, 60), 0);
    nb_state s1, s2, g;
    CU_ASSERT_FATAL(nb_state_read(f1, &s1) == 0);
    CU_ASSERT_FATAL(nb_state_read(f2, &s2) == 0);
    CU_ASSERT_FATAL(nb_ic_generate("disk", 777, 1, &g) == 0);
    CU_ASSERT(same_bits(&s1, &s2));
    CU_ASSERT(same_bits(&s1, &g));               /* -s 0 saves the initial state exactly */
    nb_state_free(&s1); nb_state_free(&s2); nb_state_free(&g);
    unlink(f1); unlink(f2);
}

/* ---- cli: runs without a device ---- */

static void expect_usage(char **argv)
{
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    int lines = nb_t_count_lines(err);
    if (rc != 2 || lines != 1 || out[0]) {
        printf("       '");
        for (char **a = argv + 1; *a; a++) printf("%s%s", *a, a[1] ? " " : "");
        printf("': exit %d, %d stderr lines: %s", rc, lines, err);
    }
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_EQUAL(out[0], '\0');
}

#define BAD(...) do { char *a_[] = { (char *)BIN, __VA_ARGS__, NULL }; expect_usage(a_); } while (0)

static void t_bad_numbers(void)
{
    BAD("-n", "0");
    BAD("-n", "-5");
    BAD("-n", "12x");
    BAD("-n", "");
    BAD("-n", "2147483648");
    BAD("-n", "nan");
    BAD("--bodies=1.5");
    BAD("-s", "-1");
    BAD("--steps", "ten");
    BAD("--dt", "0");
    BAD("--dt", "-1e-3");
    BAD("--dt", "nan");
    BAD("--dt", "inf");
    BAD("--dt", "2");
    BAD("--eps", "0");
    BAD("--eps", "-0.01");
    BAD("--eps", "1e400");
    BAD("--seed", "-1");
    BAD("--seed", "abc");
    BAD("--seed", "18446744073709551616");
    BAD("--warmup", "-1");
    BAD("--render-every", "0");
}

static void t_bad_options(void)
{
    BAD("--bogus");
    BAD("-x");
    BAD("stray");
    BAD("-n");                                   /* missing value */
    BAD("--check=yes");
    BAD("--block", "33");
    BAD("--block", "2048");
    BAD("--threads", "0");
    BAD("--render-tree");                        /* needs --render */
    BAD("--ic", "tipsy:");
    if (!(S->options & NB_OPT_THETA)) BAD("--theta", "0.5");
    else BAD("--theta", "2");
    if (!(S->options & NB_OPT_THREADS)) BAD("--threads", "2");
    if (!(S->options & NB_OPT_BLOCK)) BAD("--block", "128");
    if (!(S->options & NB_OPT_CPU)) BAD("--cpu");
    if (!(S->options & NB_OPT_GPUS)) BAD("--gpus", "2");
    else {
        BAD("--gpus", "0");
        BAD("--gpus", "-1");
        BAD("--gpus", "x");
        BAD("--gpus", "1025");
    }
}

static void t_bad_files(void)
{
    const char *f = nb_t_tmpfile(0, ".txt");
    char path[300];
    snprintf(path, sizeof path, "%s", f);
    BAD("--ic", "no-such-model-or-file");
    BAD("--ic", "/nonexistent/dir/state.txt");
    FILE *fp = fopen(path, "w");
    fprintf(fp, "# two good lines, then a bad one\n1 0 0 0 0 0 0\n1 1 0 0 0 0 0\n1 2 0 0 zero 0 0\n");
    fclose(fp);
    BAD("--ic", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, ":4:"));   /* the line number */
    fp = fopen(path, "w");
    fprintf(fp, "# nothing but comments\n\n");
    fclose(fp);
    BAD("--ic", path);
    fp = fopen(path, "w");
    fprintf(fp, "1 0 0 0 0 0\n");                /* six numbers */
    fclose(fp);
    BAD("--ic", path);
    fp = fopen(path, "w");
    fprintf(fp, "1 0 0 nan 0 0 0\n");
    fclose(fp);
    BAD("--ic", path);
    fp = fopen(path, "w");
    fprintf(fp, "1 0 0 0 0 0 0\n1 1 1 1 0 0 0\n");
    fclose(fp);
    BAD("--ic", path, "-n", "3");                /* -n disagrees with the file */
    unlink(path);
}


/* ---- cli: hostile input, refused cleanly on every step ---- */

static void print_run(char **argv)
{
    printf("       '");
    for (char **a = argv + 1; *a; a++) printf("%.120s%s", *a, a[1] ? " " : "");
    printf("'");
}

/* Run argv (stdout to stdout_path, NULL: captured); the exit code must be
 * want (or alt, if alt >= 0) with exactly one stderr line holding every
 * string of must (NULL-terminated).  Prints what ran and what it got. */
static void expect_exit(char **argv, const char *stdout_path, int want, int alt, const char *const *must)
{
    int rc = nb_t_run_io(argv, stdout_path, out, sizeof out, err, sizeof err, 60);
    int lines = nb_t_count_lines(err);
    int ok = (rc == want || (alt >= 0 && rc == alt)) && lines == 1;
    const char *missing = NULL;
    for (int k = 0; ok && rc == want && must && must[k]; k++)
        if (!strstr(err, must[k])) { ok = 0; missing = must[k]; }
    if (!ok) {
        print_run(argv);
        printf(": exit %d (expected %d", rc, want);
        if (alt >= 0) printf(" or %d", alt);
        if (missing) printf(", a message with '%s'", missing);
        printf("), %d stderr lines: %s%s", lines, err, lines && err[strlen(err) - 1] == '\n' ? "" : "\n");
    }
    CU_ASSERT(ok);
}

#define EXPECT(code, alt, must, ...) do { char *a_[] = { (char *)BIN, __VA_ARGS__, NULL }; \
    expect_exit(a_, NULL, code, alt, must); } while (0)
#define WORDS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A GPU step exits 77 here when it has no device; --cpu steps never do. */
static int needs_missing_device(void)
{
    return S->probe && !(S->options & NB_OPT_CPU) && nb_grade_gpu_skip(S) != NULL;
}

static void write_text(const char *path, const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    CU_ASSERT_EQUAL(fwrite(text, 1, len, fp), len);
    fclose(fp);
}

static void t_physics_out_of_float(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s", nb_t_tmpfile(0, ".txt"));
    /* m/eps^3 overflows float: every body's self term was inf * 0 = NaN */
    EXPECT(2, -1, WORDS("--eps", "too small", "eps >="), "-n", "64", "-s", "1", "--eps", "1e-14");
    /* a body 1e20 away: r^2 overflows float, rsqrt's Newton step gave NaN */
    const char far[] = "0.4 0 0 0 0 0 0\n0.4 1 0 0 0 0 0\n0.2 1e20 0 0 0 0 0\n";
    write_text(path, far, strlen(far));
    EXPECT(2, -1, WORDS("body 2", "1e+18"), "--ic", path, "-s", "1");
    /* finite in double, not in float */
    const char heavy[] = "1 0 0 0 0 0 0\n1e39 1 0 0 0 0 0\n";
    write_text(path, heavy, strlen(heavy));
    EXPECT(2, -1, WORDS(":2:", "mass", "overflows float"), "--ic", path, "-s", "1");
    const char wide[] = "1 -3e38 0 0 0 0 0\n1 3e38 0 0 0 0 0\n";
    write_text(path, wide, strlen(wide));
    EXPECT(2, -1, WORDS("body 0", "x = -3e+38"), "--ic", path, "-s", "1");
    const char massless[] = "0 0 0 0 0 0 0\n0 1 0 0 0 0 0\n";
    write_text(path, massless, strlen(massless));
    EXPECT(2, -1, WORDS("mass"), "--ic", path);
    unlink(path);
}

static void t_bad_input_files(void)
{
    char path[300], dir[300];
    snprintf(path, sizeof path, "%s", nb_t_tmpfile(0, ".txt"));
    snprintf(dir, sizeof dir, "%s", nb_t_tmpfile(1, ".d"));
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0700), 0);
    EXPECT(2, -1, WORDS("directory"), "--ic", dir);
    rmdir(dir);
    /* two good lines, then NUL bytes (was: "bodies 2", exit 0) */
    const char nul[] = "0.5 0 0 0 0 0 0\n0.5 1 0 0 0 0 0\n\0\0\0\0\0\0\0\0";
    write_text(path, nul, sizeof nul - 1);
    EXPECT(2, -1, WORDS(":3:", "NUL"), "--ic", path);
    /* an endless line: 4 MB without a newline (was: read until memory ran out) */
    FILE *fp = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(fp);
    for (int k = 0; k < 4096; k++) {
        char block[1024];
        memset(block, '1', sizeof block);
        fwrite(block, 1, sizeof block, fp);
    }
    fclose(fp);
    EXPECT(2, -1, WORDS(":1:", "longer than"), "--ic", path);
    EXPECT(2, -1, WORDS("NUL bytes", "TIPSY"), "--ic", "/dev/zero");
    /* binary, not TIPSY: says what is wrong with the header, not "line 2" */
    unsigned char bin[200];
    for (size_t k = 0; k < sizeof bin; k++) bin[k] = (unsigned char)(k * 37 + 11);
    memset(bin + 12, 0, 4);                         /* ndim 0 */
    write_text(path, (const char *)bin, sizeof bin);
    EXPECT(2, -1, WORDS("TIPSY file: the header", "ndim 0"), "--ic", path);
    unlink(path);
}

/* A TIPSY file whose header says 2^31 - 1 bodies: sparse, it takes no
 * disk space; the reader must refuse before allocating 56 GiB (the fake
 * available memory makes the test the same on every machine). */
static void t_huge_tipsy_header(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s", nb_t_tmpfile(0, ".bin"));
    unsigned char h[32] = { 0 };
    const uint32_t n = 2147483647u;
    for (int k = 0; k < 4; k++) {
        h[8 + k] = (unsigned char)(n >> (8 * k));   /* nbodies, little-endian */
        h[20 + k] = (unsigned char)(n >> (8 * k));  /* ndark */
    }
    h[12] = 3;                                      /* ndim */
    write_text(path, (const char *)h, sizeof h);
    if (truncate(path, (off_t)(32 + 36 * (int64_t)n)) != 0) {
        printf("       (skipped: the temporary file system takes no sparse file of 77 GB)\n");
        unlink(path);
        return;
    }
    setenv("NB_FAKE_MEM_AVAILABLE", "1073741824", 1);
    EXPECT(3, -1, WORDS("out of host memory", "2147483647 bodies", "GiB"), "--ic", path);
    unsetenv("NB_FAKE_MEM_AVAILABLE");
    unlink(path);
}

static void t_fake_memory(void)
{
    /* a GPU step's probe comes first: without a usable device it says 77 */
    int alt = S->probe && nb_grade_gpu_skip(S) ? 77 : -1;
    setenv("NB_FAKE_MEM_AVAILABLE", "1000000", 1);
    EXPECT(3, alt, WORDS("out of host memory", "100000 bodies", "available"), "-n", "100000", "-s", "1");
    unsetenv("NB_FAKE_MEM_AVAILABLE");
}

/* A FIFO with a writer: read once (it used to be opened twice and hang). */
static void t_fifo(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s", nb_t_tmpfile(0, ".fifo"));
    unlink(path);
    CU_ASSERT_EQUAL_FATAL(mkfifo(path, 0600), 0);
    fflush(stdout);
    pid_t w = fork();
    CU_ASSERT_FATAL(w >= 0);
    if (w == 0) {
        int fd = open(path, O_WRONLY);
        const char text[] = "0.5 0 0 0 0 0 0\n0.5 1 0 0 0 0 0\n";
        if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)(sizeof text - 1)) _exit(1);
        close(fd);
        _exit(0);
    }
    int cpu = (S->options & NB_OPT_CPU) != 0;
    char *argv[] = { (char *)BIN, "--ic", path, "-s", "1", cpu ? "--cpu" : NULL, NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 30);
    kill(w, SIGKILL);
    waitpid(w, NULL, 0);
    unlink(path);
    /* 4: the student kit's blanked step, which fails after reading */
    int want = needs_missing_device() ? 77 : 0;
    int ok = (rc == want && (want || strstr(out, "bodies 2"))) || rc == NB_EXIT_TODO;
    if (!ok) {
        print_run(argv);
        printf(": exit %d (expected %d, 137: it hung), stderr: %s\n", rc, want, err);
    }
    CU_ASSERT(ok);
}

/* Results to a full device: an I/O error (exit 3), not a success. */
static void t_stdout_full(void)
{
    if (access("/dev/full", W_OK) != 0) {
        printf("       (skipped: no /dev/full here)\n");
        return;
    }
    int cpu = (S->options & NB_OPT_CPU) != 0;
    char *argv[] = { (char *)BIN, "-n", "100", "-s", "1", cpu ? "--cpu" : NULL, NULL };
    /* 4: the student kit's blanked step, which fails before any output */
    if (needs_missing_device()) expect_exit(argv, "/dev/full", 77, NB_EXIT_TODO, NULL);
    else expect_exit(argv, "/dev/full", 3, NB_EXIT_TODO, WORDS("error writing", "stdout"));
}

static void t_help(void)
{
    char *argv[] = { (char *)BIN, "--help", NULL };
    CU_ASSERT_EQUAL(nb_t_run(argv, out, sizeof out, err, sizeof err, 30), 0);
    const char *must[] = { "--bodies", "--steps", "--dt", "--eps", "--ic", "--seed", "--check",
                           "--bench", "--csv", "--save", "--help", "--version", "default" };
    for (size_t k = 0; k < sizeof must / sizeof must[0]; k++)
        CU_ASSERT_PTR_NOT_NULL(strstr(out, must[k]));
    CU_ASSERT_EQUAL(err[0], '\0');
}

static void t_no_device(void)
{
    if (!S->probe) {                             /* CPU step: never needs a device */
        setenv("NB_FAKE_NO_DEVICE", "fake: no GPU here", 1);
        char *argv[] = { (char *)BIN, "-n", "100", "-s", "1", NULL };
        CU_ASSERT_EQUAL(nb_t_run(argv, out, sizeof out, err, sizeof err, 60), 0);
        unsetenv("NB_FAKE_NO_DEVICE");
        return;
    }
    setenv("NB_FAKE_NO_DEVICE", "fake: no GPU here", 1);
    char *argv[] = { (char *)BIN, "-n", "100", "-s", "1", NULL };
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 60);
    unsetenv("NB_FAKE_NO_DEVICE");
    CU_ASSERT_EQUAL(rc, 77);
    CU_ASSERT_EQUAL(nb_t_count_lines(err), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "fake: no GPU here"));
}

static const nb_test conformance_tests[] = {
    { "accel_vs_reference_n1", t_accel_n1, 2 },
    { "accel_vs_reference_n2", t_accel_n2, 2 },
    { "accel_vs_reference_n3", t_accel_n3, 2 },
    { "accel_vs_reference_n1000", t_accel_n1000, 3 },
    { "accel_vs_reference_n4097", t_accel_n4097, 3 },
    { "accel_vs_reference_n65536_sampled", t_accel_n65536, 3 },
    { "momentum_conserved_100_steps", t_momentum, 3 },
    { "energy_drift_plummer_100_steps", t_energy, 3 },
    { "same_seed_bit_identical", t_deterministic, 3 },
    { "check_option_passes", t_check_exit, 2 },
    { "save_load_roundtrip", t_save_roundtrip, 2 },
    NB_TEST_END
};

static const nb_test cli_tests[] = {
    { "bad_numbers_exit_2", t_bad_numbers, 3 },
    { "bad_options_exit_2", t_bad_options, 3 },
    { "bad_files_exit_2", t_bad_files, 3 },
    { "physics_out_of_float_exit_2", t_physics_out_of_float, 2 },
    { "hostile_files_exit_2", t_bad_input_files, 2 },
    { "huge_tipsy_header_exit_3", t_huge_tipsy_header, 1 },
    { "host_memory_refused_exit_3", t_fake_memory, 1 },
    { "fifo_read_once", t_fifo, 1 },
    { "stdout_full_exit_3", t_stdout_full, 1 },
    { "help_lists_options", t_help, 1 },
    { "no_device_exit_77", t_no_device, 2 },
    NB_TEST_END
};

static void add(const nb_step *step, const char *binary, const char *name, const char *flag,
                int parse)
{
    if (nreg == MAX_REG) {
        fprintf(stderr, "nb_conformance_register: more than %d registrations\n", MAX_REG);
        return;
    }
    int k = nreg++;
    reg[k].step = step;
    reg[k].binary = binary;
    reg[k].flag = flag;
    reg[k].parse = parse;
    nb_grade_suite_setup(name, conformance_tests, nb_grade_gpu_skip(step), setups[k]);
    if (k == 0) nb_grade_suite_setup("cli", cli_tests, NULL, setups[0]);
}

void nb_conformance_register(const nb_step *step, const char *binary)
{
    /* the --cpu variant of the table registered first */
    int variant = nreg > 0 && reg[0].step->cpu_variant == step;
    add(step, binary,
        variant ? "conformance (cpu)" : step->cpu_variant ? "conformance (gpu)" : "conformance",
        variant ? "--cpu" : NULL, 0);
}

void nb_conformance_register_as(const nb_step *step, const char *binary, const char *name,
                                const char *option)
{
    add(step, binary, name, option, 1);
}
