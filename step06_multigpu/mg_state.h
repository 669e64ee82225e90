/* mg_state.h -- step06_multigpu: the state of a run, one mg_gpu per GPU this
 * process drives, shared by the lesson (mg.c) and the files beside it
 * (mg_launch.c, mg_bench.c).  Host C with CUDA and NCCL types: the tests
 * and the programs include mg.h only. */
#ifndef MG_STATE_H
#define MG_STATE_H
#include <stdatomic.h>
#include <stdint.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include "bh_gpu.h"
#include "mg.h"

#define MG_MSG 1200
struct mg_team;                     /* the MPI launch's processes (mg_launch.h) */

/* Per timed step and GPU: the phases of --bench (CUDA events). */
enum { PH_GX, PH_BUILD, PH_WALK, PH_GA, PH_INT, MG_PHASES };
/* Events on the default stream, in the order of a step. */
enum { E_START, E_DRIFT, E_GX, E_BUILD, E_WALK, E_SCAT, E_END, MG_EVENTS };

typedef struct mg_rec {             /* one GPU, one timed step: ms, counts */
    double ph[MG_PHASES], force_start, force, step, bb, bc;
} mg_rec;

typedef struct mg_gpu {             /* one GPU driven by this process */
    int rank;                       /* in the communicator, 0..P-1 */
    int dev;                        /* CUDA device */
    int64_t lo, hi;                 /* its slice: bodies it integrates, tree order it walks */
    ncclComm_t comm;
    cudaStream_t stream;            /* NCCL's */
    cudaEvent_t ev[MG_EVENTS], ready, done;
    void *bh;                       /* step05's tree code on this GPU (bh_gpu_open) */
    bh_gpu_arrays_t a;
    float *at;                      /* accelerations in tree order: 3 per body, P * chunk */
    double bytes_at;
    int64_t bb, bc;                 /* interactions of its last walk */
    int rc, secondary;              /* its failure; secondary: it stopped for another's */
    int fake;                       /* NB_FAKE_GPU_FAIL names it: fail at the next step */
    char msg[MG_MSG];
} mg_gpu;

typedef struct mg {
    const struct mg_team *team;     /* NULL: one process drives every GPU */
    int P, nlocal;                  /* GPUs of the run, GPUs of this process */
    int64_t n, chunk;
    nb_options o;                   /* dt, eps, theta, block, poison (no strings) */
    mg_gpu *g;                      /* nlocal */
    atomic_int failed;              /* a GPU failed: the others stop waiting */
    int dead, dead_rc;              /* communicators aborted: every later call fails */
    char dead_msg[MG_MSG + 64];
    double timeout_ms;
    int announced;                  /* MPI mode: the other ranks have started too */
    mg_rec *cur;                    /* P records per step of the current advance() */
    int cap_cur;
    mg_rec *hist;                   /* P records per timed step, for report() */
    int nhist, cap_hist;
    int64_t bb, bc;                 /* last force computation, all GPUs */
    int replicated;                 /* 1: every GPU integrates every body (the tuned build): only
                                     * the accelerations are exchanged; 0: the lesson's slices */
} mg;

/* What every GPU of this process does at once (mg_run_all()), and under
 * mpirun what rank 0 asks of the other ranks. */
enum { OP_INIT = 1, OP_ADVANCE, OP_FORCE, OP_DOWNLOAD, OP_DESTROY, OP_QUIT };
typedef struct mg_call {
    int op, steps, timed;
    const nb_state *s;              /* OP_INIT */
    const ncclUniqueId *id;         /* OP_INIT */
} mg_call;

#endif
