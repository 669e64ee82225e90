/* nb_grade.c -- the grading harness (see nb_grade.h).
 *
 * The runner process registers the suites with CUnit and then, for every
 * test of an active suite, forks a child that runs that one test with
 * CU_run_test() and writes back one record (g_wire) through a pipe: the
 * number of CUnit failure records and the first one's condition, file and
 * line.  The child's stdout comes back through a second pipe; the runner
 * prints it as it arrives (so a test's own lines stay before its PASS/FAIL
 * line) and keeps the beginning of it for the JSON reports.  What it prints
 * can never pass for a line of the grade: control characters (ESC, CR ...)
 * are shown as visible escapes, and a line that starts with fewer than 7
 * spaces is indented by 7 (the grade's lines start at column 0 or 2); the
 * failure message in a grade line, which may quote a program, is escaped
 * the same way, its newlines shown as "\n".  A program's text in the output
 * is the test's to show as data (nb_t_show); this is the guard behind it.
 * No record means
 * the test never returned: the wait status says whether it was killed by a
 * signal or called exit(); a test past its time limit is killed with its
 * whole process group.
 *
 * Each test's scratch directory (its TMPDIR, lent to the boxes it starts)
 * is the box's own: a mkdtemp() name below the runner's scratch directory
 * (0711), owned by the box's uid, 0700 (nb_sandbox_mkdtemp); it is removed
 * in this process without following a link (nb_sandbox_remove).
 *
 * Inactive suites (skip reason given) are never run: their tests are SKIPPED
 * with the reason and count neither as passed nor as failed, and the runner
 * is "not graded".
 *
 * Quiet by default: a failed test is one line (its message, file:line), a
 * failed gate two, each skip reason one line for all its tests, then the
 * score lines; a test's own output is kept for the reports, not printed.
 * NB_VERBOSE=1 (make V=1): every test's line and its output, as it runs. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <CUnit/TestRun.h>
#include "nb_grade.h"
#include "nb_sandbox.h"
#include "nb_testutil.h"

#define MAX_SUITES 32
#define MAX_TESTS 256
#define OUTPUT_KEEP 4000              /* bytes of a test's stdout kept for the reports */
/* a hang detector: 20x the slowest test, 15 s on an idle 2-core machine;
 * four times that in a build under AddressSanitizer (make SANITIZE=1),
 * whose instrumented code runs several times slower (step05's plain CPU
 * tree on its tightest clusters: minutes there on a busy 2-core machine) */
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_TIMEOUT_S 1200
#else
#define DEFAULT_TIMEOUT_S 300
#endif
#define PROBE_TIMEOUT_S 120
#define WIRE_MAGIC 0x4e424752         /* "NBGR" */
#define TEST_INDENT 7                 /* a test's lines start at this column or after */

typedef struct g_suite {
    CU_pSuite   suite;
    const char *name;
    int         kit;                  /* checks the kit itself, not the student's work */
    int         optional;             /* an optional exercise: its points apart */
    const nb_test *tests;
    char        skip[256];
    int         skipped;
    CU_TestFunc gate;                 /* nb_grade_gate(): NULL, none */
    const char *gate_what;
    char        gate_name[300];       /* its test's name, "(gate) what" (kept: no allocation) */
    CU_pTest    gate_test;            /* the gate, as a CUnit test of this suite */
} g_suite;

typedef struct g_result {
    const char *suite, *test;
    int kit, optional;
    int points, earned;
    const char *status;            /* PASS, FAIL, SKIP */
    char detail[400];
    char *output;                  /* the test's stdout (malloc'd, may be NULL) */
} g_result;

/* What a test child sends back when the test has returned to CUnit. */
typedef struct g_wire {
    int magic;
    int suite_init_failed;         /* CUF_SuiteInitFailed record */
    int nfail;                     /* CUF_AssertFailed records */
    unsigned line;
    char cond[320];
    char file[120];
} g_wire;

static g_suite suites[MAX_SUITES];
static char nonce[80] = "none";           /* this check-all's secret (NB_GRADE_NONCE) */
static char scratch_base[600];            /* the tests' scratch directories live below */
static int nsuites;
static g_result results[MAX_TESTS];
static int nresults;
static int registry_ready;
static int verbose;                       /* NB_VERBOSE=1: every test and its output */

/* The gates' results: each gate function runs once a runner. */
#define MAX_GATES 8
static struct { CU_TestFunc fn; int passed; char detail[400]; } gates[MAX_GATES];
static int ngates;

static const char *kind_of(int kit, int optional)
{
    return kit ? "kit" : optional ? "optional" : "student";
}

/* src into dst (size bytes): whole if it fits, else cut at the last space
 * that leaves room for "..." (at a byte if there is none in its second
 * half), never in the middle of a word or of a UTF-8 sequence. */
static void clip_words(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (size == 0) return;
    if (n < size) { memcpy(dst, src, n + 1); return; }
    if (size < 8) { dst[0] = '\0'; return; }
    size_t cut = size - 4;                      /* room for "..." and the NUL */
    size_t k = cut;
    while (k > size / 2 && src[k] != ' ') k--;
    if (src[k] == ' ') cut = k;
    else while (cut > 0 && ((unsigned char)src[cut] & 0xc0) == 0x80) cut--;   /* a UTF-8 continuation */
    while (cut > 0 && strchr(" ,;:(", src[cut - 1])) cut--;
    memcpy(dst, src, cut);
    memcpy(dst + cut, "...", 4);
}

static int ensure_registry(void)
{
    if (registry_ready) return 0;
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: cannot initialize the registry: %s\n", CU_get_error_msg());
        return -1;
    }
    registry_ready = 1;
    return 0;
}

int nb_grade_suite(const char *name, const nb_test *tests, const char *skip_reason)
{
    return nb_grade_suite_setup(name, tests, skip_reason, NULL);
}

int nb_grade_suite_setup(const char *name, const nb_test *tests, const char *skip_reason,
                         CU_InitializeFunc setup)
{
    if (ensure_registry() || nsuites == MAX_SUITES) return -1;
    g_suite *g = &suites[nsuites];
    g->suite = CU_add_suite(name, setup, NULL);
    if (!g->suite) return -1;
    g->name = name;
    g->tests = tests;
    for (const nb_test *t = tests; t->name; t++)
        if (!CU_add_test(g->suite, t->name, t->fn)) return -1;
    if (skip_reason) {
        snprintf(g->skip, sizeof g->skip, "%s", skip_reason);
        g->skipped = 1;
        CU_set_suite_active(g->suite, CU_FALSE);
    }
    nsuites++;
    return 0;
}

static g_suite *suite_named(const char *name)
{
    for (int s = 0; s < nsuites; s++)
        if (!strcmp(suites[s].name, name)) return &suites[s];
    return NULL;
}

int nb_grade_gate(const char *suite, CU_TestFunc gate, const char *what)
{
    g_suite *g = suite_named(suite);
    if (!g || !gate) return -1;
    snprintf(g->gate_name, sizeof g->gate_name, "(gate) %s", what);
    g->gate_test = CU_add_test(g->suite, g->gate_name, gate);
    if (!g->gate_test) return -1;
    g->gate = gate;
    g->gate_what = what;
    return 0;
}

int nb_grade_optional(const char *suite)
{
    g_suite *g = suite_named(suite);
    if (!g) return -1;
    g->optional = 1;
    return 0;
}

/* ---- small process helpers ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void set_flags(int fd, int cloexec, int nonblock)
{
    if (cloexec) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
    if (nonblock) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int make_pipe(int p[2])
{
    if (pipe(p)) return -1;
    set_flags(p[0], 1, 0);
    set_flags(p[1], 1, 0);
    return 0;
}

static const char *signame(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        { SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGILL, "SIGILL" },
        { SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" }, { SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" },
        { SIGHUP, "SIGHUP" }, { SIGQUIT, "SIGQUIT" }, { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },
        { SIGTRAP, "SIGTRAP" }, { SIGSYS, "SIGSYS" }, { SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" },
        { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" },
    };
    static char other[64];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (names[k].sig == sig) return names[k].name;
    snprintf(other, sizeof other, "signal %d (%s)", sig, strsignal(sig));
    return other;
}

/* Read what is there (non-blocking fd); returns bytes read, 0 at EOF, -1 if none now. */
static ssize_t read_some(int fd, char *buf, size_t len)
{
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        return -1;
    }
}

/* ---- the device probe, in a child ---- */

typedef struct g_probe_wire {
    int magic;
    int rc;
    char msg[240];
} g_probe_wire;

const char *nb_grade_gpu_skip(const nb_step *step)
{
    static struct { const nb_step *step; char why[300]; int skip; } cache[8];
    static int ncache;
    static char why_uncached[300];
    if (!step->probe) return NULL;
    for (int k = 0; k < ncache; k++)
        if (cache[k].step == step) return cache[k].skip ? cache[k].why : NULL;

    char raw[260] = "";
    int rc = 1;
    int p[2];
    fflush(stdout);
    fflush(stderr);
    pid_t pid = -1;
    if (make_pipe(p) == 0) pid = fork();
    if (pid == 0) {                              /* the child: probe, report, leave */
        close(p[0]);
        g_probe_wire w;
        memset(&w, 0, sizeof w);
        w.magic = WIRE_MAGIC;
        w.rc = step->probe(NULL);
        if (w.rc) snprintf(w.msg, sizeof w.msg, "%s", nb_errmsg());
        if (write(p[1], &w, sizeof w) != (ssize_t)sizeof w) _exit(3);
        _exit(0);
    }
    if (pid < 0) {
        snprintf(raw, sizeof raw, "the device probe could not start (%s)", strerror(errno));
    } else {
        close(p[1]);
        set_flags(p[0], 0, 1);
        g_probe_wire w;
        size_t got = 0;
        int status = 0, timed_out = 0;
        double t0 = now_s();
        for (;;) {
            ssize_t n = read_some(p[0], (char *)&w + got, sizeof w - got);
            if (n > 0) got += (size_t)n;
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid) break;
            if (r < 0 && errno != EINTR) break;
            if (now_s() - t0 > PROBE_TIMEOUT_S) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                timed_out = 1;
                break;
            }
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
        }
        for (ssize_t n; got < sizeof w && (n = read_some(p[0], (char *)&w + got, sizeof w - got)) > 0;)
            got += (size_t)n;
        close(p[0]);
        if (got == sizeof w && w.magic == WIRE_MAGIC) {
            rc = w.rc;
            snprintf(raw, sizeof raw, "%.*s", (int)sizeof w.msg - 1, w.msg);
        } else if (timed_out) {
            snprintf(raw, sizeof raw, "the device probe timed out after %d s", PROBE_TIMEOUT_S);
        } else if (WIFSIGNALED(status)) {
            snprintf(raw, sizeof raw, "the device probe crashed: %s", signame(WTERMSIG(status)));
        } else {
            snprintf(raw, sizeof raw, "the device probe exited with status %d",
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        }
    }
    const char *prefix = "no usable CUDA device: ";
    char *why = ncache < 8 ? cache[ncache].why : why_uncached;
    if (rc == 0) why[0] = '\0';
    else if (!strncmp(raw, prefix, strlen(prefix))) snprintf(why, 300, "%s", raw);
    else snprintf(why, 300, "%s%s", prefix, raw[0] ? raw : "the device probe failed");
    if (ncache < 8) {
        cache[ncache].step = step;
        cache[ncache].skip = rc != 0;
        ncache++;
    }
    return rc ? why : NULL;
}

/* ---- one test in a child ---- */

static volatile sig_atomic_t child_group;    /* process group of the running test */
static const int fwd_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };

/* The runner is interrupted (Ctrl-C, timeout(1), a closed pipe): take the
 * running test's process group with it, then die of the same signal. */
static void on_fatal_signal(int sig)
{
    if (child_group > 0) kill(-(pid_t)child_group, SIGKILL);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void child_run_test(g_suite *g, CU_pTest test, int wfd)
{
    (void)CU_run_test(g->suite, test);       /* the result is in the failure records */
    g_wire w;
    memset(&w, 0, sizeof w);
    w.magic = WIRE_MAGIC;
    for (CU_pFailureRecord f = CU_get_failure_list(); f; f = f->pNext) {
        if (f->type == CUF_SuiteInitFailed) w.suite_init_failed = 1;
        if (f->type != CUF_AssertFailed) continue;
        if (w.nfail++ == 0) {
            clip_words(w.cond, sizeof w.cond, f->strCondition ? f->strCondition : "?");
            clip_words(w.file, sizeof w.file, f->strFileName ? f->strFileName : "?");
            w.line = f->uiLineNumber;
        }
    }
    fflush(stdout);
    fflush(stderr);
    if (write(wfd, &w, sizeof w) != (ssize_t)sizeof w) _exit(3);
    _exit(0);
}

static int test_timeout_s(void)
{
    const char *s = getenv("NB_TEST_TIMEOUT");
    if (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (*end == '\0' && v > 0 && v < 1000000) return (int)v;
        fprintf(stderr, "NB_TEST_TIMEOUT=%s is not a number of seconds; using %d\n", s, DEFAULT_TIMEOUT_S);
    }
    return DEFAULT_TIMEOUT_S;
}

static void keep_output(g_result *r, size_t *kept, const char *buf, size_t n)
{
    if (!r->output) {
        r->output = malloc(OUTPUT_KEEP + 1);
        if (!r->output) return;
        r->output[0] = '\0';
    }
    size_t room = OUTPUT_KEEP - *kept;
    if (n > room) n = room;
    memcpy(r->output + *kept, buf, n);
    *kept += n;
    r->output[*kept] = '\0';
}

/* Remove path (a scratch directory: the boxes' files) in this process. */
static void remove_tree(const char *path)
{
    if (nb_sandbox_remove(path) != 0)
        fprintf(stderr, "harness: cannot remove the scratch directory %s: %s\n", path, strerror(errno));
}

/* What a test child prints, on the console: a line that starts with fewer
 * than TEST_INDENT spaces is indented by TEST_INDENT, control characters
 * are escaped (nb_t_put_text); *spaces counts the leading spaces of the
 * line being printed (-1: past them). */
static void print_test_output(const char *buf, size_t n, int *spaces)
{
    for (size_t i = 0; i < n;) {
        if (*spaces >= 0) {                      /* the start of a line */
            if (buf[i] == ' ') { ++*spaces; i++; continue; }
            if (buf[i] != '\n') printf("%*s", *spaces < TEST_INDENT ? TEST_INDENT + *spaces : *spaces, "");
            *spaces = -1;
        }
        const char *nl = memchr(buf + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (buf + i)) : n - i;
        nb_t_put_text(stdout, buf + i, len);
        i += len;
        if (nl) { fputc('\n', stdout); *spaces = 0; i++; }
    }
}

static void run_test_isolated(g_suite *g, const nb_test *t, g_result *r, int timeout_s);

/* The index of g's gate in gates[], run now if it has not run yet (one
 * line, "  GATE ...", and its output). */
static int run_gate(g_suite *g, int timeout_s)
{
    for (int k = 0; k < ngates; k++)
        if (gates[k].fn == g->gate) return k;
    if (ngates == MAX_GATES) return -1;
    int k = ngates++;
    gates[k].fn = g->gate;
    nb_test t = { g->gate_test->pName, g->gate, 0 };
    g_result r;
    memset(&r, 0, sizeof r);
    run_test_isolated(g, &t, &r, timeout_s);
    gates[k].passed = !strcmp(r.status, "PASS");
    snprintf(gates[k].detail, sizeof gates[k].detail, "%s", r.detail);
    if (verbose || !gates[k].passed)
        printf("  GATE %s: %s%s%s\n", g->gate_what, gates[k].passed ? "PASS" : "FAIL", gates[k].passed ? "" : ": ",
               gates[k].passed ? "" : r.detail);
    if (!gates[k].passed)
        printf("       every test that needs these forces is not run and earns nothing until it passes\n");
    fflush(stdout);
    free(r.output);
    return k;
}

/* Run one test in a child; fill r (status, earned, detail, output). */
static void run_test_isolated(g_suite *g, const nb_test *t, g_result *r, int timeout_s)
{
    CU_pTest test = CU_get_test(g->suite, t->name);
    r->status = "FAIL";
    r->earned = 0;
    if (!test) {
        snprintf(r->detail, sizeof r->detail, "test not found in the CUnit registry");
        return;
    }
    int rec[2], out[2];
    if (make_pipe(rec)) {
        snprintf(r->detail, sizeof r->detail, "harness: pipe: %s", strerror(errno));
        return;
    }
    if (make_pipe(out)) {
        snprintf(r->detail, sizeof r->detail, "harness: pipe: %s", strerror(errno));
        close(rec[0]); close(rec[1]);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    char scratch[700];
    snprintf(scratch, sizeof scratch, "%s/tXXXXXX", scratch_base);
    if (nb_sandbox_mkdtemp(scratch)) {
        snprintf(r->detail, sizeof r->detail, "harness: scratch directory %.200s: %s", scratch, strerror(errno));
        close(rec[0]); close(rec[1]); close(out[0]); close(out[1]);
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(r->detail, sizeof r->detail, "harness: fork: %s", strerror(errno));
        close(rec[0]); close(rec[1]); close(out[0]); close(out[1]);
        return;
    }
    if (pid == 0) {
        setpgid(0, 0);                           /* its own group: a time-out kills all of it */
        /* the test's files live in its scratch directory, which the sandbox
         * lends the step's programs: the box's own (its uid, 0700), whose
         * files the test reads back only through nb_testutil.h's readers;
         * what the test writes there the box must be able to read */
        setenv("TMPDIR", scratch, 1);
        umask(0);
        for (size_t k = 0; k < sizeof fwd_signals / sizeof fwd_signals[0]; k++) signal(fwd_signals[k], SIG_DFL);
        close(rec[0]);
        close(out[0]);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) { dup2(devnull, 0); close(devnull); }
        dup2(out[1], 1);
        close(out[1]);
        setvbuf(stdout, NULL, _IOLBF, 0);        /* lines written before a crash get out */
        child_run_test(g, test, rec[1]);
    }
    setpgid(pid, pid);
    child_group = pid;
    close(rec[1]);
    close(out[1]);
    set_flags(rec[0], 0, 1);
    set_flags(out[0], 0, 1);

    g_wire w;
    size_t got = 0, kept = 0;
    int status = 0, timed_out = 0, out_open = 1, rec_open = 1, spaces = 0;
    char buf[4096];
    double t0 = now_s();
    for (;;) {
        struct pollfd pf[2] = { { out_open ? out[0] : -1, POLLIN, 0 }, { rec_open ? rec[0] : -1, POLLIN, 0 } };
        int ready = poll(pf, 2, out_open || rec_open ? 20 : 1);
        if (ready > 0 && pf[0].revents) {
            ssize_t n = read_some(out[0], buf, sizeof buf);
            if (n > 0) {
                if (verbose) {
                    print_test_output(buf, (size_t)n, &spaces);
                    fflush(stdout);
                }
                keep_output(r, &kept, buf, (size_t)n);
            } else if (n == 0) {
                out_open = 0;
            }
        }
        if (ready > 0 && pf[1].revents) {
            ssize_t n = got < sizeof w ? read_some(rec[0], (char *)&w + got, sizeof w - got) : 0;
            if (n > 0) got += (size_t)n;
            else if (n == 0) rec_open = 0;
        }
        /* exited? (WNOWAIT: the pid stays reserved until the group is killed below) */
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid) break;
        if (now_s() - t0 > timeout_s) {
            timed_out = 1;
            break;
        }
    }
    kill(-pid, SIGKILL);                         /* the test's leftovers, or the test itself on time-out */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    child_group = 0;
    nb_sandbox_kill_descendants();               /* orphans that left the group (an unboxed setsid()) */
    remove_tree(scratch);
    for (ssize_t n; (n = read_some(out[0], buf, sizeof buf)) > 0;) {
        if (verbose) print_test_output(buf, (size_t)n, &spaces);
        keep_output(r, &kept, buf, (size_t)n);
    }
    for (ssize_t n; got < sizeof w && (n = read_some(rec[0], (char *)&w + got, sizeof w - got)) > 0;)
        got += (size_t)n;
    close(rec[0]);
    close(out[0]);
    if (spaces < 0) fputc('\n', stdout);

    if (timed_out) {
        snprintf(r->detail, sizeof r->detail, "timed out after %d s", timeout_s);
    } else if (got == sizeof w && w.magic == WIRE_MAGIC) {
        if (w.suite_init_failed) {
            snprintf(r->detail, sizeof r->detail, "suite initialization failed");
        } else if (w.nfail) {
            /* the message, cut at a word if it must be, then where it failed
             * (always whole) and how many more of the test's checks failed */
            char where[200];
            if (w.nfail > 1)
                snprintf(where, sizeof where, " (%s:%u; %d more failed checks)", w.file, w.line, w.nfail - 1);
            else
                snprintf(where, sizeof where, " (%s:%u)", w.file, w.line);
            size_t room = sizeof r->detail - strlen(where);
            clip_words(r->detail, room, w.cond);
            memcpy(r->detail + strlen(r->detail), where, strlen(where) + 1);
        } else {
            r->status = "PASS";
            r->earned = r->points;
        }
    } else if (WIFSIGNALED(status)) {
        snprintf(r->detail, sizeof r->detail, "crashed: %s in %s/%s", signame(WTERMSIG(status)), g->name,
                 t->name);
    } else if (WIFEXITED(status)) {
        snprintf(r->detail, sizeof r->detail, "exited with status %d inside the test", WEXITSTATUS(status));
    } else {
        snprintf(r->detail, sizeof r->detail, "the test process ended without a result");
    }
}

/* ---- reports ---- */

/* s escaped as the inside of a JSON string (also used for the TSV's text
 * columns): \" \\ \n \t \r, other control characters as \u00XX, invalid
 * UTF-8 bytes as '?'. */
static void json_esc(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        if (c == '"' || c == '\\') { fprintf(f, "\\%c", c); p++; }
        else if (c == '\n') { fputs("\\n", f); p++; }
        else if (c == '\t') { fputs("\\t", f); p++; }
        else if (c == '\r') { fputs("\\r", f); p++; }
        else if (c < 0x20 || c == 0x7f) { fprintf(f, "\\u%04x", c); p++; }
        else if (c < 0x80) { fputc((int)c, f); p++; }
        else {                                   /* a UTF-8 sequence: copy it if well-formed */
            int len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
            int ok = len > 0;
            for (int k = 1; ok && k < len; k++) ok = (p[k] & 0xc0) == 0x80;
            if (ok) { fwrite(p, 1, (size_t)len, f); p += len; }
            else { fputc('?', f); p++; }
        }
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    json_esc(f, s);
    fputc('"', f);
}

/* Write the file atomically: a temporary file in the same directory, flushed
 * and synced, renamed over path.  0, or -1 with errno. */
static FILE *open_tmp(const char *path, char *tmp, size_t len)
{
    snprintf(tmp, len, "%s.tmp.%d", path, (int)getpid());
    return fopen(tmp, "w");
}

static int close_tmp(FILE *f, const char *tmp, const char *path)
{
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (!bad && rename(tmp, path) == 0) return 0;
    int e = errno;
    unlink(tmp);
    errno = e ? e : EIO;
    return -1;
}

/* results/<runner>.tsv (read by check-all: the first line names this run's
 * nonce) and results/<runner>.json.  0, or -1 with a line on stderr. */
static int write_results(const char *runner, int passed, int failed, int skipped, int earned, int possible,
                         int skipped_points, const char *not_graded)
{
    if (getenv("NB_GRADE_NO_RESULTS")) return 0;
    mkdir("results", 0777);
    char path[512], tmp[600];
    snprintf(path, sizeof path, "results/%s.tsv", runner);
    FILE *f = open_tmp(path, tmp, sizeof tmp);
    if (!f) goto fail;
    fprintf(f, "#nb-grade\t%s\tnonce=%s\tsandbox=%s\n", runner, nonce, nb_sandbox_degraded() ? "degraded" : "boxed");
    for (int k = 0; k < nresults; k++) {
        const g_result *r = &results[k];
        const char *text[2] = { r->suite, r->test };
        json_esc(f, runner);
        for (int q = 0; q < 2; q++) { fputc('\t', f); json_esc(f, text[q]); }
        fprintf(f, "\t%s\t%d\t%d\t", r->status, r->earned, r->points);
        json_esc(f, r->detail);
        fputc('\t', f);
        json_esc(f, r->output);
        fprintf(f, "\t%s\n", kind_of(r->kit, r->optional));
    }
    if (close_tmp(f, tmp, path)) goto fail;
    snprintf(path, sizeof path, "results/%s.json", runner);
    if (!(f = open_tmp(path, tmp, sizeof tmp))) goto fail;
    fprintf(f, "{\"runner\": ");
    json_str(f, runner);
    fprintf(f, ", \"graded\": %s, \"not_graded_reason\": ", not_graded ? "false" : "true");
    if (not_graded) json_str(f, not_graded);
    else fputs("null", f);
    fprintf(f, ",\n \"sandbox\": ");
    json_str(f, nb_sandbox_mode());
    fprintf(f, ",\n \"passed\": %d, \"failed\": %d, \"skipped\": %d, \"points\": %d, \"possible\": %d, "
               "\"not_graded_points\": %d,\n \"tests\": [\n", passed, failed, skipped, earned, possible,
            skipped_points);
    for (int k = 0; k < nresults; k++) {
        fprintf(f, "  {\"suite\": ");
        json_str(f, results[k].suite);
        fprintf(f, ", \"test\": ");
        json_str(f, results[k].test);
        fprintf(f, ", \"kind\": \"%s\", \"status\": \"%s\", \"points\": %d, \"earned\": %d, \"detail\": ",
                kind_of(results[k].kit, results[k].optional), results[k].status, results[k].points, results[k].earned);
        json_str(f, results[k].detail);
        fprintf(f, ", \"output\": ");
        json_str(f, results[k].output);
        fprintf(f, "}%s\n", k + 1 < nresults ? "," : "");
    }
    fprintf(f, " ]}\n");
    if (close_tmp(f, tmp, path)) goto fail;
    return 0;
fail:
    fprintf(stderr, "%s: cannot write %s: %s\n", runner, path, strerror(errno));
    return -1;
}

/* suite, test, points, kind (student or kit) per line; names escaped as in
 * the results */
static void list_tests(void)
{
    for (int s = 0; s < nsuites; s++)
        for (const nb_test *t = suites[s].tests; t->name; t++) {
            json_esc(stdout, suites[s].name);
            putchar('\t');
            json_esc(stdout, t->name);
            printf("\t%d\t%s\n", t->points & ~NB_T_FORCES_BIT, kind_of(suites[s].kit, suites[s].optional));
        }
}

int nb_grade_main(const char *runner, int argc, char **argv)
{
    if (ensure_registry()) return 1;
    /* the kit's own checks: the common runner, and each step's "cli" suite
     * (the command line is common/'s): reported apart from the student's points */
    for (int s = 0; s < nsuites; s++)
        suites[s].kit = !strcmp(runner, "common") || !strcmp(suites[s].name, "cli");
    if (argc > 1 && !strcmp(argv[1], "--list")) {
        list_tests();
        CU_cleanup_registry();
        return 0;
    }
    /* a runner knows its tree by the path it was built with (its programs,
     * the workers, the box's mounts): run from a copy of the tree, it would
     * grade the original, so it refuses, and says how to rebuild */
#ifdef NB_TOP_DIR
    char here[PATH_MAX], built[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", here, sizeof here - 1);
    if (len > 0) {
        here[len] = '\0';
        char *slash = strrchr(here, '/');
        if (slash) *slash = '\0';
        if (!realpath(NB_TOP_DIR "/tests", built) || strcmp(here, built)) {
            fprintf(stderr, "%s: this runner was built for the tree at %s, not the one at %s/..: "
                    "rebuild it here (make -C tests clean; make -C tests)\n", runner, NB_TOP_DIR, here);
            return 2;
        }
    }
#endif
    int student_only = argc > 1 && !strcmp(argv[1], "--student");
    if (argc > 1 && argv[1][0] == '-' && !student_only) {
        fprintf(stderr, "usage: %s [SUITE | --student | --list]\n", argv[0]);
        return 2;
    }
    /* optional suite name filter; --student: the suites of the score alone */
    const char *only = argc > 1 && !student_only ? argv[1] : NULL;
    CU_set_fail_on_inactive(CU_FALSE);
    CU_set_error_action(CUEA_IGNORE);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof fwd_signals / sizeof fwd_signals[0]; k++) sigaction(fwd_signals[k], &sa, NULL);
    int timeout_s = test_timeout_s();
    /* the bodies each accelerations test compares with the double sum
     * (nb_ref_sample()), drawn anew in every run: a step's code cannot know
     * them (a loop right on the sampled bodies only fails) */
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed || !seed) {
        fprintf(stderr, "%s: no random seed for the sampled bodies (getrandom: %s)\n", runner,
                strerror(errno));
        return 1;
    }
    nb_ref_sample_seed(seed);
    /* Student code never runs in this process (it runs in workers and
     * programs in the sandbox, nb_remote.h); still, nothing may read this
     * process's memory or descriptors through /proc, and the secret of the
     * check-all run is dropped from the environment children inherit. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);     /* unboxed orphans come back here */
    const char *secret = getenv("NB_GRADE_NONCE");
    if (secret && *secret) snprintf(nonce, sizeof nonce, "%s", secret);
    unsetenv("NB_GRADE_NONCE");
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch_base, sizeof scratch_base, "%s/nbgrade.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(scratch_base) || chmod(scratch_base, 0711)) {
        fprintf(stderr, "%s: cannot make a scratch directory %s: %s\n", runner, scratch_base, strerror(errno));
        return 1;
    }
    const char *v = getenv("NB_VERBOSE");
    verbose = v && *v && strcmp(v, "0");
    printf("== %s ==\n", runner);
    if (verbose || nb_sandbox_degraded()) printf("sandbox: %s\n", nb_sandbox_mode());
    fflush(stdout);
    /* quiet: each skip reason once, with how many tests of which suites */
    struct { const char *why; int tests, points; char suites[200]; } skips[MAX_SUITES];
    int nskips = 0;
    int require_box = nb_sandbox_degraded() && getenv("NB_GRADE_REQUIRE_SANDBOX") &&
                      strcmp(getenv("NB_GRADE_REQUIRE_SANDBOX"), "0");
    const char *not_graded = NULL;                     /* the first skip reason */
    /* NB_GRADE_FIRST_FAILURE=1 (make mutants in CI: is this mistake caught at
     * all?): stop at the first failed test; the results then hold only the
     * tests run, and check-all, which grades every test, unsets it */
    const char *ff = getenv("NB_GRADE_FIRST_FAILURE");
    int first_failure = ff && *ff && strcmp(ff, "0");
    int stopped = 0;
    for (int s = 0; s < nsuites && !stopped; s++) {
        g_suite *g = &suites[s];
        if (only && !strstr(g->name, only)) continue;
        if (student_only && (g->kit || g->optional)) continue;
        for (const nb_test *t = g->tests; t->name && nresults < MAX_TESTS && !stopped; t++) {
            g_result *r = &results[nresults++];
            r->suite = g->name;
            r->kit = g->kit;
            r->optional = g->optional;
            r->test = t->name;
            r->points = t->points & ~NB_T_FORCES_BIT;
            r->earned = 0;
            r->output = NULL;
            if (g->skipped) {
                r->status = "SKIP";
                snprintf(r->detail, sizeof r->detail, "SKIPPED (%s)", g->skip);
                if (verbose)
                    printf("  SKIP   -/%-3d %s/%s: %s\n", t->points & ~NB_T_FORCES_BIT, g->name, t->name, r->detail);
                if (!not_graded) not_graded = g->skip;
                int k = 0;
                while (k < nskips && strcmp(skips[k].why, g->skip)) k++;
                if (k == nskips) {
                    skips[nskips].why = g->skip;
                    skips[nskips].tests = skips[nskips].points = 0;
                    skips[nskips].suites[0] = '\0';
                    nskips++;
                }
                skips[k].tests++;
                skips[k].points += r->points;
                if (!strstr(skips[k].suites, g->name)) {     /* its suites, as many as fit */
                    size_t len = strlen(skips[k].suites), add = strlen(g->name) + 2;
                    if (len + add + 4 < sizeof skips[k].suites)
                        snprintf(skips[k].suites + len, sizeof skips[k].suites - len, "%s%s", len ? ", " : "",
                                 g->name);
                    else if (!strstr(skips[k].suites, ", ..."))
                        snprintf(skips[k].suites + len, sizeof skips[k].suites - len, ", ...");
                }
                continue;
            }
            r->detail[0] = '\0';
            int gate = g->gate && !g->kit && !(t->points & NB_T_FORCES_BIT) ? run_gate(g, timeout_s) : -1;
            if (gate >= 0 && !gates[gate].passed) {
                r->status = "FAIL";                /* not run: a step without forces earns nothing */
                snprintf(r->detail, sizeof r->detail, "not run: %.150s failed first (the gate above)",
                         g->gate_what);
            } else {
                run_test_isolated(g, t, r, timeout_s);
            }
            int fail = strcmp(r->status, "PASS") != 0;
            stopped = fail && first_failure;
            if (!verbose && !fail) continue;
            printf("  %-4s %3d/%-3d %s/%s%s", r->status, r->earned, r->points, r->suite, r->test,
                   fail ? ": " : "");
            if (fail) nb_t_put_text(stdout, r->detail, strlen(r->detail));   /* may quote a program */
            putchar('\n');
            fflush(stdout);
        }
    }
    if (stopped)
        printf("%s: stopped at the first failure (NB_GRADE_FIRST_FAILURE): the tests after it were not run\n",
               runner);
    if (!verbose)
        for (int k = 0; k < nskips; k++)
            printf("  SKIP   %d test%s (%d points) of %s: %s\n", skips[k].tests, skips[k].tests == 1 ? "" : "s",
                   skips[k].points, skips[k].suites, skips[k].why);
    int passed = 0, failed = 0, skipped = 0, earned = 0, possible = 0, skipped_points = 0;
    int kit_earned = 0, kit_possible = 0, kit_failed = 0, opt_earned = 0, opt_possible = 0;
    for (int k = 0; k < nresults; k++) {
        if (results[k].kit) {                       /* the kit's health, not the score */
            kit_possible += results[k].points;
            kit_earned += results[k].earned;
            kit_failed += !strcmp(results[k].status, "FAIL");
        } else if (results[k].optional) {          /* an optional exercise: apart */
            opt_possible += results[k].points;
            opt_earned += results[k].earned;
        } else {
            possible += results[k].points;
            earned += results[k].earned;
        }
        if (!strcmp(results[k].status, "SKIP")) { skipped++; skipped_points += results[k].points; }
        else if (!strcmp(results[k].status, "PASS")) passed++;
        else failed++;
    }
    /* skipped tests earn nothing: the score is out of every point, and says
     * how many of them were not graded and why */
    if (possible && not_graded && !verbose)            /* the reason: said once, on its SKIP line */
        printf("%s: score %d/%d points; NOT GRADED: %d points in %d skipped tests (why: the SKIP line%s above)\n",
               runner, earned, possible, skipped_points, skipped, nskips > 1 ? "s" : "");
    else if (possible && not_graded)
        printf("%s: score %d/%d points; NOT GRADED: %d points in %d skipped tests (%s)\n", runner, earned,
               possible, skipped_points, skipped, not_graded);
    else if (possible)
        printf("%s: score %d/%d points\n", runner, earned, possible);
    if (opt_possible)
        printf("%s: optional exercises %d/%d points (apart: not part of the score)\n", runner, opt_earned,
               opt_possible);
    if (kit_possible)
        printf("%s: the kit's own checks %d/%d points%s\n", runner, kit_earned, kit_possible,
               !kit_failed ? " (not part of the score)"
               : possible ? " (not part of the score): they run this step's program, so a printf or a crash in"
                            " the student's code can fail them as a broken kit can; their FAIL lines say which"
               : ": the KIT is broken here (no student code runs in these checks)");
    printf("%s: %d passed, %d failed, %d skipped\n", runner, passed, failed, skipped);
    int require = not_graded && getenv("NB_GRADE_REQUIRE_GPU") && strcmp(getenv("NB_GRADE_REQUIRE_GPU"), "0");
    if (require) printf("%s: NB_GRADE_REQUIRE_GPU is set and this runner is not graded: exit 1\n", runner);
    if (require_box) printf("%s: NB_GRADE_REQUIRE_SANDBOX is set and the sandbox is degraded: exit 1\n", runner);
    fflush(stdout);
    int unwritten = write_results(runner, passed, failed, skipped, earned, possible, skipped_points, not_graded);
    for (int k = 0; k < nresults; k++) free(results[k].output);
    CU_cleanup_registry();
    remove_tree(scratch_base);
    return failed || require || require_box || unwritten ? 1 : 0;
}
