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
 *    and sends every call to the other ranks first.
 * Beside the lesson, mg_launch.c: the MPI launch's forwarding of those
 * calls, the waits that cannot hang (every collective is polled, with a
 * timeout; a failed GPU stops the others, exit 3 naming it), the teardown
 * and the test hooks; mg_bench.c: what --bench prints. */
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

/* ---- the two all-gathers ---------------------------------------------- */

/* Every GPU's slice of the positions and masses (x, y, z, m: 4 floats a
 * body) to every GPU.  In place: GPU r's slice already lies at
 * pos[4 r chunk ..), where the all-gather puts rank r's part. */
static int gather_positions(mg *m, mg_gpu *w)
{
    int rc = mg_before_collective(w);
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
    return mg_after_collective(m, w, r, "the all-gather of the positions");
}

/* The walked slice's accelerations, in tree order, to every GPU (3 floats
 * a body), the same way. */
static int gather_accels(mg *m, mg_gpu *w)
{
    int rc = mg_before_collective(w);
    if (rc) return rc;
    size_t count = 3 * (size_t)m->chunk;
    ncclResult_t r = ncclAllGather(w->at + (size_t)w->rank * count, w->at, count, ncclFloat,
                                   w->comm, w->stream);
    return mg_after_collective(m, w, r, "the all-gather of the accelerations");
}

/* Velocities, for download() only: every GPU holds the current velocities
 * of its own bodies. */
static int gather_velocities(mg *m, mg_gpu *w)
{
    int rc = mg_before_collective(w);
    if (rc) return rc;
    size_t count = (size_t)m->chunk, off = (size_t)w->rank * count;
    ncclResult_t r = ncclGroupStart();
    float *v[3] = { w->a.vx, w->a.vy, w->a.vz };
    for (int c = 0; c < 3 && r == ncclSuccess; c++)
        r = ncclAllGather(v[c] + off, v[c], count, ncclFloat, w->comm, w->stream);
    ncclResult_t e = ncclGroupEnd();           /* always closes the group */
    if (r == ncclSuccess) r = e;
    return mg_after_collective(m, w, r, "the all-gather of the velocities");
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
    int rc = mg_fake_failure(w);    /* a test hook: NB_FAKE_GPU_FAIL */
    if (rc) return rc;
    if ((rc = mark(w, timed, E_START)) || (rc = bh_gpu_drift(w->bh, w->lo, w->hi)) ||
        (rc = mark(w, timed, E_DRIFT)) || (rc = gather_positions(m, w)) ||
        (rc = mark(w, timed, E_GX)) || (rc = forces(m, w, timed)) ||
        (rc = bh_gpu_kick(w->bh, w->lo, w->hi)) || (rc = mark(w, timed, E_END)) ||
        (rc = finish(w)))
        return rc;
    return timed ? mg_bench_rec(w, rec) : 0;   /* --bench: its phases */
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

/* ---- every GPU of this process at once --------------------------------- */

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
        return mg_gpu_destroy(m, w);
    }
    return nb_fail(NB_EXIT_RUNTIME, "internal error: unknown operation %d", c->op);
}

/* Run c on every GPU of this process, one OpenMP thread each.  A failure
 * on any GPU: every communicator is aborted, the run is over (exit 3 with
 * the GPU and the message; under mpirun every process stops). */
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
    return mg_check_gpus(o, count);   /* --gpus: the GPUs here, or mpirun's processes */
}

/* Build m for n bodies and the options o (every rank, MPI mode). */
int mg_create(mg **out, int64_t n, const nb_options *o)
{
    mg *m = (mg *)calloc(1, sizeof *m);
    *out = m;
    if (!m) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    m->team = mg_get_team();
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
    mg_hooks(m);                    /* the test hooks: NB_NCCL_TIMEOUT_S, NB_FAKE_GPU_FAIL */
    /* one OpenMP thread per GPU (mg_run_all()), started now: a limit on
     * threads is exit 3 with the reason, not libgomp's exit 1 */
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

static int mg_init(void **ctx, const nb_state *s, const nb_options *o)
{
    mg_nccl_env();
    mg *m = NULL;
    int rc = mg_create(&m, s->n, o);
    *ctx = m;                       /* on failure nb_main() calls mg_destroy() */
    if (rc || (rc = mg_tell_init(m, s, o))) return rc;    /* MPI: the other ranks too */
    return mg_start(m, s);
}

static int mg_accel(void *ctx, float *ax, float *ay, float *az)
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
    m->bb = m->bc = 0;
    for (int t = 0; t < m->nlocal; t++) { m->bb += m->g[t].bb; m->bc += m->g[t].bc; }
    return 0;
}

static int mg_advance(void *ctx, int steps, nb_step_time *times)
{
    mg *m = (mg *)ctx;
    int timed = times != NULL, rc;
    if (timed && (rc = mg_grow_recs(&m->cur, &m->cap_cur, (size_t)steps * m->P))) return rc;
    if ((rc = mg_tell(m, OP_ADVANCE, steps, timed))) return rc;
    mg_call c = { OP_ADVANCE, steps, timed, NULL, NULL };
    if ((rc = mg_run_all(m, &c))) return rc;
    m->bb = m->bc = 0;
    for (int t = 0; t < m->nlocal; t++) { m->bb += m->g[t].bb; m->bc += m->g[t].bc; }
    return timed ? mg_bench_times(m, steps, times) : 0;  /* the slowest GPU's times */
}

/* Every GPU's bodies gathered on GPU 0, which is then the current device. */
static int gather0(mg *m)
{
    int rc = mg_tell(m, OP_DOWNLOAD, 0, 0);
    mg_call c = { OP_DOWNLOAD, 0, 0, NULL, NULL };
    if (rc || (rc = mg_run_all(m, &c))) return rc;
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

void mg_destroy(void *ctx)
{
    mg *m = (mg *)ctx;
    if (!m) return;
    if (m->g) {
        if (!m->dead && mg_tell(m, OP_DESTROY, 0, 0) == 0) {
            mg_call c = { OP_DESTROY, 0, 0, NULL, NULL };
            mg_run_all(m, &c);      /* finalizes the communicators together */
        }
        for (int t = 0; t < m->nlocal; t++) {   /* after a failure: what is left */
            mg_gpu *w = &m->g[t];
            if (cudaSetDevice(w->dev) != cudaSuccess) (void)cudaGetLastError();
            m->dead = 1;
            mg_gpu_destroy(m, w);
        }
    }
    free_mg(m);
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

/* The program's table (main.c, main_mpi.c); info and report: mg_bench.c. */
const nb_step nb_step06_multigpu = {
    .name = "step06_multigpu",
    .idea = "Barnes-Hut over every GPU of a host: replicated tree, the walk split in tree order, "
            "NCCL all-gathers",
    .options = MG_STEP_OPTIONS,
    .tree = 1,
    .probe = mg_probe,
    .init = mg_init,
    .accel = mg_accel,
    .advance = mg_advance,
    .download = mg_download,
    .info = mg_info,
    .report = mg_report,
    .cells = mg_cells,
    .destroy = mg_destroy,
    .host_bytes_per_body = MG_HOST_BYTES_PER_BODY,
    .device_bytes_per_body = MG_DEVICE_BYTES_PER_BODY,
    .bodies = mg_bodies,
};
