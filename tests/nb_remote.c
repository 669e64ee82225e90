/* nb_remote.c -- a step's nb_step table run in its sandboxed worker (see
 * nb_remote.h).  The table's functions are trampolines: init() and probe()
 * get no context, so each table slot has its own pair that knows its slot;
 * every other function finds the worker in its context.  The worker's
 * stdout and stderr go to one file without a name (memfd), read back with
 * pread(): the worker, which writes in the scratch directory, cannot put
 * anything in the place of the next worker's output. */
#define _GNU_SOURCE
#include "nb_remote.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <CUnit/CUnit.h>
#include "nb_sandbox.h"
#include "nb_testutil.h"

#define MAX_TABLES 8
#define PRINT_CAP 6000               /* bytes of a worker's output shown under a test */

typedef struct rtable {
    nb_step step;
    const char *worker;
    nb_remote_spec spec;
} rtable;

static rtable tables[MAX_TABLES];
static int ntables;

typedef struct rctx {
    const rtable *t;
    pid_t outer;                     /* the box's outer process */
    int req, rep;                    /* requests out, replies in */
    int out;                         /* the worker's stdout and stderr (a file without a name) */
    char dir[600];                   /* its scratch directory */
    off_t shown;                     /* bytes of it already shown */
    size_t printed;
    int64_t n;                       /* bodies of the state given to init */
    int dead;                        /* the worker is gone: every call fails with death */
    char death[700];
} rctx;

/* ---- the worker's output, shown under the test ---- */

/* n bytes of the output, each line behind "       | ", escaped as
 * nb_t_show() does (a line may go on in the next call) */
static void print_clean(const char *p, size_t n, int *at_line_start)
{
    for (size_t i = 0; i < n;) {
        if (*at_line_start) { fputs("       | ", stdout); *at_line_start = 0; }
        const char *nl = memchr(p + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (p + i)) : n - i;
        nb_t_put_text(stdout, p + i, len);
        i += len;
        if (nl) { fputc('\n', stdout); *at_line_start = 1; i++; }
    }
}

static void show_output(rctx *r, int last)
{
    if (r->out < 0) return;
    char buf[4096];
    int at_line_start = 1;
    for (;;) {
        ssize_t n = pread(r->out, buf, sizeof buf, r->shown);
        if (n <= 0) break;
        r->shown += n;
        size_t room = r->printed < PRINT_CAP ? PRINT_CAP - r->printed : 0;
        size_t k = (size_t)n < room ? (size_t)n : room;
        print_clean(buf, k, &at_line_start);
        r->printed += (size_t)n;
    }
    if (!at_line_start) fputc('\n', stdout);
    if (last && r->printed > PRINT_CAP)
        printf("       | ... (%zu more bytes of the step's output not shown)\n", r->printed - PRINT_CAP);
    fflush(stdout);
}

/* The first line of the worker's output that reports a failure (a sanitizer,
 * the sandbox), else its last line; "" if none. */
static void report_line(rctx *r, char *line, size_t len)
{
    static const char *const marks[] = { "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                         "runtime error:", "SUMMARY: ThreadSanitizer:", "FATAL: ThreadSanitizer",
                                         "nb_sandbox:", "ERROR:", NULL };
    char buf[65536];
    line[0] = '\0';
    if (r->out < 0) return;
    ssize_t n = pread(r->out, buf, sizeof buf - 1, 0);
    if (n <= 0) return;
    buf[n] = '\0';
    const char *hit = NULL;
    for (int k = 0; marks[k] && !hit; k++) hit = strstr(buf, marks[k]);
    if (hit) {
        while (hit > buf && hit[-1] != '\n') hit--;
    } else {
        char *end = buf + n;
        while (end > buf && (end[-1] == '\n' || end[-1] == ' ')) *--end = '\0';
        hit = end;
        while (hit > buf && hit[-1] != '\n') hit--;
    }
    size_t k = strcspn(hit, "\n");
    snprintf(line, len, "%.*s", (int)(k < len - 1 ? k : len - 1), hit);
    for (char *p = line; *p; p++)               /* the reason, in the grade line: escaped there too */
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
}

static const char *signame(int sig)
{
    static char buf[40];
    const char *s = sigabbrev_np(sig);
    snprintf(buf, sizeof buf, "SIG%s", s ? s : "?");
    return buf;
}

/* Wait for the box to end (at most secs seconds, then kill it): its code. */
static int reap(rctx *r, double secs)
{
    if (r->outer <= 0) return -1;
    int st = 0;
    for (double waited = 0;; waited += 0.01) {
        pid_t w = waitpid(r->outer, &st, WNOHANG);
        if (w == r->outer) break;
        if (w < 0 && errno != EINTR) { r->outer = -1; return -1; }
        if (waited >= secs) {
            kill(r->outer, SIGKILL);
            while (waitpid(r->outer, &st, 0) < 0 && errno == EINTR) {}
            break;
        }
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    r->outer = -1;
    nb_sandbox_unlink_links(r->dir);            /* the box has ended: its links go */
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

static void describe_code(int code, char *buf, size_t len)
{
    if (code > 128 && code < 128 + 65) snprintf(buf, len, "was killed by %s", signame(code - 128));
    else if (code == 125) snprintf(buf, len, "could not be started in the sandbox");
    else if (code == 127) snprintf(buf, len, "could not be started");
    else if (code < 0) snprintf(buf, len, "ended");
    else snprintf(buf, len, "exited with status %d", code);
}

/* The worker is gone or broke the protocol (then it is killed): every later
 * call fails with the reason. */
static int dead(rctx *r, const char *during, const char *broke)
{
    if (r->dead) return nb_fail(NB_EXIT_RUNTIME, "%s", r->death);
    if (broke && r->outer > 0) kill(r->outer, SIGKILL);
    int code = reap(r, broke ? 0 : 3);
    char how[80], line[300];
    describe_code(code, how, sizeof how);
    report_line(r, line, sizeof line);
    if (broke)
        snprintf(r->death, sizeof r->death, "the step's process broke the protocol during %s (%s)", during, broke);
    else
        snprintf(r->death, sizeof r->death, "the step's process %s during %s%s%.300s", how, during,
                 line[0] ? ": " : "", line);
    r->dead = 1;
    show_output(r, 0);
    return nb_fail(NB_EXIT_RUNTIME, "%s", r->death);
}

static const char *op_name(uint32_t op)
{
    static const char *const names[] = { "?", "hello", "probe", "init", "accel", "advance", "download",
                                         "info", "report", "cells", "destroy", "an extension", "state64",
                                         "accel64" };
    return op < sizeof names / sizeof *names ? names[op] : "?";
}

/* One request and its reply; the reply's data is left in *reply after the
 * message.  0, or the worker's code with its message. */
static int call(rctx *r, uint32_t op, const nb_wbuf *args, nb_wbuf *reply, uint64_t max)
{
    if (r->dead) return nb_fail(NB_EXIT_RUNTIME, "%s", r->death);
    nb_wbuf none = { 0 };
    if (nb_wire_send(r->req, op, 0, args ? args : &none)) return dead(r, op_name(op), NULL);
    nb_wire_hdr h;
    if (nb_wire_recv(r->rep, &h, reply, max)) {
        if (h.magic == NB_WIRE_MAGIC && h.len > max) return dead(r, op_name(op), "a reply too large");
        return dead(r, op_name(op), NULL);
    }
    if (h.op != op) return dead(r, op_name(op), "a reply to another request");
    const char *msg = nb_wget_str(reply);
    if (reply->bad) return dead(r, op_name(op), "no message in the reply");
    show_output(r, 0);
    if (h.rc) return nb_fail(h.rc, "%s", msg[0] ? msg : "failed without a message");
    return 0;
}

static uint64_t max_reply(int64_t n) { return (uint64_t)(n + 4096) * 512; }

static int start(rctx *r)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    r->req = r->rep = r->out = -1;
    r->outer = -1;
    signal(SIGPIPE, SIG_IGN);                       /* a dead worker's pipe: EPIPE, not death */
    r->out = memfd_create("nb-worker.out", MFD_CLOEXEC);   /* no name the box could take */
    if (r->out >= 0 && fcntl(r->out, F_SETFL, O_APPEND) != 0) {
        close(r->out);
        r->out = -1;
    }
    int req[2], rep[2];
    if (r->out < 0 || pipe2(req, O_CLOEXEC)) {
        r->dead = 1;
        snprintf(r->death, sizeof r->death, "the grader cannot start the step's process: %s", strerror(errno));
        return nb_fail(NB_EXIT_RUNTIME, "%s", r->death);
    }
    if (pipe2(rep, O_CLOEXEC)) {
        close(req[0]); close(req[1]);
        r->dead = 1;
        snprintf(r->death, sizeof r->death, "the grader cannot start the step's process: %s", strerror(errno));
        return nb_fail(NB_EXIT_RUNTIME, "%s", r->death);
    }
    char *argv[] = { (char *)r->t->worker, NULL };
    nb_sandbox_io io = { -1, r->out, r->out, req[0], rep[1], dir };
    r->outer = nb_sandbox_spawn(argv, &io);
    close(req[0]);
    close(rep[1]);
    r->req = req[1];
    r->rep = rep[0];
    if (r->outer < 0) return dead(r, "its start", NULL);
    nb_wbuf a = { 0 }, b = { 0 };
    nb_wput_str(&a, r->t->spec.key);
    int rc = call(r, NB_OP_HELLO, &a, &b, 1 << 16);
    nb_wbuf_free(&a);
    nb_wbuf_free(&b);
    return rc;
}

static void close_ctx(rctx *r)
{
    if (r->req >= 0) close(r->req);
    if (r->rep >= 0) close(r->rep);
    r->req = r->rep = -1;
}

static void free_ctx(rctx *r)
{
    close_ctx(r);
    if (r->out >= 0) close(r->out);
    free(r);
}

/* destroy, then how the worker ended (see nb_remote_finish) */
static int finish(rctx *r, char *why, size_t len)
{
    int ok = 1;
    char how[80] = "", line[300] = "";
    if (!r->dead) {
        nb_wbuf b = { 0 };
        int rc = call(r, NB_OP_DESTROY, NULL, &b, 1 << 16);
        nb_wbuf_free(&b);
        if (r->dead) ok = 0;
        else if (rc) { ok = 0; snprintf(how, sizeof how, "failed to destroy its context (%d)", rc); }
        close_ctx(r);
        int code = reap(r, 10);
        if (ok && code != 0) { ok = 0; describe_code(code, how, sizeof how); }
    } else {
        ok = 0;
    }
    report_line(r, line, sizeof line);
    if (ok && (strstr(line, "Sanitizer") || strstr(line, "runtime error:"))) {
        ok = 0;
        snprintf(how, sizeof how, "reported an error");
    }
    show_output(r, 1);
    if (why && len) {
        if (ok) snprintf(why, len, "ok");
        else if (r->dead) snprintf(why, len, "%s", r->death);
        else snprintf(why, len, "the step's process %s%s%.300s", how, line[0] ? ": " : "", line);
    }
    return ok ? 0 : -1;
}

/* ---- the table's functions ---- */

static int r_init(const rtable *t, void **ctx, const nb_state *s, const nb_options *o)
{
    rctx *r = calloc(1, sizeof *r);
    *ctx = r;
    if (!r) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    r->t = t;
    r->n = s->n;
    int rc = start(r);
    if (rc) return rc;
    nb_wbuf a = { 0 }, b = { 0 };
    nb_wput_bytes(&a, o, sizeof *o);
    nb_wput_i64(&a, s->n);
    const float *f[7] = { s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz };
    for (int q = 0; q < 7; q++) nb_wput_floats(&a, f[q], s->n);
    rc = a.bad ? nb_fail(NB_EXIT_RUNTIME, "out of host memory") : call(r, NB_OP_INIT, &a, &b, 1 << 20);
    nb_wbuf_free(&a);
    nb_wbuf_free(&b);
    return rc;
}

static int r_probe(const rtable *t, const nb_options *o)
{
    return t->spec.probe ? t->spec.probe(o) : 0;
}

static int r_accel(void *ctx, float *ax, float *ay, float *az)
{
    rctx *r = ctx;
    nb_wbuf b = { 0 };
    int rc = call(r, NB_OP_ACCEL, NULL, &b, max_reply(r->n));
    if (!rc && (nb_wget_floats(&b, ax, r->n) || nb_wget_floats(&b, ay, r->n) || nb_wget_floats(&b, az, r->n)))
        rc = dead(r, "accel", "not N accelerations");
    nb_wbuf_free(&b);
    return rc;
}

static int r_advance(void *ctx, int steps, nb_step_time *times)
{
    rctx *r = ctx;
    nb_wbuf a = { 0 }, b = { 0 };
    nb_wput_i64(&a, steps);
    nb_wput_i64(&a, times != NULL);
    int rc = call(r, NB_OP_ADVANCE, &a, &b, max_reply(steps));
    if (!rc && times) {
        if (nb_wget_i64(&b) != steps) rc = dead(r, "advance", "not one record per step");
        for (int k = 0; !rc && k < steps; k++) {
            times[k].force_start_ms = nb_wget_f64(&b);
            times[k].force_ms = nb_wget_f64(&b);
            times[k].step_ms = nb_wget_f64(&b);
            times[k].interactions = nb_wget_i64(&b);
        }
        if (!rc && b.bad) rc = dead(r, "advance", "malformed time records");
    }
    nb_wbuf_free(&a);
    nb_wbuf_free(&b);
    return rc;
}

static int r_download(void *ctx, nb_state *s)
{
    rctx *r = ctx;
    nb_wbuf b = { 0 };
    int rc = s->n != r->n ? nb_fail(NB_EXIT_RUNTIME, "download into %lld bodies, not %lld", (long long)s->n,
                                    (long long)r->n)
                          : call(r, NB_OP_DOWNLOAD, NULL, &b, max_reply(r->n));
    float *f[7] = { s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz };
    for (int q = 0; q < 7 && !rc; q++)
        if (nb_wget_floats(&b, f[q], r->n)) rc = dead(r, "download", "not N bodies");
    nb_wbuf_free(&b);
    return rc;
}

static int r_state64(void *ctx, double *x, double *y, double *z, double *vx, double *vy, double *vz)
{
    rctx *r = ctx;
    nb_wbuf b = { 0 };
    int rc = call(r, NB_OP_STATE64, NULL, &b, max_reply(r->n));
    double *v[6] = { x, y, z, vx, vy, vz };
    for (int q = 0; q < 6 && !rc; q++)
        if (nb_wget_doubles(&b, v[q], r->n)) rc = dead(r, "state64", "not N bodies in double");
    nb_wbuf_free(&b);
    return rc;
}

static int r_accel64(void *ctx, double *ax, double *ay, double *az)
{
    rctx *r = ctx;
    nb_wbuf b = { 0 };
    int rc = call(r, NB_OP_ACCEL64, NULL, &b, max_reply(r->n));
    if (!rc && (nb_wget_doubles(&b, ax, r->n) || nb_wget_doubles(&b, ay, r->n) || nb_wget_doubles(&b, az, r->n)))
        rc = dead(r, "accel64", "not N accelerations in double");
    nb_wbuf_free(&b);
    return rc;
}

static void r_info(void *ctx, nb_run_info *info)
{
    rctx *r = ctx;
    nb_wbuf b = { 0 };
    memset(info, 0, sizeof *info);
    if (!call(r, NB_OP_INFO, NULL, &b, 1 << 16) && nb_wget_bytes(&b, info, sizeof *info))
        memset(info, 0, sizeof *info);
    info->device[sizeof info->device - 1] = '\0';
    nb_wbuf_free(&b);
}

static void r_report(void *ctx, FILE *out)
{
    rctx *r = ctx;
    nb_wbuf b = { 0 };
    if (!call(r, NB_OP_REPORT, NULL, &b, 1 << 20)) {
        const char *text = nb_wget_str(&b);
        if (!b.bad) fputs(text, out);
    }
    nb_wbuf_free(&b);
}

static int r_cells(void *ctx, nb_cells *c)
{
    (void)ctx;
    (void)c;
    return nb_fail(NB_EXIT_USAGE, "cells() is not forwarded to the grader");
}

static void r_destroy(void *ctx)
{
    rctx *r = ctx;
    if (!r) return;
    char why[800];
    if (r->t && finish(r, why, sizeof why)) {
        /* a step that fails at its end (a crash in destroy, a sanitizer's
         * report at exit) fails the test that ran it */
        char msg[900];
        snprintf(msg, sizeof msg, "%s: %s", r->t->spec.name, why);
        printf("       %s\n", msg);
        CU_assertImplementation(CU_FALSE, __LINE__, msg, __FILE__, "", CU_FALSE);
    }
    free_ctx(r);
}

#define SLOT(k)                                                                                    \
    static int init_##k(void **c, const nb_state *s, const nb_options *o) { return r_init(&tables[k], c, s, o); } \
    static int probe_##k(const nb_options *o) { return r_probe(&tables[k], o); }
SLOT(0) SLOT(1) SLOT(2) SLOT(3) SLOT(4) SLOT(5) SLOT(6) SLOT(7)
static int (*const inits[MAX_TABLES])(void **, const nb_state *, const nb_options *) = {
    init_0, init_1, init_2, init_3, init_4, init_5, init_6, init_7 };
static int (*const probes[MAX_TABLES])(const nb_options *) = {
    probe_0, probe_1, probe_2, probe_3, probe_4, probe_5, probe_6, probe_7 };

const nb_step *nb_remote(const char *worker, const nb_remote_spec *spec)
{
    if (ntables == MAX_TABLES) {
        fprintf(stderr, "nb_remote: more than %d tables\n", MAX_TABLES);
        exit(2);
    }
    rtable *t = &tables[ntables];
    t->worker = worker;
    t->spec = *spec;
    nb_step *s = &t->step;
    memset(s, 0, sizeof *s);
    s->name = spec->name;
    s->idea = "";
    s->options = spec->options;
    s->tree = spec->tree;
    s->probe = spec->probe ? probes[ntables] : NULL;
    s->init = inits[ntables];
    s->accel = r_accel;
    s->advance = r_advance;
    s->download = r_download;
    s->info = r_info;
    s->report = r_report;
    s->cells = r_cells;
    s->destroy = r_destroy;
    if (spec->options & NB_OPT_PRECISION) {   /* --precision double, mixed: the unrounded state */
        s->state64 = r_state64;
        s->accel64 = r_accel64;
    }
    ntables++;
    return s;
}

void nb_remote_set_variant(const nb_step *table, const nb_step *variant)
{
    for (int k = 0; k < ntables; k++)
        if (&tables[k].step == table) tables[k].step.cpu_variant = variant;
}

int nb_remote_ext(void *ctx, const char *name, const nb_wbuf *args, nb_wbuf *reply)
{
    rctx *r = ctx;
    nb_wbuf a = { 0 };
    nb_wput_str(&a, name);
    if (args && args->len) nb_wput_raw(&a, args->p, args->len);
    reply->len = reply->pos = 0;
    int rc = call(r, NB_OP_EXT, &a, reply, max_reply(r->n) * 4);
    nb_wbuf_free(&a);
    return rc;
}

pid_t nb_remote_pid(void *ctx)
{
    rctx *r = ctx;
    return r && r->outer > 0 ? nb_sandbox_program(r->outer) : -1;
}

int nb_remote_finish(void *ctx, char *why, size_t len)
{
    rctx *r = ctx;
    int rc = finish(r, why, len);
    r->t = NULL;                 /* finished: destroy() only frees */
    free_ctx(r);
    return rc;
}
