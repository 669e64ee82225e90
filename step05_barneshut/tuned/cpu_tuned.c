/* tuned/cpu_tuned.c -- step05_barneshut/tuned/nbody_tuned --cpu: the tuned
 * build's CPU tree code, with OpenMP threads (--threads T, default 1).
 *
 * The lesson's --cpu (../bh_cpu.c) made fast: the same tree (the same cells,
 * the same tree order) and the same walk in groups of 32 bodies, the same
 * cells accepted, so the same interactions; only the sums differ in the last
 * bits.  What it adds: a parallel build, a walk to interaction lists and a
 * vectorized sum of them.  The table nb_step05_tuned_cpu at the end is what
 * --cpu runs (nb_step05_tuned.cpu_variant).  Each step:
 *   1. bounding box -> root cube (bh_root), a parallel min/max;
 *   2. build: every body gets a key, its octants in the first BH_KEY_LEVELS
 *      levels (the float operations of the insertion); a parallel radix sort
 *      by key puts the bodies of every cube of those levels together, and
 *      the top of the tree is cut into tasks, cells of at most BH_TASK_BODIES
 *      bodies (coarse()); each task inserts its bodies one by one,
 *      recursively (insert()), into its thread's own cells, which are then
 *      copied into the tree (merge()), numbered depth first.  The octree of
 *      a set of positions is unique, so neither the tree nor its numbering
 *      depends on the number of threads;
 *   3. summarize: mass and centre of mass of every cell, children in the
 *      fixed order 0..7 (double sums, like the GPU: summarize_cell()), task
 *      by task, then the cells above them; the bodies in tree order; and the
 *      walk's copy of each cell, one cache line (wcell);
 *   4. force: groups of BH_GROUP = 32 bodies, neighbours in tree order, one
 *      group per thread at a time (schedule(dynamic): groups differ in cost).
 *      A group walks the tree as a warp does on the GPU: a cell is used as a
 *      point mass at its centre of mass only when it is far from every body of
 *      the group by the opening criterion of bh_far() and bh_open2()
 *      (bh_tree.h); theta = 0 opens every cell: the direct sum, in tree order.
 *      The walk (walk()) only collects the group's sources -- accepted cells
 *      and the bodies of opened leaves -- into an interaction list; bh_eval()
 *      (bh_cpu_eval.c) sums the list on the 32 bodies: a dense group x list
 *      block, the loop shape of step01, vectorized.
 * Leapfrog KDK as in every step.  Host clock (CLOCK_MONOTONIC) for timings.
 * Napkin math: ~N log8 N cell visits to build, O(N) to summarize, and at
 * theta = 0.5 on a Plummer sphere a few thousand interactions per body, on
 * a list of a few thousand sources per group. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "tuned.h"
#include "bh_cpu_eval.h"
#include "bh_cpu_vote.h"
#include "nb_physics.h"

/* The top of the tree is cut into tasks by the bodies' keys: a cell of at
 * most BH_TASK_BODIES bodies, or one at depth BH_KEY_LEVELS, is built by one
 * thread.  10 levels: 30 bits of key, sorted in 3 radix passes of 10 bits. */
#define BH_KEY_LEVELS  10
#define BH_TASK_BODIES 1024
#define RADIX_BITS     10
#define RADIX_PASSES   3
#define RADIX          (1 << RADIX_BITS)
_Static_assert(BH_KEY_LEVELS < BH_MAXDEPTH, "the cells above the tasks stay above the depth cap");
_Static_assert(3 * BH_KEY_LEVELS <= RADIX_PASSES * RADIX_BITS, "the passes sort the whole key");

/* Cells: cube and children, what the build writes.  Node numbers as in
 * bh_tree.h: 0..n-1 bodies, n + k cell k of the same struct.  The tree's
 * own cells also carry the summary (summary = 1); the cells above the tasks
 * (top = 1) the tree position of each body slot, their task and their number
 * in the tree. */
typedef struct cells {
    int *child;                      /* 8 per cell: BH_EMPTY, body b, n + cell */
    float *cx, *cy, *cz, *half;
    float *mx, *my, *mz, *mm, *open2;    /* summary */
    int64_t *count;                      /* summary */
    int *pos;                            /* top: 8 per cell, a body's tree position */
    int64_t *task, *final;               /* top: its task (or -1), its cell in the tree */
    int64_t ncells, cap;
    int depth;                       /* levels: deepest cell depth + 1 */
    int summary, top;
} cells;

/* The walk's copy of a cell, one 64-byte line, in the tree's (depth-first)
 * numbering: the centre of mass and mass, the opening radius squared, and
 * the children that are not empty: first ncells cells (their numbers, the
 * last child first), then nbodies leaves (a body's tree position p; a leaf
 * list of several bodies, at the depth cap, as -2 - p). */
typedef struct wcell {
    float mx, my, mz, m, open2;
    int ncells, nbodies;
    int child[8];
    int pad;
} wcell;
_Static_assert(sizeof(wcell) == 64, "a wcell is one cache line");

/* A cell above the tasks whose bodies, sorted[lo, hi), one thread inserts
 * below it: into cells [start, start + ncells) of thread tid's pool (start:
 * the task's own copy of top cell k), copied to the tree from base on. */
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
    int wide;                        /* a squared distance may overflow: see force() */
    cells tree;                      /* the tree: cell 0 is the root, numbered depth first */
    cells top;                       /* build: the cells above the tasks; 0 is the root */
    wcell *wc;                       /* the walk's copy of the tree's cells */
    int64_t wccap;
    int *chain, *sorted;             /* leaf lists; the bodies in tree order */
    float *px, *py, *pz, *pm;        /* positions and masses in tree order (the walk's) */
    uint32_t *key, *key2;            /* build: keys, and the radix sort's other buffer */
    int *idx2;                       /* build: the radix sort's other index buffer */
    int64_t *hist;                   /* build: RADIX counters per thread */
    task *tasks;
    int64_t ntasks, taskcap;
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
    }
    if (c->top) { GROW(pos, 8); GROW(task, 1); GROW(final, 1); }
#undef GROW
    c->cap = cap;
    return 0;
}

static void cells_free(cells *c)
{
    float *f[] = { c->cx, c->cy, c->cz, c->half, c->mx, c->my, c->mz, c->mm, c->open2 };
    for (size_t a = 0; a < sizeof f / sizeof *f; a++) free(f[a]);
    free(c->child); free(c->count); free(c->pos); free(c->task); free(c->final);
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

/* Top cell k (at 'depth', cube cx, cy, cz, h) holds the bodies sorted[lo,
 * hi): a task, or split by the next digit of the keys.  0 or -1. */
static int coarse(bh_cpu *t, int64_t k, int depth, float cx, float cy, float cz, float h,
                  int64_t lo, int64_t hi)
{
    cells *c = &t->top;
    if (hi - lo <= BH_TASK_BODIES || depth == BH_KEY_LEVELS) {
        task q = { .k = k, .lo = lo, .hi = hi, .cx = cx, .cy = cy, .cz = cz, .h = h,
                   .depth = depth };
        c->task[k] = t->ntasks;
        return push_task(t, &q);
    }
    c->task[k] = -1;
    int shift = 3 * (BH_KEY_LEVELS - 1 - depth);
    int64_t a = lo;
    for (int o = 0; o < 8; o++) {
        int64_t b = digit_end(t->key, a, hi, shift, (uint32_t)o);
        float ccx = cx, ccy = cy, ccz = cz, hh = h;
        bh_child(o, &ccx, &ccy, &ccz, &hh);
        int slot = BH_EMPTY;
        if (b - a == 1) {                       /* one body: a leaf, at tree position a */
            slot = t->sorted[a];
            t->chain[slot] = BH_EMPTY;
            c->pos[k * 8 + o] = (int)a;
        } else if (b - a > 1) {                 /* a cell */
            int64_t kk = new_cell(c, ccx, ccy, ccz, hh, depth + 1);
            if (kk < 0 || coarse(t, kk, depth + 1, ccx, ccy, ccz, hh, a, b)) return -1;
            slot = (int)(t->n + kk);
        }
        c->child[k * 8 + o] = slot;
        a = b;
    }
    return 0;
}

/* Task q, built by thread 'me': a copy of its top cell, then its bodies. */
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

/* The tree's numbers of the top cells, depth first from top cell k on (a
 * task takes its cells' numbers at once). */
static void number(bh_cpu *t, int64_t k, int64_t *next)
{
    cells *c = &t->top;
    c->final[k] = *next;
    if (c->task[k] >= 0) {
        task *q = &t->tasks[c->task[k]];
        q->base = *next;
        *next += q->ncells;
        return;
    }
    (*next)++;
    for (int o = 0; o < 8; o++)
        if (c->child[k * 8 + o] >= t->n) number(t, c->child[k * 8 + o] - t->n, next);
}

/* Cell l of pool p and its subtree into the tree, depth first from *next on;
 * returns the tree's number of l. */
static int64_t copy_cells(bh_cpu *t, const cells *p, int64_t l, int64_t *next)
{
    cells *c = &t->tree;
    int64_t k = (*next)++;
    c->cx[k] = p->cx[l]; c->cy[k] = p->cy[l]; c->cz[k] = p->cz[l]; c->half[k] = p->half[l];
    for (int o = 0; o < 8; o++) {
        int ch = p->child[l * 8 + o];
        c->child[k * 8 + o] = ch >= t->n ? (int)(t->n + copy_cells(t, p, ch - t->n, next)) : ch;
    }
    return k;
}

/* The tree from the top cells and the tasks' pools, numbered depth first
 * (so the numbering is the same for any number of threads).  0 or -1. */
static int merge(bh_cpu *t)
{
    cells *c = &t->tree, *top = &t->top;
    int64_t total = 0;
    number(t, 0, &total);
    if (grow(c, total)) return -1;
    #pragma omp parallel for num_threads(t->threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < t->ntasks; i++) {
        const task *q = &t->tasks[i];
        int64_t next = q->base;
        copy_cells(t, &t->work[q->tid].pool, q->start, &next);
    }
    for (int64_t j = 0; j < top->ncells; j++) {
        if (top->task[j] >= 0) continue;
        int64_t k = top->final[j];
        c->cx[k] = top->cx[j]; c->cy[k] = top->cy[j]; c->cz[k] = top->cz[j];
        c->half[k] = top->half[j];
        for (int o = 0; o < 8; o++) {
            int ch = top->child[j * 8 + o];
            c->child[k * 8 + o] = ch >= t->n ? (int)(t->n + top->final[ch - t->n]) : ch;
        }
    }
    c->ncells = total;
    c->depth = top->depth;
    for (int th = 0; th < t->threads; th++)
        if (t->work[th].pool.depth > c->depth) c->depth = t->work[th].pool.depth;
    return 0;
}

/* The tree of the current positions.  ph: bbox, keys + sort, insertion,
 * merge (ms). */
static int build(bh_cpu *t, double ph[4])
{
    const int64_t n = t->n;
    const float *x = t->x, *y = t->y, *z = t->z;
    double t0 = nb_now_ms();
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
    t->wide = !(4.0f * h < 1e19f);               /* separations < 2 sqrt(3) h < sqrt(FLT_MAX) */
    double t1 = nb_now_ms();

    #pragma omp parallel for num_threads(t->threads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        t->key[i] = body_key(x[i], y[i], z[i], cx, cy, cz, h);
        t->sorted[i] = (int)i;
    }
    sort_keys(t);
    double t2 = nb_now_ms();

    /* the top cells (0: the root), then the tasks in parallel */
    t->top.ncells = 0;
    t->top.depth = 0;
    t->ntasks = 0;
    if (new_cell(&t->top, cx, cy, cz, h, 0) < 0 || coarse(t, 0, 0, cx, cy, cz, h, 0, n))
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the top of the tree (%lld cells)",
                       (long long)t->top.ncells);
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
    if (merge(t)) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for tree cells");
    double t4 = nb_now_ms();
    ph[0] = t1 - t0; ph[1] = t2 - t1; ph[2] = t3 - t2; ph[3] = t4 - t3;
    return 0;
}

/* ---- summary, tree order, the walk's copy ---------------------------------- */

/* Mass, centre of mass and count of cell k from its children (their own
 * summaries done), in the fixed order 0..7 and leaf lists in index order.
 * The sums are in double, as on the GPU: a float sum of m x over a long leaf
 * list (thousands of bodies at one point, at the depth cap) drifts by ~1e-4
 * of |x|, which moves a tight cluster's centre of mass by more than its
 * distance to the next one.  The product of two floats is exact in double,
 * so both codes get the same bits. */
static void summarize_cell(bh_cpu *t, int64_t k)
{
    cells *c = &t->tree;
    double m = 0, sx = 0, sy = 0, sz = 0;
    int64_t cnt = 0;
    for (int o = 0; o < 8; o++) {
        int ch = c->child[k * 8 + o];
        if (ch == BH_EMPTY) continue;
        if (ch < t->n) {
            for (int b = ch; b != BH_EMPTY; b = t->chain[b]) {
                double mb = t->m[b];
                m += mb;
                sx += mb * t->x[b]; sy += mb * t->y[b]; sz += mb * t->z[b];
                cnt++;
            }
        } else {
            int64_t kk = ch - t->n;
            double mk = c->mm[kk];
            m += mk;
            sx += mk * c->mx[kk]; sy += mk * c->my[kk]; sz += mk * c->mz[kk];
            cnt += c->count[kk];
        }
    }
    c->mm[k] = (float)m;
    c->count[k] = cnt;
    if (m > 0) { c->mx[k] = (float)(sx / m); c->my[k] = (float)(sy / m); c->mz[k] = (float)(sz / m); }
    else { c->mx[k] = c->cx[k]; c->my[k] = c->cy[k]; c->mz[k] = c->cz[k]; }
    c->open2[k] = bh_open2(c->cx[k], c->cy[k], c->cz[k], c->half[k], c->mx[k], c->my[k], c->mz[k],
                           t->theta);
}

/* The walk's copy of cell k; leaf[o]: the walk's code of body slot o (tree
 * position p, or -2 - p for a leaf list). */
static void copy_wcell(bh_cpu *t, int64_t k, const int leaf[8])
{
    const cells *c = &t->tree;
    wcell *w = &t->wc[k];
    w->mx = c->mx[k]; w->my = c->my[k]; w->mz = c->mz[k]; w->m = c->mm[k];
    w->open2 = c->open2[k];
    w->ncells = w->nbodies = 0;
    for (int o = 7; o >= 0; o--)                /* the walk's stack pops child 0 first */
        if (c->child[k * 8 + o] >= t->n) w->child[w->ncells++] = (int)(c->child[k * 8 + o] - t->n);
    for (int o = 0; o < 8; o++) {
        int ch = c->child[k * 8 + o];
        if (ch != BH_EMPTY && ch < t->n) w->child[w->ncells + w->nbodies++] = leaf[o];
    }
    w->pad = 0;
}

/* The bodies below cell k in tree order, from sorted[*pos] on: depth first,
 * children in the order 0..7, leaf lists in index order (the GPU's sort
 * kernel computes the same order); and the walk's copies of the cells. */
static void order(bh_cpu *t, int64_t k, int64_t *pos)
{
    const cells *c = &t->tree;
    int leaf[8];
    for (int o = 0; o < 8; o++) {
        int ch = c->child[k * 8 + o];
        if (ch >= t->n) {
            order(t, ch - t->n, pos);
        } else if (ch != BH_EMPTY) {
            leaf[o] = t->chain[ch] == BH_EMPTY ? (int)*pos : (int)(-2 - *pos);
            for (int b = ch; b != BH_EMPTY; b = t->chain[b]) t->sorted[(*pos)++] = b;
        }
    }
    copy_wcell(t, k, leaf);
}

/* Summary, tree order and the walk's copy: each task's cells (numbered
 * depth first: children after their parent, so the last cell first), its
 * bodies already in their range of sorted[]; then the top cells, the last
 * made first (children before parents), whose lone bodies are already in
 * their place; then the bodies' positions and masses in tree order.
 * 0 or -1 (out of memory). */
static int summary(bh_cpu *t)
{
    if (t->wccap < t->tree.ncells) {
        free(t->wc);
        t->wccap = t->tree.cap;
        t->wc = aligned_alloc(64, (size_t)t->wccap * sizeof *t->wc);
        if (!t->wc) { t->wccap = 0; return -1; }
    }
    #pragma omp parallel for num_threads(t->threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < t->ntasks; i++) {
        const task *q = &t->tasks[i];
        for (int64_t k = q->base + q->ncells - 1; k >= q->base; k--) summarize_cell(t, k);
        int64_t pos = q->lo;
        order(t, q->base, &pos);
    }
    const cells *top = &t->top;
    for (int64_t j = top->ncells - 1; j >= 0; j--) {
        if (top->task[j] >= 0) continue;
        summarize_cell(t, top->final[j]);
        copy_wcell(t, top->final[j], top->pos + j * 8);
    }
    #pragma omp parallel for num_threads(t->threads) schedule(static)
    for (int64_t p = 0; p < t->n; p++) {
        int b = t->sorted[p];
        t->px[p] = t->x[b]; t->py[p] = t->y[b]; t->pz[p] = t->z[b]; t->pm[p] = t->m[b];
    }
    return 0;
}

/* ---- force: the walk, the list, the evaluation ----------------------------- */

/* A group of BH_GROUP bodies, neighbours in tree order (tree positions
 * first ... first + cnt - 1), walks the tree together, as one warp does on
 * the GPU: a cell is used as a point mass only if it is far from every body
 * of the group, else it is opened for all.  A group of cnt < BH_GROUP bodies
 * (the last) repeats its last body, so that every test runs over all
 * BH_GROUP lanes. */
typedef struct group {
    _Alignas(64) float x[BH_GROUP];      /* whole cache lines for the vector loads */
    _Alignas(64) float y[BH_GROUP];
    _Alignas(64) float z[BH_GROUP];
    int64_t first;
    int cnt;
} group;

/* Is cell c far from every body of group g: bh_far(d2, open2) for each of the
 * BH_GROUP lanes (the GPU warp's vote), d2 the squared distance from the body
 * to the cell's centre of mass?  All lanes, without an early exit: a vector
 * loop (bh_cpu_vote.h). */
static int group_far(const wcell *c, const group *g)
{
    return bh_vote(g->x, g->y, g->z, c->mx, c->my, c->mz, c->open2);
}

/* Room for 'more' entries on the list: 1, or 0 with oom set. */
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

/* The sources, onto the list (the caller reserve()d the room): cell c as
 * one body at its centre of mass; the body at tree position p. */
static void push_cell(const wcell *c, bh_list *l)
{
    int64_t i = l->len++;
    l->x[i] = c->mx; l->y[i] = c->my; l->z[i] = c->mz; l->m[i] = c->m;
    l->cells++;
}

static void push_body(const bh_cpu *t, int64_t p, bh_list *l)
{
    int64_t i = l->len++;
    l->x[i] = t->px[p]; l->y[i] = t->py[p]; l->z[i] = t->pz[p]; l->m[i] = t->pm[p];
    l->bodies++;
}

/* A leaf list (the depth cap): its bodies at tree positions p, p + 1, ...
 * as long as the chain of body sorted[p] goes on.  1, or 0 (out of memory). */
static int push_leaf_list(const bh_cpu *t, int64_t p, bh_list *l)
{
    for (int b = t->sorted[p]; b != BH_EMPTY; b = t->chain[b], p++) {
        if (!reserve(l, 1)) return 0;
        push_body(t, p, l);
    }
    return 1;
}

/* Cells waiting to be visited: an opened cell gives way to at most 8
 * children, at most BH_MAXDEPTH levels deep. */
#define BH_STACK (7 * BH_MAXDEPTH + 8)

/* Put cell k on the stack, and start loading it (the hardware does not
 * guess the walk's next lines: the cells of a subtree are consecutive, but
 * their siblings are not). */
static void visit_later(const bh_cpu *t, int k, int *stack, int *sp)
{
    stack[(*sp)++] = k;
#if defined(__GNUC__)
    __builtin_prefetch(&t->wc[k]);
#else
    (void)t;
#endif
}

/* Group g's interaction list: the walk from the root (t->wc[0]), depth
 * first with a stack of cells, onto list l. */
static void walk(const bh_cpu *t, const group *g, bh_list *l)
{
    int stack[BH_STACK], sp = 0;
    visit_later(t, 0, stack, &sp);
    while (sp > 0) {
        const wcell *c = &t->wc[stack[--sp]];
        if (group_far(c, g)) {
            if (!reserve(l, 1)) return;
            push_cell(c, l);
            continue;
        }
        if (!reserve(l, 8)) return;
        for (int i = 0; i < c->ncells; i++) visit_later(t, c->child[i], stack, &sp);
        for (int i = c->ncells; i < c->ncells + c->nbodies; i++) {
            int p = c->child[i];
            if (p >= 0) push_body(t, p, l);
            else if (!push_leaf_list(t, -2 - p, l)) return;
        }
    }
}

/* bh_eval() in IEEE arithmetic, the list in order: for bodies so far apart
 * that a squared distance overflows to inf, outside the accepted input (the
 * README's coordinates within +-1e18) but met by the tests.  There 1/sqrtf(inf)
 * is 0 and the source adds 0; -ffast-math assumes finite values and its
 * rsqrt-based 1/sqrtf(inf) is NaN. */
static void eval_ieee(const group *g, const bh_list *l, float eps2, float *ax, float *ay,
                      float *az)
{
    for (int j = 0; j < g->cnt; j++) {
        float sx = 0, sy = 0, sz = 0;
        for (int64_t k = 0; k < l->len; k++)
            nb_interact(g->x[j], g->y[j], g->z[j], l->x[k], l->y[k], l->z[k], l->m[k], eps2,
                        &sx, &sy, &sz);
        ax[j] = sx; ay[j] = sy; az[j] = sz;
    }
}

/* Every group: its list (walk), its sum (bh_eval, or eval_ieee() when the
 * root cube is so wide that a squared distance may overflow), one group per
 * thread at a time.  The interactions: the list's bodies and cells times the
 * group's bodies, summed per thread and reduced. */
static int force(bh_cpu *t)
{
    const int64_t n = t->n, ngroups = (n + BH_GROUP - 1) / BH_GROUP;
    int64_t bb = 0, bc = 0;
    int oom = 0;
    #pragma omp parallel num_threads(t->threads) reduction(+ : bb, bc)
    {
        work *w = &t->work[omp_get_thread_num()];
        bh_list list = w->list, *l = &list;      /* a copy on this thread's stack */
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
            if (t->wide) eval_ieee(&g, l, t->eps2, ax, ay, az);
            else bh_eval(g.x, g.y, g.z, g.cnt, l, t->eps2, ax, ay, az);
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
        w->list = list;                          /* its buffers, maybe grown */
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
    if (summary(t)) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the walk's cells");
    double t2 = nb_now_ms();
    if ((rc = force(t))) return rc;
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
    t->top.top = 1;
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
            times[k].force_start_ms = t1 - t0;
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
 * force phase, group by group on every thread: their wall times are the
 * force phase's, split in the ratio of their summed thread times; 'busy' is
 * the share of the force phase's threads x wall time they filled (the rest:
 * threads waiting for work, the scatter of the accelerations). */
static void cpu_report(void *ctx, FILE *out)
{
    bh_cpu *t = ctx;
    double k = t->nt ? 1.0 / t->nt : 0;
    double build = t->t_bbox + t->t_sort + t->t_insert + t->t_merge;
    double busy = t->t_walk + t->t_eval, share = busy > 0 ? t->t_walk / busy : 0;
    fprintf(out, "    phases (mean of %d timed steps, ms, %d thread%s): build %.3f, "
            "summarize %.3f, walk/list %.3f, evaluate %.3f, integrate %.3f\n", t->nt, t->threads,
            t->threads == 1 ? "" : "s", build * k, t->t_sum * k, t->t_force * share * k,
            t->t_force * (1 - share) * k, t->t_int * k);
    fprintf(out, "    build: bbox %.3f, keys + sort %.3f, insertion %.3f (%lld tasks), "
            "merge %.3f; summarize: with the tree order; force: threads busy %.1f%%\n",
            t->t_bbox * k, t->t_sort * k, t->t_insert * k, (long long)t->ntasks, t->t_merge * k,
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
    cells_free(&t->top);
    free(t->wc);
    free(t->chain); free(t->sorted); free(t->idx2); free(t->key); free(t->key2); free(t->hist);
    free(t->tasks);
    for (int th = 0; t->work && th < t->threads; th++) {
        bh_list *l = &t->work[th].list;
        cells_free(&t->work[th].pool);
        free(l->x); free(l->y); free(l->z); free(l->m);
    }
    free(t->work);
    free(t);
}

/* ---- what the tests read (tuned.h) ------------------------------------------- */

int bh_tuned_cpu_tree(void *ctx, bh_tree *o)
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

int bh_tuned_cpu_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    bh_cpu *t = ctx;
    *bb = t->bb; *bc = t->bc;
    return 0;
}

const nb_step nb_step05_tuned_cpu = {
    .name = "step05_tuned",
    .idea = "Barnes-Hut tuned, CPU: the lesson's tree built in parallel, walk to interaction "
            "lists, vectorized sums, OpenMP",
    .options = NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_CPU | NB_OPT_THREADS,
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
     * (40 B) and of the positions and masses in tree order (16 B), leaf
     * lists, tree order and the radix sort's index buffer (12 B), the keys
     * (8 B), --check (12 B); cells, about 0.5 per body, capacity doubled
     * when short (up to 2 per body): 76 B each in the tree, 64 B in the
     * walk's copy, 48 B in the threads' build pools.  Not per body: each
     * thread's interaction list, 16 B per source, a few thousand at theta =
     * 0.5 (up to N at theta = 0). */
    .host_bytes_per_body = 28.0 + 40.0 + 16.0 + 12.0 + 8.0 + 12.0 + 2.0 * (76.0 + 64.0 + 48.0),
    .device_bytes_per_body = 0,
};
