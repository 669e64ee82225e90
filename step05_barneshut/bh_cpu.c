/* bh_cpu.c -- step05_barneshut --cpu: the sequential Barnes-Hut tree code.
 *
 * Read after bh_tree.h (the tree) and bh_tree.c (its invariants); read
 * bh_gpu.cu next, the same algorithm as a GPU kernel pipeline: this file is
 * its readable reference, and the "sequential Barnes-Hut" row of the
 * course-report table.  The table nb_step05_cpu at the end is what --cpu
 * runs (nb_step05_gpu.cpu_variant).  Each step:
 *   1. bounding box -> root cube (bh_root);
 *   2. build: insert the bodies one by one, recursively (insert());
 *   3. summarize: mass and centre of mass of every cell, post-order, children
 *      in the fixed order 0..7 (float sums, like the GPU);
 *   4. force: groups of 32 bodies, neighbours in tree order, walk the tree
 *      recursively, as a warp does on the GPU; a cell is used as a point mass
 *      at its centre of mass when it is far from every body of the group by
 *      the opening criterion of bh_far() and bh_open2() (bh_tree.h);
 *      theta = 0 opens every cell: the direct sum, in tree order.
 * Leapfrog KDK as in every step.  Host clock (CLOCK_MONOTONIC) for timings.
 * Napkin math: ~N log8 N cell visits to build, O(N) to summarize, and at
 * theta = 0.5 on a Plummer sphere ~1-3 thousand interactions per body. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bh_cpu.h"
#include "nb_physics.h"

typedef struct bh_cpu {
    int64_t n;
    float *m, *x, *y, *z, *vx, *vy, *vz, *ax, *ay, *az;
    float dt, eps2, theta;
    /* the tree */
    int64_t ncells, cap;
    int depth;                       /* levels */
    int *child, *chain, *sorted;
    float *cx, *cy, *cz, *half, *mx, *my, *mz, *mm, *open2;
    int64_t *count;
    int64_t bb, bc;                  /* interactions of the last force computation */
    /* timed steps: sums of the phases (ms) */
    double t_build, t_sum, t_force, t_int;
    int nt;
} bh_cpu;

static int grow(bh_cpu *t)
{
    int64_t cap = t->cap ? t->cap * 2 : 1024;
#define GROW(p, k) do { void *q_ = realloc(t->p, (size_t)(cap * (k)) * sizeof *t->p); \
        if (!q_) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld tree cells", \
                                (long long)cap); \
        t->p = q_; } while (0)
    GROW(child, 8); GROW(cx, 1); GROW(cy, 1); GROW(cz, 1); GROW(half, 1);
    GROW(mx, 1); GROW(my, 1); GROW(mz, 1); GROW(mm, 1); GROW(open2, 1); GROW(count, 1);
#undef GROW
    t->cap = cap;
    return 0;
}

/* A new empty cell; -1 (message set) when out of memory. */
static int64_t new_cell(bh_cpu *t, float cx, float cy, float cz, float h, int depth)
{
    if (t->ncells == t->cap && grow(t)) return -1;
    int64_t k = t->ncells++;
    for (int o = 0; o < 8; o++) t->child[k * 8 + o] = BH_EMPTY;
    t->cx[k] = cx; t->cy[k] = cy; t->cz[k] = cz; t->half[k] = h;
    if (depth + 1 > t->depth) t->depth = depth + 1;
    return k;
}

/* Insert body b into the list headed by 'head', kept sorted by index. */
static int list_insert(bh_cpu *t, int head, int b)
{
    if (b < head) { t->chain[b] = head; return b; }
    int a = head;
    while (t->chain[a] != BH_EMPTY && t->chain[a] < b) a = t->chain[a];
    t->chain[b] = t->chain[a];
    t->chain[a] = b;
    return head;
}

/* Insert body b below cell k (at 'depth', cube cx, cy, cz, h). */
static int insert(bh_cpu *t, int64_t k, int depth, float cx, float cy, float cz, float h, int b)
{
    int o = bh_octant(t->x[b], t->y[b], t->z[b], cx, cy, cz);
    int ch = t->child[k * 8 + o];
    bh_child(o, &cx, &cy, &cz, &h);
    if (ch == BH_EMPTY) {                       /* empty slot: b is a leaf */
        t->child[k * 8 + o] = b;
        return 0;
    }
    if (ch >= t->n)                             /* a cell: go down */
        return insert(t, ch - t->n, depth + 1, cx, cy, cz, h, b);
    if (depth + 1 >= BH_MAXDEPTH) {             /* depth cap: a leaf of several bodies */
        t->child[k * 8 + o] = list_insert(t, ch, b);
        return 0;
    }
    /* a body: split the slot into a new cell holding both */
    int64_t kk = new_cell(t, cx, cy, cz, h, depth + 1);
    if (kk < 0) return NB_EXIT_RUNTIME;
    t->child[k * 8 + o] = (int)(t->n + kk);
    int rc = insert(t, kk, depth + 1, cx, cy, cz, h, ch);
    return rc ? rc : insert(t, kk, depth + 1, cx, cy, cz, h, b);
}

static int build(bh_cpu *t)
{
    int64_t n = t->n;
    float lo[3] = { t->x[0], t->y[0], t->z[0] }, hi[3] = { t->x[0], t->y[0], t->z[0] };
    for (int64_t i = 1; i < n; i++) {
        lo[0] = fminf(lo[0], t->x[i]); hi[0] = fmaxf(hi[0], t->x[i]);
        lo[1] = fminf(lo[1], t->y[i]); hi[1] = fmaxf(hi[1], t->y[i]);
        lo[2] = fminf(lo[2], t->z[i]); hi[2] = fmaxf(hi[2], t->z[i]);
    }
    float cx, cy, cz, h;
    bh_root(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], &cx, &cy, &cz, &h);
    t->ncells = 0;
    t->depth = 0;
    if (new_cell(t, cx, cy, cz, h, 0) < 0) return NB_EXIT_RUNTIME;
    for (int64_t i = 0; i < n; i++) t->chain[i] = BH_EMPTY;
    for (int64_t i = 0; i < n; i++) {
        int rc = insert(t, 0, 0, cx, cy, cz, h, (int)i);
        if (rc) return rc;
    }
    return 0;
}

/* Mass, centre of mass and count of cell k from its children, in the fixed
 * order 0..7 and leaf lists in index order (float, as on the GPU). */
static void summarize(bh_cpu *t, int64_t k)
{
    float m = 0, sx = 0, sy = 0, sz = 0;
    int64_t cnt = 0;
    for (int o = 0; o < 8; o++) {
        int ch = t->child[k * 8 + o];
        if (ch == BH_EMPTY) continue;
        if (ch < t->n) {
            for (int b = ch; b != BH_EMPTY; b = t->chain[b]) {
                m += t->m[b];
                sx += t->m[b] * t->x[b]; sy += t->m[b] * t->y[b]; sz += t->m[b] * t->z[b];
                cnt++;
            }
        } else {
            int64_t kk = ch - t->n;
            summarize(t, kk);
            m += t->mm[kk];
            sx += t->mm[kk] * t->mx[kk]; sy += t->mm[kk] * t->my[kk]; sz += t->mm[kk] * t->mz[kk];
            cnt += t->count[kk];
        }
    }
    t->mm[k] = m;
    t->count[k] = cnt;
    if (m > 0) { t->mx[k] = sx / m; t->my[k] = sy / m; t->mz[k] = sz / m; }
    else { t->mx[k] = t->cx[k]; t->my[k] = t->cy[k]; t->mz[k] = t->cz[k]; }
    t->open2[k] = bh_open2(t->cx[k], t->cy[k], t->cz[k], t->half[k], t->mx[k], t->my[k], t->mz[k],
                           t->theta);
}

/* The bodies in tree order: depth first, children in the order 0..7, leaf
 * lists in index order (the GPU's sort kernel computes the same order). */
static void order(bh_cpu *t, int64_t k, int64_t *pos)
{
    for (int o = 0; o < 8; o++) {
        int ch = t->child[k * 8 + o];
        if (ch == BH_EMPTY) continue;
        if (ch < t->n) for (int b = ch; b != BH_EMPTY; b = t->chain[b]) t->sorted[(*pos)++] = b;
        else order(t, ch - t->n, pos);
    }
}

/* A group of BH_GROUP bodies, neighbours in tree order, walks the tree
 * together, as one warp does on the GPU: a cell is used as a point mass only
 * if it is far from every body of the group, else it is opened for all. */
#define BH_GROUP 32
typedef struct group {
    int cnt;
    float x[BH_GROUP], y[BH_GROUP], z[BH_GROUP], ax[BH_GROUP], ay[BH_GROUP], az[BH_GROUP];
    int64_t bb, bc;
} group;

static void interact_all(const bh_cpu *t, group *g, float x, float y, float z, float m)
{
    for (int j = 0; j < g->cnt; j++)
        nb_interact(g->x[j], g->y[j], g->z[j], x, y, z, m, t->eps2,
                    &g->ax[j], &g->ay[j], &g->az[j]);
}

/* Cell k as seen by group g: a point mass, or its children. */
static void walk(const bh_cpu *t, int64_t k, group *g)
{
    /* BEGIN SOLUTION
     * The opening criterion for the whole group: cell k is far when bh_far(d2, t->open2[k])
     * holds for EVERY body j of the group, d2 the squared distance from (g->x[j], g->y[j],
     * g->z[j]) to the cell's centre of mass (t->mx[k], t->my[k], t->mz[k]).  Then interact_all()
     * with the cell as one body of mass t->mm[k], and g->bc += g->cnt.  Else open it: its
     * children t->child[k * 8 + o], o = 0..7, skip BH_EMPTY; a cell (>= t->n) is
     * walk(t, ch - t->n, g); a body starts a leaf list (follow t->chain[b]), and each body of it
     * is interact_all() with g->bb += g->cnt.  Then call force(t) in compute().
     * See handouts/05_barneshut.md.
     */
    /* BLANK: (void)t; (void)k; (void)g; (void)interact_all; */
    int far = 1;
    for (int j = 0; j < g->cnt && far; j++) {
        float dx = t->mx[k] - g->x[j], dy = t->my[k] - g->y[j], dz = t->mz[k] - g->z[j];
        far = bh_far(dx * dx + dy * dy + dz * dz, t->open2[k]);
    }
    if (far) {
        interact_all(t, g, t->mx[k], t->my[k], t->mz[k], t->mm[k]);
        g->bc += g->cnt;
        return;
    }
    for (int o = 0; o < 8; o++) {
        int ch = t->child[k * 8 + o];
        if (ch == BH_EMPTY) continue;
        if (ch >= t->n) { walk(t, ch - t->n, g); continue; }
        for (int b = ch; b != BH_EMPTY; b = t->chain[b]) {
            interact_all(t, g, t->x[b], t->y[b], t->z[b], t->m[b]);
            g->bb += g->cnt;
        }
    }
    /* END SOLUTION */
}

static void force(bh_cpu *t)
{
    int64_t pos = 0;
    order(t, 0, &pos);
    t->bb = t->bc = 0;
    for (int64_t i0 = 0; i0 < t->n; i0 += BH_GROUP) {
        group g;
        g.cnt = (int)(t->n - i0 < BH_GROUP ? t->n - i0 : BH_GROUP);
        g.bb = g.bc = 0;
        for (int j = 0; j < g.cnt; j++) {
            int b = t->sorted[i0 + j];
            g.x[j] = t->x[b]; g.y[j] = t->y[b]; g.z[j] = t->z[b];
            g.ax[j] = g.ay[j] = g.az[j] = 0;
        }
        walk(t, 0, &g);
        for (int j = 0; j < g.cnt; j++) {
            int b = t->sorted[i0 + j];
            t->ax[b] = g.ax[j]; t->ay[b] = g.ay[j]; t->az[b] = g.az[j];
        }
        t->bb += g.bb;
        t->bc += g.bc;
    }
}

/* a(x) of the current positions; the phase times in ms when ph != NULL. */
static int compute(bh_cpu *t, double ph[3])
{
    double t0 = nb_now_ms();
    int rc = build(t);
    if (rc) return rc;
    double t1 = nb_now_ms();
    summarize(t, 0);
    double t2 = nb_now_ms();
    /* BEGIN SOLUTION
     * Call force(t): it walks the tree with walk() for every group of 32 bodies, neighbours in
     * tree order.  See handouts/05_barneshut.md.
     */
    /* BLANK: (void)force; */
    /* BLANK: return nb_todo("--cpu: the tree walk walk() in bh_cpu.c", "05_barneshut"); */
    force(t);
    /* END SOLUTION */
    double t3 = nb_now_ms();
    if (ph) { ph[0] = t1 - t0; ph[1] = t2 - t1; ph[2] = t3 - t2; }
    return 0;
}

/* ---- the nb_step interface ------------------------------------------------ */

static int cpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    bh_cpu *t = calloc(1, sizeof *t);
    *ctx = t;                        /* on failure nb_main() calls cpu_destroy() */
    if (!t) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    t->n = s->n;
    if (s->n > 2147483647LL - 1) return nb_fail(NB_EXIT_USAGE, "too many bodies for the tree code");
    t->dt = (float)o->dt;
    t->eps2 = (float)(o->eps * o->eps);
    t->theta = (float)o->theta;
    size_t nb = (size_t)s->n * sizeof(float);
    float **arr[] = { &t->m, &t->x, &t->y, &t->z, &t->vx, &t->vy, &t->vz,
                      &t->ax, &t->ay, &t->az };
    int ok = 1;
    for (size_t a = 0; a < sizeof arr / sizeof *arr; a++)
        if (!(*arr[a] = malloc(nb))) ok = 0;
    if (!(t->chain = malloc((size_t)s->n * sizeof(int)))) ok = 0;
    if (!(t->sorted = malloc((size_t)s->n * sizeof(int)))) ok = 0;
    if (!ok) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld bodies", (long long)s->n);
    memcpy(t->m, s->m, nb); memcpy(t->x, s->x, nb); memcpy(t->y, s->y, nb); memcpy(t->z, s->z, nb);
    memcpy(t->vx, s->vx, nb); memcpy(t->vy, s->vy, nb); memcpy(t->vz, s->vz, nb);
    return compute(t, NULL);
}

static int cpu_accel(void *ctx, float *ax, float *ay, float *az)
{
    bh_cpu *t = ctx;
    int rc = compute(t, NULL);
    if (rc) return rc;
    size_t nb = (size_t)t->n * sizeof(float);
    memcpy(ax, t->ax, nb); memcpy(ay, t->ay, nb); memcpy(az, t->az, nb);
    return 0;
}

static int cpu_advance(void *ctx, int steps, nb_step_time *times)
{
    bh_cpu *t = ctx;
    float hdt = 0.5f * t->dt, dt = t->dt;
    for (int k = 0; k < steps; k++) {
        double t0 = nb_now_ms();
        for (int64_t i = 0; i < t->n; i++) {      /* kick, drift */
            t->vx[i] += t->ax[i] * hdt; t->vy[i] += t->ay[i] * hdt; t->vz[i] += t->az[i] * hdt;
            t->x[i] += t->vx[i] * dt; t->y[i] += t->vy[i] * dt; t->z[i] += t->vz[i] * dt;
        }
        double t1 = nb_now_ms(), ph[3] = { 0, 0, 0 };   /* set by compute() */
        int rc = compute(t, ph);
        if (rc) return rc;
        double t2 = nb_now_ms();
        for (int64_t i = 0; i < t->n; i++) {      /* kick */
            t->vx[i] += t->ax[i] * hdt; t->vy[i] += t->ay[i] * hdt; t->vz[i] += t->az[i] * hdt;
        }
        double t3 = nb_now_ms();
        if (times) {
            times[k].force_ms = t2 - t1;
            times[k].step_ms = t3 - t0;
            times[k].interactions = t->bb + t->bc;
            t->t_build += ph[0]; t->t_sum += ph[1]; t->t_force += ph[2];
            t->t_int += (t1 - t0) + (t3 - t2);
            t->nt++;
        }
    }
    return 0;
}

static int cpu_download(void *ctx, nb_state *s)
{
    bh_cpu *t = ctx;
    size_t nb = (size_t)t->n * sizeof(float);
    memcpy(s->m, t->m, nb); memcpy(s->x, t->x, nb); memcpy(s->y, t->y, nb); memcpy(s->z, t->z, nb);
    memcpy(s->vx, t->vx, nb); memcpy(s->vy, t->vy, nb); memcpy(s->vz, t->vz, nb);
    return 0;
}

static void cpu_info(void *ctx, nb_run_info *info)
{
    bh_cpu *t = ctx;
    nb_cpu_model(info->device, sizeof info->device);
    info->sms = 1;
    info->block = 0;
    info->device_bytes = 0;
    info->tree_nodes = t->ncells;
    info->tree_depth = t->depth;
}

static void cpu_report(void *ctx, FILE *out)
{
    bh_cpu *t = ctx;
    double k = t->nt ? 1.0 / t->nt : 0;
    fprintf(out, "    phases (mean of %d timed steps, ms): build %.3f (bbox + insertion), "
            "summarize %.3f, force %.3f, integrate %.3f\n", t->nt, t->t_build * k, t->t_sum * k,
            t->t_force * k, t->t_int * k);
    fprintf(out, "    interactions per step: body-body %lld, body-cell %lld "
            "(%.1f + %.1f per body)\n",
            (long long)t->bb, (long long)t->bc, (double)t->bb / t->n, (double)t->bc / t->n);
}

static int cpu_cells(void *ctx, nb_cells *out)
{
    bh_cpu *t = ctx;
    out->count = t->ncells;
    out->cx = t->cx; out->cy = t->cy; out->cz = t->cz; out->half = t->half;
    return 0;
}

static void cpu_destroy(void *ctx)
{
    bh_cpu *t = ctx;
    if (!t) return;
    float *arr[] = { t->m, t->x, t->y, t->z, t->vx, t->vy, t->vz, t->ax, t->ay, t->az,
                     t->cx, t->cy, t->cz, t->half, t->mx, t->my, t->mz, t->mm, t->open2 };
    for (size_t a = 0; a < sizeof arr / sizeof *arr; a++) free(arr[a]);
    free(t->child); free(t->chain); free(t->sorted); free(t->count);
    free(t);
}

/* ---- what the tests read (bh_cpu.h) ----------------------------------------- */

int bh_cpu_tree(void *ctx, bh_tree *o)
{
    bh_cpu *t = ctx;
    int64_t c = t->ncells;
    int rc = bh_tree_alloc(o, t->n, c);
    if (rc) return rc;
    o->depth = t->depth;
    memcpy(o->child, t->child, (size_t)c * 8 * sizeof(int));
    memcpy(o->chain, t->chain, (size_t)t->n * sizeof(int));
    memcpy(o->count, t->count, (size_t)c * sizeof(int64_t));
    float *dst[] = { o->cx, o->cy, o->cz, o->half, o->mx, o->my, o->mz, o->m };
    const float *src[] = { t->cx, t->cy, t->cz, t->half, t->mx, t->my, t->mz, t->mm };
    for (int a = 0; a < 8; a++) memcpy(dst[a], src[a], (size_t)c * sizeof(float));
    return 0;
}

int bh_cpu_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    bh_cpu *t = ctx;
    *bb = t->bb; *bc = t->bc;
    return 0;
}

const nb_step nb_step05_cpu = {
    .name = "step05_barneshut",
    .idea = "Barnes-Hut octree, O(N log N): sequential build and walk (CPU tree code)",
    .options = BH_STEP_OPTIONS,
    .tree = 1,
    .probe = NULL,                   /* needs no device */
    .init = cpu_init,
    .accel = cpu_accel,
    .advance = cpu_advance,
    .download = cpu_download,
    .info = cpu_info,
    .report = cpu_report,
    .cells = cpu_cells,
    .destroy = cpu_destroy,
    .cpu_variant = NULL,
    /* the state (28 B), the code's copies of the bodies and accelerations
     * (40 B), leaf lists and tree order (8 B), cells (80 B each, about 0.5
     * per body, capacity doubled when short: up to 2 per body), --check (12 B) */
    .host_bytes_per_body = 28.0 + 40.0 + 8.0 + 2.0 * 80.0 + 12.0,
    .device_bytes_per_body = 0,
};
