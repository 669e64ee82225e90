/* bh_gpu.h -- step05_barneshut: what the GPU tree code (bh_gpu.cu) exports.
 *
 * The program's table (its --cpu variant is nb_step05_cpu, bh_cpu.h) and
 * the two accessors the tests use; the rest of bh_gpu.cu is static. */
#ifndef BH_GPU_H
#define BH_GPU_H
#include <stdint.h>
#include "nb_step.h"
#include "bh_tree.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The GPU kernel pipeline; main.c runs this table. */
extern const nb_step nb_step05_gpu;

/* ctx from nb_step05_gpu.init.  The tree of the current positions (the last
 * one built), copied from the device into t (allocated: bh_tree_free() it). */
int bh_gpu_tree(void *ctx, bh_tree *t);
/* Interactions evaluated by the last force computation (whole system). */
int bh_gpu_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
