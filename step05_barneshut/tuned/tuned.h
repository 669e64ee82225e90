/* tuned.h -- step05_barneshut/tuned: what the tuned build (program
 * nbody_tuned) exports: its tables, the GPU code's (tuned.cu) and its --cpu
 * variant's (cpu_tuned.c), and the accessors their tests use (as bh_gpu.h's
 * and bh_cpu.h's for the lesson's code). */
#ifndef BH_TUNED_H
#define BH_TUNED_H
#include <stdint.h>
#include "nb_step.h"
#include "bh_tree.h"
#include "bh_tree_copy.h"
#ifdef __cplusplus
extern "C" {
#endif

extern const nb_step nb_step05_tuned;

/* ctx from nb_step05_tuned.init: the tree of the last build (the lesson's
 * kernels built it), and the interactions of the last force computation. */
int bh_tuned_tree(void *ctx, bh_tree *t);
int bh_tuned_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

/* The CPU tree code (OpenMP, --threads): nb_step05_tuned.cpu_variant. */
extern const nb_step nb_step05_tuned_cpu;

/* ctx from nb_step05_tuned_cpu.init: the tree of the current positions and
 * the interactions of the last force computation. */
int bh_tuned_cpu_tree(void *ctx, bh_tree *t);
int bh_tuned_cpu_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
