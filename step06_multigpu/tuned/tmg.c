/* tmg.c -- step06_multigpu/tuned: step05's tuned tree over every GPU of a
 * host (program nbody_tuned; not part of the lesson).  README.md has its
 * measurements.
 *
 * The lesson (../mg.c) splits step05's lesson tree over P GPUs; this build
 * does the same with step05's tuned tree (../../step05_barneshut/tuned:
 * quadrupoles, a warp per group of 64 bodies, the tree kept T_KEEP steps
 * and refitted, the costliest groups first), through its library
 * (tuned.h, "the tuned tree as a library"), linked, not copied, and with
 * the lesson's machinery (../mg_launch.c: the MPI launch, the waits that
 * cannot hang, a failure that stops every GPU, the exit codes; ../mg_bench.c:
 * the phases of --bench; ../mg_kernels.cu: pack and scatter), linked too.
 *
 * One leapfrog step, on every GPU r at once:
 *
 *   kick + drift   EVERY body (each GPU holds every position, velocity and
 *                  acceleration; 0.6 ms for 20M bodies on an H200): unlike
 *                  the lesson, no all-gather of the positions (16 B a body
 *                  received) -- integrating all N costs less than receiving
 *                  them.  Every GPU computes the same bits from the same
 *                  bits, so the copies never drift apart.
 *   reorder        on a step whose tree is built anew: the bodies moved
 *                  into the last build's tree order (tmg_kernels.cu), so
 *                  that the scatter below streams instead of writing at
 *                  random (3.7 ms of a 20M step, on every GPU, whatever P)
 *   tree           step05 tuned's refresh on all N bodies: the lesson's
 *                  build every T_KEEP steps and a refit between, then the
 *                  quadrupoles -- the same tree on every GPU (replicated)
 *   walk           the group walk of ITS RANGE of groups [b[r], b[r + 1])
 *                  of the tree order (a group: 64 neighbours in it), the
 *                  costliest first within the range
 *   all-gather a   each range's accelerations, lined up in tree order
 *                  (mg_pack), and its groups' costs, to every GPU: one
 *                  ncclBroadcast per GPU in one group (the ranges differ in
 *                  length: an all-gather "v"), then put back at the bodies'
 *                  places (mg_scatter: nearly the identity, as the bodies
 *                  are in the order of the last build); with NB_TUNE
 *                  parts=K, part by part beside the walk (Overlap, below)
 *   kick           every body.
 *
 * The split by measured cost (tmg_split.c): the ranges are contiguous in
 * tree order, and each one's summed cost -- every group's cost in the last
 * walk, body pulls plus 2.4 x quadrupole pulls, as step05 tuned orders its
 * groups by -- is about 1/P of the total, so that the GPUs finish their
 * walks together (a count split gives the GPU with the dense core the most
 * work).  After each walk every GPU holds every group's cost (gathered with
 * the accelerations), copies it to the host and computes the next split,
 * the same on every GPU (and under mpirun on every rank): a function of the
 * same floats summed in one order.  The first walk, with no costs yet,
 * splits by count.  --bench prints the walk's spread over the GPUs (the
 * slowest and the fastest median walk), the load balance.
 *
 * The same bits as step05 tuned, at any P: every GPU builds (or refits)
 * the same tree from the same positions (the lesson's build; the
 * quadrupoles and the refit sum children in a fixed order); a group's walk
 * and its sums do not depend on which GPU, which warp or when it is walked
 * (tuned.h); pack, all-gathers, scatter and reorder copy bits; the
 * integration is elementwise.  The tree is a function of the positions, not
 * of the bodies' order (the lesson's build), so the reordering changes no
 * sum.  At P = 1 the run is step05 tuned's body for body (the same kernels
 * in the same order, one range of every group), once the copies out have
 * put the bodies back at their initial indices (unpermute()); the tests
 * check that, and P = all GPUs too (tests/suite_multigpu_tuned.c).
 *
 * Where this stops paying.  Per step each GPU does, whatever P: the
 * integration of all N bodies, the tree on all N bodies (a build every
 * T_KEEP steps, a refit and the quadrupoles on the others), the all-gather
 * of the accelerations and costs (12 B x N x (P-1)/P + 4 B a group) and the
 * scatter; only the walk is divided by P.  So T(P) = T_tree + T_int +
 * T_gather(P) + T_walk / P, and the speedup can never pass (T_tree + T_int
 * + T_walk) / (T_tree + T_int).  The tuned build makes the
 * walk cheap (theta 1 with quadrupoles, a group walk) and the tree cheap on
 * average (a refit on 3 steps of 4), and the walk's share of a step is
 * smaller than in the lesson: the serial part weighs more, and the speedup
 * flattens at fewer GPUs than the lesson's.  The next step is a locally
 * essential tree (each GPU builds the tree of its own region and receives
 * only the cells and bodies its walk opens of the others'): no replicated
 * build, no all-N exchange.  It is not built here.
 *
 * Overlap.  The NCCL calls run on each GPU's own stream (w->stream, of
 * the highest priority), ordered with the default stream by events
 * (mg_before_collective(), mg_after_collective()), as in the lesson; the
 * copy of the costs to the host (for the next split) runs on that stream
 * too, under the scatter and the kick.  NB_TUNE=parts=K cuts every GPU's
 * range into K parts (by cost, as the ranges are cut: plan_parts()), walks
 * them one after the other and queues each part's all-gather as soon as
 * its walk is packed, so that it runs beside the next part's walk; the
 * host waits once, after the last.  A group's sums do not depend on the
 * part that walks it, so the bits are those of parts=1.  The default is 1,
 * by measurement: through NVLink the exchange takes about 1 ms of a 39 ms
 * step (20M bodies, 4 H200), and the walk holds every SM whole while it
 * runs (4 blocks of 256 threads at 64 registers: the register file), so
 * NCCL's blocks start only where a walk's blocks end.  Over a slow network
 * (sockets: 71 ms of 109) the parts let the exchange run beside the walk.
 * --bench prints each GPU's timeline of its last timed step: the parts'
 * walks and exchanges, on their two streams.
 *
 * Two launch modes, one code path, as the lesson: one process with one
 * OpenMP thread per GPU (main.c), or one process per GPU under mpirun
 * (main_tuned_mpi.c, the lesson's launch: ../mg_mpi.c).  Under mpirun,
 * the other ranks run mg_follow() (../mg_follow.c), which calls
 * mg_create(), mg_start(), mg_run_all() and mg_destroy(): this file
 * defines them for the tuned build (the lesson's mg.c, which defines them
 * for the lesson, is not linked into nbody_tuned). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include "bh_gpu.h"
#include "mg_kernels.h"
#include "mg_launch.h"
#include "mg_state.h"
#include "nb_cuda.h"
#include "nb_threads.h"
#include "tmg.h"
#include "tmg_kernels.h"
#include "tuned.h"

/* What this build keeps per GPU beside the lesson's mg_gpu. */
typedef struct tg_gpu {
    void *tc;                       /* step05 tuned's tree on this GPU (bh_tuned_open on w->bh) */
    int64_t ng;                     /* groups of the walk */
    int gs;                         /* bodies a group */
    int64_t *b;                     /* P + 1: the split, groups [b[r], b[r + 1]) for GPU r */
    int64_t *walked;                /* P + 1: the split of the last walk (tmg_walk_split()) */
    int parts;                      /* each range walked and exchanged in this many parts (NB_TUNE) */
    int64_t *pb;                    /* P x (parts + 1): GPU r's part k is the groups
                                     * [pb[r (parts + 1) + k], pb[r (parts + 1) + k + 1]) */
    cudaEvent_t *tev;               /* 4 a part, timed steps: walk begins, ends (after the pack),
                                     * exchange may begin, ends (NCCL's stream) */
    float *tl;                      /* 4 a part: the last timed step's events, ms from its start */
    float *hcost;                   /* pinned host memory: every group's cost, for the next split */
    int *id;                        /* n: the initial index of the body at each place (device) */
    void *tmp;                      /* 16 B a body: the reordering's scratch (device) */
    double bytes;                   /* id and tmp */
} tg_gpu;

/* The run: the lesson's state first (mg_launch.c, mg_follow.c and
 * mg_bench.c take it as an mg), then this build's. */
typedef struct tmg {
    mg m;
    tg_gpu *x;                      /* nlocal, beside m.g */
} tmg;

static tg_gpu *X(mg *m, const mg_gpu *w) { return &((tmg *)m)->x[w - m->g]; }

/* ---- the exchanges ------------------------------------------------------ */

/* Part k of every GPU's range of the walk to every GPU: its accelerations
 * in tree order (at, 3 floats a body) and its groups' costs, one broadcast
 * from each GPU (the parts differ in length: an all-gather "v"), in one
 * NCCL group, on NCCL's stream once the default stream has walked and
 * packed this GPU's part k.  Every GPU knows every part (the same split).
 * The host does not wait for it here: the next part's walk is queued
 * beside it (forces()). */
static int exchange_part(mg *m, mg_gpu *w, int k, int timed)
{
    tg_gpu *x = X(m, w);
    int rc = mg_before_collective(w);
    if (rc) return rc;
    if (timed) NB_CUDA(cudaEventRecord(x->tev[4 * k + 2], w->stream));
    float *cost = bh_tuned_costs(x->tc);
    ncclResult_t r = ncclGroupStart();
    for (int q = 0; q < m->P && r == ncclSuccess; q++) {
        const int64_t *pq = &x->pb[(size_t)q * (x->parts + 1)];
        int64_t g0 = pq[k], g1 = pq[k + 1];
        if (g1 <= g0) continue;
        int64_t lo = g0 * x->gs, hi = g1 * x->gs < m->n ? g1 * x->gs : m->n;
        float *a = w->at + 3 * (size_t)lo;
        r = ncclBroadcast(a, a, 3 * (size_t)(hi - lo), ncclFloat, q, w->comm, w->stream);
        if (r == ncclSuccess)
            r = ncclBroadcast(cost + g0, cost + g0, (size_t)(g1 - g0), ncclFloat, q, w->comm, w->stream);
    }
    ncclResult_t e = ncclGroupEnd();            /* always closes the group */
    if (r == ncclSuccess) r = e;
    if ((rc = mg_nccl_ready(m, w, r, "the all-gather of the accelerations and the costs"))) return rc;
    if (timed) NB_CUDA(cudaEventRecord(x->tev[4 * k + 3], w->stream));
    return 0;
}

/* Every part exchanged: the default stream waits for NCCL's, the host
 * polls it (no hang), then the costs go to the host on NCCL's stream, for
 * the next split (finish()). */
static int join_exchanges(mg *m, mg_gpu *w)
{
    tg_gpu *x = X(m, w);
    int rc = mg_after_collective(m, w, ncclSuccess, "the all-gather of the accelerations and the costs");
    if (rc) return rc;
    bh_tuned_costs_known(x->tc);
    NB_CUDA(cudaMemcpyAsync(x->hcost, bh_tuned_costs(x->tc), (size_t)x->ng * sizeof(float),
                            cudaMemcpyDeviceToHost, w->stream));
    return 0;
}

/* The parts of every GPU's range [b[q], b[q + 1]), cut as the ranges are:
 * by the costs (NULL: by count), the same on every GPU. */
static void plan_parts(mg *m, tg_gpu *x, const float *cost)
{
    for (int q = 0; q < m->P; q++) {
        int64_t *pq = &x->pb[(size_t)q * (x->parts + 1)];
        tmg_split(cost ? cost + x->b[q] : NULL, x->b[q + 1] - x->b[q], x->parts, pq);
        for (int k = 0; k <= x->parts; k++) pq[k] += x->b[q];
    }
}

/* ---- one GPU's part of a step ------------------------------------------- */

static int mark(mg_gpu *w, int timed, int e)
{
    if (timed) NB_CUDA(cudaEventRecord(w->ev[e], 0));
    return 0;
}

/* The accelerations of the current positions (every GPU holds all of
 * them): the same tree everywhere, this GPU's range of the walk in parts,
 * each part exchanged while the next one is walked (NB_TUNE parts=K; 1: the
 * whole range, then its exchange), the scatter.  The phases of --bench:
 * build (the tree: built or refitted, its quadrupoles), walk (its parts,
 * their packs, and the exchanges that ran beside them), gather a (what is
 * left of the exchanges, and the scatter). */
static int forces(mg *m, mg_gpu *w, int timed)
{
    tg_gpu *x = X(m, w);
    int rc;
    if (bh_tuned_builds_next(x->tc) &&      /* the bodies into the last build's tree order */
        ((rc = bh_gpu_arrays(w->bh, &w->a)) ||
         (rc = tmg_reorder(w->a.sorted, w->a.pos, w->a.vx, w->a.vy, w->a.vz, x->id, x->tmp, m->n))))
        return rc;
    if ((rc = bh_tuned_refresh(x->tc)) || (rc = mark(w, timed, E_BUILD))) return rc;
    if ((rc = bh_gpu_arrays(w->bh, &w->a))) return rc;      /* after a build: its arrays */
    if (m->o.poison)                /* an entry nobody wrote stays NaN */
        NB_CUDA(cudaMemset(w->at, 0xFF, 3 * (size_t)m->P * (size_t)m->chunk * sizeof(float)));
    memcpy(x->walked, x->b, (size_t)(m->P + 1) * sizeof *x->b);
    const int64_t *pr = &x->pb[(size_t)w->rank * (x->parts + 1)];
    for (int k = 0; k < x->parts; k++) {
        const int64_t g0 = pr[k], g1 = pr[k + 1];
        const int64_t lo = g0 * x->gs < m->n ? g0 * x->gs : m->n, hi = g1 * x->gs < m->n ? g1 * x->gs : m->n;
        if (timed) NB_CUDA(cudaEventRecord(x->tev[4 * k], 0));
        if ((rc = bh_tuned_walk(x->tc, g0, g1)) ||
            (rc = mg_pack(w->a.sorted, w->a.ax, w->a.ay, w->a.az, w->at, lo, hi)))
            return rc;
        if (timed) NB_CUDA(cudaEventRecord(x->tev[4 * k + 1], 0));
        if ((rc = exchange_part(m, w, k, timed))) return rc;
    }
    if ((rc = mark(w, timed, E_WALK)) || (rc = join_exchanges(m, w))) return rc;
    if ((rc = mg_scatter(w->a.sorted, w->at, w->a.ax, w->a.ay, w->a.az, m->n))) return rc;
    return mark(w, timed, E_SCAT);
}

/* Wait for the device; the interactions of this GPU's walk; the next
 * split from every group's cost (the same on every GPU). */
static int finish(mg *m, mg_gpu *w)
{
    tg_gpu *x = X(m, w);
    int rc = bh_tuned_read_status(x->tc);
    if (!rc) rc = bh_tuned_interactions(x->tc, &w->bb, &w->bc);
    if (rc) return rc;
    NB_CUDA(cudaStreamSynchronize(w->stream));  /* the costs' copy: queued after a finished collective */
    tmg_split(x->hcost, x->ng, m->P, x->b);
    plan_parts(m, x, x->hcost);
    return 0;
}

static int gpu_step(mg *m, mg_gpu *w, int timed, mg_rec *rec)
{
    int rc = mg_fake_failure(w);    /* a test hook: NB_FAKE_GPU_FAIL */
    if (rc) return rc;
    if ((rc = mark(w, timed, E_START)) || (rc = bh_gpu_drift(w->bh, 0, m->n))) return rc;
    bh_tuned_moved(X(m, w)->tc);
    if ((rc = mark(w, timed, E_DRIFT)) || (rc = mark(w, timed, E_GX)) ||   /* nothing to gather */
        (rc = forces(m, w, timed)) || (rc = bh_gpu_kick(w->bh, 0, m->n)) ||
        (rc = mark(w, timed, E_END)) || (rc = finish(m, w)))
        return rc;
    if (!timed) return 0;
    tg_gpu *x = X(m, w);            /* the timeline of this step (finish() waited for both streams) */
    for (int j = 0; j < 4 * x->parts; j++)
        NB_CUDA(cudaEventElapsedTime(&x->tl[j], w->ev[E_START], x->tev[j]));
    return mg_bench_rec(w, rec);
}

static int comm_init(mg *m, mg_gpu *w, const ncclUniqueId *id)
{
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;               /* every call returns; we poll (no hang) */
    ncclResult_t r = ncclCommInitRankConfig(&w->comm, m->P, *id, w->rank, &cfg);
    if (r != ncclSuccess && r != ncclInProgress && !w->comm)
        return nb_fail(NB_EXIT_RUNTIME, "NCCL error in ncclCommInitRankConfig: %s: %s",
                       ncclGetErrorString(r), ncclGetLastError(NULL));
    return mg_nccl_ready(m, w, r, "creating the NCCL communicator");
}

static int gpu_init(mg *m, mg_gpu *w, const nb_state *s, const ncclUniqueId *id)
{
    tg_gpu *x = X(m, w);
    /* NCCL's stream at the highest priority: its blocks are placed before
     * those of a walk queued beside it (NB_TUNE parts=K) */
    int least = 0, greatest = 0;
    NB_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    NB_CUDA(cudaStreamCreateWithPriority(&w->stream, cudaStreamNonBlocking, greatest));
    for (int e = 0; e < MG_EVENTS; e++) NB_CUDA(cudaEventCreate(&w->ev[e]));
    NB_CUDA(cudaEventCreateWithFlags(&w->ready, cudaEventDisableTiming));
    NB_CUDA(cudaEventCreateWithFlags(&w->done, cudaEventDisableTiming));
    size_t cap = (size_t)m->P * (size_t)m->chunk;
    int rc = bh_gpu_open(&w->bh, s, &m->o, (int64_t)cap);
    if (rc) return rc;
    if ((rc = bh_gpu_arrays(w->bh, &w->a))) return rc;
    if ((rc = nb_cuda_malloc((void **)&w->at, 3 * cap * sizeof(float),
                             "the accelerations in tree order (all-gather buffer)", &w->bytes_at)))
        return rc;
    NB_CUDA(cudaMemset(w->at, 0, 3 * cap * sizeof(float)));
    double b_id = 0, b_tmp = 0;
    if ((rc = nb_cuda_malloc((void **)&x->id, cap * sizeof(int), "the bodies' initial indices", &b_id)) ||
        (rc = nb_cuda_malloc(&x->tmp, 16 * cap, "the reordering's scratch", &b_tmp)) ||
        (rc = tmg_ids(x->id, m->n)))
        return rc;
    x->bytes = b_id + b_tmp;
    /* a build of the initial positions, so that the first refresh (a build)
     * finds the bodies in tree order already (forces()) */
    if ((rc = bh_gpu_build(w->bh))) return rc;
    if ((rc = bh_tuned_open(&x->tc, w->bh, &m->o))) return rc;     /* NB_TUNE: as nbody_tuned's */
    x->ng = bh_tuned_groups(x->tc, &x->gs);
    bh_tuned_stats st;
    bh_tuned_get_stats(x->tc, &st);
    x->parts = st.parts;
    /* the other GPUs' costs arrive by NCCL: defined from the start, as at */
    NB_CUDA(cudaMemset(bh_tuned_costs(x->tc), 0, (size_t)(x->ng > 0 ? x->ng : 0) * sizeof(float)));
    x->b = (int64_t *)calloc((size_t)m->P + 1, sizeof *x->b);
    x->walked = (int64_t *)calloc((size_t)m->P + 1, sizeof *x->walked);
    x->pb = (int64_t *)calloc((size_t)m->P * ((size_t)x->parts + 1), sizeof *x->pb);
    x->tev = (cudaEvent_t *)calloc(4 * (size_t)x->parts, sizeof *x->tev);
    x->tl = (float *)calloc(4 * (size_t)x->parts, sizeof *x->tl);
    if (!x->b || !x->walked || !x->pb || !x->tev || !x->tl) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    for (int j = 0; j < 4 * x->parts; j++) NB_CUDA(cudaEventCreate(&x->tev[j]));
    NB_CUDA(cudaMallocHost((void **)&x->hcost, (size_t)(x->ng > 0 ? x->ng : 1) * sizeof(float)));
    tmg_split(NULL, x->ng, m->P, x->b);         /* no costs yet: the first walk by count */
    plan_parts(m, x, NULL);
    if ((rc = comm_init(m, w, id))) return rc;
    if ((rc = forces(m, w, 0))) return rc;      /* the accelerations of the initial state */
    return finish(m, w);
}

/* GPU w's teardown: this build's part, then the lesson's (which destroys
 * step05's pipeline under the tuned tree). */
static int gpu_destroy(mg *m, mg_gpu *w)
{
    tg_gpu *x = X(m, w);
    if (x->tc) bh_tuned_close(x->tc);
    x->tc = NULL;
    if (x->hcost) cudaFreeHost(x->hcost);
    x->hcost = NULL;
    free(x->b);
    free(x->walked);
    free(x->pb);
    x->b = x->walked = x->pb = NULL;
    for (int j = 0; x->tev && j < 4 * x->parts; j++)
        if (x->tev[j]) cudaEventDestroy(x->tev[j]);
    free(x->tev);
    free(x->tl);
    x->tev = NULL;
    x->tl = NULL;
    if (x->id) cudaFree(x->id);
    if (x->tmp) cudaFree(x->tmp);
    x->id = NULL;
    x->tmp = NULL;
    return mg_gpu_destroy(m, w);
}

/* ---- every GPU of this process at once (as the lesson's) ---------------- */

static int on_gpu(mg *m, mg_gpu *w, const mg_call *c)
{
    NB_CUDA(cudaSetDevice(w->dev));
    switch (c->op) {
    case OP_INIT:
        return gpu_init(m, w, c->s, c->id);
    case OP_ADVANCE:
        for (int k = 0; k < c->steps; k++) {
            mg_rec rec;
            int rc = gpu_step(m, w, c->timed, &rec);
            if (rc) return rc;
            if (!c->timed) continue;
            mg_rec *all = &m->cur[(size_t)k * m->P];
            if (m->team) {          /* one GPU per process: every rank's record */
                if (m->team->allgather(&rec, all, sizeof rec))
                    return nb_fail(NB_EXIT_RUNTIME, "MPI: gathering the timings failed");
            } else {
                all[w->rank] = rec;
            }
        }
        return 0;
    case OP_FORCE: {
        int rc = forces(m, w, 0);
        return rc ? rc : finish(m, w);
    }
    case OP_DOWNLOAD:               /* every GPU holds every body: nothing to gather */
        return 0;
    case OP_DESTROY:
        return gpu_destroy(m, w);
    }
    return nb_fail(NB_EXIT_RUNTIME, "internal error: unknown operation %d", c->op);
}

int mg_run_all(mg *m, const mg_call *c)
{
    int rc = mg_run_begin(m);       /* a run that failed before: fails at once */
    if (rc) return rc;
    if (m->nlocal == 1) {
        mg_keep_failure(m, &m->g[0], on_gpu(m, &m->g[0], c));
    } else {
        int team_size = 0;
        omp_set_dynamic(0);
#pragma omp parallel num_threads(m->nlocal)
        {
            int t = omp_get_thread_num();
#pragma omp single
            team_size = omp_get_num_threads();  /* implied barrier: every thread sees it */
            if (team_size == m->nlocal) mg_keep_failure(m, &m->g[t], on_gpu(m, &m->g[t], c));
        }
        if (team_size != m->nlocal)
            return nb_fail(NB_EXIT_RUNTIME, "OpenMP started %d threads for %d GPUs (one thread per "
                           "GPU is needed: OMP_THREAD_LIMIT?)", team_size, m->nlocal);
    }
    return mg_run_end(m);           /* the first failure, if any, ends the run */
}

/* ---- the nb_step interface ---------------------------------------------- */

/* Memory per body, on every GPU (each holds all N): the lesson's step06
 * (step05's pipeline 52 B and cells 0.9 x 92 B, the accelerations in tree
 * order 12 B), step05 tuned's quadrupoles, counters and copy of the cells
 * (0.9 x 56 B), the positions of the last build (16 B) and a cost and a
 * place in the order per group of 32 or more (8 / 32 B), the initial
 * indices (4 B) and the reordering's scratch (16 B); on the host the
 * lesson's, the copies out's indices and scratch (8 B), and per GPU the
 * costs (4 / 32 B), counted for 8 GPUs. */
#define TMG_DEVICE_BYTES_PER_BODY (52.0 + 12.0 + 16.0 + 0.9 * (92.0 + 56.0) + 8.0 / 32.0 + 4.0 + 16.0)
#define TMG_HOST_BYTES_PER_BODY   (28.0 + 12.0 + 8.0 + 8 * (16.0 + 4.0 / 32.0))

static int tmg_probe(const nb_options *o)
{
    mg_nccl_env();
    if (o && o->n > 2147483647LL / 2)
        return nb_fail(NB_EXIT_USAGE, "the GPU tree code takes at most 2^30 bodies (got %lld)",
                       (long long)o->n);
    int rc = nb_cuda_probe();
    if (rc) return rc;
    int count = 0;
    NB_CUDA(cudaGetDeviceCount(&count));
    return mg_check_gpus(o, count);   /* --gpus: the GPUs here, or mpirun's processes */
}

/* Build m for n bodies and the options o (every rank, MPI mode); the
 * bodies each GPU integrates are the lesson's slices (multiples of 32). */
int mg_create(mg **out, int64_t n, const nb_options *o)
{
    tmg *t = (tmg *)calloc(1, sizeof *t);
    mg *m = t ? &t->m : NULL;
    *out = m;
    if (!m) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    m->team = mg_get_team();
    m->o = *o;
    m->o.ic = m->o.save = m->o.render_dir = NULL;     /* not ours to keep */
    m->n = n;
    m->replicated = 1;              /* every GPU integrates every body (the header) */
    int count = mg_device_count();
    if (m->team) {
        m->P = m->team->size;
        m->nlocal = 1;
    } else {
        if (count < 1) return nb_fail(NB_EXIT_NODEV, "no usable CUDA device");
        if (o->gpus > count)
            return nb_fail(NB_EXIT_USAGE, "--gpus %d: there %s only %d GPU%s here", o->gpus,
                           count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
        m->P = m->nlocal = o->gpus ? o->gpus : count;
    }
    m->g = (mg_gpu *)calloc((size_t)m->nlocal, sizeof *m->g);
    t->x = (tg_gpu *)calloc((size_t)m->nlocal, sizeof *t->x);
    if (!m->g || !t->x) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int64_t c = (n + m->P - 1) / m->P;
    m->chunk = (c + 31) / 32 * 32;
    for (int k = 0; k < m->nlocal; k++) {
        mg_gpu *w = &m->g[k];
        w->rank = m->team ? m->team->rank : k;
        w->dev = m->team ? m->team->local_rank : k;
        w->lo = (int64_t)w->rank * m->chunk < n ? (int64_t)w->rank * m->chunk : n;
        w->hi = (int64_t)(w->rank + 1) * m->chunk < n ? (int64_t)(w->rank + 1) * m->chunk : n;
    }
    mg_hooks(m);                    /* the test hooks: NB_NCCL_TIMEOUT_S, NB_FAKE_GPU_FAIL */
    if (!m->team) return nb_threads_start(m->nlocal, "one thread per GPU is needed (use fewer --gpus)");
    return 0;
}

int mg_start(mg *m, const nb_state *s)
{
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (!m->team || m->team->rank == 0) {
        ncclResult_t r = ncclGetUniqueId(&id);
        if (r != ncclSuccess)
            return nb_fail(NB_EXIT_RUNTIME, "NCCL error in ncclGetUniqueId: %s: %s",
                           ncclGetErrorString(r), ncclGetLastError(NULL));
    }
    if (m->team && m->team->bcast(&id, sizeof id))
        return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcasting the NCCL id failed");
    mg_call c = { OP_INIT, 0, 0, s, &id };
    return mg_run_all(m, &c);
}

static int tmg_init(void **ctx, const nb_state *s, const nb_options *o)
{
    mg_nccl_env();
    mg *m = NULL;
    int rc = mg_create(&m, s->n, o);
    *ctx = m;                       /* on failure nb_main() calls mg_destroy() */
    if (rc || (rc = mg_tell_init(m, s, o))) return rc;    /* MPI: the other ranks too */
    return mg_start(m, s);
}

static void sum_interactions(mg *m)
{
    m->bb = m->bc = 0;
    for (int k = 0; k < m->nlocal; k++) { m->bb += m->g[k].bb; m->bc += m->g[k].bc; }
}

/* ---- the copies out: the bodies back at their initial indices ---------- */

/* The arrays a[0 .. count) (n floats each, in the order the GPUs keep the
 * bodies: tree order) put back in the initial order, through GPU 0's ids
 * (every GPU's are alike): the value at place k goes to id[k].  GPU 0 is
 * the current device. */
static int unpermute(mg *m, float *const *a, int count)
{
    const size_t n = (size_t)m->n;
    int *id = (int *)malloc(n * sizeof *id);
    float *tmp = (float *)malloc(n * sizeof *tmp);
    if (!id || !tmp) {
        free(id);
        free(tmp);
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    }
    cudaError_t e = cudaMemcpy(id, X(m, &m->g[0])->id, n * sizeof *id, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        free(id);
        free(tmp);
        return nb_cuda_error(e, "cudaMemcpy(the bodies' initial indices)", __FILE__, __LINE__);
    }
    for (int c = 0; c < count; c++) {
        for (size_t k = 0; k < n; k++) tmp[id[k]] = a[c][k];
        memcpy(a[c], tmp, n * sizeof *tmp);
    }
    free(id);
    free(tmp);
    return 0;
}

static int tmg_accel(void *ctx, float *ax, float *ay, float *az)
{
    mg *m = (mg *)ctx;
    int rc = mg_tell(m, OP_FORCE, 0, 0);
    mg_call c = { OP_FORCE, 0, 0, NULL, NULL };
    if (rc || (rc = mg_run_all(m, &c))) return rc;
    size_t nb = (size_t)m->n * sizeof(float);
    mg_gpu *w = &m->g[0];           /* every GPU holds every acceleration */
    NB_CUDA(cudaSetDevice(w->dev));
    NB_CUDA(cudaMemcpy(ax, w->a.ax, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(ay, w->a.ay, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(az, w->a.az, nb, cudaMemcpyDeviceToHost));
    float *const a[3] = { ax, ay, az };
    if ((rc = unpermute(m, a, 3))) return rc;
    sum_interactions(m);
    return 0;
}

static int tmg_advance(void *ctx, int steps, nb_step_time *times)
{
    mg *m = (mg *)ctx;
    int timed = times != NULL, rc;
    if (timed && (rc = mg_grow_recs(&m->cur, &m->cap_cur, (size_t)steps * m->P))) return rc;
    if ((rc = mg_tell(m, OP_ADVANCE, steps, timed))) return rc;
    mg_call c = { OP_ADVANCE, steps, timed, NULL, NULL };
    if ((rc = mg_run_all(m, &c))) return rc;
    sum_interactions(m);
    return timed ? mg_bench_times(m, steps, times) : 0;  /* the slowest GPU's times */
}

/* Under mpirun: every rank at the same call (each GPU holds every body);
 * GPU 0 is then the current device. */
static int gather0(mg *m)
{
    int rc = mg_tell(m, OP_DOWNLOAD, 0, 0);
    mg_call c = { OP_DOWNLOAD, 0, 0, NULL, NULL };
    if (rc || (rc = mg_run_all(m, &c))) return rc;
    NB_CUDA(cudaSetDevice(m->g[0].dev));
    return 0;
}

static int tmg_download(void *ctx, nb_state *s)
{
    mg *m = (mg *)ctx;
    int rc = gather0(m);
    if (rc || (rc = nb_step05_gpu.download(m->g[0].bh, s))) return rc;
    float *const a[7] = { s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz };
    return unpermute(m, a, 7);
}

static int tmg_bodies(void *ctx, nb_bodies *b)
{
    mg *m = (mg *)ctx;
    int rc = gather0(m);
    return rc ? rc : nb_step05_gpu.bodies(m->g[0].bh, b);
}

static int tmg_cells(void *ctx, nb_cells *out)
{
    mg *m = (mg *)ctx;
    NB_CUDA(cudaSetDevice(m->g[0].dev));
    return nb_step05_gpu.cells(m->g[0].bh, out);
}

void mg_destroy(void *ctx)
{
    mg *m = (mg *)ctx;
    if (!m) return;
    tmg *t = (tmg *)m;
    if (m->g && t->x) {
        if (!m->dead && mg_tell(m, OP_DESTROY, 0, 0) == 0) {
            mg_call c = { OP_DESTROY, 0, 0, NULL, NULL };
            mg_run_all(m, &c);      /* finalizes the communicators together */
        }
        for (int k = 0; k < m->nlocal; k++) {   /* after a failure: what is left */
            mg_gpu *w = &m->g[k];
            if (cudaSetDevice(w->dev) != cudaSuccess) (void)cudaGetLastError();
            m->dead = 1;
            gpu_destroy(m, w);
        }
    }
    free(m->g);
    free(t->x);
    free(m->cur);
    free(m->hist);
    free(t);
}

/* ---- --bench: the lesson's report, then this build's ------------------- */

static void tmg_info(void *ctx, nb_run_info *info)
{
    mg *m = (mg *)ctx;
    mg_info(ctx, info);             /* GPU 0's pipeline, the lesson's buffers */
    bh_tuned_stats st;
    bh_tuned_get_stats(X(m, &m->g[0])->tc, &st);
    info->block = 32 * st.warps;
    info->device_bytes += st.bytes + X(m, &m->g[0])->bytes;
}

/* GPU p's median walk (ms) over the timed steps. */
static double median_walk(const mg *m, int p, double *tmp)
{
    for (int k = 0; k < m->nhist; k++) tmp[k] = m->hist[(size_t)k * m->P + p].ph[PH_WALK];
    return m->nhist ? nb_median(tmp, m->nhist) : 0.0;
}

static void tmg_report(void *ctx, FILE *out)
{
    mg *m = (mg *)ctx;
    mg_report(ctx, out);            /* GPUs, NCCL, every GPU's phases, bytes, interactions */
    const tg_gpu *x = X(m, &m->g[0]);
    double *tmp = (double *)malloc((size_t)(m->nhist > 0 ? m->nhist : 1) * sizeof(double));
    if (!tmp) return;
    int slow = 0, fast = 0;
    double ws = -1, wf = INFINITY, mean = 0;
    for (int p = 0; p < m->P; p++) {
        double v = median_walk(m, p, tmp);
        if (v > ws) { ws = v; slow = p; }
        if (v < wf) { wf = v; fast = p; }
    }
    for (int k = 0; k < m->nhist; k++) {        /* a step is as slow as its slowest GPU */
        double s = 0;
        for (int p = 0; p < m->P; p++) s = fmax(s, m->hist[(size_t)k * m->P + p].step);
        mean += s / m->nhist;
    }
    free(tmp);
    fprintf(out, "    walk spread over the GPUs (median walk, ms): slowest %.3f (GPU %d), fastest %.3f "
            "(GPU %d), slowest/fastest %.3f; mean step %.3f ms (the tree is kept: steps are unequal)\n",
            ws, slow, wf, fast, wf > 0 ? ws / wf : 0.0, mean);
    /* the split of the last walk, and each range's share of that walk's cost */
    double total = 0;
    for (int64_t g = 0; g < x->ng; g++) total += x->hcost[g];
    fprintf(out, "    the split (groups of the tree order, by the walk before's costs):");
    for (int p = 0; p < m->P; p++) {
        double c = 0;
        for (int64_t g = x->walked[p]; g < x->walked[p + 1]; g++) c += x->hcost[g];
        fprintf(out, " GPU %d [%lld, %lld) %.1f%%", p, (long long)x->walked[p],
                (long long)x->walked[p + 1], total > 0 ? 100 * c / total : 0.0);
    }
    fputc('\n', out);
    /* the last timed step on every GPU of this process (under mpirun: this
     * rank's): the parts' walks and their exchanges, on their two streams */
    for (int k = 0; k < m->nlocal && m->nhist > 0; k++) {
        const tg_gpu *y = X(m, &m->g[k]);
        fprintf(out, "    timeline of the last timed step, GPU %d (ms from its start; walk: a part's walk "
                "and pack, default stream; exchange: its all-gather, NCCL's stream, from when it may begin):",
                m->g[k].rank);
        for (int j = 0; j < y->parts; j++)
            fprintf(out, " walk%d %.3f %.3f exchange%d %.3f %.3f", j + 1, y->tl[4 * j], y->tl[4 * j + 1],
                    j + 1, y->tl[4 * j + 2], y->tl[4 * j + 3]);
        fputc('\n', out);
    }
    bh_tuned_stats st;
    bh_tuned_get_stats(x->tc, &st);
    fprintf(out, "    tuned tree (GPU 0): %lld groups of %d, %s, on %d blocks of %d warps; deepest stack "
            "%d of %d, %d groups sent to the stackless walk; cells pull as %s; tree kept for %d steps, "
            "%d refits; %d cells; %.1f MiB of its own (beside the lesson's, above); build = the tree "
            "built or refitted, and its quadrupoles\n", (long long)st.groups, st.group,
            st.sched ? "the costliest first" : "in tree order", st.blocks, st.warps, st.deepest, st.depth,
            st.fallback, st.order == 2 ? "quadrupoles" : "monopoles", st.keep, st.refits, st.ncells,
            st.bytes / 1048576.0);
    fprintf(out, "    bodies kept in tree order (reordered at each build): their initial indices and the "
            "scratch %.1f MiB a GPU\n", x->bytes / 1048576.0);
    fprintf(out, "    the walk's costs all-gathered with the accelerations: %.3f MB a step per GPU "
            "(4 B a group)\n", 4.0 * (double)st.groups * (m->P - 1) / m->P / 1e6);
    if (x->parts > 1)
        fprintf(out, "    each GPU's range walked in %d parts (NB_TUNE=parts=%d), each part's all-gather "
                "beside the next part's walk, on a stream of the highest priority\n", x->parts, x->parts);
    else
        fprintf(out, "    each GPU's range walked whole, then all-gathered (NB_TUNE=parts=K cuts it in K "
                "parts, each exchanged beside the next one's walk)\n");
}

/* ---- what the tests read ------------------------------------------------ */

int tmg_gpus(void *ctx) { return ((mg *)ctx)->P; }

int tmg_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    mg *m = (mg *)ctx;
    *bb = m->bb;
    *bc = m->bc;
    return 0;
}

int tmg_walk_split(void *ctx, int64_t *b)
{
    mg *m = (mg *)ctx;
    memcpy(b, X(m, &m->g[0])->walked, (size_t)(m->P + 1) * sizeof *b);
    return 0;
}

const nb_step nb_step06_tuned = {
    .name = "step06_tuned",
    .idea = "step05's tuned tree over every GPU of a host: the tree and the integration replicated, "
            "the bodies in tree order, the group walk split by measured cost, NCCL",
    .options = TMG_STEP_OPTIONS,
    .tree = 1,
    .probe = tmg_probe,
    .init = tmg_init,
    .accel = tmg_accel,
    .advance = tmg_advance,
    .download = tmg_download,
    .info = tmg_info,
    .report = tmg_report,
    .cells = tmg_cells,
    .destroy = mg_destroy,
    .host_bytes_per_body = TMG_HOST_BYTES_PER_BODY,
    .device_bytes_per_body = TMG_DEVICE_BYTES_PER_BODY,
    .bodies = tmg_bodies,
};
