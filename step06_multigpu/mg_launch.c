/* mg_launch.c -- step06_multigpu, beside the lesson: the machinery around
 * mg.c (read that first; declarations in mg_launch.h).
 *
 * The MPI launch (main_mpi.c): rank 0 runs nb_main() and sends every call
 * to the other ranks first (the team's bcast, mg_tell()); the others do
 * what it asks (mg_follow(), mg_follow.c) until it quits (mg_quit()).
 *
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
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include "mg_launch.h"
#include "nb_cuda.h"

#define MG_TIMEOUT_S 300.0

static const mg_team *g_team;       /* set by main_mpi.c */

void mg_set_team(const mg_team *team) { g_team = team; }

const mg_team *mg_get_team(void) { return g_team; }

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

int mg_check_gpus(const nb_options *o, int count)
{
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

void mg_hooks(mg *m)
{
    /* test hooks: decimal integers, anything else is ignored (nb_env_i64) */
    int64_t ts = 0, fail = -1;
    nb_env_i64("NB_NCCL_TIMEOUT_S", 1, 1000000, &ts);
    m->timeout_ms = 1000.0 * (ts > 0 ? (double)ts : MG_TIMEOUT_S);
    nb_env_i64("NB_FAKE_GPU_FAIL", 0, 1 << 20, &fail);
    for (int k = 0; k < m->nlocal; k++) m->g[k].fake = m->g[k].rank == fail;
}

int mg_fake_failure(mg_gpu *w)
{
    if (!w->fake) return 0;
    w->fake = 0;
    return nb_fail(NB_EXIT_RUNTIME, "fake failure before its all-gather (NB_FAKE_GPU_FAIL=%d)",
                   w->rank);
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
int mg_nccl_ready(mg *m, mg_gpu *w, ncclResult_t r, const char *what)
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
int mg_before_collective(mg_gpu *w)
{
    NB_CUDA(cudaEventRecord(w->ready, 0));
    NB_CUDA(cudaStreamWaitEvent(w->stream, w->ready, 0));
    return 0;
}

int mg_after_collective(mg *m, mg_gpu *w, ncclResult_t r, const char *what)
{
    int rc = mg_nccl_ready(m, w, r, what);
    if (rc) return rc;
    NB_CUDA(cudaEventRecord(w->done, w->stream));
    NB_CUDA(cudaStreamWaitEvent(0, w->done, 0));
    return wait_event(m, w, w->done, what);
}

/* ---- teardown ------------------------------------------------------------ */

int mg_gpu_destroy(mg *m, mg_gpu *w)
{
    int rc = 0;
    if (w->comm && !m->dead) {      /* a healthy communicator: finalize, then destroy */
        rc = mg_nccl_ready(m, w, ncclCommFinalize(w->comm), "finalizing the NCCL communicator");
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

/* ---- a failure ends the run --------------------------------------------- */

int mg_run_begin(mg *m)
{
    if (m->dead) return nb_fail(m->dead_rc, "%s", m->dead_msg);
    atomic_store(&m->failed, 0);
    for (int t = 0; t < m->nlocal; t++) { m->g[t].rc = 0; m->g[t].secondary = 0; }
    return 0;
}

void mg_keep_failure(mg *m, mg_gpu *w, int rc)
{
    w->rc = rc;
    if (!rc) return;
    snprintf(w->msg, sizeof w->msg, "%s", nb_errmsg());
    atomic_store(&m->failed, 1);
}

/* A failure on any GPU: every communicator is aborted, the run is over
 * (exit 3 with the GPU and the message; under mpirun every process stops). */
int mg_run_end(mg *m)
{
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

/* ---- MPI mode: rank 0 ----------------------------------------------------- */

/* Rank 0 (MPI mode): the other ranks do c too.  No-op with one process. */
int mg_tell(mg *m, int op, int steps, int timed)
{
    if (!m->team || m->team->rank != 0) return 0;
    if (op == OP_INIT) m->announced = 1;
    else if (!m->announced) return 0;
    mg_msg h = { op, steps, timed, 0 };
    if (m->team->bcast(&h, sizeof h)) return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcast failed");
    return 0;
}

/* MPI mode: the state from rank 0 to every rank (7 arrays of n floats). */
int mg_bcast_state(nb_state *s)
{
    float *a[7] = { s->m, s->x, s->y, s->z, s->vx, s->vy, s->vz };
    for (int k = 0; k < 7; k++)
        if (g_team->bcast(a[k], (size_t)s->n * sizeof(float)))
            return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcasting the bodies failed");
    return 0;
}

int mg_tell_init(mg *m, const nb_state *s, const nb_options *o)
{
    if (!m->team) return 0;
    int rc;
    mg_params p = { s->n, o->dt, o->eps, o->theta, o->block, o->poison, o->gpus, 0 };
    if ((rc = mg_tell(m, OP_INIT, 0, 0))) return rc;
    if (m->team->bcast(&p, sizeof p)) return nb_fail(NB_EXIT_RUNTIME, "MPI: broadcast failed");
    return mg_bcast_state((nb_state *)s);
}

int mg_quit(int rc)
{
    if (!g_team) return rc;
    mg_msg h = { OP_QUIT, 0, 0, rc };
    if (g_team->bcast(&h, sizeof h)) g_team->abort_all(NB_EXIT_RUNTIME);
    return rc;
}
