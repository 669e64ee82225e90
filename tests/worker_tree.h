/* worker_tree.h -- what the tree suites ask of a worker of a tree code
 * (worker_step05_barneshut.c, worker_step05_tuned.c), written once: the
 * tree as the code built it, the interaction counts of the last force
 * computation, and the walk's vote on a cell in its one or two forms.  Each
 * worker says which code answers (its accessors and vote functions); the
 * grader checks the answers against its own references (suite_tree.c,
 * suite_tree_tuned.c).  Included by those two files only. */
#ifndef WORKER_TREE_H
#define WORKER_TREE_H
#include <stdlib.h>
#include "nb_worker.h"
#include "bh_tree.h"
#include "bh_tree_copy.h"

/* the code's answers: its tree, its last interaction counts */
typedef int (*wt_tree_fn)(void *ctx, bh_tree *t);
typedef int (*wt_count_fn)(void *ctx, int64_t *bb, int64_t *bc);
/* the walk's test of a cell against a group of 'group' bodies */
typedef int (*wt_vote_fn)(const float *x, const float *y, const float *z, float mx, float my, float mz,
                          float open2);

static int wt_tree(void *ctx, wt_tree_fn get, nb_wbuf *out)
{
    if (!ctx) return nb_fail(NB_EXIT_RUNTIME, "worker: no step context");
    bh_tree tr;
    int rc = get(ctx, &tr);
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

static int wt_interactions(void *ctx, wt_count_fn get, nb_wbuf *out)
{
    if (!ctx) return nb_fail(NB_EXIT_RUNTIME, "worker: no step context");
    int64_t bb = -1, bc = -1;
    int rc = get(ctx, &bb, &bc);
    if (rc) return rc;
    nb_wput_i64(out, bb);
    nb_wput_i64(out, bc);
    return 0;
}

/* in: K, then K cases of x, y, z (group floats each) and mx, my, mz,
 * open2; out: whether a second form is built (wide != NULL), then the K
 * answers of the loop and the K answers of the second form (the loop's
 * again without one). */
static int wt_vote(nb_wbuf *in, nb_wbuf *out, int group, wt_vote_fn loop_fn, wt_vote_fn wide_fn)
{
    int64_t k = nb_wget_i64(in);
    if (in->bad || k < 0 || k > 1000000) return nb_fail(NB_EXIT_USAGE, "worker: vote: bad count");
    int *loop = malloc((size_t)(k ? k : 1) * sizeof *loop), *wide = malloc((size_t)(k ? k : 1) * sizeof *wide);
    if (!loop || !wide) { free(loop); free(wide); return nb_fail(NB_EXIT_RUNTIME, "worker: out of memory"); }
    for (int64_t c = 0; c < k; c++) {
        _Alignas(64) float x[64], y[64], z[64];
        float m[4];
        if (group > 64) { in->bad = 1; break; }
        nb_wget_floats(in, x, group);
        nb_wget_floats(in, y, group);
        nb_wget_floats(in, z, group);
        nb_wget_floats(in, m, 4);
        if (in->bad) break;
        loop[c] = loop_fn(x, y, z, m[0], m[1], m[2], m[3]);
        wide[c] = wide_fn ? wide_fn(x, y, z, m[0], m[1], m[2], m[3]) : loop[c];
    }
    int rc = in->bad ? nb_fail(NB_EXIT_USAGE, "worker: vote: malformed cases") : 0;
    if (!rc) {
        nb_wput_i64(out, wide_fn != NULL);
        nb_wput_ints(out, loop, k);
        nb_wput_ints(out, wide, k);
    }
    free(loop);
    free(wide);
    return rc;
}
#endif
