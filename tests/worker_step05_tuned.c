/* worker_step05_tuned.c -- the tables of tests/work_step05_tuned: step05's
 * tuned build (step05_barneshut/tuned, nbody_tuned), its GPU code and its
 * --cpu variant (also the reference its GPU tree suite compares with: the
 * same tree, the same cells accepted); and what the tree suite asks of them
 * (see nb_worker.h, worker_tree.h): the tree as the code built it, the
 * interaction counts of the last force computation, and the CPU walk's vote
 * in both of its forms (bh_cpu_vote.h).  The grader checks them against its
 * own references (suite_tree.c, suite_tree_tuned.c). */
#include "nb_worker.h"
#include "bh_cpu_vote.h"
#include "tuned.h"
#include "worker_tree.h"

const nb_worker_table nb_worker_tables[] = {
    { "tuned", &nb_step05_tuned }, { "cpu", &nb_step05_tuned_cpu }, { NULL, NULL }
};

static int is_cpu(const nb_worker_table *t) { return t->step == &nb_step05_tuned_cpu; }

static int ext_tree(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    return wt_tree(ctx, is_cpu(t) ? bh_tuned_cpu_tree : bh_tuned_tree, out);
}

static int ext_interactions(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    return wt_interactions(ctx, is_cpu(t) ? bh_tuned_cpu_interactions : bh_tuned_interactions, out);
}

static int ext_vote(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t;
    (void)ctx;
#if defined(__AVX512F__)
    return wt_vote(in, out, BH_GROUP, bh_vote_loop, bh_vote_avx512);
#else
    return wt_vote(in, out, BH_GROUP, bh_vote_loop, NULL);
#endif
}

const nb_worker_ext nb_worker_exts[] = {
    { "tree", ext_tree }, { "interactions", ext_interactions }, { "vote", ext_vote }, { NULL, NULL }
};
