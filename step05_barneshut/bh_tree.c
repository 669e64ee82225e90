/* bh_tree.c -- step05_barneshut: the invariants of a correct octree, and
 * the host copy of a tree (bh_tree, see bh_tree.h).
 *
 * The invariants a correct tree satisfies are checked by the grader
 * (tests/nb_tree.c, nb_tree_check): every body in exactly one leaf, in its
 * octant and inside its cube; each cell's mass, centre of mass and count
 * those of the bodies below it; children inside their parent.  They are the
 * specification of the build and the summary: read them before insert()
 * and summarize() in bh_cpu.c, the code to read next. */
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "bh_tree.h"
#include "bh_tree_copy.h"

int bh_tree_alloc(bh_tree *t, int64_t n, int64_t ncells)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->ncells = ncells;
    size_t c = (size_t)ncells;
    t->child = malloc(c * 8 * sizeof(int));
    t->chain = malloc((size_t)n * sizeof(int));
    t->count = malloc(c * sizeof(int64_t));
    int ok = t->child && t->chain && t->count;
    float **f[] = { &t->cx, &t->cy, &t->cz, &t->half, &t->mx, &t->my, &t->mz, &t->m };
    for (size_t a = 0; a < sizeof f / sizeof *f; a++)
        if (!(*f[a] = malloc(c * sizeof(float)))) ok = 0;
    if (ok) return 0;
    bh_tree_free(t);
    return nb_fail(NB_EXIT_RUNTIME, "out of host memory for a copy of the tree (%lld cells)",
                   (long long)ncells);
}

void bh_tree_free(bh_tree *t)
{
    free(t->child); free(t->chain);
    free(t->cx); free(t->cy); free(t->cz); free(t->half);
    free(t->mx); free(t->my); free(t->mz); free(t->m);
    free(t->count);
    memset(t, 0, sizeof *t);
}
