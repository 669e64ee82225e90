/* worker_step05_tuned.c -- the tables of tests/work_step05_tuned: step05's
 * tuned build (step05_barneshut/tuned, nbody_tuned) and the lesson's --cpu
 * code, the reference its GPU tree suite compares with (the tuned build
 * walks the lesson's cells); and what the tree suite asks of them (see
 * nb_worker.h): the tree as the code built it and the interaction counts of
 * the last force computation.  The grader checks them against its own
 * references (suite_tree.c, suite_tree_tuned.c). */
#include "nb_worker.h"
#include "bh_cpu.h"
#include "tuned.h"

const nb_worker_table nb_worker_tables[] = {
    { "tuned", &nb_step05_tuned }, { "cpu", &nb_step05_cpu }, { NULL, NULL }
};

static int is_cpu(const nb_worker_table *t) { return t->step == &nb_step05_cpu; }

static int ext_tree(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    if (!ctx) return nb_fail(NB_EXIT_RUNTIME, "worker: no step context");
    bh_tree tr;
    int rc = is_cpu(t) ? bh_cpu_tree(ctx, &tr) : bh_tuned_tree(ctx, &tr);
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
    int rc = is_cpu(t) ? bh_cpu_interactions(ctx, &bb, &bc) : bh_tuned_interactions(ctx, &bb, &bc);
    if (rc) return rc;
    nb_wput_i64(out, bb);
    nb_wput_i64(out, bc);
    return 0;
}

const nb_worker_ext nb_worker_exts[] = {
    { "tree", ext_tree }, { "interactions", ext_interactions }, { NULL, NULL }
};
