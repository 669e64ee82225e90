/* mg.c -- step06_multigpu: the Barnes-Hut tree code of step05 over every GPU
 * of a host, with NCCL.  One idea over step05: split the bodies over P GPUs.
 *
 * Read handouts/06_multigpu.md first.  The data flow of one leapfrog step,
 * on every GPU r at once (P GPUs, slices of chunk bodies, see slice()):
 *
 *   kick + drift   its own bodies [r*chunk, (r+1)*chunk), by index: the
 *                  bodies a GPU integrates never change (their velocities
 *                  live there, current, and nowhere else)
 *   all-gather x   every GPU's slice of the positions and masses to every
 *                  GPU (ncclAllGather, in place, 16 B a body): now each GPU
 *                  holds all N positions
 *   build          step05's bbox, build, summarize, sort on all N bodies:
 *                  every GPU builds the same tree (it is a function of the
 *                  positions; the cell numbering differs, nothing else)
 *   walk           step05's k_force for the slice [r*chunk, (r+1)*chunk) of
 *                  the TREE ORDER (not of the indices): warps of 32 bodies
 *                  that are neighbours in space, as on one GPU
 *   all-gather a   the slice's accelerations, lined up in tree order
 *                  (k_pack), to every GPU (12 B a body), then put back at
 *                  the bodies' indices (k_scatter)
 *   kick           its own bodies again.
 *
 * The walk's slice and the integrated range are different bodies: a body
 * is walked where its tree position falls this step, and integrated where
 * its index falls, always.  The second all-gather brings the two together.
 * Bytes received per GPU and step: (16 + 12) B x N x (P-1)/P; the handout
 * compares this with the other schemes.
 *
 * The same bits as step05: the slices are multiples of 32 bodies, so every
 * warp of the walk holds the 32 bodies it holds on one GPU, walks the same
 * tree and adds the same terms in the same order; the copies (all-gathers,
 * pack, scatter) do not change bits, and the integration is elementwise.
 * At P = 1 the run is step05's body for body; at P > 1 too (see the tests).
 *
 * Two launch modes, one code path (on_gpu() and everything below it):
 *  - one process, one OpenMP thread per GPU (main.c, the default): the
 *    threads meet in the collectives; the main thread runs nb_main();
 *  - one process per GPU under mpirun (main_mpi.c): rank 0 runs nb_main()
 *    and sends every call to the other ranks first (the team's bcast).
 * No hang: the communicators are non-blocking (config.blocking = 0); the
 * host never blocks while a collective is in flight, it polls the
 * collective's event and ncclCommGetAsyncError(), and gives up when another
 * GPU failed or after NB_NCCL_TIMEOUT_S seconds (default 300); then every
 * communicator is aborted (ncclCommAbort) and the run exits 3 naming the GPU
 * and NCCL's message.
 *
 * Test hooks (environment): NB_FAKE_GPU_FAIL=R makes GPU R fail at its
 * first step, before its all-gather, while the others wait in theirs;
 * NB_NCCL_TIMEOUT_S=S the timeout; NB_FAKE_GPU_COUNT=C the GPU count that
 * main_mpi.c checks the ranks against (its refusal, tested without GPUs). */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include "bh_gpu.h"
#include "mg.h"
#include "mg_kernels.h"
#include "nb_cuda.h"
#include "nb_threads.h"

#define MG_MSG 1200
#define MG_TIMEOUT_S 300.0

/* Per timed step and GPU: the phases of --bench (CUDA events). */
enum { PH_GX, PH_BUILD, PH_WALK, PH_GA, PH_INT, MG_PHASES };
static const char *const ph_names[MG_PHASES] = { "gather x", "build", "walk", "gather a",
                                                 "integrate" };
/* Events on the default stream, in the order of a step. */
enum { E_START, E_DRIFT, E_GX, E_BUILD, E_WALK, E_SCAT, E_END, MG_EVENTS };

typedef struct mg_rec {             /* one GPU, one timed step: ms, counts */
    double ph[MG_PHASES], force_start, force, step, bb, bc;
} mg_rec;

enum { OP_INIT = 1, OP_ADVANCE, OP_FORCE, OP_DOWNLOAD, OP_DESTROY, OP_QUIT };

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
    const mg_team *team;            /* NULL: one process drives every GPU */
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
} mg;

/* The header of a call sent from rank 0 to the other ranks (MPI mode). */
typedef struct mg_msg { int op, steps, timed, rc; } mg_msg;
typedef struct mg_params {
    int64_t n;
    double dt, eps, theta;
    int block, poison, gpus, pad;
} mg_params;

static const mg_team *g_team;       /* set by main_mpi.c */

void mg_set_team(const mg_team *team) { g_team = team; }

void mg_nccl_env(void)
{
    const char *v = getenv("NCCL_NVLS_ENABLE");
    if (!v || !*v) setenv("NCCL_NVLS_ENABLE", "0", 1);
}

int mg_device_count(void)
{
    const char *fake = getenv("NB_FAKE_NO_DEVICE");
    int count = 0;
    int64_t fc;
    if (fake && *fake) return 0;
    if (nb_env_i64("NB_FAKE_GPU_COUNT", 0, 1 << 20, &fc) == 1)
        return (int)fc;                         /* test hook: the MPI launch's rank check */
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

/* ---- the split --------------------------------------------------------- */

/* GPU r of P: chunk, the size every GPU sends in the all-gathers, and
 * [lo, hi), the bodies it integrates (by index) and the part of the tree
 * order it walks -- the same numbers for both. */
static int slice(int64_t n, int P, int r, int64_t *chunk, int64_t *lo, int64_t *hi)
{
    /* BEGIN SOLUTION
     * Split [0, n) into P slices of chunk bodies, chunk = ceil(n / P) rounded up to a
     * multiple of 32 (a warp: then every warp of a GPU's walk holds the 32 bodies it holds
     * on one GPU), GPU r taking [r * chunk, (r + 1) * chunk) clipped to n (the last slices
     * may be short or empty: lo = hi).  Every GPU uses the same chunk: an all-gather sends
     * the same count from every GPU.  See handouts/06_multigpu.md, "The split".
     */
    /* BLANK: (void)n; (void)P; (void)r; *chunk = *lo = *hi = 0; */
    /* BLANK: return nb_todo("the per-GPU body range in slice()", "06_multigpu"); */
    int64_t c = (n + P - 1) / P;
    c = (c + 31) / 32 * 32;
    *chunk = c;
    *lo = (int64_t)r * c < n ? (int64_t)r * c : n;
    *hi = (int64_t)(r + 1) * c < n ? (int64_t)(r + 1) * c : n;
    return 0;
    /* END SOLUTION */
}

/* ---- waiting without hanging ------------------------------------------ */

static void pause_a_bit(long *spins)
{
    if ((*spins)++ < 2000) { sched_yield(); return; }
    struct timespec ts = { 0, 20000 };          /* 20 us */
    nanosleep(&ts, NULL);
}

static int nccl_fail(mg_gpu *w, ncclResult_t r, const char *what)
{
    const char *last = ncclGetLastError(w->comm);
    return nb_fail(NB_EXIT_RUNTIME, "NCCL error in %s: %s%s%s", what, ncclGetErrorString(r),
                   last && *last ? ": " : "", last ? last : "");
}

/* Stop waiting: another GPU failed, or the wait is past the timeout. */
static int stop_check(mg *m, mg_gpu *w, double t0, const char *what)
{
    if (atomic_load(&m->failed)) {
        w->secondary = 1;
        return nb_fail(NB_EXIT_RUNTIME, "stopped waiting for %s: another GPU failed", what);
    }
    if (nb_now_ms() - t0 > m->timeout_ms)
        return nb_fail(NB_EXIT_RUNTIME, "NCCL: %s did not complete in %.0f s (a GPU or a process "
                       "of the run stopped?  NB_NCCL_TIMEOUT_S sets the limit)", what,
                       m->timeout_ms / 1000);
    return 0;
}

/* r: what an NCCL call returned.  ncclInProgress (non-blocking
 * communicator): poll until the communicator is ready for the next call. */
static int nccl_ready(mg *m, mg_gpu *w, ncclResult_t r, const char *what)
{
    double t0 = nb_now_ms();
    long spins = 0;
    while (r == ncclInProgress) {
        ncclResult_t st = ncclSuccess, q = ncclCommGetAsyncError(w->comm, &st);
        r = q != ncclSuccess ? q : st;
        if (r != ncclInProgress) break;
        int rc = stop_check(m, w, t0, what);
        if (rc) return rc;
        pause_a_bit(&spins);
    }
    return r == ncclSuccess ? 0 : nccl_fail(w, r, what);
}

/* Wait for event e (recorded after a collective) by polling: the host never
 * blocks while a collective is in flight, so a GPU that never joins it
 * cannot hang this one. */
static int wait_event(mg *m, mg_gpu *w, cudaEvent_t e, const char *what)
{
    double t0 = nb_now_ms();
    long spins = 0;
    for (;;) {
        cudaError_t q = cudaEventQuery(e);
        if (q == cudaSuccess) return 0;
        if (q != cudaErrorNotReady) return nb_cuda_error(q, what, __FILE__, __LINE__);
        ncclResult_t st = ncclSuccess, r = ncclCommGetAsyncError(w->comm, &st);
        if (r != ncclSuccess) return nccl_fail(w, r, what);
        if (st != ncclSuccess && st != ncclInProgress) return nccl_fail(w, st, what);
        int rc = stop_check(m, w, t0, what);
        if (rc) return rc;
        pause_a_bit(&spins);
    }
}

/* Around a collective: NCCL's stream starts after the work queued on the
 * default stream; the default stream goes on after the collective; the
 * host waits for it (polling). */
static int before_collective(mg_gpu *w)
{
    NB_CUDA(cudaEventRecord(w->ready, 0));
    NB_CUDA(cudaStreamWaitEvent(w->stream, w->ready, 0));
    return 0;
}

static int after_collective(mg *m, mg_gpu *w, ncclResult_t r, const char *what)
{
    int rc = nccl_ready(m, w, r, what);
    if (rc) return rc;
    NB_CUDA(cudaEventRecord(w->done, w->stream));
    NB_CUDA(cudaStreamWaitEvent(0, w->done, 0));
    return wait_event(m, w, w->done, what);
}

/* ---- the two all-gathers ---------------------------------------------- */

/* Every GPU's slice of the positions and masses (x, y, z, m: 4 floats a
 * body) to every GPU.  In place: GPU r's slice already lies at
 * pos[4 r chunk ..), where the all-gather puts rank r's part. */
static int gather_positions(mg *m, mg_gpu *w)
{
    int rc = before_collective(w);
    if (rc) return rc;
    size_t count = 4 * (size_t)m->chunk;
    float *pos = w->a.pos;
    ncclResult_t r = ncclInvalidUsage;          /* set by the all-gather below */
    /* BEGIN SOLUTION
     * One ncclAllGather of count floats (ncclFloat) per GPU on w->comm and w->stream, in
     * place: GPU w->rank sends from pos + w->rank * count, and every GPU receives the P
     * slices, rank by rank, into pos.  Keep what it returns in r (after_collective() checks
     * it and waits).  See handouts/06_multigpu.md, "The all-gather".
     */
    /* BLANK: (void)pos; (void)count; */
    /* BLANK: return nb_todo("the all-gather in gather_positions()", "06_multigpu"); */
    r = ncclAllGather(pos + (size_t)w->rank * count, pos, count, ncclFloat, w->comm, w->stream);
    /* END SOLUTION */
    return after_collective(m, w, r, "the all-gather of the positions");
}

/* The walked slice's accelerations, in tree order, to every GPU (3 floats
 * a body), the same way. */
static int gather_accels(mg *m, mg_gpu *w)
{
    int rc = before_collective(w);
    if (rc) return rc;
    size_t count = 3 * (size_t)m->chunk;
    ncclResult_t r = ncclAllGather(w->at + (size_t)w->rank * count, w->at, count, ncclFloat,
                                   w->comm, w->stream);
    return after_collective(m, w, r, "the all-gather of the accelerations");
}

/* Velocities, for download() only: every GPU holds the current velocities
 * of its own bodies. */
static int gather_velocities(mg *m, mg_gpu *w)
{
    int rc = before_collective(w);
    if (rc) return rc;
    size_t count = (size_t)m->chunk, off = (size_t)w->rank * count;
    ncclResult_t r = ncclGroupStart();
    float *v[3] = { w->a.vx, w->a.vy, w->a.vz };
    for (int c = 0; c < 3 && r == ncclSuccess; c++)
        r = ncclAllGather(v[c] + off, v[c], count, ncclFloat, w->comm, w->stream);
    ncclResult_t e = ncclGroupEnd();           /* always closes the group */
    if (r == ncclSuccess) r = e;
    return after_collective(m, w, r, "the all-gather of the velocities");
}

/* ---- one GPU's part of a step ----------------------------------------- */

static int mark(mg_gpu *w, int timed, int e)
{
    if (timed) NB_CUDA(cudaEventRecord(w->ev[e], 0));
    return 0;
}

/* The accelerations of the current positions (every GPU holds all of them):
 * the same tree everywhere, this GPU's slice of the walk, the exchange. */
static int forces(mg *m, mg_gpu *w, int timed)
{
    int rc;
    if ((rc = bh_gpu_build(w->bh)) || (rc = mark(w, timed, E_BUILD))) return rc;
    if (m->o.poison)                /* an entry nobody wrote stays NaN */
        NB_CUDA(cudaMemset(w->at, 0xFF, 3 * (size_t)m->P * (size_t)m->chunk * sizeof(float)));
    if ((rc = bh_gpu_walk(w->bh, w->lo, w->hi)) ||
        (rc = mg_pack(w->a.sorted, w->a.ax, w->a.ay, w->a.az, w->at, w->lo, w->hi)) ||
        (rc = mark(w, timed, E_WALK)))
        return rc;
    if ((rc = gather_accels(m, w))) return rc;
    if ((rc = mg_scatter(w->a.sorted, w->at, w->a.ax, w->a.ay, w->a.az, m->n))) return rc;
    return mark(w, timed, E_SCAT);
}

/* Wait for the device; the interaction counts of the last walk. */
static int finish(mg_gpu *w)
{
    int rc = bh_gpu_read_status(w->bh);
    if (!rc) rc = bh_gpu_interactions(w->bh, &w->bb, &w->bc);
    return rc;
}

static int gpu_step(mg *m, mg_gpu *w, int timed, mg_rec *rec)
{
    int rc;
    if (w->fake) {
        w->fake = 0;
        return nb_fail(NB_EXIT_RUNTIME, "fake failure before its all-gather (NB_FAKE_GPU_FAIL=%d)",
                       w->rank);
    }
    if ((rc = mark(w, timed, E_START)) || (rc = bh_gpu_drift(w->bh, w->lo, w->hi)) ||
        (rc = mark(w, timed, E_DRIFT)) || (rc = gather_positions(m, w)) ||
        (rc = mark(w, timed, E_GX)) || (rc = forces(m, w, timed)) ||
        (rc = bh_gpu_kick(w->bh, w->lo, w->hi)) || (rc = mark(w, timed, E_END)) ||
        (rc = finish(w)))
        return rc;
    if (!timed) return 0;
    float ms[MG_EVENTS - 1];
    for (int e = 0; e + 1 < MG_EVENTS; e++)
        NB_CUDA(cudaEventElapsedTime(&ms[e], w->ev[e], w->ev[e + 1]));
    memset(rec, 0, sizeof *rec);
    rec->ph[PH_GX] = ms[E_DRIFT];               /* ms[e]: from event e to e + 1 */
    rec->ph[PH_BUILD] = ms[E_GX];
    rec->ph[PH_WALK] = ms[E_BUILD];
    rec->ph[PH_GA] = ms[E_WALK];
    rec->ph[PH_INT] = ms[E_START] + ms[E_SCAT];
    float f, s;
    NB_CUDA(cudaEventElapsedTime(&f, w->ev[E_DRIFT], w->ev[E_SCAT]));
    NB_CUDA(cudaEventElapsedTime(&s, w->ev[E_START], w->ev[E_END]));
    rec->force_start = ms[E_START];
    rec->force = f;
    rec->step = s;
    rec->bb = (double)w->bb;
    rec->bc = (double)w->bc;
    return 0;
}

static int comm_init(mg *m, mg_gpu *w, const ncclUniqueId *id)
{
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;               /* every call returns; we poll (no hang) */
    ncclResult_t r = ncclCommInitRankConfig(&w->comm, m->P, *id, w->rank, &cfg);
    if (r != ncclSuccess && r != ncclInProgress && !w->comm)
        return nb_fail(NB_EXIT_RUNTIME, "NCCL error in ncclCommInitRankConfig: %s: %s",
                       ncclGetErrorString(r), ncclGetLastError(NULL));
    return nccl_ready(m, w, r, "creating the NCCL communicator");
}

static int gpu_init(mg *m, mg_gpu *w, const nb_state *s, const ncclUniqueId *id)
{
    NB_CUDA(cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking));
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
    if ((rc = comm_init(m, w, id))) return rc;
    if ((rc = forces(m, w, 0))) return rc;       /* the accelerations of the initial state */
    return finish(w);
}

static int gpu_destroy(mg *m, mg_gpu *w)
{
    int rc = 0;
    if (w->comm && !m->dead) {      /* a healthy communicator: finalize, then destroy */
        rc = nccl_ready(m, w, ncclCommFinalize(w->comm), "finalizing the NCCL communicator");
        if (!rc) {
            ncclResult_t r = ncclCommDestroy(w->comm);
            if (r != ncclSuccess) rc = nccl_fail(w, r, "ncclCommDestroy");
        } else {
            ncclCommAbort(w->comm);
        }
        w->comm = NULL;
    }
    if (w->bh) nb_step05_gpu.destroy(w->bh);
    w->bh = NULL;
    if (w->at) cudaFree(w->at);
    w->at = NULL;
    for (int e = 0; e < MG_EVENTS; e++)
        if (w->ev[e]) cudaEventDestroy(w->ev[e]);
    if (w->ready) cudaEventDestroy(w->ready);
    if (w->done) cudaEventDestroy(w->done);
    if (w->stream) cudaStreamDestroy(w->stream);
    memset(w->ev, 0, sizeof w->ev);
    w->ready = w->done = NULL;
    w->stream = NULL;
    (void)cudaGetLastError();
    return rc;
}

/* ---- every GPU of this process at once --------------------------------- */

typedef struct mg_call {
    int op, steps, timed;
    const nb_state *s;              /* OP_INIT */
    const ncclUniqueId *id;         /* OP_INIT */
} mg_call;

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
        return rc ? rc : finish(w);
    }
    case OP_DOWNLOAD:
        return gather_velocities(m, w);
    case OP_DESTROY:
        return gpu_destroy(m, w);
    }
    return nb_fail(NB_EXIT_RUNTIME, "internal error: unknown operation %d", c->op);
}

static void keep_failure(mg *m, mg_gpu *w, int rc)
{
    w->rc = rc;
    if (!rc) return;
    snprintf(w->msg, sizeof w->msg, "%s", nb_errmsg());
    atomic_store(&m->failed, 1);
}

/* Run c on every GPU of this process, one OpenMP thread each.  A failure
 * on any GPU: every communicator is aborted, the run is over (exit 3 with
 * the GPU and the message; under mpirun every process stops). */
static int run_all(mg *m, const mg_call *c)
{
    if (m->dead) return nb_fail(m->dead_rc, "%s", m->dead_msg);
    atomic_store(&m->failed, 0);
    for (int t = 0; t < m->nlocal; t++) { m->g[t].rc = 0; m->g[t].secondary = 0; }
    if (m->nlocal == 1) {
        keep_failure(m, &m->g[0], on_gpu(m, &m->g[0], c));
    } else {
        int team_size = 0;
        omp_set_dynamic(0);
#pragma omp parallel num_threads(m->nlocal)
        {
            int t = omp_get_thread_num();
#pragma omp single
            team_size = omp_get_num_threads();  /* implied barrier: every thread sees it */
            if (team_size == m->nlocal) keep_failure(m, &m->g[t], on_gpu(m, &m->g[t], c));
        }
        if (team_size != m->nlocal)
            return nb_fail(NB_EXIT_RUNTIME, "OpenMP started %d threads for %d GPUs (one thread per "
                           "GPU is needed: OMP_THREAD_LIMIT?)", team_size, m->nlocal);
    }
    int first = -1;
    for (int t = 0; t < m->nlocal; t++)
        if (m->g[t].rc && (first < 0 || (m->g[first].secondary && !m->g[t].secondary))) first = t;
    if (first < 0) return 0;
    mg_gpu *w = &m->g[first];
    m->dead = 1;
    m->dead_rc = w->rc;
    snprintf(m->dead_msg, sizeof m->dead_msg, "GPU %d: %s", w->rank, w->msg);
    for (int t = 0; t < m->nlocal; t++)         /* stops NCCL kernels still waiting */
        if (m->g[t].comm) { ncclCommAbort(m->g[t].comm); m->g[t].comm = NULL; }
    if (m->team) {                              /* the other processes wait in collectives */
        fprintf(stderr, "step06_multigpu: %s\n", m->dead_msg);
        fflush(stderr);
        m->team->abort_all(m->dead_rc);
    }
    return nb_fail(m->dead_rc, "%s", m->dead_msg);
}

/* Rank 0 (MPI mode): the other ranks do c too.  No-op with one process. */
static int tell_followers(mg *m, int op, int steps, int timed)
{
    if (!m->team || m->team->rank != 0) return 0;
    if (op == OP_INIT) m->announced = 1;
    else if (!m->announced) return 0;
    mg_msg h = { op, steps, timed, 0 };
    if (m->team->bcast(&h, sizeof h)) return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcast failed");
    return 0;
}

/* ---- the nb_step interface --------------------------------------------- */

/* Memory per body: on every GPU (each holds all N) step05's (bodies 52 B,
 * cells 0.9 x 92 B) plus the accelerations in tree order (12 B); on the
 * host the state (28 B), --check's accelerations (12 B) and step05's
 * staging buffer (16 B) of each GPU the process drives, counted for 8. */
#define MG_DEVICE_BYTES_PER_BODY (52.0 + 12.0 + 0.9 * 92.0)
#define MG_HOST_BYTES_PER_BODY   (28.0 + 12.0 + 8 * 16.0)

static int mg_probe(const nb_options *o)
{
    mg_nccl_env();
    if (o && o->n > 2147483647LL / 2)
        return nb_fail(NB_EXIT_USAGE, "the GPU tree code takes at most 2^30 bodies (got %lld)",
                       (long long)o->n);
    int rc = nb_cuda_probe();
    if (rc) return rc;
    int count = 0;
    NB_CUDA(cudaGetDeviceCount(&count));
    if (g_team) {
        if (o && o->gpus && o->gpus != g_team->size)
            return nb_fail(NB_EXIT_USAGE, "--gpus %d: mpirun started %d processes, one per GPU "
                           "(leave --gpus out under mpirun)", o->gpus, g_team->size);
        return 0;
    }
    if (o && o->gpus > count) {
        const char *vis = getenv("CUDA_VISIBLE_DEVICES");
        return nb_fail(NB_EXIT_USAGE, "--gpus %d: there %s only %d GPU%s here%s%s%s", o->gpus,
                       count == 1 ? "is" : "are", count, count == 1 ? "" : "s",
                       vis ? " (CUDA_VISIBLE_DEVICES=" : "", vis ? vis : "", vis ? ")" : "");
    }
    return 0;
}

static void mg_destroy(void *ctx);

/* Build m for n bodies and the options o (every rank, MPI mode). */
static int create(mg **out, int64_t n, const nb_options *o)
{
    mg *m = (mg *)calloc(1, sizeof *m);
    *out = m;
    if (!m) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    m->team = g_team;
    m->o = *o;
    m->o.ic = m->o.save = m->o.render_dir = NULL;     /* not ours to keep */
    m->n = n;
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
    if (!m->g) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    for (int t = 0; t < m->nlocal; t++) {
        mg_gpu *w = &m->g[t];
        w->rank = m->team ? m->team->rank : t;
        w->dev = m->team ? m->team->local_rank : t;
        int rc = slice(n, m->P, w->rank, &m->chunk, &w->lo, &w->hi);
        if (rc) return rc;
    }
    if (m->chunk < 1 || m->chunk % 32 || (int64_t)m->P * m->chunk < n)
        return nb_fail(NB_EXIT_RUNTIME, "slice(): %d slices of %lld bodies do not cover %lld "
                       "bodies in multiples of 32", m->P, (long long)m->chunk, (long long)n);
    /* test hooks: decimal integers, anything else is ignored (nb_env_i64) */
    int64_t ts = 0, fail = -1;
    nb_env_i64("NB_NCCL_TIMEOUT_S", 1, 1000000, &ts);
    m->timeout_ms = 1000.0 * (ts > 0 ? (double)ts : MG_TIMEOUT_S);
    nb_env_i64("NB_FAKE_GPU_FAIL", 0, 1 << 20, &fail);
    for (int k = 0; k < m->nlocal; k++) m->g[k].fake = m->g[k].rank == fail;
    /* one OpenMP thread per GPU (run_all()), started now: a limit on
     * threads is exit 3 with the reason, not libgomp's exit 1 */
    if (!m->team) return nb_threads_start(m->nlocal, "one thread per GPU is needed (use fewer --gpus)");
    return 0;
}

static int start(mg *m, const nb_state *s)
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
    return run_all(m, &c);
}

/* MPI mode: the state from rank 0 to every rank (7 arrays of n floats). */
static int bcast_state(nb_state *s)
{
    float *a[7] = { s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz };
    for (int k = 0; k < 7; k++)
        if (g_team->bcast(a[k], (size_t)s->n * sizeof(float)))
            return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcasting the bodies failed");
    return 0;
}

static int mg_init(void **ctx, const nb_state *s, const nb_options *o)
{
    mg_nccl_env();
    mg *m = NULL;
    int rc = create(&m, s->n, o);
    *ctx = m;                       /* on failure nb_main() calls mg_destroy() */
    if (rc) return rc;
    if (m->team) {
        mg_params p = { s->n, o->dt, o->eps, o->theta, o->block, o->poison, o->gpus, 0 };
        if ((rc = tell_followers(m, OP_INIT, 0, 0))) return rc;
        if (m->team->bcast(&p, sizeof p)) return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcast failed");
        if ((rc = bcast_state((nb_state *)s))) return rc;
    }
    return start(m, s);
}

static int mg_accel(void *ctx, float *ax, float *ay, float *az)
{
    mg *m = (mg *)ctx;
    int rc = tell_followers(m, OP_FORCE, 0, 0);
    mg_call c = { OP_FORCE, 0, 0, NULL, NULL };
    if (rc || (rc = run_all(m, &c))) return rc;
    size_t nb = (size_t)m->n * sizeof(float);
    mg_gpu *w = &m->g[0];           /* every GPU holds every acceleration */
    NB_CUDA(cudaSetDevice(w->dev));
    NB_CUDA(cudaMemcpy(ax, w->a.ax, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(ay, w->a.ay, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(az, w->a.az, nb, cudaMemcpyDeviceToHost));
    m->bb = m->bc = 0;
    for (int t = 0; t < m->nlocal; t++) { m->bb += m->g[t].bb; m->bc += m->g[t].bc; }
    return 0;
}

static int grow_recs(mg_rec **p, int *cap, size_t need)
{
    if (need <= (size_t)*cap) return 0;
    size_t c = need + need / 2 + 16;
    mg_rec *q = (mg_rec *)realloc(*p, c * sizeof *q);
    if (!q) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the timings");
    *p = q;
    *cap = (int)c;
    return 0;
}

static int mg_advance(void *ctx, int steps, nb_step_time *times)
{
    mg *m = (mg *)ctx;
    int timed = times != NULL, rc;
    if (timed && (rc = grow_recs(&m->cur, &m->cap_cur, (size_t)steps * m->P))) return rc;
    if ((rc = tell_followers(m, OP_ADVANCE, steps, timed))) return rc;
    mg_call c = { OP_ADVANCE, steps, timed, NULL, NULL };
    if ((rc = run_all(m, &c))) return rc;
    m->bb = m->bc = 0;
    for (int t = 0; t < m->nlocal; t++) { m->bb += m->g[t].bb; m->bc += m->g[t].bc; }
    if (!timed) return 0;
    if ((rc = grow_recs(&m->hist, &m->cap_hist, (size_t)(m->nhist + steps) * m->P))) return rc;
    for (int k = 0; k < steps; k++) {
        const mg_rec *r = &m->cur[(size_t)k * m->P];
        double fs = INFINITY, f = 0, s = 0, inter = 0;
        for (int p = 0; p < m->P; p++) {      /* the step is as slow as its slowest GPU */
            fs = fmin(fs, r[p].force_start);  /* (the force of the slowest starts no earlier) */
            f = fmax(f, r[p].force);
            s = fmax(s, r[p].step);
            inter += r[p].bb + r[p].bc;
        }
        times[k].force_start_ms = fs;
        times[k].force_ms = f;
        times[k].step_ms = s;
        times[k].interactions = (int64_t)inter;
        if (m->team) {              /* one process sees only its own counts */
            m->bb = m->bc = 0;
            for (int p = 0; p < m->P; p++) { m->bb += (int64_t)r[p].bb; m->bc += (int64_t)r[p].bc; }
        }
        memcpy(&m->hist[(size_t)m->nhist * m->P], r, (size_t)m->P * sizeof *r);
        m->nhist++;
    }
    return 0;
}

/* Every GPU's bodies gathered on GPU 0, which is then the current device. */
static int gather0(mg *m)
{
    int rc = tell_followers(m, OP_DOWNLOAD, 0, 0);
    mg_call c = { OP_DOWNLOAD, 0, 0, NULL, NULL };
    if (rc || (rc = run_all(m, &c))) return rc;
    NB_CUDA(cudaSetDevice(m->g[0].dev));
    return 0;
}

static int mg_download(void *ctx, nb_state *s)
{
    mg *m = (mg *)ctx;
    int rc = gather0(m);
    return rc ? rc : nb_step05_gpu.download(m->g[0].bh, s);
}

/* The bodies on GPU 0 after the same gather as download(), for the GL view. */
static int mg_bodies(void *ctx, nb_bodies *b)
{
    mg *m = (mg *)ctx;
    int rc = gather0(m);
    return rc ? rc : nb_step05_gpu.bodies(m->g[0].bh, b);
}

static void mg_info(void *ctx, nb_run_info *info)
{
    mg *m = (mg *)ctx;
    mg_gpu *w = &m->g[0];
    if (cudaSetDevice(w->dev) != cudaSuccess) (void)cudaGetLastError();
    nb_step05_gpu.info(w->bh, info);            /* GPU 0: name, SMs, tree */
    char name[128];
    snprintf(name, sizeof name, "%s", info->device);
    snprintf(info->device, sizeof info->device, "%d x %.100s", m->P, name);
    info->sms *= m->P;
    info->device_bytes = w->a.bytes + w->bytes_at;   /* per GPU: each holds all N */
}

static double median_of(const mg *m, int p, int field, double *tmp)
{
    for (int k = 0; k < m->nhist; k++) {
        const mg_rec *r = &m->hist[(size_t)k * m->P + p];
        tmp[k] = field < MG_PHASES ? r->ph[field] : field == MG_PHASES ? r->force : r->step;
    }
    return m->nhist ? nb_median(tmp, m->nhist) : 0.0;
}

static void mg_report(void *ctx, FILE *out)
{
    mg *m = (mg *)ctx;
    int version = 0;
    ncclGetVersion(&version);
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    fprintf(out, "    GPUs: %d, %s; NCCL %d.%d.%d, NCCL_NVLS_ENABLE=%s; %lld bodies per slice "
            "(tree order walked, index range integrated)\n", m->P,
            m->team ? "one process per GPU (mpirun)" : "one process, one thread per GPU",
            version / 10000, version / 100 % 100, version % 100, nvls ? nvls : "(unset)",
            (long long)m->chunk);
    double *tmp = (double *)malloc((size_t)(m->nhist > 0 ? m->nhist : 1) * sizeof(double));
    if (!tmp) return;
    fprintf(out, "    per GPU (median of %d timed steps, ms, CUDA events):\n", m->nhist);
    for (int p = 0; p < m->P; p++) {
        fprintf(out, "      GPU %d:", p);
        for (int k = 0; k < MG_PHASES; k++)
            fprintf(out, " %s %.3f", ph_names[k], median_of(m, p, k, tmp));
        fprintf(out, " | force %.3f step %.3f\n", median_of(m, p, MG_PHASES, tmp),
                median_of(m, p, MG_PHASES + 1, tmp));
    }
    free(tmp);
    double n = (double)m->n, share = (m->P - 1) / (double)m->P;
    fprintf(out, "    bytes received per GPU and step: positions %.1f MB + accelerations %.1f MB "
            "= %.1f MB ((16 + 12) B x N x (P-1)/P)\n", 16 * n * share / 1e6, 12 * n * share / 1e6,
            28 * n * share / 1e6);
    fprintf(out, "    interactions per step: body-body %lld, body-cell %lld "
            "(%.1f + %.1f per body)\n", (long long)m->bb, (long long)m->bc, m->bb / n, m->bc / n);
    const mg_gpu *w = &m->g[0];
    fprintf(out, "    device memory per GPU: %.1f MiB (%.1f B/body: tree code %.1f, tree-order "
            "accelerations %.1f); all GPUs %.1f MiB\n", (w->a.bytes + w->bytes_at) / 1048576.0,
            (w->a.bytes + w->bytes_at) / n, w->a.bytes / n, w->bytes_at / n,
            m->P * (w->a.bytes + w->bytes_at) / 1048576.0);
}

static int mg_cells(void *ctx, nb_cells *out)
{
    mg *m = (mg *)ctx;
    NB_CUDA(cudaSetDevice(m->g[0].dev));
    return nb_step05_gpu.cells(m->g[0].bh, out);
}

static void free_mg(mg *m)
{
    free(m->g);
    free(m->cur);
    free(m->hist);
    free(m);
}

static void mg_destroy(void *ctx)
{
    mg *m = (mg *)ctx;
    if (!m) return;
    if (m->g) {
        if (!m->dead && tell_followers(m, OP_DESTROY, 0, 0) == 0) {
            mg_call c = { OP_DESTROY, 0, 0, NULL, NULL };
            run_all(m, &c);         /* finalizes the communicators together */
        }
        for (int t = 0; t < m->nlocal; t++) {   /* after a failure: what is left */
            mg_gpu *w = &m->g[t];
            if (cudaSetDevice(w->dev) != cudaSuccess) (void)cudaGetLastError();
            m->dead = 1;
            gpu_destroy(m, w);
        }
    }
    free_mg(m);
}

/* ---- MPI mode: the ranks other than 0 ---------------------------------- */

int mg_follow(void)
{
    mg *m = NULL;
    for (;;) {
        mg_msg h;
        if (g_team->bcast(&h, sizeof h)) g_team->abort_all(NB_EXIT_RUNTIME);
        int rc = 0;
        mg_call c = { h.op, h.steps, h.timed, NULL, NULL };
        switch (h.op) {
        case OP_QUIT:
            return h.rc;
        case OP_INIT: {
            mg_params p;
            nb_state s;
            memset(&s, 0, sizeof s);
            if (g_team->bcast(&p, sizeof p)) g_team->abort_all(NB_EXIT_RUNTIME);
            nb_options o;
            nb_options_default(&o);
            o.n = p.n; o.dt = p.dt; o.eps = p.eps; o.theta = p.theta;
            o.block = p.block; o.poison = p.poison; o.gpus = p.gpus;
            rc = nb_state_alloc(&s, p.n);
            if (!rc) rc = bcast_state(&s);
            if (!rc) rc = create(&m, p.n, &o);
            if (!rc) rc = start(m, &s);
            nb_state_free(&s);
            break;
        }
        case OP_ADVANCE:
            if (h.timed) rc = grow_recs(&m->cur, &m->cap_cur, (size_t)h.steps * m->P);
            if (!rc) rc = run_all(m, &c);
            break;
        case OP_FORCE:
        case OP_DOWNLOAD:
            rc = run_all(m, &c);
            break;
        case OP_DESTROY:
            mg_destroy(m);
            m = NULL;
            break;
        default:
            rc = nb_fail(NB_EXIT_RUNTIME, "internal error: rank %d got operation %d", g_team->rank,
                         h.op);
        }
        if (rc) {
            fprintf(stderr, "step06_multigpu: rank %d: %s\n", g_team->rank, nb_errmsg());
            fflush(stderr);
            g_team->abort_all(rc);
        }
    }
}

int mg_quit(int rc)
{
    if (!g_team) return rc;
    mg_msg h = { OP_QUIT, 0, 0, rc };
    if (g_team->bcast(&h, sizeof h)) g_team->abort_all(NB_EXIT_RUNTIME);
    return rc;
}

/* ---- what the tests read ------------------------------------------------- */

int mg_gpus(void *ctx) { return ((mg *)ctx)->P; }

int mg_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    mg *m = (mg *)ctx;
    *bb = m->bb;
    *bc = m->bc;
    return 0;
}

/* The program's table (main.c, main_mpi.c). */
const nb_step nb_step06_multigpu = {
    "step06_multigpu",
    "Barnes-Hut over every GPU of a host: replicated tree, the walk split in tree order, "
    "NCCL all-gathers",
    MG_STEP_OPTIONS, 1, mg_probe, mg_init, mg_accel, mg_advance, mg_download, mg_info,
    mg_report, mg_cells, mg_destroy, NULL,
    MG_HOST_BYTES_PER_BODY, MG_DEVICE_BYTES_PER_BODY, mg_bodies, NULL, NULL, NULL,
};
