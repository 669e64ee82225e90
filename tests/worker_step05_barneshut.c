/* worker_step05_barneshut.c -- the tables of tests/work_step05_barneshut (the
 * GPU tree code and its --cpu variant) and what the tree suite asks of them
 * (see nb_worker.h, worker_tree.h): the tree as the code built it, the
 * interaction counts of the last force computation, and the walk's vote
 * (bh_cpu_vote(): one form, the loop; the tuned build's --cpu has a second,
 * tests/worker_step05_tuned.c).  The grader checks all of it against its own
 * references (suite_tree.c). */
#include "nb_worker.h"
#include "bh_cpu.h"
#include "bh_gpu.h"
#include "worker_tree.h"

const nb_worker_table nb_worker_tables[] = {
    { "gpu", &nb_step05_gpu }, { "cpu", &nb_step05_cpu }, { NULL, NULL }
};

static int is_cpu(const nb_worker_table *t) { return t->step == &nb_step05_cpu; }

static int ext_tree(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    return wt_tree(ctx, is_cpu(t) ? bh_cpu_tree : bh_gpu_tree, out);
}

static int ext_interactions(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    return wt_interactions(ctx, is_cpu(t) ? bh_cpu_interactions : bh_gpu_interactions, out);
}

static int ext_vote(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t;
    (void)ctx;
    return wt_vote(in, out, BH_GROUP, bh_cpu_vote, NULL);
}

const nb_worker_ext nb_worker_exts[] = {
    { "tree", ext_tree }, { "interactions", ext_interactions }, { "vote", ext_vote }, { NULL, NULL }
};
