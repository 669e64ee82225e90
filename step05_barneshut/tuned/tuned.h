/* tuned.h -- step05_barneshut/tuned: what the tuned build (program
 * nbody_tuned) exports: its tables, the GPU code's (tuned.cu) and its --cpu
 * variant's (cpu_tuned.c), and the accessors their tests use (as bh_gpu.h's
 * and bh_cpu.h's for the lesson's code). */
#ifndef BH_TUNED_H
#define BH_TUNED_H
#include <stdint.h>
#include "nb_options.h"
#include "nb_step.h"
#include "bh_tree.h"
#include "bh_tree_copy.h"
#ifdef __cplusplus
extern "C" {
#endif

/* The default --theta of nbody_tuned (its --cpu keeps the lesson's 0.5,
 * the same monopole cells): the best operating point at the lesson's
 * accuracy bound, p99 <= 1e-3 against the double sum.  On the H100
 * (handouts/results/h100/tree_tuned.md, Plummer): p99 7.2e-4, 7.8e-4 and
 * 8.2e-4 at 1M, 5M and 16M bodies, 6.54, 33.87 and 116.43 ms a step; theta
 * 1.05 is 9% faster with p99 up to 9.1e-4, too close to the bound for other
 * bodies than those measured.  At theta 0.5 the tuned build is no faster
 * than the lesson. */
#define TUNED_THETA 1.0

extern const nb_step nb_step05_tuned;

/* ctx from nb_step05_tuned.init: the tree of the last build (the lesson's
 * kernels built it), and the interactions of the last force computation. */
int bh_tuned_tree(void *ctx, bh_tree *t);
int bh_tuned_interactions(void *ctx, int64_t *body_body, int64_t *body_cell);

/* ---- the tuned tree as a library, for step06_multigpu/tuned -------------
 * The same kernels on the current device, one call per stage, as
 * bh_gpu.h's pipeline is for step06: nb_step05_tuned's force is
 * bh_tuned_refresh() and then bh_tuned_walk() of every group.  ctx comes
 * from bh_tuned_open() on the lesson's pipeline bh (bh_gpu_open(): its
 * arrays, bh_gpu_arrays(), hold the bodies and the accelerations, and
 * nb_step05_gpu's download, info and cells work on it), which the caller
 * keeps and destroys after bh_tuned_close(ctx).  Asynchronous on the
 * legacy default stream, except a refresh that builds (bh_gpu_build()
 * reads the cell count back) and bh_tuned_read_status(). */
int  bh_tuned_open(void **ctx, void *bh, const nb_options *o);   /* NB_TUNE as nbody_tuned's, and parts=K */
void bh_tuned_close(void *ctx);
/* The positions changed (a drift): the next refresh builds or refits. */
void bh_tuned_moved(void *ctx);
/* 1 if the next bh_tuned_refresh() builds the tree anew (not a refit, not
 * nothing): the moment a caller may reorder the bodies, as a build sorts
 * them again (step06 tuned keeps them in tree order). */
int  bh_tuned_builds_next(void *ctx);
/* Before each walk: the tree of the current positions, built on one step
 * and refitted on the next R - 1 (NB_TUNE rebuild=R), with its
 * quadrupoles; nothing when no drift came since.  It zeroes the walk's
 * counters and, with --poison, sets the accelerations to NaN. */
int  bh_tuned_refresh(void *ctx);
/* The walk's groups, *gs bodies each: group g is the bodies
 * sorted[g gs .. (g + 1) gs) of the tree order (the last one clipped to n). */
int64_t bh_tuned_groups(void *ctx, int *gs);
/* The group walk of the groups [g0, g1): their bodies' accelerations at
 * the body indices (bh's ax, ay, az), their costs at costs[g0 .. g1).  A
 * body's accelerations are the same bits whatever the range (the walk of a
 * group does not depend on which warp takes it, or when); one refresh may
 * serve several walks of disjoint ranges (step06 tuned's parts), whose
 * interactions add up. */
int  bh_tuned_walk(void *ctx, int64_t g0, int64_t g1);
/* Device array, one float per group: its cost in the last walk that took
 * it (body pulls + 2.4 x quadrupole pulls).  A walk of every group fills
 * it; a caller that walks a range and fills in the others' (an all-gather)
 * says so with bh_tuned_costs_known(): from then on a walk takes its
 * groups the costliest first (NB_TUNE sched=cost). */
float *bh_tuned_costs(void *ctx);
void bh_tuned_costs_known(void *ctx);
/* Wait for the device and read the last refresh's and walk's status (a
 * position that is not finite fails); bh_tuned_interactions() then gives
 * the walk's interactions. */
int  bh_tuned_read_status(void *ctx);
typedef struct bh_tuned_stats {
    int64_t groups;
    int group, blocks, warps;       /* bodies a group; the walk's grid */
    int depth, deepest, fallback;   /* stack entries a group may use, the deepest used and the
                                     * groups sent to the stackless walk (last walk) */
    int keep, refits, ncells;       /* steps a tree serves, refits so far, cells of the tree */
    int order, sched;               /* 2: quadrupoles, 1: monopoles; 1: the costliest first */
    int parts;                      /* NB_TUNE=parts=K, read by bh_tuned_open() only (else 1): the
                                     * parts step06 tuned cuts each GPU's walk in */
    double bytes;                   /* device memory of this build beyond the lesson's pipeline */
} bh_tuned_stats;
void bh_tuned_get_stats(void *ctx, bh_tuned_stats *s);

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
