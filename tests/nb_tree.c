/* nb_tree.c -- the grader's view of step05's octree (see nb_tree.h): a
 * tree fetched from a worker, the interactions it reports, its invariants,
 * and a tree as deep as the cap.
 * All sums of the checker are in double, independent of the float sums of
 * either tree code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_remote.h"
#include "nb_tree.h"

void nb_tree_free(nb_tree *t)
{
    free(t->child); free(t->chain);
    free(t->cx); free(t->cy); free(t->cz); free(t->half);
    free(t->mx); free(t->my); free(t->mz); free(t->m);
    free(t->count);
    memset(t, 0, sizeof *t);
}

int nb_tree_interactions(void *ctx, int64_t *bb, int64_t *bc)
{
    nb_wbuf b = { 0 };
    int rc = nb_remote_ext(ctx, "interactions", NULL, &b);
    if (!rc) {
        *bb = nb_wget_i64(&b);
        *bc = nb_wget_i64(&b);
        if (b.bad) rc = nb_fail(NB_EXIT_RUNTIME, "the step's interaction counts: a malformed reply");
    }
    nb_wbuf_free(&b);
    return rc;
}

int nb_tree_fetch(void *ctx, nb_tree *t)
{
    memset(t, 0, sizeof *t);
    nb_wbuf b = { 0 };
    int rc = nb_remote_ext(ctx, "tree", NULL, &b);
    if (rc) { nb_wbuf_free(&b); return rc; }
    t->n = nb_wget_i64(&b);
    t->ncells = nb_wget_i64(&b);
    t->depth = (int)nb_wget_i64(&b);
    if (b.bad || t->n < 0 || t->ncells < 1 || t->ncells > 64 * (t->n + 1)) {
        nb_wbuf_free(&b);
        return nb_fail(NB_EXIT_RUNTIME, "the step's tree: %lld bodies, %lld cells: not a tree",
                       (long long)t->n, (long long)t->ncells);
    }
    size_t c = (size_t)t->ncells;
    t->child = malloc(c * 8 * sizeof(int));
    t->chain = malloc((size_t)(t->n ? t->n : 1) * sizeof(int));
    t->count = malloc(c * sizeof(int64_t));
    float **f[8] = { &t->cx, &t->cy, &t->cz, &t->half, &t->mx, &t->my, &t->mz, &t->m };
    int ok = t->child && t->chain && t->count;
    for (int q = 0; q < 8; q++) ok &= (*f[q] = malloc(c * sizeof(float))) != NULL;
    if (ok) {
        nb_wget_ints(&b, t->child, 8 * t->ncells);
        nb_wget_ints(&b, t->chain, t->n);
        for (int q = 0; q < 8; q++) nb_wget_floats(&b, *f[q], t->ncells);
        nb_wget_bytes(&b, t->count, c * sizeof(int64_t));
    }
    int bad = b.bad;
    nb_wbuf_free(&b);
    if (ok && !bad) return 0;
    nb_tree_free(t);
    return ok ? nb_fail(NB_EXIT_RUNTIME, "the step's tree: arrays of the wrong lengths")
              : nb_fail(NB_EXIT_RUNTIME, "out of host memory for a copy of the tree");
}

/* Place a body. */
static void body_at(nb_state *s, int64_t *k, float x, float y, float z)
{
    s->x[*k] = x; s->y[*k] = y; s->z[*k] = z;
    s->vx[*k] = s->vy[*k] = s->vz[*k] = 0;
    (*k)++;
}

int nb_tree_deep_state(nb_state *s, int mirror)
{
    /* bounding box [M0, 2]^3 with M0 chosen so that the root's centre and
     * half size are the same float (0x1.0020cp+0): its lower corner, and that
     * of every octant-0 cell below it, is exactly 0, so the path of octant-0
     * cells goes all the way to the cap before the floats run out */
    const float m0 = 0x1.060402p-10f, top = 2.0f;
    const int levels = NB_TREE_MAXDEPTH - 2;
    int64_t n = 2 + (int64_t)levels * 7 * 2;
    if (nb_state_alloc(s, n)) return NB_EXIT_RUNTIME;
    int64_t k = 0;
    body_at(s, &k, m0, m0, m0);
    body_at(s, &k, top, top, top);
    float cx, cy, cz, h;
    nb_tree_root(m0, m0, m0, top, top, top, &cx, &cy, &cz, &h);
    if (cx - h != 0.0f) {
        nb_state_free(s);
        return nb_fail(NB_EXIT_RUNTIME, "deep tree: the root's corner is %g, not 0", (double)(cx - h));
    }
    for (int level = 0; level < levels; level++) {
        for (int o = 1; o < 8; o++) {          /* two bodies in each octant the path leaves */
            float x = cx, y = cy, z = cz, q = h;
            nb_tree_child(o, &x, &y, &z, &q);
            body_at(s, &k, x - 0.5f * q, y - 0.5f * q, z - 0.5f * q);
            body_at(s, &k, x + 0.5f * q, y + 0.5f * q, z + 0.5f * q);
        }
        nb_tree_child(0, &cx, &cy, &cz, &h);
    }
    for (int64_t i = 0; i < n; i++) {
        s->m[i] = (float)(1.0 / n);
        if (mirror) { s->x[i] = -s->x[i]; s->y[i] = -s->y[i]; s->z[i] = -s->z[i]; }
    }
    return 0;
}

/* ---- invariants ------------------------------------------------------- */

typedef struct chk {
    const nb_tree *t;
    const nb_state *s;
    double tol;
    int *seen_body, *seen_cell;
    int maxdepth;
    char *why;
    size_t len;
} chk;

static int bad(chk *c, const char *fmt, long long a, long long b)
{
    snprintf(c->why, c->len, fmt, a, b);
    return -1;
}

static int inside(const nb_state *s, int64_t b, const nb_tree *t, int64_t k)
{
    /* The octant rule puts a body on a boundary on the lower side; allow a
     * few ulps of the cube's coordinates. */
    double h = t->half[k] * (1 + 1e-6) + 1e-30;
    double sl = 4e-7 * (fabs(t->cx[k]) + fabs(t->cy[k]) + fabs(t->cz[k]));
    return fabs(s->x[b] - t->cx[k]) <= h + sl && fabs(s->y[b] - t->cy[k]) <= h + sl &&
           fabs(s->z[b] - t->cz[k]) <= h + sl;
}

/* Visit cell k: sums of m, m*r and the count of bodies below it (double). */
static int visit(chk *c, int64_t k, int depth, double sum[5])
{
    const nb_tree *t = c->t;
    const nb_state *s = c->s;
    int64_t n = t->n;
    if (k < 0 || k >= t->ncells)
        return bad(c, "cell index %lld out of range (%lld cells)", k, t->ncells);
    if (c->seen_cell[k]++) return bad(c, "cell %lld is referenced twice", k, 0);
    if (depth + 1 > c->maxdepth) c->maxdepth = depth + 1;
    if (depth >= NB_TREE_MAXDEPTH) return bad(c, "cell %lld at depth %lld past the cap", k, depth);
    sum[0] = sum[1] = sum[2] = sum[3] = sum[4] = 0;
    for (int o = 0; o < 8; o++) {
        int ch = t->child[k * 8 + o];
        if (ch == NB_TREE_EMPTY) continue;
        if (ch < 0) return bad(c, "cell %lld holds a bad child %lld", k, ch);
        if (ch < n) {
            int prev = -1;
            for (int b = ch; b != NB_TREE_EMPTY; b = t->chain[b]) {
                if (b < 0 || b >= n) return bad(c, "leaf list of cell %lld holds %lld", k, b);
                if (b <= prev)
                    return bad(c, "leaf list of cell %lld is not sorted at body %lld", k, b);
                if (c->seen_body[b]++)
                    return bad(c, "body %lld is in two leaves (cell %lld)", b, k);
                if (b != ch && depth != NB_TREE_MAXDEPTH - 1)
                    return bad(c, "leaf of several bodies above the depth cap "
                               "(cell %lld, body %lld)", k, b);
                /* the body lies in octant o of cell k */
                if (nb_tree_octant(s->x[b], s->y[b], s->z[b], t->cx[k], t->cy[k], t->cz[k]) != o)
                    return bad(c, "body %lld sits in the wrong octant of cell %lld", b, k);
                if (!inside(s, b, t, k))
                    return bad(c, "body %lld lies outside its cell %lld", b, k);
                sum[0] += s->m[b];
                sum[1] += (double)s->m[b] * s->x[b];
                sum[2] += (double)s->m[b] * s->y[b];
                sum[3] += (double)s->m[b] * s->z[b];
                sum[4] += 1;
                prev = b;
            }
        } else {
            int64_t kk = ch - n;
            if (kk <= 0 || kk >= t->ncells)
                return bad(c, "cell %lld has a bad child cell %lld", k, kk);
            float x = t->cx[k], y = t->cy[k], z = t->cz[k], h = t->half[k];
            nb_tree_child(o, &x, &y, &z, &h);
            double sl = 1e-6 * (fabs(x) + fabs(y) + fabs(z) + h) + 1e-30;
            if (fabs(t->cx[kk] - x) > sl || fabs(t->cy[kk] - y) > sl ||
                fabs(t->cz[kk] - z) > sl || fabs(t->half[kk] - h) > sl)
                return bad(c, "child cell %lld is not octant %lld of its parent", kk, o);
            double sub[5];
            if (visit(c, kk, depth + 1, sub)) return -1;
            for (int q = 0; q < 5; q++) sum[q] += sub[q];
        }
    }
    if (sum[4] == 0) return bad(c, "cell %lld is empty", k, 0);
    if ((double)t->count[k] != sum[4])
        return bad(c, "cell %lld counts %lld bodies", k, (long long)t->count[k]);
    double m = sum[0];
    if (fabs(t->m[k] - m) > c->tol * m + 1e-38)
        return bad(c, "cell %lld: mass differs from its bodies' (depth %lld)", k, depth);
    double com[3] = { sum[1] / m, sum[2] / m, sum[3] / m };
    double got[3] = { t->mx[k], t->my[k], t->mz[k] };
    double scale = t->half[k] + fabs(com[0]) + fabs(com[1]) + fabs(com[2]);
    for (int q = 0; q < 3; q++)
        if (!(fabs(got[q] - com[q]) <= c->tol * scale))
            return bad(c, "cell %lld: centre of mass differs from its bodies' (axis %lld)", k, q);
    return 0;
}

/* The whole tree: the walk from the root, then every body and cell met once. */
static int check(chk *c)
{
    const nb_tree *t = c->t;
    if (t->n != c->s->n) return bad(c, "tree has %lld bodies, state %lld", t->n, c->s->n);
    if (t->ncells < 1) return bad(c, "no root cell (%lld cells)", t->ncells, 0);
    double sum[5];
    if (visit(c, 0, 0, sum)) return -1;
    for (int64_t b = 0; b < t->n; b++)
        if (c->seen_body[b] != 1) return bad(c, "body %lld is in %lld leaves", b, c->seen_body[b]);
    for (int64_t k = 0; k < t->ncells; k++)
        if (c->seen_cell[k] != 1) return bad(c, "cell %lld is not in the tree", k, 0);
    if (c->maxdepth != t->depth)
        return bad(c, "depth is %lld, reported %lld", c->maxdepth, t->depth);
    return 0;
}

int nb_tree_check(const nb_tree *t, const nb_state *s, double tol, char *why, size_t len)
{
    chk c = { t, s, tol, calloc((size_t)t->n, sizeof(int)),
              calloc((size_t)t->ncells + 1, sizeof(int)), 0, why, len };
    snprintf(why, len, "ok");
    int rc = -1;
    if (c.seen_body && c.seen_cell) rc = check(&c);
    else snprintf(why, len, "out of memory");
    free(c.seen_body);
    free(c.seen_cell);
    return rc;
}
