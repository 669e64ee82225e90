/* bh_cpu.c -- step05_barneshut --cpu: the Barnes-Hut tree code on the CPU in
 * one file, a recursive build and a recursive walk, OpenMP threads over the
 * groups of bodies (--threads T, default 1).  Read after bh_tree.h and
 * bh_tree.c, before bh_gpu.cu, the same algorithm as a GPU kernel pipeline:
 * this is its readable reference (and with --threads 1 the "sequential
 * Barnes-Hut" row of the course-report table).  Each step:
 *   1. bounding box -> root cube (bh_root);
 *   2. build (insert()): the bodies in index order, each from the root down
 *      to an empty child slot; a slot that holds a body becomes a cell
 *      holding both.  The octree of a set of positions is unique (leaf lists
 *      at the depth cap sorted by index): the GPU's, only numbered otherwise;
 *   3. summarize(): mass and centre of mass of every cell (in double, like
 *      the GPU), and the bodies in tree order (depth first, children 0..7);
 *   4. force (walk()): groups of BH_GROUP = 32 bodies, neighbours in tree
 *      order, one group per thread at a time (schedule(dynamic)), walk the
 *      tree as a GPU warp does: a cell pulls the group as one point mass at
 *      its centre of mass only when it is far from every body of the group
 *      (bh_far(), bh_open2(): bh_tree.h), else it is opened; theta = 0 opens
 *      every cell (the direct sum).  Each body sums in the walk's order,
 *      whatever the thread: the result does not depend on the threads.
 * Leapfrog KDK as in every step.  Napkin math: ~N log8 N cell visits to build,
 * O(N) to summarize, and at theta = 0.5 on a Plummer sphere a few thousand
 * interactions per body.  The tuned build's --cpu (tuned/cpu_tuned.c) makes
 * the same tree and walk fast. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bh_cpu.h"
#include "nb_physics.h"

typedef struct bh_cpu {
    int64_t n;
    int threads;
    nb_state st;                     /* the bodies: m, x ... vz below are its arrays */
    float *m, *x, *y, *z, *vx, *vy, *vz, *ax, *ay, *az;
    float dt, eps2, theta;
    /* the tree, node numbers as in bh_tree.h (0..n-1 bodies, n + k cell k,
     * cell 0 the root): cell k's children child[8k .. 8k+7], its cube, its
     * summary (centre of mass, mass, opening radius squared, bodies) */
    int *child;
    float *cx, *cy, *cz, *half;
    float *mx, *my, *mz, *mm, *open2;
    int64_t *count;
    int64_t ncells, cap;
    int depth;                       /* levels: deepest cell depth + 1 */
    int *chain, *sorted;             /* per body: the next of its leaf list; tree order */
    int64_t bb, bc;                  /* interactions of the last force computation */
    double t_build, t_sum, t_force, t_int; int nt;   /* timed steps: sums of the phases (ms) */
} bh_cpu;

/* ---- build ----------------------------------------------------------------- */
/* Room for one more cell: 0, or -1 (out of memory). */
static int grow(bh_cpu *t)
{
    if (t->ncells < t->cap) return 0;
    int64_t cap = t->cap ? 2 * t->cap : 1024;
#define GROW(p, k) do { void *q_ = realloc(t->p, (size_t)cap * (k) * sizeof *t->p); \
        if (!q_) return -1; else t->p = q_; } while (0)
    GROW(child, 8); GROW(cx, 1); GROW(cy, 1); GROW(cz, 1); GROW(half, 1);
    GROW(mx, 1); GROW(my, 1); GROW(mz, 1); GROW(mm, 1); GROW(open2, 1); GROW(count, 1);
#undef GROW
    t->cap = cap;
    return 0;
}

/* A new empty cell (cube cx, cy, cz, h at 'depth'): its number k, or -1. */
static int64_t new_cell(bh_cpu *t, float cx, float cy, float cz, float h, int depth)
{
    if (grow(t)) return -1;
    int64_t k = t->ncells++;
    for (int o = 0; o < 8; o++) t->child[k * 8 + o] = BH_EMPTY;
    t->cx[k] = cx; t->cy[k] = cy; t->cz[k] = cz; t->half[k] = h;
    if (depth + 1 > t->depth) t->depth = depth + 1;
    return k;
}

/* Body b into the leaf list headed by 'head', kept sorted by index: the new head. */
static int list_insert(bh_cpu *t, int head, int b)
{
    if (b < head) { t->chain[b] = head; return b; }
    int a = head;                    /* the last body before b */
    while (t->chain[a] != BH_EMPTY && t->chain[a] < b) a = t->chain[a];
    t->chain[b] = t->chain[a];
    t->chain[a] = b;
    return head;
}

/* Body b below cell k (at 'depth', cube cx, cy, cz, h).  0, or the exit code. */
static int insert(bh_cpu *t, int64_t k, int depth, float cx, float cy, float cz, float h, int b)
{
    /* BEGIN SOLUTION
     * Put body b below cell k, recursively.  Its octant o = bh_octant(x[b], y[b], z[b], cx, cy,
     * cz) picks the slot ch = child[8k + o]; bh_child(o, ...) gives that child's cube.  An empty
     * slot (BH_EMPTY) takes b.  A cell (ch >= n) is insert()ed into, one level deeper.  A body:
     * at the depth cap (depth + 1 >= BH_MAXDEPTH) b joins its leaf list (list_insert()); else
     * the slot becomes a new_cell() (-1: out of memory) holding both bodies, the old one then b.
     * See handouts/05_barneshut.md.
     */
    /* BLANK: (void)t; (void)k; (void)depth; (void)cx; (void)cy; (void)cz; (void)h; (void)b; */
    /* BLANK: (void)new_cell; (void)list_insert; */
    /* BLANK: return nb_todo("--cpu: the tree build insert() in bh_cpu.c", "05_barneshut"); */
    int o = bh_octant(t->x[b], t->y[b], t->z[b], cx, cy, cz);
    int ch = t->child[k * 8 + o];
    bh_child(o, &cx, &cy, &cz, &h);
    if (ch == BH_EMPTY) { t->child[k * 8 + o] = b; return 0; }      /* an empty slot: a leaf */
    if (ch >= t->n) return insert(t, ch - t->n, depth + 1, cx, cy, cz, h, b);   /* a cell */
    if (depth + 1 >= BH_MAXDEPTH) {             /* the depth cap: a leaf of several bodies */
        t->child[k * 8 + o] = list_insert(t, ch, b);
        return 0;
    }
    int64_t kk = new_cell(t, cx, cy, cz, h, depth + 1);   /* a body: split the slot */
    if (kk < 0) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for tree cells");
    t->child[k * 8 + o] = (int)(t->n + kk);
    int rc = insert(t, kk, depth + 1, cx, cy, cz, h, ch);
    return rc ? rc : insert(t, kk, depth + 1, cx, cy, cz, h, b);
    /* END SOLUTION */
}

/* The tree of the current positions: the root cube around the bounding box,
 * then every body inserted.  0, or the exit code. */
static int build(bh_cpu *t)
{
    const int64_t n = t->n;
    const float *x = t->x, *y = t->y, *z = t->z;
    float lox = x[0], loy = y[0], loz = z[0], hix = x[0], hiy = y[0], hiz = z[0];
    int64_t bad = 0;                /* non-finite positions: a blown-up integration */
    #pragma omp parallel for num_threads(t->threads) schedule(static) \
        reduction(min : lox, loy, loz) reduction(max : hix, hiy, hiz) reduction(+ : bad)
    for (int64_t i = 0; i < n; i++) {
        bad += !(isfinite(x[i]) && isfinite(y[i]) && isfinite(z[i]));
        lox = x[i] < lox ? x[i] : lox; hix = x[i] > hix ? x[i] : hix;
        loy = y[i] < loy ? y[i] : loy; hiy = y[i] > hiy ? y[i] : hiy;
        loz = z[i] < loz ? z[i] : loz; hiz = z[i] > hiz ? z[i] : hiz;
    }
    /* A NaN compares false: it would be left out of the box, then sent down
     * one octant to the depth cap, into one leaf list with every other NaN
     * (O(N^2) insertions).  No tree of such positions: the step fails. */
    if (bad)
        return nb_fail(NB_EXIT_RUNTIME, "%lld bodies have a position that is not finite (NaN or "
                       "inf): the integration blew up, no tree can hold them", (long long)bad);
    float cx, cy, cz, h;
    bh_root(lox, loy, loz, hix, hiy, hiz, &cx, &cy, &cz, &h);
    t->ncells = 0; t->depth = 0;
    if (new_cell(t, cx, cy, cz, h, 0) < 0) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    int rc = 0;
    for (int64_t b = 0; b < n && !rc; b++) {
        t->chain[b] = BH_EMPTY;
        rc = insert(t, 0, 0, cx, cy, cz, h, (int)b);
    }
    return rc;
}

/* ---- summary and tree order ------------------------------------------------- */
/* Mass, centre of mass, count and opening radius of cell k from its children
 * (summarized first) in the order 0..7, leaf lists in index order; its bodies
 * in tree order from sorted[*pos] on.  The sums are in double, as on the GPU
 * (bh_gpu.cu, k_summarize, says why): both codes get the same bits. */
static void summarize(bh_cpu *t, int64_t k, int64_t *pos)
{
    double m = 0, sx = 0, sy = 0, sz = 0;
    int64_t cnt = 0;
    for (int o = 0; o < 8; o++) {
        int ch = t->child[k * 8 + o];
        if (ch == BH_EMPTY) continue;
        if (ch >= t->n) {                       /* a cell */
            int64_t kk = ch - t->n;
            summarize(t, kk, pos);
            double mk = t->mm[kk];
            m += mk; sx += mk * t->mx[kk]; sy += mk * t->my[kk]; sz += mk * t->mz[kk];
            cnt += t->count[kk];
        } else for (int b = ch; b != BH_EMPTY; b = t->chain[b]) {   /* a leaf */
            double mb = t->m[b];
            m += mb; sx += mb * t->x[b]; sy += mb * t->y[b]; sz += mb * t->z[b];
            cnt++; t->sorted[(*pos)++] = b;
        }
    }
    t->mm[k] = (float)m;
    t->count[k] = cnt;
    if (m > 0) {
        t->mx[k] = (float)(sx / m); t->my[k] = (float)(sy / m); t->mz[k] = (float)(sz / m);
    } else {
        t->mx[k] = t->cx[k]; t->my[k] = t->cy[k]; t->mz[k] = t->cz[k];
    }
    t->open2[k] = bh_open2(t->cx[k], t->cy[k], t->cz[k], t->half[k], t->mx[k], t->my[k],
                           t->mz[k], t->theta);
}

/* ---- force: the walk -------------------------------------------------------- */
/* A group of BH_GROUP bodies, neighbours in tree order, that walks the tree
 * together as a GPU warp does.  A group of cnt < BH_GROUP bodies (the last)
 * repeats its last body in the lanes past cnt; cells, bodies: its sources. */
typedef struct group {
    float x[BH_GROUP], y[BH_GROUP], z[BH_GROUP];
    float ax[BH_GROUP], ay[BH_GROUP], az[BH_GROUP];
    int cnt; int64_t cells, bodies;
} group;

/* The vote (bh_cpu.h): all lanes, no early exit, a loop the compiler vectorizes. */
int bh_cpu_vote(const float *x, const float *y, const float *z, float mx, float my, float mz,
                float open2)
{
    int far = 1;
    for (int j = 0; j < BH_GROUP; j++) {
        float dx = mx - x[j], dy = my - y[j], dz = mz - z[j];
        far &= bh_far(dx * dx + dy * dy + dz * dz, open2);
    }
    return far;
}

/* The pull of the source (sx, sy, sz, sm) on each lane of group g: a loop of
 * fixed length (the lanes past cnt are thrown away) that gcc vectorizes. */
static void pull(group *g, float sx, float sy, float sz, float sm, float eps2)
{
    for (int j = 0; j < BH_GROUP; j++)
        nb_interact(g->x[j], g->y[j], g->z[j], sx, sy, sz, sm, eps2, &g->ax[j], &g->ay[j],
                    &g->az[j]);
}

/* Group g below cell k: the cell's pull, if it is far from the whole group,
 * else its children's, in the order 0..7. */
static void walk(const bh_cpu *t, int64_t k, group *g)
{
    /* BEGIN SOLUTION
     * If bh_cpu_vote() says cell k is far from every body of the group (its centre of mass mx[k],
     * my[k], mz[k] and open2[k]), it pulls them as one body of mass mm[k] at its centre of mass:
     * pull(g, ...), and g->cells++.  Else open it: for each child slot o = 0..7, ch =
     * child[8k + o], a cell (ch >= n) is walk()ed, a body (0 <= ch < n) pulls the group, and so
     * does every body after it in its leaf list (chain[], to BH_EMPTY): pull(), g->bodies++.
     * Then call force(t) in compute().  See handouts/05_barneshut.md.
     */
    /* BLANK: (void)t; (void)k; (void)g; (void)pull; */
    if (bh_cpu_vote(g->x, g->y, g->z, t->mx[k], t->my[k], t->mz[k], t->open2[k])) {
        pull(g, t->mx[k], t->my[k], t->mz[k], t->mm[k], t->eps2);
        g->cells++;
        return;
    }
    for (int o = 0; o < 8; o++) {
        int ch = t->child[k * 8 + o];
        if (ch >= t->n) walk(t, ch - t->n, g);                      /* a cell */
        else for (int b = ch; b != BH_EMPTY; b = t->chain[b]) {      /* a leaf, if any */
            pull(g, t->x[b], t->y[b], t->z[b], t->m[b], t->eps2);
            g->bodies++;
        }
    }
    /* END SOLUTION */
}

/* Every group: its walk from the root, one group per thread at a time.  The
 * interactions: the group's sources times its bodies, summed per thread. */
static void force(bh_cpu *t)
{
    const int64_t n = t->n, ngroups = (n + BH_GROUP - 1) / BH_GROUP;
    int64_t bb = 0, bc = 0;
    #pragma omp parallel for num_threads(t->threads) schedule(dynamic, 1) reduction(+ : bb, bc)
    for (int64_t gi = 0; gi < ngroups; gi++) {
        group g;
        const int64_t first = gi * BH_GROUP;
        g.cnt = (int)(n - first < BH_GROUP ? n - first : BH_GROUP);
        for (int j = 0; j < BH_GROUP; j++) {
            int b = t->sorted[first + (j < g.cnt ? j : g.cnt - 1)];
            g.x[j] = t->x[b]; g.y[j] = t->y[b]; g.z[j] = t->z[b];
            g.ax[j] = g.ay[j] = g.az[j] = 0.0f;
        }
        g.cells = g.bodies = 0;
        walk(t, 0, &g);                      /* from the root */
        for (int j = 0; j < g.cnt; j++) {
            int b = t->sorted[first + j];
            t->ax[b] = g.ax[j]; t->ay[b] = g.ay[j]; t->az[b] = g.az[j];
        }
        bb += g.bodies * g.cnt; bc += g.cells * g.cnt;
    }
    t->bb = bb; t->bc = bc;
}

/* a(x) of the current positions; ph: NULL, or the phases' times (ms). */
static int compute(bh_cpu *t, double ph[3])
{
    double t0 = nb_now_ms();
    int rc = build(t);
    if (rc) return rc;
    double t1 = nb_now_ms();
    int64_t pos = 0;
    summarize(t, 0, &pos);
    double t2 = nb_now_ms();
    /* BEGIN SOLUTION
     * Call force(t): every group of 32 bodies, neighbours in tree order, walks the tree with
     * walk().  See handouts/05_barneshut.md.
     */
    /* BLANK: (void)force; */
    /* BLANK: return nb_todo("--cpu: the tree walk walk() in bh_cpu.c and its call force(t) in compute()", "05_barneshut"); */
    force(t);
    /* END SOLUTION */
    double t3 = nb_now_ms();
    if (ph) { ph[0] = t1 - t0; ph[1] = t2 - t1; ph[2] = t3 - t2; }
    return 0;
}

/* ---- the nb_step interface ---------------------------------------------------- */
static int cpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    bh_cpu *t = calloc(1, sizeof *t);
    *ctx = t;                        /* on failure nb_main() calls cpu_destroy() */
    if (!t) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    t->n = s->n;
    if (s->n > 2147483647LL - 1) return nb_fail(NB_EXIT_USAGE, "too many bodies for the tree code");
    t->threads = o->threads > 0 ? o->threads : 1;
    t->dt = (float)o->dt; t->eps2 = (float)(o->eps * o->eps); t->theta = (float)o->theta;
    size_t N = (size_t)s->n;
    nb_state *c = &t->st;            /* the code's copy of the bodies */
    if (nb_state_copy(c, s) || !(t->ax = malloc(N * sizeof(float))) ||
        !(t->ay = malloc(N * sizeof(float))) || !(t->az = malloc(N * sizeof(float))) ||
        !(t->chain = malloc(N * sizeof(int))) || !(t->sorted = malloc(N * sizeof(int))))
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld bodies", (long long)s->n);
    t->m = c->m; t->x = c->x; t->y = c->y; t->z = c->z; t->vx = c->vx; t->vy = c->vy; t->vz = c->vz;
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

/* v += a dt/2, and x += v dt when drift. */
static void kick_drift(bh_cpu *t, float hdt, float dt, int drift)
{
    #pragma omp parallel for num_threads(t->threads) schedule(static)
    for (int64_t i = 0; i < t->n; i++) {
        t->vx[i] += t->ax[i] * hdt; t->vy[i] += t->ay[i] * hdt; t->vz[i] += t->az[i] * hdt;
        if (drift) { t->x[i] += t->vx[i] * dt; t->y[i] += t->vy[i] * dt; t->z[i] += t->vz[i] * dt; }
    }
}

static int cpu_advance(void *ctx, int steps, nb_step_time *times)
{
    bh_cpu *t = ctx;
    float hdt = 0.5f * t->dt, dt = t->dt;
    for (int k = 0; k < steps; k++) {
        double t0 = nb_now_ms();
        kick_drift(t, hdt, dt, 1);
        double t1 = nb_now_ms(), ph[3] = { 0, 0, 0 };   /* set by compute() */
        int rc = compute(t, ph);
        if (rc) return rc;
        double t2 = nb_now_ms();
        kick_drift(t, hdt, dt, 0);
        double t3 = nb_now_ms();
        if (times) {
            times[k].force_start_ms = t1 - t0; times[k].force_ms = t2 - t1;
            times[k].step_ms = t3 - t0; times[k].interactions = t->bb + t->bc;
            t->t_build += ph[0]; t->t_sum += ph[1]; t->t_force += ph[2];
            t->t_int += (t1 - t0) + (t3 - t2); t->nt++;
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
    info->sms = t->threads; info->block = 0; info->device_bytes = 0;
    info->tree_nodes = t->ncells; info->tree_depth = t->depth;
}

/* The phases of the timed steps, and the interactions. */
static void cpu_report(void *ctx, FILE *out)
{
    bh_cpu *t = ctx;
    double k = t->nt ? 1.0 / t->nt : 0;
    fprintf(out, "    phases (mean of %d timed steps, ms, %d thread%s): build %.3f, summarize "
            "%.3f, walk %.3f, integrate %.3f\n    interactions per step: body-body %lld, "
            "body-cell %lld (%.1f + %.1f per body)\n", t->nt, t->threads, t->threads > 1 ? "s" : "",
            t->t_build * k, t->t_sum * k, t->t_force * k, t->t_int * k, (long long)t->bb,
            (long long)t->bc, (double)t->bb / t->n, (double)t->bc / t->n);
}

static int cpu_cells(void *ctx, nb_cells *out)
{
    bh_cpu *t = ctx;
    out->count = t->ncells; out->cx = t->cx; out->cy = t->cy; out->cz = t->cz; out->half = t->half;
    return 0;
}

static void cpu_destroy(void *ctx)
{
    bh_cpu *t = ctx;
    if (!t) return;
    void *arr[] = { t->ax, t->ay, t->az, t->child, t->cx, t->cy, t->cz, t->half, t->mx, t->my,
                    t->mz, t->mm, t->open2, t->count, t->chain, t->sorted };
    for (size_t a = 0; a < sizeof arr / sizeof *arr; a++) free(arr[a]);
    nb_state_free(&t->st);
    free(t);
}

/* ---- what the tests read (bh_cpu.h) ----------------------------------------- */
int bh_cpu_tree(void *ctx, bh_tree *o)
{
    bh_cpu *t = ctx;
    int rc = bh_tree_alloc(o, t->n, t->ncells);
    if (rc) return rc;
    size_t nc = (size_t)t->ncells; o->depth = t->depth;
    memcpy(o->child, t->child, nc * 8 * sizeof(int));
    memcpy(o->chain, t->chain, (size_t)t->n * sizeof(int));
    memcpy(o->count, t->count, nc * sizeof(int64_t));
    float *dst[] = { o->cx, o->cy, o->cz, o->half, o->mx, o->my, o->mz, o->m };
    const float *src[] = { t->cx, t->cy, t->cz, t->half, t->mx, t->my, t->mz, t->mm };
    for (int a = 0; a < 8; a++) memcpy(dst[a], src[a], nc * sizeof(float));
    return 0;
}

int bh_cpu_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    *bb = ((bh_cpu *)ctx)->bb; *bc = ((bh_cpu *)ctx)->bc;
    return 0;
}

const nb_step nb_step05_cpu = {
    .name = "step05_barneshut",
    .idea = "Barnes-Hut octree, O(N log N): tree build and a walk per group of 32 bodies, "
            "OpenMP (CPU tree code)",
    .options = BH_STEP_OPTIONS | NB_OPT_THREADS,
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
    /* the state (28 B), the code's copies of the bodies and accelerations (40 B), leaf
     * lists and tree order (8 B), --check (12 B); cells, 76 B each, about 0.5 per body,
     * the capacity doubled when short (up to 2 per body) */
    .host_bytes_per_body = 28.0 + 40.0 + 8.0 + 12.0 + 2.0 * 76.0,
};
