/* bh_gpu_host.cuh -- step05_barneshut, beside the lesson: the host side of
 * the GPU tree code (bh_gpu.cu includes it at its end, one translation unit
 * with the kernels it launches): the device and staging memory, the
 * nb_step interface and the program's table nb_step05_gpu, what the tests
 * read, and the pipeline as a library for step06 (bh_gpu.h).  Read
 * bh_gpu.cu first: its kernels and tree_build() / tree_force() are the
 * lesson. */
#ifndef BH_GPU_HOST_CUH
#define BH_GPU_HOST_CUH

/* --bench's per-kernel split, in the order of K_PHASES */
static const char *const k_names[K_PHASES] = { "bbox", "build", "summarize", "sort", "force",
                                               "integrate" };

/* ---- memory -------------------------------------------------------------- */

/* A host buffer of at least 'bytes' for copies to and from the device (kept
 * and grown); NULL with the message set when out of memory. */
static void *staging(bh_gpu *g, size_t bytes, const char *what)
{
    if (bytes <= g->stage_bytes) return g->stage;
    void *p = realloc(g->stage, bytes);
    if (!p) {
        nb_fail(NB_EXIT_RUNTIME, "out of host memory for a copy of the %s (%zu bytes)", what,
                bytes);
        return NULL;
    }
    g->stage = p;
    g->stage_bytes = bytes;
    return p;
}

static int free_cells(bh_gpu *g)
{
    void *p[] = { g->d.child, g->d.geom, g->d.mass, g->d.link, g->d.parent, g->d.pending,
                  g->d.start };
    for (size_t a = 0; a < sizeof p / sizeof *p; a++)
        if (p[a]) NB_CUDA(cudaFree(p[a]));
    g->d.child = NULL; g->d.geom = NULL; g->d.mass = NULL; g->d.link = NULL;
    g->d.parent = g->d.pending = g->d.start = NULL;
    g->bytes_cells = 0;
    return 0;
}

static int alloc_cells(bh_gpu *g, int64_t cap)
{
    int rc;
    if ((rc = free_cells(g))) return rc;
    if (cap > 2147483647LL - g->d.n) cap = 2147483647LL - g->d.n;
    size_t c = (size_t)cap;
    double *t = &g->bytes_cells;
    if ((rc = nb_cuda_malloc((void **)&g->d.child, c * 8 * sizeof(int), "tree cells (children)",
                             t)) ||
        (rc = nb_cuda_malloc((void **)&g->d.geom, c * sizeof(float4), "tree cells (cubes)", t)) ||
        (rc = nb_cuda_malloc((void **)&g->d.mass, c * sizeof(float4), "tree cells (mass)", t)) ||
        (rc = nb_cuda_malloc((void **)&g->d.link, c * sizeof(int4), "tree cells (links)", t)) ||
        (rc = nb_cuda_malloc((void **)&g->d.parent, c * sizeof(int), "tree cells (parents)", t)) ||
        (rc = nb_cuda_malloc((void **)&g->d.pending, c * sizeof(int), "tree cells (counters)",
                             t)) ||
        (rc = nb_cuda_malloc((void **)&g->d.start, c * sizeof(int), "tree cells (start)", t)))
        return rc;
    g->d.cap = (int)cap;
    return 0;
}

static int read_status(bh_gpu *g)
{
    NB_CUDA(cudaMemcpy(&g->hst, g->d.st, sizeof g->hst, cudaMemcpyDeviceToHost));
    return 0;
}

/* Keep the per-kernel times of one timed step (ms[K_PHASES]) for report(). */
static int record_split(bh_gpu *g, const double ms[K_PHASES])
{
    if (g->nsplit == g->cap_split) {
        int cap = g->cap_split ? 2 * g->cap_split : 64;
        for (int k = 0; k < K_PHASES; k++) {
            double *p = (double *)realloc(g->split[k], (size_t)cap * sizeof(double));
            if (!p) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the kernel timings");
            g->split[k] = p;
        }
        g->cap_split = cap;
    }
    for (int k = 0; k < K_PHASES; k++) g->split[k][g->nsplit] = ms[k];
    g->nsplit++;
    return 0;
}

/* ---- the nb_step interface ---------------------------------------------- */

/* Memory per body (checked by nb_main before the bodies are generated):
 * device: the bodies (float4 + 6 floats + 3 ints = 52 B) and the cells (92 B
 * each, room for 0.6 per body at the start, grown by half when short: a
 * Plummer sphere needs ~0.48); host: the state (28 B), the staging buffer
 * (16 B) and --check's accelerations (12 B). */
#define GPU_DEVICE_BYTES_PER_BODY (52.0 + 0.9 * 92.0)
#define GPU_HOST_BYTES_PER_BODY   56.0

static int gpu_probe(const nb_options *o)
{
    if (o && o->n > 2147483647LL / 2)
        return nb_fail(NB_EXIT_USAGE, "the GPU tree code takes at most 2^30 bodies (got %lld)",
                       (long long)o->n);
    return nb_cuda_probe();
}

/* Allocate everything on the current device and upload s; no tree yet.
 * cap >= n: entries of the positions and velocities (step05: n; step06
 * pads them to the size of its all-gather, the padding zeroed). */
static int open_gpu(void **ctx, const nb_state *s, const nb_options *o, int64_t cap)
{
    bh_gpu *g = (bh_gpu *)calloc(1, sizeof *g);
    *ctx = g;                       /* on failure nb_main() calls gpu_destroy() */
    if (!g) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int64_t n = s->n;
    if (n > 2147483647LL / 2 || cap < n || cap > 2147483647LL / 2 + 65536)
        return nb_fail(NB_EXIT_USAGE, "the GPU tree code takes at most 2^30 bodies");
    g->d.n = (int)n;
    g->d.lo = 0;
    g->d.hi = (int)n;
    g->dt = (float)o->dt;
    g->eps2 = (float)(o->eps * o->eps);
    g->theta = (float)o->theta;
    g->block = o->block ? o->block : 256;
    g->poison = o->poison;
    for (int e = 0; e <= K_EVENTS; e++) NB_CUDA(cudaEventCreate(&g->ev[e]));

    int dev, sms;
    NB_CUDA(cudaGetDevice(&dev));
    NB_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    int occ;
    NB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_sort, 256, 0));
    if (occ < 1) return nb_fail(NB_EXIT_RUNTIME, "k_sort cannot be resident on this device");
    g->sort_blocks = occ * sms;     /* fully resident: its waits always end */
    NB_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_build, 256, 0));
    g->build_blocks = imax(1, imin((int)((n + 255) / 256), occ * sms));
    g->sum_blocks = sms * 8;
    g->bbox_blocks = imax(1, imin((int)((n + BBOX_THREADS - 1) / BBOX_THREADS), sms * 4));
    g->body_blocks = imax(1, imin((int)((n + 255) / 256), sms * 16));

    double *tb = &g->bytes_bodies;
    size_t N = (size_t)n, C = (size_t)cap;
    int rc;
    if ((rc = nb_cuda_malloc((void **)&g->d.pos, C * sizeof(float4), "positions", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.vx, C * sizeof(float), "velocities", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.vy, C * sizeof(float), "velocities", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.vz, C * sizeof(float), "velocities", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.ax, N * sizeof(float), "accelerations", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.ay, N * sizeof(float), "accelerations", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.az, N * sizeof(float), "accelerations", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.chain, N * sizeof(int), "leaf lists", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.bnext, N * sizeof(int), "walk links", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.sorted, N * sizeof(int), "tree order", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.partial, (size_t)g->bbox_blocks * 2 * sizeof(float4),
                             "bounding box", tb)) ||
        (rc = nb_cuda_malloc((void **)&g->d.st, sizeof(bh_status), "tree status", tb)))
        return rc;
    NB_CUDA(cudaMemset(g->d.st, 0, sizeof(bh_status)));
    /* A Plummer sphere needs ~0.48 cells per body (measured); grown when short. */
    if ((rc = alloc_cells(g, n * 3 / 5 + 1024))) return rc;

    float4 *h = (float4 *)staging(g, N * sizeof(float4), "bodies");
    if (!h) return NB_EXIT_RUNTIME;
    for (size_t i = 0; i < N; i++) h[i] = make_float4(s->x[i], s->y[i], s->z[i], s->m[i]);
    NB_CUDA(cudaMemcpy(g->d.pos, h, N * sizeof(float4), cudaMemcpyHostToDevice));
    NB_CUDA(cudaMemcpy(g->d.vx, s->vx, N * sizeof(float), cudaMemcpyHostToDevice));
    NB_CUDA(cudaMemcpy(g->d.vy, s->vy, N * sizeof(float), cudaMemcpyHostToDevice));
    NB_CUDA(cudaMemcpy(g->d.vz, s->vz, N * sizeof(float), cudaMemcpyHostToDevice));
    if (C > N) {                    /* the padding: never read by the tree code */
        NB_CUDA(cudaMemset(g->d.pos + N, 0, (C - N) * sizeof(float4)));
        NB_CUDA(cudaMemset(g->d.vx + N, 0, (C - N) * sizeof(float)));
        NB_CUDA(cudaMemset(g->d.vy + N, 0, (C - N) * sizeof(float)));
        NB_CUDA(cudaMemset(g->d.vz + N, 0, (C - N) * sizeof(float)));
    }
    return 0;
}

static int gpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    int rc = open_gpu(ctx, s, o, s->n);
    if (rc) return rc;
    bh_gpu *g = (bh_gpu *)*ctx;
    if ((rc = tree_force(g, false))) return rc;
    NB_CUDA(cudaDeviceSynchronize());
    return read_status(g);
}

static int gpu_accel(void *ctx, float *ax, float *ay, float *az)
{
    bh_gpu *g = (bh_gpu *)ctx;
    int rc = tree_force(g, false);
    if (rc) return rc;
    size_t nb = (size_t)g->d.n * sizeof(float);
    NB_CUDA(cudaMemcpy(ax, g->d.ax, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(ay, g->d.ay, nb, cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(az, g->d.az, nb, cudaMemcpyDeviceToHost));
    return read_status(g);
}

static int gpu_advance(void *ctx, int steps, nb_step_time *times)
{
    bh_gpu *g = (bh_gpu *)ctx;
    float hdt = 0.5f * g->dt;
    for (int k = 0; k < steps; k++) {
        bool ev = times != NULL;
        if (ev) NB_CUDA(cudaEventRecord(g->ev[K_DRIFT]));
        k_drift<<<g->body_blocks, 256>>>(g->d, hdt, g->dt);
        NB_LAUNCHED();
        int rc = tree_force(g, ev);
        if (rc) return rc;
        k_kick<<<g->body_blocks, 256>>>(g->d, hdt);
        NB_LAUNCHED();
        if (ev) NB_CUDA(cudaEventRecord(g->ev[K_EVENTS]));
        if ((rc = read_status(g))) return rc;      /* also waits for the step */
        if (ev) {
            float ms[K_EVENTS];
            for (int e = 0; e < K_EVENTS; e++)
                NB_CUDA(cudaEventElapsedTime(&ms[e], g->ev[e], g->ev[e + 1]));
            /* ms[e]: from event e to e+1 = the phase that starts at e */
            const double split[K_PHASES] = {
                ms[K_BBOX],
                ms[K_BUILD],                /* build + the status read */
                ms[K_SUM],
                ms[K_SORT],                 /* sort (+ poison fill in tests) */
                ms[K_FORCE],
                ms[K_DRIFT] + ms[K_KICK],
            };
            if ((rc = record_split(g, split))) return rc;
            float f0, f, st;
            NB_CUDA(cudaEventElapsedTime(&f0, g->ev[K_DRIFT], g->ev[K_BBOX]));
            NB_CUDA(cudaEventElapsedTime(&f, g->ev[K_BBOX], g->ev[K_KICK]));
            NB_CUDA(cudaEventElapsedTime(&st, g->ev[K_DRIFT], g->ev[K_EVENTS]));
            times[k].force_start_ms = f0;
            times[k].force_ms = f;
            times[k].step_ms = st;
            times[k].interactions = (int64_t)(g->hst.bb + g->hst.bc);
        }
    }
    return 0;
}

static int gpu_download(void *ctx, nb_state *s)
{
    bh_gpu *g = (bh_gpu *)ctx;
    size_t N = (size_t)g->d.n;
    float4 *h = (float4 *)staging(g, N * sizeof(float4), "bodies");
    if (!h) return NB_EXIT_RUNTIME;
    NB_CUDA(cudaMemcpy(h, g->d.pos, N * sizeof(float4), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < N; i++) {
        s->x[i] = h[i].x; s->y[i] = h[i].y; s->z[i] = h[i].z; s->m[i] = h[i].w;
    }
    NB_CUDA(cudaMemcpy(s->vx, g->d.vx, N * sizeof(float), cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(s->vy, g->d.vy, N * sizeof(float), cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(s->vz, g->d.vz, N * sizeof(float), cudaMemcpyDeviceToHost));
    return 0;
}

/* The bodies on the device, for the GL view (nb_step.h). */
static int gpu_bodies(void *ctx, nb_bodies *b)
{
    bh_gpu *g = (bh_gpu *)ctx;
    const float *p = (const float *)g->d.pos;
    *b = (nb_bodies){ g->d.n, p, p + 1, p + 2, p + 3, g->d.vx, g->d.vy, g->d.vz, 4, 4, 1 };
    return 0;
}

static void gpu_info(void *ctx, nb_run_info *info)
{
    bh_gpu *g = (bh_gpu *)ctx;
    nb_cuda_info(info);
    info->block = g->block;
    info->device_bytes = g->bytes_bodies + g->bytes_cells;
    info->tree_nodes = g->hst.ncells;
    info->tree_depth = g->hst.maxdepth + 1;
}

static void gpu_report(void *ctx, FILE *out)
{
    bh_gpu *g = (bh_gpu *)ctx;
    fprintf(out, "    kernels (median of %d timed steps, ms, CUDA events):", g->nsplit);
    for (int k = 0; k < K_PHASES; k++)      /* nb_median() sorts: the order is not needed */
        fprintf(out, " %s %.3f", k_names[k], g->nsplit ? nb_median(g->split[k], g->nsplit) : 0.0);
    fputc('\n', out);
    double n = g->d.n;
    fprintf(out, "    interactions per step: body-body %llu, body-cell %llu "
            "(%.1f + %.1f per body)\n", g->hst.bb, g->hst.bc, g->hst.bb / n, g->hst.bc / n);
    fprintf(out, "    tree: %d cells (room for %d), depth %d; device bytes per body %.1f "
            "(bodies %.1f, cells %.1f)\n", g->hst.ncells, g->d.cap, g->hst.maxdepth + 1,
            (g->bytes_bodies + g->bytes_cells) / n, g->bytes_bodies / n, g->bytes_cells / n);
}

static int gpu_cells(void *ctx, nb_cells *out)
{
    bh_gpu *g = (bh_gpu *)ctx;
    size_t c = (size_t)g->hst.ncells;
    if (out->on_device) {           /* the GL view copies the cubes on the device */
        const float *f = (const float *)g->d.geom;
        *out = (nb_cells){ (int64_t)c, f, f + 1, f + 2, f + 3, 4, 1 };
        return 0;
    }
    float4 *h = (float4 *)staging(g, c * sizeof(float4), "tree cells");
    if (!h) return NB_EXIT_RUNTIME;
    float *f = (float *)realloc(g->hcells, 4 * c * sizeof(float));
    if (!f) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %zu tree cells", c);
    g->hcells = f;
    NB_CUDA(cudaMemcpy(h, g->d.geom, c * sizeof(float4), cudaMemcpyDeviceToHost));
    float *cx = f, *cy = f + c, *cz = f + 2 * c, *hh = f + 3 * c;
    for (size_t k = 0; k < c; k++) {
        cx[k] = h[k].x; cy[k] = h[k].y; cz[k] = h[k].z; hh[k] = h[k].w;
    }
    out->count = (int64_t)c;
    out->cx = cx; out->cy = cy; out->cz = cz; out->half = hh;
    return 0;
}

static void gpu_destroy(void *ctx)
{
    bh_gpu *g = (bh_gpu *)ctx;
    if (!g) return;
    void *p[] = { g->d.pos, g->d.vx, g->d.vy, g->d.vz, g->d.ax, g->d.ay, g->d.az, g->d.chain,
                  g->d.bnext, g->d.sorted, g->d.partial, g->d.st };
    for (size_t a = 0; a < sizeof p / sizeof *p; a++)
        if (p[a]) cudaFree(p[a]);
    free_cells(g);
    for (int e = 0; e <= K_EVENTS; e++)
        if (g->ev[e]) cudaEventDestroy(g->ev[e]);
    for (int k = 0; k < K_PHASES; k++) free(g->split[k]);
    free(g->stage);
    free(g->hcells);
    free(g);
}

/* ---- what the tests read (bh_gpu.h) ------------------------------------- */

/* The device tree into t, allocated by bh_tree_alloc(). */
static int copy_tree(bh_gpu *g, bh_tree *t)
{
    size_t c = (size_t)t->ncells, N = (size_t)t->n;
    float4 *h = (float4 *)staging(g, c * sizeof(float4), "tree cells");
    if (!h) return NB_EXIT_RUNTIME;
    NB_CUDA(cudaMemcpy(t->child, g->d.child, c * 8 * sizeof(int), cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(t->chain, g->d.chain, N * sizeof(int), cudaMemcpyDeviceToHost));
    NB_CUDA(cudaMemcpy(h, g->d.geom, c * sizeof(float4), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < c; k++) {
        t->cx[k] = h[k].x; t->cy[k] = h[k].y; t->cz[k] = h[k].z; t->half[k] = h[k].w;
    }
    NB_CUDA(cudaMemcpy(h, g->d.mass, c * sizeof(float4), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < c; k++) {
        t->mx[k] = h[k].x; t->my[k] = h[k].y; t->mz[k] = h[k].z; t->m[k] = h[k].w;
    }
    int4 *l = (int4 *)h;            /* the same staging, for the links */
    NB_CUDA(cudaMemcpy(l, g->d.link, c * sizeof(int4), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < c; k++) t->count[k] = l[k].w;
    return 0;
}

extern "C" int bh_gpu_tree(void *ctx, bh_tree *t)
{
    bh_gpu *g = (bh_gpu *)ctx;
    int rc = bh_tree_alloc(t, g->d.n, g->hst.ncells);
    if (rc) return rc;
    t->depth = g->hst.maxdepth + 1;
    if ((rc = copy_tree(g, t))) bh_tree_free(t);
    return rc;
}

extern "C" int bh_gpu_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    bh_gpu *g = (bh_gpu *)ctx;
    *bb = (int64_t)g->hst.bb;
    *bc = (int64_t)g->hst.bc;
    return 0;
}

/* ---- the pipeline as a library (bh_gpu.h; step06_multigpu) ------------- */
/* step06 runs this code on every GPU: the same kernels, the same tree, the
 * walk over a slice of the tree order, the integration over a range of
 * bodies.  step05 itself never calls these. */

extern "C" int bh_gpu_open(void **ctx, const nb_state *s, const nb_options *o, int64_t cap)
{
    return open_gpu(ctx, s, o, cap);
}

extern "C" int bh_gpu_build(void *ctx)
{
    return tree_build((bh_gpu *)ctx, false);
}

extern "C" int bh_gpu_walk(void *ctx, int64_t lo, int64_t hi)
{
    bh_gpu *g = (bh_gpu *)ctx;
    if (lo < 0 || hi > g->d.n || lo > hi)
        return nb_fail(NB_EXIT_RUNTIME, "bh_gpu_walk: [%lld, %lld) is not a range of the %d bodies",
                       (long long)lo, (long long)hi, g->d.n);
    if (g->poison) {                /* as tree_force(): an unwritten acceleration stays NaN */
        NB_CUDA(cudaMemset(g->d.ax, 0xFF, (size_t)g->d.n * sizeof(float)));
        NB_CUDA(cudaMemset(g->d.ay, 0xFF, (size_t)g->d.n * sizeof(float)));
        NB_CUDA(cudaMemset(g->d.az, 0xFF, (size_t)g->d.n * sizeof(float)));
    }
    if (lo == hi) return 0;
    bh_dev d = g->d;
    d.lo = (int)lo;
    d.hi = (int)hi;
    int cnt = (int)(hi - lo);
    k_force<<<(cnt + g->block - 1) / g->block, g->block>>>(d, g->eps2);
    NB_LAUNCHED();
    return 0;
}

/* The bodies [lo, hi) as a bh_dev of their own: k_drift and k_kick loop over
 * i < d.n, so a view that starts at lo runs them over the range. */
static int range_view(bh_gpu *g, int64_t lo, int64_t hi, bh_dev *v, int *blocks)
{
    if (lo < 0 || hi > g->d.n || lo > hi)
        return nb_fail(NB_EXIT_RUNTIME, "bh_gpu: [%lld, %lld) is not a range of the %d bodies",
                       (long long)lo, (long long)hi, g->d.n);
    *v = g->d;
    v->n = (int)(hi - lo);
    v->pos += lo; v->vx += lo; v->vy += lo; v->vz += lo;
    v->ax += lo; v->ay += lo; v->az += lo;
    *blocks = imax(1, imin((v->n + 255) / 256, g->body_blocks));
    return 0;
}

extern "C" int bh_gpu_drift(void *ctx, int64_t lo, int64_t hi)
{
    bh_gpu *g = (bh_gpu *)ctx;
    bh_dev v;
    int blocks = 1, rc = range_view(g, lo, hi, &v, &blocks);
    if (rc || v.n == 0) return rc;
    float hdt = 0.5f * g->dt;       /* as gpu_advance() */
    k_drift<<<blocks, 256>>>(v, hdt, g->dt);
    NB_LAUNCHED();
    return 0;
}

extern "C" int bh_gpu_kick(void *ctx, int64_t lo, int64_t hi)
{
    bh_gpu *g = (bh_gpu *)ctx;
    bh_dev v;
    int blocks = 1, rc = range_view(g, lo, hi, &v, &blocks);
    if (rc || v.n == 0) return rc;
    float hdt = 0.5f * g->dt;
    k_kick<<<blocks, 256>>>(v, hdt);
    NB_LAUNCHED();
    return 0;
}

extern "C" int bh_gpu_read_status(void *ctx)
{
    return read_status((bh_gpu *)ctx);
}

extern "C" int bh_gpu_arrays(void *ctx, bh_gpu_arrays_t *a)
{
    bh_gpu *g = (bh_gpu *)ctx;
    a->n = g->d.n;
    a->pos = (float *)g->d.pos;
    a->vx = g->d.vx; a->vy = g->d.vy; a->vz = g->d.vz;
    a->ax = g->d.ax; a->ay = g->d.ay; a->az = g->d.az;
    a->sorted = g->d.sorted;
    a->bytes = g->bytes_bodies + g->bytes_cells;
    a->ncells = g->hst.ncells;
    a->child = g->d.child; a->chain = g->d.chain; a->bnext = g->d.bnext; a->parent = g->d.parent;
    a->geom = (const float *)g->d.geom;
    a->mass = (const float *)g->d.mass;
    a->link = (const int *)g->d.link;
    return 0;
}

/* The program's table (main.c); --cpu swaps in nb_step05_cpu (bh_cpu.c). */
extern "C" const nb_step nb_step05_gpu = {
    .name = "step05_barneshut",
    .idea = "Barnes-Hut octree, O(N log N): GPU kernel pipeline after Burtscher & Pingali "
            "(--cpu: CPU tree code)",
    .options = BH_STEP_OPTIONS,
    .tree = 1,
    .probe = gpu_probe,
    .init = gpu_init,
    .accel = gpu_accel,
    .advance = gpu_advance,
    .download = gpu_download,
    .info = gpu_info,
    .report = gpu_report,
    .cells = gpu_cells,
    .destroy = gpu_destroy,
    .cpu_variant = &nb_step05_cpu,
    .host_bytes_per_body = GPU_HOST_BYTES_PER_BODY,
    .device_bytes_per_body = GPU_DEVICE_BYTES_PER_BODY,
    .bodies = gpu_bodies,
    .state64 = NULL,                 /* float only */
    .accel64 = NULL,
    .precision_variant = NULL,
};

#endif
