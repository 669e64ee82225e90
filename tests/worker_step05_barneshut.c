/* worker_step05_barneshut.c -- the tables of tests/work_step05_barneshut (the
 * GPU tree code and its --cpu variant) and what the tree suite asks of them
 * (see nb_worker.h): the tree as the code built it, the interaction counts
 * of the last force computation, and the walk's vote (bh_cpu_vote(): one
 * form, the loop; the tuned build's --cpu has a second, tests/worker_step05_tuned.c).
 * The grader checks all of it against its own references (suite_tree.c). */
#include <stdlib.h>
#include <string.h>
#include "nb_worker.h"
#include "bh_cpu.h"
#include "bh_gpu.h"

const nb_worker_table nb_worker_tables[] = {
    { "gpu", &nb_step05_gpu }, { "cpu", &nb_step05_cpu }, { NULL, NULL }
};

static int is_cpu(const nb_worker_table *t) { return t->step == &nb_step05_cpu; }

static int ext_tree(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    if (!ctx) return nb_fail(NB_EXIT_RUNTIME, "worker: no step context");
    bh_tree tr;
    int rc = is_cpu(t) ? bh_cpu_tree(ctx, &tr) : bh_gpu_tree(ctx, &tr);
    if (rc) return rc;
    nb_wput_i64(out, tr.n);
    nb_wput_i64(out, tr.ncells);
    nb_wput_i64(out, tr.depth);
    nb_wput_ints(out, tr.child, 8 * tr.ncells);
    nb_wput_ints(out, tr.chain, tr.n);
    const float *f[8] = { tr.cx, tr.cy, tr.cz, tr.half, tr.mx, tr.my, tr.mz, tr.m };
    for (int q = 0; q < 8; q++) nb_wput_floats(out, f[q], tr.ncells);
    nb_wput_bytes(out, tr.count, (size_t)tr.ncells * sizeof *tr.count);
    bh_tree_free(&tr);
    return 0;
}

static int ext_interactions(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    if (!ctx) return nb_fail(NB_EXIT_RUNTIME, "worker: no step context");
    int64_t bb = -1, bc = -1;
    int rc = is_cpu(t) ? bh_cpu_interactions(ctx, &bb, &bc) : bh_gpu_interactions(ctx, &bb, &bc);
    if (rc) return rc;
    nb_wput_i64(out, bb);
    nb_wput_i64(out, bc);
    return 0;
}

/* in: K, then K cases of x, y, z (BH_GROUP floats each) and mx, my, mz,
 * open2; out: whether a second (AVX-512) form is built (0: the lesson has
 * one form), then the K answers of the loop and the K answers of the second
 * form (the loop's again). */
static int ext_vote(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t;
    (void)ctx;
    int64_t k = nb_wget_i64(in);
    if (in->bad || k < 0 || k > 1000000) return nb_fail(NB_EXIT_USAGE, "worker: vote: bad count");
    int *loop = malloc((size_t)(k ? k : 1) * sizeof *loop), *wide = malloc((size_t)(k ? k : 1) * sizeof *wide);
    if (!loop || !wide) { free(loop); free(wide); return nb_fail(NB_EXIT_RUNTIME, "worker: out of memory"); }
    for (int64_t c = 0; c < k; c++) {
        _Alignas(64) float x[BH_GROUP], y[BH_GROUP], z[BH_GROUP];
        float m[4];
        nb_wget_floats(in, x, BH_GROUP);
        nb_wget_floats(in, y, BH_GROUP);
        nb_wget_floats(in, z, BH_GROUP);
        nb_wget_floats(in, m, 4);
        if (in->bad) break;
        loop[c] = bh_cpu_vote(x, y, z, m[0], m[1], m[2], m[3]);
        wide[c] = loop[c];
    }
    int rc = in->bad ? nb_fail(NB_EXIT_USAGE, "worker: vote: malformed cases") : 0;
    if (!rc) {
        nb_wput_i64(out, 0);
        nb_wput_ints(out, loop, k);
        nb_wput_ints(out, wide, k);
    }
    free(loop);
    free(wide);
    return rc;
}

const nb_worker_ext nb_worker_exts[] = {
    { "tree", ext_tree }, { "interactions", ext_interactions }, { "vote", ext_vote }, { NULL, NULL }
};
