/* bh_cpu.c -- step05_barneshut --cpu: the Barnes-Hut tree code on the CPU,
 * OpenMP threads (--threads T, default 1).
 *
 * Read after bh_tree.h (the tree) and bh_tree.c (its invariants); read
 * bh_gpu.cu next, the same algorithm as a GPU kernel pipeline: this file is
 * its readable reference, and the "sequential Barnes-Hut" row of the
 * course-report table (with --threads 1).  The table nb_step05_cpu at the end
 * is what --cpu runs (nb_step05_gpu.cpu_variant).  Each step:
 *   1. bounding box -> root cube (bh_root), a parallel min/max;
 *   2. build: every body gets a key, its octants in the first BH_KEY_LEVELS
 *      levels (the same float operations as the insertion); the bodies are
 *      sorted by key (a parallel radix sort), which splits the top of the
 *      tree into "tasks", cells of at most BH_TASK_BODIES bodies (coarse());
 *      each task inserts its bodies one by one, recursively (insert()), into
 *      its thread's own cells, copied into the tree afterwards (merge()).
 *      The octree of a set of positions is unique, so the tree does not
 *      depend on the number of threads, and the cells are numbered in task
 *      order: not even the numbering does;
 *   3. summarize: mass and centre of mass of every cell, post-order, children
 *      in the fixed order 0..7 (float sums, like the GPU), a task per thread
 *      at a time, then the cells above the tasks; and the bodies in tree order;
 *   4. force: groups of BH_GROUP = 32 bodies, neighbours in tree order, one
 *      group per thread at a time (schedule(dynamic): groups differ in cost).
 *      A group walks the tree as a warp does on the GPU: a cell is used as a
 *      point mass at its centre of mass only when it is far from every body of
 *      the group by the opening criterion of bh_far() and bh_open2()
 *      (bh_tree.h); theta = 0 opens every cell: the direct sum, in tree order.
 *      The walk (walk()) only collects the group's sources -- accepted cells
 *      and the bodies of opened leaves -- into an interaction list, and
 *      bh_eval() (bh_cpu_eval.c) sums the list on the 32 bodies: a dense
 *      group x list block, the loop shape of step01, vectorized.
 * Leapfrog KDK as in every step.  Host clock (CLOCK_MONOTONIC) for timings.
 * Napkin math: ~N log8 N cell visits to build, O(N) to summarize, and at
 * theta = 0.5 on a Plummer sphere a few thousand interactions per body, on
 * a list of a few thousand sources per group. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "bh_cpu.h"
#include "bh_cpu_eval.h"

/* The top of the tree is cut into tasks by the bodies' keys: a cell of at
 * most BH_TASK_BODIES bodies, or one at depth BH_KEY_LEVELS, is built by one
 * thread.  10 levels = 30 bits of key, sorted in 3 radix passes of 10 bits. */
#define BH_KEY_LEVELS  10
#define BH_TASK_BODIES 1024
#define RADIX_BITS     10
#define RADIX_PASSES   3
#define RADIX          (1 << RADIX_BITS)
_Static_assert(BH_KEY_LEVELS < BH_MAXDEPTH, "the coarse cells stay above the depth cap");
_Static_assert(3 * BH_KEY_LEVELS <= RADIX_PASSES * RADIX_BITS, "the passes sort the whole key");

/* Cells: cube and children (what the build writes); the tree's own cells
 * also carry the summary (summary = 1). */
typedef struct cells {
    int *child;                      /* 8 per cell: BH_EMPTY, body b, n + cell */
    int *wchild;                     /* the walk's copy (summary only): bodies as tree positions */
    float *cx, *cy, *cz, *half;
    float *mx, *my, *mz, *mm, *open2;
    int64_t *count;
    int64_t ncells, cap;
    int depth;                       /* levels: deepest cell depth + 1 */
    int summary;
} cells;

/* A cell of the coarse tree whose bodies, sorted[lo, hi), one thread inserts
 * below it: into cells [start, start + ncells) of thread tid's pool (start:
 * the task's own copy of cell k), copied to the tree's cells from base on. */
typedef struct task {
    int64_t k, lo, hi;
    float cx, cy, cz, h;
    int depth, tid;
    int64_t start, ncells, base;
} task;

/* What each thread owns: its cells of the build, its interaction list, and
 * the time it spent walking and evaluating in the last force computation. */
typedef struct work {
    cells pool;
    bh_list list;
    double t_walk, t_eval;
} work;

typedef struct bh_cpu {
    int64_t n;
    int threads;
    float *m, *x, *y, *z, *vx, *vy, *vz, *ax, *ay, *az;
    float dt, eps2, theta;
    cells tree;                      /* the tree: cell 0 is the root */
    int *chain, *sorted;             /* leaf lists; the bodies in tree order */
    float *px, *py, *pz, *pm;        /* positions and masses in tree order (the walk's) */
    uint32_t *key, *key2;            /* build: keys, and the radix sort's other buffer */
    int *idx2;                       /* build: the radix sort's other index buffer */
    int64_t *hist;                   /* build: RADIX counters per thread */
    task *tasks;
    int64_t ntasks, taskcap;
    int64_t *top;                    /* coarse cells that are no task, parents first */
    int64_t ntop, topcap;
    work *work;                      /* one per thread */
    int64_t bb, bc;                  /* interactions of the last force computation */
    /* timed steps: sums of the phases (ms; walk and eval: thread-ms) */
    double t_bbox, t_sort, t_insert, t_merge, t_sum, t_force, t_walk, t_eval, t_int;
    int nt;
} bh_cpu;

/* ---- cells ------------------------------------------------------------- */

/* Room for 'need' cells in c; 0, or -1 (no message: threads call it). */
static int grow(cells *c, int64_t need)
{
    if (need <= c->cap) return 0;
    int64_t cap = c->cap ? c->cap : 1024;
    while (cap < need) cap *= 2;
#define GROW(p, k) do { void *q_ = realloc(c->p, (size_t)cap * (k) * sizeof *c->p); \
        if (!q_) return -1; \
        c->p = q_; } while (0)
    GROW(child, 8); GROW(cx, 1); GROW(cy, 1); GROW(cz, 1); GROW(half, 1);
    if (c->summary) {
        GROW(mx, 1); GROW(my, 1); GROW(mz, 1); GROW(mm, 1); GROW(open2, 1); GROW(count, 1);
        GROW(wchild, 8);
    }
#undef GROW
    c->cap = cap;
    return 0;
}

static void cells_free(cells *c)
{
    float *f[] = { c->cx, c->cy, c->cz, c->half, c->mx, c->my, c->mz, c->mm, c->open2 };
    for (size_t a = 0; a < sizeof f / sizeof *f; a++) free(f[a]);
    free(c->child); free(c->wchild); free(c->count);
}

/* A new empty cell of c; -1 when out of memory. */
static int64_t new_cell(cells *c, float cx, float cy, float cz, float h, int depth)
{
    if (c->ncells == c->cap && grow(c, c->ncells + 1)) return -1;
    int64_t k = c->ncells++;
    for (int o = 0; o < 8; o++) c->child[k * 8 + o] = BH_EMPTY;
    c->cx[k] = cx; c->cy[k] = cy; c->cz[k] = cz; c->half[k] = h;
    if (depth + 1 > c->depth) c->depth = depth + 1;
    return k;
}

/* ---- build --------------------------------------------------------------- */

/* Insert body b into the list headed by 'head', kept sorted by index. */
static int list_insert(const bh_cpu *t, int head, int b)
{
    if (b < head) { t->chain[b] = head; return b; }
    int a = head;
    while (t->chain[a] != BH_EMPTY && t->chain[a] < b) a = t->chain[a];
    t->chain[b] = t->chain[a];
    t->chain[a] = b;
    return head;
}

/* Insert body b below cell k of c (at 'depth', cube cx, cy, cz, h).  0, or
 * -1 when out of memory. */
static int insert(const bh_cpu *t, cells *c, int64_t k, int depth, float cx, float cy, float cz,
                  float h, int b)
{
    int o = bh_octant(t->x[b], t->y[b], t->z[b], cx, cy, cz);
    int ch = c->child[k * 8 + o];
    bh_child(o, &cx, &cy, &cz, &h);
    if (ch == BH_EMPTY) {                       /* empty slot: b is a leaf */
        c->child[k * 8 + o] = b;
        return 0;
    }
    if (ch >= t->n)                             /* a cell: go down */
        return insert(t, c, ch - t->n, depth + 1, cx, cy, cz, h, b);
    if (depth + 1 >= BH_MAXDEPTH) {             /* depth cap: a leaf of several bodies */
        c->child[k * 8 + o] = list_insert(t, ch, b);
        return 0;
    }
    /* a body: split the slot into a new cell holding both */
    int64_t kk = new_cell(c, cx, cy, cz, h, depth + 1);
    if (kk < 0) return -1;
    c->child[k * 8 + o] = (int)(t->n + kk);
    int rc = insert(t, c, kk, depth + 1, cx, cy, cz, h, ch);
    return rc ? rc : insert(t, c, kk, depth + 1, cx, cy, cz, h, b);
}

/* The octants of a position in the first BH_KEY_LEVELS levels below the root
 * cube, 3 bits each, the root's first: the path insert() takes. */
static uint32_t body_key(float x, float y, float z, float cx, float cy, float cz, float h)
{
    uint32_t key = 0;
    for (int d = 0; d < BH_KEY_LEVELS; d++) {
        int o = bh_octant(x, y, z, cx, cy, cz);
        key = key << 3 | (uint32_t)o;
        bh_child(o, &cx, &cy, &cz, &h);
    }
    return key;
}

/* Sort t->sorted by t->key (both permuted): a stable LSD radix sort, each
 * thread a contiguous chunk, so the result does not depend on the threads. */
static void sort_keys(bh_cpu *t)
{
    const int64_t n = t->n;
    for (int shift = 0; shift < RADIX_PASSES * RADIX_BITS; shift += RADIX_BITS) {
        const uint32_t *ks = t->key;
        const int *is = t->sorted;
        uint32_t *kd = t->key2;
        int *id = t->idx2;
        int64_t *hist = t->hist;
        #pragma omp parallel num_threads(t->threads)
        {
            int nt = omp_get_num_threads(), me = omp_get_thread_num();
            int64_t a = n * me / nt, b = n * (me + 1) / nt;
            int64_t *h = hist + (size_t)me * RADIX;
            memset(h, 0, RADIX * sizeof *h);
            for (int64_t i = a; i < b; i++) h[(ks[i] >> shift) & (RADIX - 1)]++;
            #pragma omp barrier
            #pragma omp single
            {
                int64_t sum = 0;
                for (int d = 0; d < RADIX; d++)
                    for (int th = 0; th < nt; th++) {
                        int64_t c = hist[(size_t)th * RADIX + d];
                        hist[(size_t)th * RADIX + d] = sum;
                        sum += c;
                    }
            }
            for (int64_t i = a; i < b; i++) {
                int64_t p = h[(ks[i] >> shift) & (RADIX - 1)]++;
                kd[p] = ks[i];
                id[p] = is[i];
            }
        }
        uint32_t *k = t->key; t->key = t->key2; t->key2 = k;
        int *s = t->sorted; t->sorted = t->idx2; t->idx2 = s;
    }
}

/* The end of the keys of [lo, hi) whose digit at 'shift' is at most o (the
 * keys of a cell share their higher digits, so its digits are sorted). */
static int64_t digit_end(const uint32_t *key, int64_t lo, int64_t hi, int shift, uint32_t o)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (((key[mid] >> shift) & 7) <= o) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Append a task, a coarse cell that is no task; 0 or -1. */
static int push_task(bh_cpu *t, const task *q)
{
    if (t->ntasks == t->taskcap) {
        int64_t cap = t->taskcap ? 2 * t->taskcap : 256;
        task *p = realloc(t->tasks, (size_t)cap * sizeof *p);
        if (!p) return -1;
        t->tasks = p;
        t->taskcap = cap;
    }
    t->tasks[t->ntasks++] = *q;
    return 0;
}

static int push_top(bh_cpu *t, int64_t k)
{
    if (t->ntop == t->topcap) {
        int64_t cap = t->topcap ? 2 * t->topcap : 256;
        int64_t *p = realloc(t->top, (size_t)cap * sizeof *p);
        if (!p) return -1;
        t->top = p;
        t->topcap = cap;
    }
    t->top[t->ntop++] = k;
    return 0;
}

/* Cell k of the tree (at 'depth', cube cx, cy, cz, h) holds the bodies
 * sorted[lo, hi): a task, or split by the next digit of the keys.  0 or -1. */
static int coarse(bh_cpu *t, int64_t k, int depth, float cx, float cy, float cz, float h,
                  int64_t lo, int64_t hi)
{
    if (hi - lo <= BH_TASK_BODIES || depth == BH_KEY_LEVELS) {
        task q = { .k = k, .lo = lo, .hi = hi, .cx = cx, .cy = cy, .cz = cz, .h = h,
                   .depth = depth };
        return push_task(t, &q);
    }
    if (push_top(t, k)) return -1;
    int shift = 3 * (BH_KEY_LEVELS - 1 - depth);
    int64_t a = lo;
    for (int o = 0; o < 8; o++) {
        int64_t b = digit_end(t->key, a, hi, shift, (uint32_t)o);
        float ccx = cx, ccy = cy, ccz = cz, hh = h;
        bh_child(o, &ccx, &ccy, &ccz, &hh);
        int slot = BH_EMPTY, wslot = BH_EMPTY;
        if (b - a == 1) {                       /* one body: a leaf, at tree position a */
            slot = t->sorted[a];
            wslot = (int)a;
            t->chain[slot] = BH_EMPTY;
        } else if (b - a > 1) {                 /* a cell */
            int64_t kk = new_cell(&t->tree, ccx, ccy, ccz, hh, depth + 1);
            if (kk < 0 || coarse(t, kk, depth + 1, ccx, ccy, ccz, hh, a, b)) return -1;
            slot = wslot = (int)(t->n + kk);
        }
        t->tree.child[k * 8 + o] = slot;
        t->tree.wchild[k * 8 + o] = wslot;
        a = b;
    }
    return 0;
}

/* Task q, built by thread 'me': a copy of its cell, then its bodies. */
static int build_task(bh_cpu *t, task *q, int me)
{
    cells *p = &t->work[me].pool;
    q->tid = me;
    q->start = p->ncells;
    q->ncells = 0;
    if (new_cell(p, q->cx, q->cy, q->cz, q->h, q->depth) < 0) return -1;
    for (int64_t i = q->lo; i < q->hi; i++) {
        int b = t->sorted[i];
        t->chain[b] = BH_EMPTY;
        if (insert(t, p, q->start, q->depth, q->cx, q->cy, q->cz, q->h, b)) return -1;
    }
    q->ncells = p->ncells - q->start;
    return 0;
}

/* Copy task q's cells into the tree: its copy of cell k onto k, the others
 * from q->base on, their cell numbers moved along. */
static void merge_task(bh_cpu *t, const task *q)
{
    const cells *p = &t->work[q->tid].pool;
    cells *c = &t->tree;
    const int64_t n = t->n, shift = q->base - (q->start + 1);
    for (int64_t l = q->start; l < q->start + q->ncells; l++) {
        int64_t k = l == q->start ? q->k : l + shift;
        for (int o = 0; o < 8; o++) {
            int ch = p->child[l * 8 + o];
            c->child[k * 8 + o] = ch >= n ? (int)(ch + shift) : ch;
        }
        if (l == q->start) continue;
        c->cx[k] = p->cx[l]; c->cy[k] = p->cy[l]; c->cz[k] = p->cz[l]; c->half[k] = p->half[l];
    }
}

/* The tree of the current positions.  ph: bbox, keys + sort, insertion,
 * merge (ms). */
static int build(bh_cpu *t, double ph[4])
{
    const int64_t n = t->n;
    const float *x = t->x, *y = t->y, *z = t->z;
    double t0 = nb_now_ms();
    float lox = x[0], loy = y[0], loz = z[0], hix = x[0], hiy = y[0], hiz = z[0];
    #pragma omp parallel for num_threads(t->threads) schedule(static) \
        reduction(min : lox, loy, loz) reduction(max : hix, hiy, hiz)
    for (int64_t i = 1; i < n; i++) {
        lox = fminf(lox, x[i]); hix = fmaxf(hix, x[i]);
        loy = fminf(loy, y[i]); hiy = fmaxf(hiy, y[i]);
        loz = fminf(loz, z[i]); hiz = fmaxf(hiz, z[i]);
    }
    float cx, cy, cz, h;
    bh_root(lox, loy, loz, hix, hiy, hiz, &cx, &cy, &cz, &h);
    double t1 = nb_now_ms();

    #pragma omp parallel for num_threads(t->threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        t->key[i] = body_key(x[i], y[i], z[i], cx, cy, cz, h);
        t->sorted[i] = (int)i;
    }
    sort_keys(t);
    double t2 = nb_now_ms();

    /* the coarse cells (cell 0: the root), then the tasks in parallel */
    t->tree.ncells = 0;
    t->tree.depth = 0;
    t->ntasks = t->ntop = 0;
    if (new_cell(&t->tree, cx, cy, cz, h, 0) < 0 || coarse(t, 0, 0, cx, cy, cz, h, 0, n))
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the top of the tree (%lld cells)",
                       (long long)t->tree.ncells);
    for (int th = 0; th < t->threads; th++) t->work[th].pool.ncells = t->work[th].pool.depth = 0;
    int oom = 0;
    #pragma omp parallel for num_threads(t->threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < t->ntasks; i++)
        if (build_task(t, &t->tasks[i], omp_get_thread_num())) {
            #pragma omp atomic write
            oom = 1;
        }
    if (oom) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for tree cells");
    double t3 = nb_now_ms();

    int64_t total = t->tree.ncells;
    for (int64_t i = 0; i < t->ntasks; i++) {
        t->tasks[i].base = total;
        total += t->tasks[i].ncells - 1;
    }
    if (grow(&t->tree, total))
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld tree cells", (long long)total);
    #pragma omp parallel for num_threads(t->threads) schedule(dynamic, 16)
    for (int64_t i = 0; i < t->ntasks; i++) merge_task(t, &t->tasks[i]);
    t->tree.ncells = total;
    for (int th = 0; th < t->threads; th++)
        if (t->work[th].pool.depth > t->tree.depth) t->tree.depth = t->work[th].pool.depth;
    double t4 = nb_now_ms();
    ph[0] = t1 - t0; ph[1] = t2 - t1; ph[2] = t3 - t2; ph[3] = t4 - t3;
    return 0;
}

/* ---- summary and tree order ---------------------------------------------- */

/* Mass, centre of mass and count of cell k from its children (their own
 * summaries done), in the fixed order 0..7 and leaf lists in index order
 * (float, as on the GPU). */
static void summarize_cell(bh_cpu *t, int64_t k)
{
    cells *c = &t->tree;
    float m = 0, sx = 0, sy = 0, sz = 0;
    int64_t cnt = 0;
    for (int o = 0; o < 8; o++) {
        int ch = c->child[k * 8 + o];
        if (ch == BH_EMPTY) continue;
        if (ch < t->n) {
            for (int b = ch; b != BH_EMPTY; b = t->chain[b]) {
                m += t->m[b];
                sx += t->m[b] * t->x[b]; sy += t->m[b] * t->y[b]; sz += t->m[b] * t->z[b];
                cnt++;
            }
        } else {
            int64_t kk = ch - t->n;
            m += c->mm[kk];
            sx += c->mm[kk] * c->mx[kk]; sy += c->mm[kk] * c->my[kk]; sz += c->mm[kk] * c->mz[kk];
            cnt += c->count[kk];
        }
    }
    c->mm[k] = m;
    c->count[k] = cnt;
    if (m > 0) { c->mx[k] = sx / m; c->my[k] = sy / m; c->mz[k] = sz / m; }
    else { c->mx[k] = c->cx[k]; c->my[k] = c->cy[k]; c->mz[k] = c->cz[k]; }
    c->open2[k] = bh_open2(c->cx[k], c->cy[k], c->cz[k], c->half[k], c->mx[k], c->my[k], c->mz[k],
                           t->theta);
}

/* Cell k and its subtree, post-order. */
static void summarize(bh_cpu *t, int64_t k)
{
    for (int o = 0; o < 8; o++) {
        int ch = t->tree.child[k * 8 + o];
        if (ch >= t->n) summarize(t, ch - t->n);
    }
    summarize_cell(t, k);
}

/* The bodies below cell k in tree order, from sorted[*pos] on: depth first,
 * children in the order 0..7, leaf lists in index order (the GPU's sort
 * kernel computes the same order).  And the walk's copy of the children:
 * a leaf of one body as its tree position p, a leaf list as -2 - p. */
static void order(bh_cpu *t, int64_t k, int64_t *pos)
{
    cells *c = &t->tree;
    for (int o = 0; o < 8; o++) {
        int ch = c->child[k * 8 + o], w = ch;
        if (ch >= t->n) {
            order(t, ch - t->n, pos);
        } else if (ch != BH_EMPTY) {
            w = t->chain[ch] == BH_EMPTY ? (int)*pos : (int)(-2 - *pos);
            for (int b = ch; b != BH_EMPTY; b = t->chain[b]) t->sorted[(*pos)++] = b;
        }
        c->wchild[k * 8 + o] = w;
    }
}

/* Summary and tree order: each task's subtree (its bodies are already in
 * its range of sorted[], in key order), then the coarse cells above, last
 * created first (children before parents).  A body alone in a coarse slot
 * is already in its place. */
static void summary(bh_cpu *t)
{
    #pragma omp parallel for num_threads(t->threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < t->ntasks; i++) {
        const task *q = &t->tasks[i];
        int64_t pos = q->lo;
        summarize(t, q->k);
        order(t, q->k, &pos);
    }
    for (int64_t i = t->ntop - 1; i >= 0; i--) summarize_cell(t, t->top[i]);
    #pragma omp parallel for num_threads(t->threads) schedule(static)
    for (int64_t p = 0; p < t->n; p++) {
        int b = t->sorted[p];
        t->px[p] = t->x[b]; t->py[p] = t->y[b]; t->pz[p] = t->z[b]; t->pm[p] = t->m[b];
    }
}

/* ---- force: the walk, the list, the evaluation ----------------------------- */

/* A group of BH_GROUP bodies, neighbours in tree order (tree positions
 * first, first + cnt), walks the tree together, as one warp does on the
 * GPU: a cell is used as a point mass only if it is far from every body of
 * the group, else it is opened for all.  A group of cnt < BH_GROUP bodies
 * (the last) repeats its last body, so that every test runs over all
 * BH_GROUP lanes. */
typedef struct group {
    int64_t first;
    int cnt;
    float x[BH_GROUP], y[BH_GROUP], z[BH_GROUP];
} group;

/* Is cell k far from every body of group g: bh_far(d2, open2) for each of the
 * BH_GROUP lanes (the GPU warp's vote), d2 the squared distance from the body
 * to the cell's centre of mass?  All lanes, without an early exit: a
 * vectorized loop. */
static int group_far(const bh_cpu *t, int64_t k, const group *g)
{
    const cells *c = &t->tree;
    const float mx = c->mx[k], my = c->my[k], mz = c->mz[k], open2 = c->open2[k];
    int far = 1;
    for (int j = 0; j < BH_GROUP; j++) {
        float dx = mx - g->x[j], dy = my - g->y[j], dz = mz - g->z[j];
        far &= bh_far(dx * dx + dy * dy + dz * dz, open2);
    }
    return far;
}

/* Room for 'more' entries on the list (oom set and 0 returned on failure). */
static int reserve(bh_list *l, int64_t more)
{
    if (l->len + more <= l->cap) return 1;
    int64_t cap = l->cap ? 2 * l->cap : 4096;
    while (cap < l->len + more) cap *= 2;
    float **a[] = { &l->x, &l->y, &l->z, &l->m };
    for (int i = 0; i < 4; i++) {
        float *p = realloc(*a[i], (size_t)cap * sizeof *p);
        if (!p) { l->oom = 1; return 0; }
        *a[i] = p;
    }
    l->cap = cap;
    return 1;
}

/* The two kinds of sources: cell k as one body at its centre of mass, and
 * the body at tree position p.  The caller reserve()d the room. */
static void push_cell(const bh_cpu *t, int64_t k, bh_list *l)
{
    int64_t i = l->len++;
    l->x[i] = t->tree.mx[k]; l->y[i] = t->tree.my[k]; l->z[i] = t->tree.mz[k];
    l->m[i] = t->tree.mm[k];
    l->cells++;
}

static void push_body(const bh_cpu *t, int64_t p, bh_list *l)
{
    int64_t i = l->len++;
    l->x[i] = t->px[p]; l->y[i] = t->py[p]; l->z[i] = t->pz[p]; l->m[i] = t->pm[p];
    l->bodies++;
}

/* Cells waiting to be visited: each opened cell replaces itself by at most
 * 8 children, at most BH_MAXDEPTH levels deep. */
#define BH_STACK (7 * BH_MAXDEPTH + 8)

/* Group g's interaction list: the walk from the root, onto list l.  The
 * walk's copy of the children (t->tree.wchild) gives a leaf by the tree
 * position p of its body (bodies p on in t->px, py, pz, pm), a leaf list of
 * several bodies (the depth cap) as -2 - p, its bodies sorted[p], then
 * t->chain[] to BH_EMPTY, at the positions p, p + 1, ... */
static void walk(const bh_cpu *t, const group *g, bh_list *l)
{
    /* BEGIN SOLUTION
     * A depth-first walk with an explicit stack of cells (int stack[BH_STACK]), the root (cell 0)
     * first.  For each cell k popped: if group_far(t, k, g), the cell is one source:
     * reserve(l, 1) and push_cell(t, k, l).  Else open it: reserve(l, 8), then for its children
     * w = t->tree.wchild[k * 8 + o], o = 0..7: skip BH_EMPTY; a cell (w >= t->n) goes on the
     * stack as w - t->n; a body (0 <= w < t->n) is push_body(t, w, l); a leaf list (w <= -2)
     * pushes the bodies at p = -2 - w, p + 1, ... as long as the chain of sorted[p] goes on
     * (reserve one more for each).  Return early if l->oom.  Then call force(t) in compute().
     * See handouts/05_barneshut.md.
     */
    /* BLANK: (void)t; (void)g; (void)l; (void)group_far; (void)reserve; */
    /* BLANK: (void)push_cell; (void)push_body; */
    const int n = (int)t->n;
    int stack[BH_STACK], sp = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        int k = stack[--sp];
        if (group_far(t, k, g)) {
            if (!reserve(l, 1)) return;
            push_cell(t, k, l);
            continue;
        }
        if (!reserve(l, 8)) return;
        const int *child = t->tree.wchild + (int64_t)k * 8;
        for (int o = 7; o >= 0; o--) {          /* the stack pops child 0 first */
            int w = child[o];
            if (w >= n) stack[sp++] = w - n;
            else if (w >= 0) push_body(t, w, l);
            else if (w != BH_EMPTY)             /* a leaf list: the depth cap */
                for (int p = -2 - w, b = t->sorted[p]; b != BH_EMPTY; b = t->chain[b], p++) {
                    if (!reserve(l, 1)) return;
                    push_body(t, p, l);
                }
        }
    }
    /* END SOLUTION */
}

/* Every group: its list (walk), its sum (bh_eval), one group per thread at
 * a time.  The interactions: the list's bodies and cells times the group's
 * bodies, summed per thread and reduced. */
static int force(bh_cpu *t)
{
    const int64_t n = t->n, ngroups = (n + BH_GROUP - 1) / BH_GROUP;
    int64_t bb = 0, bc = 0;
    int oom = 0;
    #pragma omp parallel num_threads(t->threads) reduction(+ : bb, bc)
    {
        work *w = &t->work[omp_get_thread_num()];
        bh_list *l = &w->list;
        double tw = 0, te = 0;
        l->oom = 0;
        #pragma omp for schedule(dynamic, 1)
        for (int64_t gi = 0; gi < ngroups; gi++) {
            group g;
            g.first = gi * BH_GROUP;
            g.cnt = (int)(n - g.first < BH_GROUP ? n - g.first : BH_GROUP);
            for (int j = 0; j < BH_GROUP; j++) {
                int64_t p = g.first + (j < g.cnt ? j : g.cnt - 1);
                g.x[j] = t->px[p]; g.y[j] = t->py[p]; g.z[j] = t->pz[p];
            }
            l->len = l->bodies = l->cells = 0;
            double t0 = nb_now_ms();
            walk(t, &g, l);
            double t1 = nb_now_ms();
            float ax[BH_GROUP], ay[BH_GROUP], az[BH_GROUP];
            bh_eval(g.x, g.y, g.z, g.cnt, l, t->eps2, ax, ay, az);
            double t2 = nb_now_ms();
            for (int j = 0; j < g.cnt; j++) {
                int b = t->sorted[g.first + j];
                t->ax[b] = ax[j]; t->ay[b] = ay[j]; t->az[b] = az[j];
            }
            bb += l->bodies * g.cnt;
            bc += l->cells * g.cnt;
            tw += t1 - t0;
            te += t2 - t1;
        }
        w->t_walk = tw;
        w->t_eval = te;
        if (l->oom) {
            #pragma omp atomic write
            oom = 1;
        }
    }
    if (oom) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for an interaction list");
    t->bb = bb;
    t->bc = bc;
    return 0;
}

/* a(x) of the current positions; the phase times in ms when ph != NULL:
 * build (4: bbox, keys + sort, insertion, merge), summary, force. */
static int compute(bh_cpu *t, double ph[6])
{
    double b[4];
    int rc = build(t, b);
    if (rc) return rc;
    double t1 = nb_now_ms();
    summary(t);
    double t2 = nb_now_ms();
    /* BEGIN SOLUTION
     * Call force(t) (return its code if not 0): it collects with walk() the interaction list of
     * every group of 32 bodies, neighbours in tree order, and sums it.
     * See handouts/05_barneshut.md.
     */
    /* BLANK: (void)force; */
    /* BLANK: return nb_todo("--cpu: the tree walk walk() in bh_cpu.c", "05_barneshut"); */
    if ((rc = force(t))) return rc;
    /* END SOLUTION */
    double t3 = nb_now_ms();
    if (ph) {
        for (int i = 0; i < 4; i++) ph[i] = b[i];
        ph[4] = t2 - t1;
        ph[5] = t3 - t2;
    }
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
    t->threads = o->threads > 0 ? o->threads : 1;
    t->dt = (float)o->dt;
    t->eps2 = (float)(o->eps * o->eps);
    t->theta = (float)o->theta;
    t->tree.summary = 1;
    size_t N = (size_t)s->n, nb = N * sizeof(float);
    float **arr[] = { &t->m, &t->x, &t->y, &t->z, &t->vx, &t->vy, &t->vz,
                      &t->ax, &t->ay, &t->az, &t->px, &t->py, &t->pz, &t->pm };
    int ok = 1;
    for (size_t a = 0; a < sizeof arr / sizeof *arr; a++)
        if (!(*arr[a] = malloc(nb))) ok = 0;
    if (!(t->chain = malloc(N * sizeof(int))) || !(t->sorted = malloc(N * sizeof(int))) ||
        !(t->idx2 = malloc(N * sizeof(int))) || !(t->key = malloc(N * sizeof(uint32_t))) ||
        !(t->key2 = malloc(N * sizeof(uint32_t))))
        ok = 0;
    if (!ok) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %lld bodies", (long long)s->n);
    if (!(t->hist = malloc((size_t)t->threads * RADIX * sizeof *t->hist)) ||
        !(t->work = calloc((size_t)t->threads, sizeof *t->work)))
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %d threads", t->threads);
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
        double t1 = nb_now_ms(), ph[6] = { 0, 0, 0, 0, 0, 0 };   /* set by compute() */
        int rc = compute(t, ph);
        if (rc) return rc;
        double t2 = nb_now_ms();
        kick_drift(t, hdt, dt, 0);
        double t3 = nb_now_ms();
        if (times) {
            times[k].force_ms = t2 - t1;
            times[k].step_ms = t3 - t0;
            times[k].interactions = t->bb + t->bc;
            t->t_bbox += ph[0]; t->t_sort += ph[1]; t->t_insert += ph[2]; t->t_merge += ph[3];
            t->t_sum += ph[4]; t->t_force += ph[5];
            for (int th = 0; th < t->threads; th++) {
                t->t_walk += t->work[th].t_walk;
                t->t_eval += t->work[th].t_eval;
            }
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
    info->sms = t->threads;
    info->block = 0;
    info->device_bytes = 0;
    info->tree_nodes = t->tree.ncells;
    info->tree_depth = t->tree.depth;
}

/* The phases of the timed steps.  Walk and evaluation alternate within the
 * force phase, group by group on every thread: their wall time is the force
 * phase's, split in the ratio of their summed thread times; 'busy' is the
 * share of the force phase's threads x wall time they filled. */
static void cpu_report(void *ctx, FILE *out)
{
    bh_cpu *t = ctx;
    double k = t->nt ? 1.0 / t->nt : 0;
    double build = t->t_bbox + t->t_sort + t->t_insert + t->t_merge;
    double busy = t->t_walk + t->t_eval, share = busy > 0 ? t->t_walk / busy : 0;
    fprintf(out, "    phases (mean of %d timed steps, ms, %d thread%s): build %.3f, summarize %.3f, "
            "walk/list %.3f, evaluate %.3f, integrate %.3f\n", t->nt, t->threads,
            t->threads == 1 ? "" : "s", build * k, t->t_sum * k, t->t_force * share * k,
            t->t_force * (1 - share) * k, t->t_int * k);
    fprintf(out, "    build: bbox %.3f, keys + sort %.3f, insertion %.3f (%lld tasks), merge %.3f; "
            "summarize: with the tree order; force: walk/list and evaluate split as their "
            "thread times, threads busy %.1f%%\n", t->t_bbox * k, t->t_sort * k, t->t_insert * k,
            (long long)t->ntasks, t->t_merge * k,
            t->t_force > 0 ? 100.0 * busy / (t->t_force * t->threads) : 0.0);
    fprintf(out, "    interactions per step: body-body %lld, body-cell %lld "
            "(%.1f + %.1f per body)\n",
            (long long)t->bb, (long long)t->bc, (double)t->bb / t->n, (double)t->bc / t->n);
}

static int cpu_cells(void *ctx, nb_cells *out)
{
    bh_cpu *t = ctx;
    out->count = t->tree.ncells;
    out->cx = t->tree.cx; out->cy = t->tree.cy; out->cz = t->tree.cz; out->half = t->tree.half;
    return 0;
}

static void cpu_destroy(void *ctx)
{
    bh_cpu *t = ctx;
    if (!t) return;
    float *arr[] = { t->m, t->x, t->y, t->z, t->vx, t->vy, t->vz, t->ax, t->ay, t->az,
                     t->px, t->py, t->pz, t->pm };
    for (size_t a = 0; a < sizeof arr / sizeof *arr; a++) free(arr[a]);
    cells_free(&t->tree);
    free(t->chain); free(t->sorted); free(t->idx2); free(t->key); free(t->key2); free(t->hist);
    free(t->tasks); free(t->top);
    for (int th = 0; t->work && th < t->threads; th++) {
        bh_list *l = &t->work[th].list;
        cells_free(&t->work[th].pool);
        free(l->x); free(l->y); free(l->z); free(l->m);
    }
    free(t->work);
    free(t);
}

/* ---- what the tests read (bh_cpu.h) ----------------------------------------- */

int bh_cpu_tree(void *ctx, bh_tree *o)
{
    bh_cpu *t = ctx;
    const cells *c = &t->tree;
    int rc = bh_tree_alloc(o, t->n, c->ncells);
    if (rc) return rc;
    size_t nc = (size_t)c->ncells;
    o->depth = c->depth;
    memcpy(o->child, c->child, nc * 8 * sizeof(int));
    memcpy(o->chain, t->chain, (size_t)t->n * sizeof(int));
    memcpy(o->count, c->count, nc * sizeof(int64_t));
    float *dst[] = { o->cx, o->cy, o->cz, o->half, o->mx, o->my, o->mz, o->m };
    const float *src[] = { c->cx, c->cy, c->cz, c->half, c->mx, c->my, c->mz, c->mm };
    for (int a = 0; a < 8; a++) memcpy(dst[a], src[a], nc * sizeof(float));
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
    .idea = "Barnes-Hut octree, O(N log N): tree build, walk to interaction lists, vectorized "
            "sums, OpenMP (CPU tree code)",
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
    .cpu_variant = NULL,
    /* the state (28 B), the code's copies of the bodies and accelerations
     * (40 B), leaf lists and tree order (8 B), the build's keys and radix
     * sort buffers (12 B), cells (80 B each in the tree, about 0.5 per body,
     * capacity doubled when short: up to 2 per body; 48 B each in the
     * threads' build pools, the same count), --check (12 B).  Not per body:
     * each thread's interaction list, 16 B per source, a few thousand at
     * theta = 0.5 (up to N at theta = 0). */
    .host_bytes_per_body = 28.0 + 40.0 + 8.0 + 12.0 + 2.0 * (80.0 + 48.0) + 12.0,
    .device_bytes_per_body = 0,
};
