/* bh_gpu.h -- step05_barneshut: what the GPU tree code (bh_gpu.cu) exports.
 *
 * The program's table (its --cpu variant is nb_step05_cpu, bh_cpu.h), the
 * two accessors the tests use, and the pipeline as a library for
 * step06_multigpu (below); the rest of bh_gpu.cu is static. */
#ifndef BH_GPU_H
#define BH_GPU_H
#include <stdint.h>
#include "nb_options.h"
#include "nb_state.h"
#include "nb_step.h"
#include "bh_tree.h"
#include "bh_tree_copy.h"
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

/* ---- the pipeline as a library, for step06_multigpu --------------------
 * The same kernels on the current device, one call per stage, so that a
 * later step can run them on several GPUs.  ctx comes from bh_gpu_open()
 * and goes to nb_step05_gpu.destroy(); nb_step05_gpu.download, .info and
 * .cells work on it too.  The calls are asynchronous on the device's legacy
 * default stream, except bh_gpu_build() and bh_gpu_read_status(), which wait
 * for it (the build reads the cell count back). */

/* Allocate on the current device and upload s, without computing anything.
 * cap >= s->n: entries of the positions and velocities (zero past n), so
 * that they can be the receive buffer of an all-gather. */
int bh_gpu_open(void **ctx, const nb_state *s, const nb_options *o, int64_t cap);
/* bounding box, build, summarize, sort: the tree of the current positions;
 * the bodies in tree order are then arrays.sorted[0 .. n). */
int bh_gpu_build(void *ctx);
/* The walk (k_force) for the bodies sorted[lo .. hi) of the tree order:
 * their accelerations, written at their body indices in ax, ay, az.  With
 * lo a multiple of 32, every warp holds the same 32 bodies as a walk of
 * [0, n) would, so the accelerations are the same bits. */
int bh_gpu_walk(void *ctx, int64_t lo, int64_t hi);
/* Leapfrog halves for the bodies [lo, hi) (body indices): kick + drift
 * (k_drift) and the closing kick (k_kick), as in step05's step. */
int bh_gpu_drift(void *ctx, int64_t lo, int64_t hi);
int bh_gpu_kick(void *ctx, int64_t lo, int64_t hi);
/* Wait for the device and read the build's status: the interaction counts
 * of the last walk are then what bh_gpu_interactions() returns. */
int bh_gpu_read_status(void *ctx);

/* The device arrays of ctx, for the copies and collectives of a later step
 * (step06) and for a code that walks this tree its own way. */
typedef struct bh_gpu_arrays_t {
    int n;                       /* bodies */
    float *pos;                  /* x, y, z, m per body (float4), cap entries */
    float *vx, *vy, *vz;         /* cap entries each */
    float *ax, *ay, *az;         /* n each, at the body indices */
    const int *sorted;           /* n: the tree order of the last build */
    double bytes;                /* device memory the tree code allocated */
    /* the tree of the last build, read-only (the arrays move when a build
     * grows them: ask again after each build) */
    int ncells;                  /* cells; cell k is node n + k, cell 0 the root */
    const int *child;            /* 8 per cell: BH_EMPTY, a body (head of its leaf list), n + k */
    const int *chain;            /* n: the next body of the same leaf list, or BH_EMPTY */
    const int *bnext;            /* n: the stackless walk's node after each body */
    const int *parent;           /* per cell, -1 for the root */
    const float *geom;           /* per cell: cube centre x, y, z and half size (float4) */
    const float *mass;           /* per cell: centre of mass x, y, z and mass (float4) */
    const int *link;             /* per cell: more, next, open^2 (float bits), count (int4) */
} bh_gpu_arrays_t;
int bh_gpu_arrays(void *ctx, bh_gpu_arrays_t *a);

#ifdef __cplusplus
}
#endif
#endif
