/* nb_tree.h -- the grader's view of step05's octree: the layout every tree
 * code must build (the contract of step05_barneshut/bh_tree.h, restated
 * here because the grader reads no student header), a tree as a worker
 * reports it, and the invariants it must satisfy.
 *
 *  - the root is the cube around the bounding box: centre the midpoint,
 *    half size 0.5 * the largest extent * 1.001 (at least 1e-30);
 *  - a body goes to octant (x > cx) | (y > cy) << 1 | (z > cz) << 2 of a
 *    cell; the child of octant o has half the half size, its centre moved
 *    by a quarter of the parent's size along each axis;
 *  - a leaf holds one body, except at the depth cap (NB_TREE_MAXDEPTH)
 *    where it holds a list sorted by body index;
 *  - node numbers: 0..n-1 are bodies, n + k is cell k; cell 0 is the root. */
#ifndef NB_TREE_H
#define NB_TREE_H
#include <stddef.h>
#include <stdint.h>
#include "nb_state.h"

#define NB_TREE_MAXDEPTH 64
#define NB_TREE_EMPTY    (-1)

typedef struct nb_tree {
    int64_t n, ncells;
    int     depth;                  /* levels: deepest cell depth + 1 */
    int    *child;                  /* 8 per cell: NB_TREE_EMPTY, body b (its leaf list), n + k */
    int    *chain;                  /* per body: next body of its leaf, NB_TREE_EMPTY at the end */
    float  *cx, *cy, *cz, *half;    /* cell cubes */
    float  *mx, *my, *mz, *m;       /* centre of mass and mass */
    int64_t *count;                 /* bodies below each cell */
} nb_tree;

static inline void nb_tree_root(float minx, float miny, float minz, float maxx, float maxy, float maxz,
                                float *cx, float *cy, float *cz, float *half)
{
    float ex = maxx - minx, ey = maxy - miny, ez = maxz - minz;
    float e = ex > ey ? ex : ey;
    e = e > ez ? e : ez;
    *cx = 0.5f * minx + 0.5f * maxx;
    *cy = 0.5f * miny + 0.5f * maxy;
    *cz = 0.5f * minz + 0.5f * maxz;
    float h = 0.5f * e * 1.001f;
    *half = h > 1e-30f ? h : 1e-30f;
}

static inline int nb_tree_octant(float px, float py, float pz, float cx, float cy, float cz)
{
    return (px > cx) | ((py > cy) << 1) | ((pz > cz) << 2);
}

static inline void nb_tree_child(int oct, float *cx, float *cy, float *cz, float *h)
{
    float q = 0.5f * *h;
    *cx += (oct & 1) ? q : -q;
    *cy += (oct & 2) ? q : -q;
    *cz += (oct & 4) ? q : -q;
    *h = q;
}

/* The tree of the current positions of a step05 context (a remote table's,
 * nb_remote.h), every length checked.  0, or the worker's code / -1 with
 * the reason in nb_errmsg(). */
int  nb_tree_fetch(void *ctx, nb_tree *t);
void nb_tree_free(nb_tree *t);
/* The interactions (body-body, body-cell) the last force computation of a
 * step05 context reports.  0, or the worker's code / an error with the
 * reason in nb_errmsg(). */
int  nb_tree_interactions(void *ctx, int64_t *bb, int64_t *bc);
/* The invariants against the bodies s the tree was built from: every body
 * in exactly one leaf, in its octant and inside its cube; each cell's mass,
 * centre of mass and count those of the bodies below it (double sums,
 * relative tolerance tol); children inside their parent; the depth as
 * reported.  0, or -1 with the first violation in why. */
int  nb_tree_check(const nb_tree *t, const nb_state *s, double tol, char *why, size_t len);

/* A tree as deep as the cap, with 8 cells under every cell of one path: two
 * anchors fix the root (~[0, 2]^3), and at each level each of the 7
 * octants the path leaves holds two bodies (a cell of two leaves), octant 0
 * leads on (mirror: all coordinates negated, octant 7 leads on).  A walk
 * that opens every cell (theta = 0) and visits the path's cell first holds
 * 7 cells per level on its stack, 7 * (NB_TREE_MAXDEPTH - 2) in all; one
 * tree per order in which a walk may push the children.  Equal masses
 * (total 1), zero velocities.  Allocates s. */
int  nb_tree_deep_state(nb_state *s, int mirror);

#endif
