/* worker_step05_tuned.c -- the tables of tests/work_step05_tuned: step05's
 * tuned build (step05_barneshut/tuned, nbody_tuned), its GPU code and its
 * --cpu variant (also the reference its GPU tree suite compares with: the
 * same tree, the same cells accepted); and what the tree suite asks of them
 * (see nb_worker.h): the tree as the code built it, the interaction counts
 * of the last force computation, and the CPU walk's vote in both of its
 * forms (bh_cpu_vote.h).  The grader checks them against its own references
 * (suite_tree.c, suite_tree_tuned.c). */
#include <stdlib.h>
#include "nb_worker.h"
#include "bh_cpu_vote.h"
#include "tuned.h"

const nb_worker_table nb_worker_tables[] = {
    { "tuned", &nb_step05_tuned }, { "cpu", &nb_step05_tuned_cpu }, { NULL, NULL }
};

static int is_cpu(const nb_worker_table *t) { return t->step == &nb_step05_tuned_cpu; }

static int ext_tree(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    if (!ctx) return nb_fail(NB_EXIT_RUNTIME, "worker: no step context");
    bh_tree tr;
    int rc = is_cpu(t) ? bh_tuned_cpu_tree(ctx, &tr) : bh_tuned_tree(ctx, &tr);
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
    int rc = is_cpu(t) ? bh_tuned_cpu_interactions(ctx, &bb, &bc) : bh_tuned_interactions(ctx, &bb, &bc);
    if (rc) return rc;
    nb_wput_i64(out, bb);
    nb_wput_i64(out, bc);
    return 0;
}

/* in: K, then K cases of x, y, z (BH_GROUP floats each) and mx, my, mz,
 * open2; out: whether the AVX-512 form is built, then the K answers of the
 * loop and the K answers of the AVX-512 form (the loop's again without it). */
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
        loop[c] = bh_vote_loop(x, y, z, m[0], m[1], m[2], m[3]);
#if defined(__AVX512F__)
        wide[c] = bh_vote_avx512(x, y, z, m[0], m[1], m[2], m[3]);
#else
        wide[c] = loop[c];
#endif
    }
    int rc = in->bad ? nb_fail(NB_EXIT_USAGE, "worker: vote: malformed cases") : 0;
    if (!rc) {
#if defined(__AVX512F__)
        nb_wput_i64(out, 1);
#else
        nb_wput_i64(out, 0);
#endif
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
