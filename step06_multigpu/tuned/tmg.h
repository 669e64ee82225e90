/* tmg.h -- step06_multigpu/tuned: step05's tuned tree over every GPU of a
 * host (program nbody_tuned; tmg.c).  What the program and the tests
 * include: no CUDA or NCCL type (the state is step06's, mg_state.h). */
#ifndef TMG_H
#define TMG_H
#include <stdint.h>
#include "nb_step.h"
#ifdef __cplusplus
extern "C" {
#endif

/* step05 tuned's options on the GPU, plus --gpus (its --cpu is left out,
 * as step06 leaves out step05's: the CPU tree is step05 tuned's own). */
#define TMG_STEP_OPTIONS (NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_GPUS)

/* The program's table (main.c, main_tuned_mpi.c); its default --theta is
 * step05 tuned's TUNED_THETA (tuned.h), given to nb_main_theta(). */
extern const nb_step nb_step06_tuned;

/* ---- what the tests read (ctx from nb_step06_tuned.init) --------------- */
int tmg_gpus(void *ctx);
/* Interactions evaluated by the last force computation, all GPUs summed. */
int tmg_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);
/* The walk's split of the last force computation: b[0 .. P] (P + 1
 * entries, P = tmg_gpus()), GPU r walked the groups [b[r], b[r + 1]). */
int tmg_walk_split(void *ctx, int64_t *b);

/* The split of the walk (tmg_split.c, host C, the same on every GPU): the
 * ngroups groups of the tree order cut into P contiguous ranges, GPU r
 * taking [b[r], b[r + 1]), b[0] = 0, b[P] = ngroups, each range's summed
 * cost about 1/P of the total: a group goes to the GPU whose share of the
 * running sum holds its middle, so that each range is off by at most the
 * costliest group.  cost NULL (no walk yet), or no positive cost: by
 * count.  A cost that is not a positive finite number counts as 1. */
void tmg_split(const float *cost, int64_t ngroups, int P, int64_t *b);

#ifdef __cplusplus
}
#endif
#endif
