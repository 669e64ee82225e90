/* tuned.h -- step05_barneshut: what the tuned build (tuned.cu, program
 * nbody_tuned) exports: its table, and the two accessors its tests use
 * (as bh_gpu.h's for the lesson's code). */
#ifndef BH_TUNED_H
#define BH_TUNED_H
#include <stdint.h>
#include "nb_step.h"
#include "bh_tree.h"
#ifdef __cplusplus
extern "C" {
#endif

extern const nb_step nb_step05_tuned;

/* ctx from nb_step05_tuned.init: the tree of the last build (the lesson's
 * kernels built it), and the interactions of the last force computation. */
int bh_tuned_tree(void *ctx, bh_tree *t);
int bh_tuned_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
