/* bh_cpu.h -- step05_barneshut: what the CPU tree code (bh_cpu.c) exports.
 *
 * The --cpu table of the program, the walk's test of a cell against a group
 * of bodies, and the two accessors the tests use; the rest of bh_cpu.c is
 * static.  See bh_tree.h for the tree itself. */
#ifndef BH_CPU_H
#define BH_CPU_H
#include <stdint.h>
#include "nb_step.h"
#include "bh_tree.h"
#include "bh_tree_copy.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The options of step05_barneshut that both tables accept.  The CPU table
 * adds NB_OPT_THREADS: nb_main() parses with the options of both tables
 * (one --help) and refuses --threads without --cpu. */
#define BH_STEP_OPTIONS (NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_CPU | NB_OPT_RENDER_TREE)

/* Bodies per group: the width of a GPU warp, so that both codes decide the
 * same cells for the same 32 bodies and evaluate the same interactions. */
#define BH_GROUP 32

/* The CPU tree code (OpenMP, --threads): nb_step05_gpu.cpu_variant. */
extern const nb_step nb_step05_cpu;

/* The walk's vote: is the cell (centre of mass mx, my, mz; opening radius
 * squared open2) far from each of the BH_GROUP positions (x, y, z)[j], by
 * bh_far()?  The GPU warp asks the same with __all_sync(). */
int bh_cpu_vote(const float *x, const float *y, const float *z, float mx, float my, float mz,
                float open2);

/* ctx from nb_step05_cpu.init.  The tree of the current positions (the last
 * one built), into t (allocated: bh_tree_free() it). */
int bh_cpu_tree(void *ctx, bh_tree *t);
/* Interactions evaluated by the last force computation (whole system). */
int bh_cpu_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

#ifdef __cplusplus
}
#endif
#endif
