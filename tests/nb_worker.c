/* nb_worker.c -- main() of a step's worker (see nb_worker.h): read a
 * request on descriptor 3, call the step's nb_step function, answer on
 * descriptor 4, until the grader says destroy or closes the pipe.
 *
 * The output buffers handed to the step are poisoned first (NaN, -1), so
 * that a value the step never wrote reaches the grader as such.  The
 * options' strings (--ic, --save, --render) are not passed: a step's
 * functions never read them. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nb_worker.h"

#define REQ 3
#define REP 4

static const nb_worker_table *table;
static const nb_step *step;             /* the table that init ran: table's, or its precision_variant */
static void *ctx;
static int64_t bodies;                  /* n of the state given to init */
static float *masses;                   /* its masses: a step's download() may leave them */

static int need_ctx(void)
{
    return ctx ? 0 : nb_fail(NB_EXIT_RUNTIME, "worker: no step context (init first)");
}

static int read_options(nb_wbuf *in, nb_options *o)
{
    if (nb_wget_bytes(in, o, sizeof *o)) return -1;
    o->ic = "";
    o->save = NULL;
    o->render_dir = NULL;
    return 0;
}

/* step01's plain workers count the blocks the code allocates (tests/nb_fence.c;
 * absent elsewhere): a force or advance call may allocate for good the first
 * time (a buffer kept in the context), never again */
long nb_fence_live(void) __attribute__((weak));
static int called[2];                   /* accel, advance called since init */

static int leak_check(int which, long before)
{
    if (!nb_fence_live) return 0;
    long grew = nb_fence_live() - before;
    if (called[which]++ && grew > 0)
        return nb_fail(NB_EXIT_RUNTIME, "worker: the step's %s() left %ld more blocks allocated than it "
                       "found (a leak in every call)", which ? "advance" : "accel", grew);
    return 0;
}

static long live(void) { return nb_fence_live ? nb_fence_live() : 0; }

static void poison(float *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++) v[i] = NAN;
}

static int op_init(nb_wbuf *in)
{
    nb_options o;
    nb_state s = { 0 };
    if (read_options(in, &o)) return -1;
    int64_t n = nb_wget_i64(in);
    if (in->bad || n < 0 || n > NB_MAX_N || nb_state_alloc(&s, n)) return -1;
    float *f[7] = { s.m, s.x, s.y, s.z, s.vx, s.vy, s.vz };
    for (int q = 0; q < 7; q++)
        if (nb_wget_floats(in, f[q], n)) { nb_state_free(&s); return -1; }
    if (ctx) step->destroy(ctx);
    ctx = NULL;
    called[0] = called[1] = 0;
    /* --precision double or mixed: the table nb_main() would run too */
    step = o.precision != NB_PREC_SINGLE && table->step->precision_variant ? table->step->precision_variant
                                                                            : table->step;
    bodies = n;
    free(masses);
    masses = malloc((size_t)(n ? n : 1) * sizeof *masses);
    if (!masses) { nb_state_free(&s); return nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory"); }
    memcpy(masses, s.m, (size_t)n * sizeof *masses);
    int rc = step->init(&ctx, &s, &o);
    nb_state_free(&s);
    return rc;
}

static int op_accel(nb_wbuf *out)
{
    int rc = need_ctx();
    float *a = rc ? NULL : malloc((size_t)(3 * bodies > 0 ? 3 * bodies : 1) * sizeof *a);
    if (!rc && !a) rc = nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory");
    if (!rc) {
        poison(a, 3 * bodies);
        long before = live();
        rc = step->accel(ctx, a, a + bodies, a + 2 * bodies);
        if (!rc) rc = leak_check(0, before);
        for (int q = 0; q < 3 && !rc; q++) nb_wput_floats(out, a + q * bodies, bodies);
    }
    free(a);
    return rc;
}

static int op_advance(nb_wbuf *in, nb_wbuf *out)
{
    int64_t steps = nb_wget_i64(in), timed = nb_wget_i64(in);
    if (in->bad || steps < 0 || steps > NB_MAX_STEPS) return -1;
    int rc = need_ctx();
    if (rc) return rc;
    nb_step_time *t = NULL;
    if (timed) {
        t = malloc((size_t)(steps ? steps : 1) * sizeof *t);
        if (!t) return nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory");
        for (int64_t k = 0; k < steps; k++) {
            t[k].force_start_ms = t[k].force_ms = t[k].step_ms = -1;
            t[k].interactions = -1;
        }
    }
    long before = live();
    rc = step->advance(ctx, (int)steps, t);
    if (!rc) rc = leak_check(1, before);
    if (!rc && t) {
        nb_wput_i64(out, steps);
        for (int64_t k = 0; k < steps; k++) {
            nb_wput_f64(out, t[k].force_start_ms);
            nb_wput_f64(out, t[k].force_ms);
            nb_wput_f64(out, t[k].step_ms);
            nb_wput_i64(out, t[k].interactions);
        }
    }
    free(t);
    return rc;
}

static int op_download(nb_wbuf *out)
{
    int rc = need_ctx();
    nb_state s = { 0 };
    if (!rc) rc = nb_state_alloc(&s, bodies);
    if (rc) return rc;
    /* the caller's state holds the masses (steps that keep them on the
     * device need not copy them back); positions and velocities poisoned */
    float *f[7] = { s.m, s.x, s.y, s.z, s.vx, s.vy, s.vz };
    memcpy(s.m, masses, (size_t)bodies * sizeof *s.m);
    for (int q = 1; q < 7; q++) poison(f[q], bodies);
    rc = step->download(ctx, &s);
    for (int q = 0; q < 7 && !rc; q++) nb_wput_floats(out, f[q], bodies);
    nb_state_free(&s);
    return rc;
}

/* state64 / accel64 (--precision double, mixed): n doubles per array,
 * poisoned first; a table without them answers NB_EXIT_USAGE. */
static int op_wide(int accel, nb_wbuf *out)
{
    int rc = need_ctx();
    if (rc) return rc;
    const nb_step *st = step;
    if (!(accel ? st->accel64 != NULL : st->state64 != NULL))
        return nb_fail(NB_EXIT_USAGE, "worker: the step has no %s()", accel ? "accel64" : "state64");
    int k = accel ? 3 : 6;
    double *v = malloc((size_t)(k * bodies > 0 ? k * bodies : 1) * sizeof *v);
    if (!v) return nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory");
    for (int64_t i = 0; i < k * bodies; i++) v[i] = NAN;
    double *p[6];
    for (int q = 0; q < 6; q++) p[q] = v + (q % k) * bodies;
    rc = accel ? st->accel64(ctx, p[0], p[1], p[2]) : st->state64(ctx, p[0], p[1], p[2], p[3], p[4], p[5]);
    for (int q = 0; q < k && !rc; q++) nb_wput_doubles(out, p[q], bodies);
    free(v);
    return rc;
}

static int op_report(nb_wbuf *out)
{
    int rc = need_ctx();
    if (rc) return rc;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory");
    if (step->report) step->report(ctx, f);
    fclose(f);
    nb_wput_str(out, text ? text : "");
    free(text);
    return 0;
}

static int op_cells(nb_wbuf *out)
{
    int rc = need_ctx();
    if (rc) return rc;
    if (!step->cells) return nb_fail(NB_EXIT_USAGE, "worker: the step has no cells()");
    nb_cells c;
    if ((rc = step->cells(ctx, &c))) return rc;
    nb_wput_i64(out, c.count);
    const float *f[4] = { c.cx, c.cy, c.cz, c.half };
    for (int q = 0; q < 4; q++) nb_wput_floats(out, f[q], c.count);
    return 0;
}

static int op_ext(nb_wbuf *in, nb_wbuf *out)
{
    const char *name = nb_wget_str(in);
    if (in->bad) return -1;
    for (const nb_worker_ext *e = nb_worker_exts; e->name; e++)
        if (!strcmp(e->name, name)) return e->fn(table, ctx, in, out);
    return nb_fail(NB_EXIT_USAGE, "worker: no extension '%.60s'", name);
}

/* One request; -1: the request itself was malformed. */
static int serve(const nb_wire_hdr *h, nb_wbuf *in, nb_wbuf *out)
{
    if (h->op != NB_OP_HELLO && !table) return nb_fail(NB_EXIT_RUNTIME, "worker: no table (hello first)");
    switch (h->op) {
    case NB_OP_HELLO: {
        const char *key = nb_wget_str(in);
        if (in->bad) return -1;
        for (const nb_worker_table *t = nb_worker_tables; t->key; t++)
            if (!strcmp(t->key, key)) table = t;
        if (!table) return nb_fail(NB_EXIT_USAGE, "worker: no table '%.60s'", key);
        nb_wput_str(out, table->step->name);
        nb_wput_i64(out, table->step->options);
        nb_wput_i64(out, table->step->tree);
        return 0;
    }
    case NB_OP_PROBE: {
        nb_options o;
        int64_t has = nb_wget_i64(in);
        if (in->bad || (has && read_options(in, &o))) return -1;
        return table->step->probe ? table->step->probe(has ? &o : NULL) : 0;
    }
    case NB_OP_INIT: return op_init(in);
    case NB_OP_ACCEL: return op_accel(out);
    case NB_OP_ADVANCE: return op_advance(in, out);
    case NB_OP_DOWNLOAD: return op_download(out);
    case NB_OP_INFO: {
        int rc = need_ctx();
        nb_run_info info;
        memset(&info, 0, sizeof info);
        if (!rc && step->info) step->info(ctx, &info);
        if (!rc) nb_wput_bytes(out, &info, sizeof info);
        return rc;
    }
    case NB_OP_REPORT: return op_report(out);
    case NB_OP_CELLS: return op_cells(out);
    case NB_OP_DESTROY:
        if (ctx) step->destroy(ctx);
        ctx = NULL;
        return 0;
    case NB_OP_EXT: return op_ext(in, out);
    case NB_OP_STATE64: return op_wide(0, out);
    case NB_OP_ACCEL64: return op_wide(1, out);
    default: return nb_fail(NB_EXIT_USAGE, "worker: unknown request %u", h->op);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);                   /* a grader gone: the write fails, we leave */
    nb_wbuf in = { 0 }, data = { 0 }, out = { 0 };
    for (;;) {
        nb_wire_hdr h;
        if (nb_wire_recv(REQ, &h, &in, NB_WIRE_MAX)) break;
        data.len = 0;
        data.bad = 0;
        nb_clear_error();
        int rc = serve(&h, &in, &data);
        if (rc < 0) rc = nb_fail(NB_EXIT_USAGE, "worker: malformed request %u", h.op);
        if (!rc && data.bad) rc = nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory for the reply");
        out.len = 0;
        out.bad = 0;
        nb_wput_str(&out, rc ? nb_errmsg() : "");
        if (!rc && data.len) nb_wput_raw(&out, data.p, data.len);
        if (nb_wire_send(REP, h.op, rc, &out)) break;
        if (h.op == NB_OP_DESTROY) break;
    }
    nb_wbuf_free(&in);
    nb_wbuf_free(&data);
    nb_wbuf_free(&out);
    return 0;
}
