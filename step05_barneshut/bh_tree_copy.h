/* bh_tree_copy.h -- step05_barneshut, beside the lesson: a tree copied to
 * host memory, as either code built it (bh_tree.c): what the tests check
 * and --render-tree draws.  The octree itself is bh_tree.h. */
#ifndef BH_TREE_COPY_H
#define BH_TREE_COPY_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef struct bh_tree {
    int64_t n;              /* bodies */
    int64_t ncells;         /* cells; cell 0 is the root */
    int     depth;          /* levels: deepest cell depth + 1 (the root alone: 1) */
    int    *child;          /* 8 per cell: BH_EMPTY, body b (head of its leaf list), n + k */
    int    *chain;          /* per body: next body in the same leaf, BH_EMPTY at the end */
    float  *cx, *cy, *cz, *half;   /* cell cubes */
    float  *mx, *my, *mz, *m;      /* cell centre of mass and mass */
    int64_t *count;         /* bodies below each cell */
} bh_tree;

/* Allocate t's arrays for ncells cells and n bodies (fields n, ncells set,
 * the rest to fill in).  0, or NB_EXIT_RUNTIME with nothing allocated. */
int  bh_tree_alloc(bh_tree *t, int64_t n, int64_t ncells);
void bh_tree_free(bh_tree *t);
/* The invariants of a correct tree are the grader's (tests/nb_tree.c): every
 * body in exactly one leaf, inside its leaf's cube; each cell's mass, centre
 * of mass and count equal those of the bodies below it; children inside
 * their parent.  The tests read the tree through bh_cpu_tree() and
 * bh_gpu_tree(). */

#ifdef __cplusplus
}
#endif
#endif
