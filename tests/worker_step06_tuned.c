/* worker_step06_tuned.c -- the tables of tests/work_step06_tuned: step06's
 * tuned build (step06_multigpu/tuned, nbody_tuned), step05's tuned build,
 * which it must equal bit for bit, and "split", a table with no GPU whose
 * one use is the extension "split": the walk's split by cost (tmg_split(),
 * host C), which the grader checks without a GPU; and what the suite asks
 * of them (see nb_worker.h). */
#include <stdlib.h>
#include "nb_worker.h"
#include "mg.h"
#include "tmg.h"
#include "tuned.h"

/* "split": nothing to compute, a context to call the extension on */
static int split_init(void **ctx, const nb_state *s, const nb_options *o)
{
    (void)s; (void)o;
    static int here;
    *ctx = &here;
    return 0;
}
static void split_destroy(void *ctx) { (void)ctx; }
static const nb_step split_table = {
    .name = "step06_tuned_split", .idea = "the walk's split by cost (tmg_split)",
    .init = split_init, .destroy = split_destroy,
};

const nb_worker_table nb_worker_tables[] = {
    { "tuned", &nb_step06_tuned }, { "tuned05", &nb_step05_tuned }, { "split", &split_table },
    { NULL, NULL }
};

static int ext_device_count(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t; (void)ctx; (void)in;
    nb_wput_i64(out, mg_device_count());
    return 0;
}

/* the interaction counts of the last force computation, the GPUs of the
 * run and the split of its walk (P + 1 bounds) */
static int ext_interactions(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    if (!ctx || t->step != &nb_step06_tuned) return nb_fail(NB_EXIT_RUNTIME, "worker: no step06 tuned context");
    int64_t bb = -1, bc = -1;
    int rc = tmg_interactions(ctx, &bb, &bc);
    if (rc) return rc;
    int P = tmg_gpus(ctx);
    int64_t *b = calloc((size_t)P + 1, sizeof *b);
    if (!b) return nb_fail(NB_EXIT_RUNTIME, "worker: out of host memory");
    tmg_walk_split(ctx, b);
    nb_wput_i64(out, bb);
    nb_wput_i64(out, bc);
    nb_wput_i64(out, P);
    for (int r = 0; r <= P; r++) nb_wput_i64(out, b[r]);
    free(b);
    return 0;
}

/* in: ngroups, P, a flag (1: costs follow), ngroups costs; out: P + 1 bounds */
static int ext_split(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t; (void)ctx;
    int64_t ng = nb_wget_i64(in), P = nb_wget_i64(in), has = nb_wget_i64(in);
    if (in->bad || ng < 0 || ng > (1 << 24) || P < 1 || P > 1024)
        return nb_fail(NB_EXIT_USAGE, "worker: split: bad arguments");
    float *c = has ? malloc((size_t)(ng ? ng : 1) * sizeof *c) : NULL;
    int64_t *b = calloc((size_t)P + 1, sizeof *b);
    if (!b || (has && !c) || (has && nb_wget_floats(in, c, ng))) {
        free(c);
        free(b);
        return nb_fail(NB_EXIT_RUNTIME, "worker: split: out of memory or short arguments");
    }
    tmg_split(c, ng, (int)P, b);
    for (int r = 0; r <= P; r++) nb_wput_i64(out, b[r]);
    free(c);
    free(b);
    return 0;
}

const nb_worker_ext nb_worker_exts[] = {
    { "device_count", ext_device_count }, { "interactions", ext_interactions }, { "split", ext_split },
    { NULL, NULL }
};
