/* suite_tree.c -- step05_barneshut: the octree's own tests, on the CPU tree
 * code (nb_step05_cpu, --cpu) and on the GPU one (nb_step05_gpu).
 *
 * Each case builds a tree (init), checks its invariants on the tree the
 * code reports (its worker's "tree" request: bh_cpu_tree(), bh_gpu_tree())
 * with the grader's nb_tree_check() (tests/nb_tree.c: every
 * body in exactly one leaf and inside it; cell mass, centre of mass and
 * count equal those of the bodies below; children inside their parent),
 * then checks the accelerations against the double direct sum with the
 * tolerance tied to the method (nb_verify.h):
 *   theta = 0    the direct sum, in tree order: max 1e-4 as all-pairs steps;
 *   theta = 0.5  monopole truncation: median 1e-3, p99 1e-2.
 * GPU cases run with o.poison set: outputs are NaN before the force kernel,
 * so an unwritten acceleration fails the finite check. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>
#include "nb_grade.h"
#include "nb_testutil.h"
#include "nb_verify.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_remote.h"
#include "nb_tree.h"

/* Invariants: float sums over <= NB_TREE_MAXDEPTH levels of <= 8 terms (and leaf
 * lists of up to ~1000 bodies): a relative 1e-4 is ~1000 float roundings. */
#define TREE_TOL 1e-4

/* One of the two codes under test: its table (nb_tree_register). */
typedef struct code {
    const char *label;              /* "cpu", "gpu" */
    const nb_step *step;
    int poison;                     /* GPU: outputs are NaN until the force kernel writes them */
    int monopole;                   /* its cells pull as monopoles (all but the tuned GPU code) */
} code;

static code CPU = { "cpu", NULL, 0, 1 };
static code GPU = { "gpu", NULL, 1, 1 };

/* A walk at theta 0.5 whose cells pull as monopoles leaves a median error
 * of about 1e-4 on this Plummer sphere (the lesson's, both codes: H100
 * logs); a float direct sum about 3e-6.  Below this floor no cell pulls
 * for its bodies: all-pairs in a tree's clothes. */
#define TREE_MONOPOLE_MEDIAN_FLOOR 2e-5

static void opts(nb_options *o, const code *c, double theta)
{
    nb_options_default(o);
    o->theta = theta;
    o->poison = c->poison;
}

/* Build the tree of s, check the invariants and the accelerations.  tol:
 * nb_tolerance_for(1, theta), at theta 0 the all-pairs tolerance of its N,
 * and p99 <= p99_max where p99_max > 0.  Returns the context's interaction
 * counts. */
static void check_tree(const char *what, const nb_state *s, const code *c, double theta,
                       double p99_max, int64_t *bb, int64_t *bc)
{
    nb_options o;
    opts(&o, c, theta);
    void *ctx = NULL;
    int rc = c->step->init(&ctx, s, &o);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (rc) {
        printf("\n    %s: init: %s\n", what, nb_errmsg());
        if (ctx) c->step->destroy(ctx);
        return;
    }
    nb_tree t;
    char why[200];
    rc = nb_tree_fetch(ctx, &t);
    CU_ASSERT_EQUAL(rc, 0);
    if (!rc) {
        int ok = nb_tree_check(&t, s, TREE_TOL, why, sizeof why) == 0;
        if (!ok) printf("\n    %s (%s): tree invariant violated: %s\n", what, c->label, why);
        CU_ASSERT(ok);
        nb_tree_free(&t);
    }
    int64_t n = s->n;
    float *a = malloc((size_t)n * 3 * sizeof *a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    for (int64_t i = 0; i < 3 * n; i++) a[i] = NAN;
    rc = c->step->accel(ctx, a, a + n, a + 2 * n);
    CU_ASSERT_EQUAL(rc, 0);
    int64_t bad = 0;
    for (int64_t i = 0; i < 3 * n; i++) bad += !isfinite(a[i]);
    CU_ASSERT_EQUAL(bad, 0);
    nb_errstats st;
    CU_ASSERT_EQUAL(nb_accel_errors(s, o.eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &st), 0);
    nb_tolerance tol = theta == 0 ? nb_tolerance_for_n(0, 0, s->n) : nb_tolerance_for(1, theta);
    int pass = nb_within_tolerance(&st, &tol);
    if (!pass || bad)
        printf("\n    %s (%s, theta %g): median %.3g p99 %.3g max %.3g, %lld non-finite: %s\n",
               what, c->label, theta, st.median, st.p99, st.max, (long long)bad, tol.why);
    CU_ASSERT(pass);
    if (p99_max > 0 && pass && !bad)
        printf("\n    %s (%s, theta %g): median %.3g, p99 %.3g, max %.3g\n", what, c->label, theta,
               st.median, st.p99, st.max);
    if (p99_max > 0)
        NB_ASSERT(st.p99 <= p99_max, "%s (%s, theta %g): p99 %.3g, bound %.3g (median %.3g, max "
                  "%.3g)", what, c->label, theta, st.p99, p99_max, st.median, st.max);
    int64_t b1 = 0, c1 = 0;
    CU_ASSERT_EQUAL(nb_tree_interactions(ctx, &b1, &c1), 0);
    if (bb) *bb = b1;
    if (bc) *bc = c1;
    free(a);
    c->step->destroy(ctx);
}

static void check_case(const char *what, const nb_state *s, const code *c, double theta,
                       int64_t *bb, int64_t *bc)
{
    check_tree(what, s, c, theta, 0, bb, bc);
}

static void model_case(const char *ic, int64_t n, uint64_t seed, const code *c, double theta)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate(ic, n, seed, &s), 0);
    char what[64];
    snprintf(what, sizeof what, "%s N=%lld", ic, (long long)n);
    check_case(what, &s, c, theta, NULL, NULL);
    nb_state_free(&s);
}

/* ---- cases, each run on both codes (t_cpu_x and t_gpu_x run tree_x) ---- */

static void tree_invariants(const code *c)
{
    model_case("plummer", 10007, 11, c, 0.5);
    model_case("disk", 4099, 12, c, 0.5);
}

static void tree_theta0(const code *c)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("cube", 3001, 21, &s), 0);
    int64_t bb = -1, bc = -1;
    check_case("theta 0 direct sum", &s, c, 0.0, &bb, &bc);
    /* theta = 0 opens every cell: N^2 body-body interactions, no cell used */
    CU_ASSERT_EQUAL(bb, (int64_t)3001 * 3001);
    CU_ASSERT_EQUAL(bc, 0);
    nb_state_free(&s);
}

static void tree_plummer65536(const code *c)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 65536, 31, &s), 0);
    nb_options o;
    opts(&o, c, 0.5);
    float *ax, *ay, *az;
    int rc = nb_t_step_accel(c->step, &s, &o, &ax, &ay, &az);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    nb_errstats st;
    CU_ASSERT_EQUAL(nb_accel_errors(&s, o.eps, ax, ay, az, NB_REF_SAMPLES, &st), 0);
    printf("\n    plummer 65536, theta 0.5 (%s): median %.3g, p99 %.3g, max %.3g "
           "(limits 1e-3, 1e-2)\n", c->label, st.median, st.p99, st.max);
    CU_ASSERT(st.nonfinite == 0);
    CU_ASSERT(st.median <= NB_TOL_TREE_MEDIAN);   /* monopole truncation, nb_verify.h */
    CU_ASSERT(st.p99 <= NB_TOL_TREE_P99);
    NB_ASSERT(!c->monopole || st.median >= TREE_MONOPOLE_MEDIAN_FLOOR, "plummer 65536, theta 0.5 (%s): median "
              "%.3g, closer to the direct sum than a walk with monopole cells comes (%.0e): does a cell ever "
              "pull for its bodies?", c->label, st.median, TREE_MONOPOLE_MEDIAN_FLOOR);
    free(ax); free(ay); free(az);
    nb_state_free(&s);
}

/* k bodies at one point (to the last bit) inside a Plummer sphere of m
 * other bodies (m may be 0: all bodies at one point). */
static void coincident_case(const code *c, int64_t k, int64_t m)
{
    nb_state p, s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", m + k, 41 + k, &p), 0);
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&s, &p), 0);
    for (int64_t i = 0; i < k; i++) {        /* spread through the index range */
        int64_t j = i * (m + k) / k;
        s.x[j] = 0.1234567f; s.y[j] = -0.3456789f; s.z[j] = 0.0567891f;
    }
    char what[64];
    snprintf(what, sizeof what, "%lld coincident + %lld", (long long)k, (long long)m);
    check_case(what, &s, c, 0.5, NULL, NULL);
    check_case(what, &s, c, 0.0, NULL, NULL);
    nb_state_free(&s);
    nb_state_free(&p);
}

static void tree_coincident(const code *c)
{
    coincident_case(c, 2, 0);
    coincident_case(c, 3, 0);
    coincident_case(c, 1000, 0);
    coincident_case(c, 2, 997);
    coincident_case(c, 3, 2001);
    coincident_case(c, 1000, 3001);
}

/* Clusters: 'nc' clusters of k bodies each (mass 1/N), their centres 'sep'
 * apart along a skew line through a point off the origin, each a ball of
 * radius spread * sep (spread 0: the cluster's bodies at one point, to the
 * last bit).  A tight cluster is one deep cell, or a leaf list at the depth
 * cap: its centre of mass, summed in float over thousands of bodies, drifted
 * by ~1e-4 of |x| -- more than 'sep' -- and the bodies of the next cluster
 * felt it: p99 0.08 at sep 1e-3, 8.6 at 1e-5 (N = 30000, coincident).  With
 * the sums in double (summarize) and cells used only where a float can hold
 * their centre of mass to the accuracy needed (bh_open2()'s resolution
 * term), p99 <= 1e-3: here the monopole error of a point is 0, and what is
 * left is float rounding. */
static void clusters_of(nb_state *s, int nc, int64_t k, double sep, double spread, uint64_t seed)
{
    const double p[3] = { 0.1234567, -0.3456789, 0.0567891 }, u[3] = { 0.8, 0.48, 0.36 };
    nb_rng r;
    nb_rng_seed(&r, seed);
    CU_ASSERT_EQUAL_FATAL(nb_state_alloc(s, nc * k), 0);
    for (int64_t i = 0; i < nc * k; i++) {
        int64_t cl = i % nc;                /* clusters interleaved in the index range */
        double q[3];
        for (int a = 0; a < 3; a++) q[a] = p[a] + (double)cl * sep * u[a];
        if (spread > 0) {
            double b[3], b2;
            do {
                for (int a = 0; a < 3; a++) b[a] = 2 * nb_rng_uniform(&r) - 1;
                b2 = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
            } while (b2 > 1);
            for (int a = 0; a < 3; a++) q[a] += spread * sep * b[a];
        }
        s->x[i] = (float)q[0]; s->y[i] = (float)q[1]; s->z[i] = (float)q[2];
        s->m[i] = 1.0f / (float)(nc * k);
        s->vx[i] = s->vy[i] = s->vz[i] = 0;
    }
}

static void cluster_case(const code *c, int nc, int64_t k, double sep, double spread)
{
    nb_state s;
    clusters_of(&s, nc, k, sep, spread, 7);
    char what[96];
    snprintf(what, sizeof what, "%d clusters of %lld, %g apart, spread %g", nc, (long long)k, sep,
             spread);
    check_tree(what, &s, c, 0.5, 1e-3, NULL, NULL);
    nb_state_free(&s);
}

static void tree_clusters(const code *c)
{
    cluster_case(c, 2, 15000, 1e-3, 0);         /* the two cases of the report */
    cluster_case(c, 2, 15000, 1e-5, 0);
    cluster_case(c, 2, 15000, 1e-5, 0.01);      /* a few ulps of spread: the float centre */
    cluster_case(c, 3, 3000, 1e-3, 0.01);
}

/* The class, on random configurations: 2..5 clusters of random sizes,
 * separations 1e-6 .. 1e-1, spreads 0 or 1e-4 .. 1e-1 of the separation,
 * centres up to 10 from the origin, unequal masses.  Every one within the
 * tree's tolerance at theta 0.5 (median 1e-3, p99 1e-2). */
static void tree_clusters_random(const code *c)
{
    nb_rng r;
    nb_rng_seed(&r, 4242);
    for (int it = 0; it < 12; it++) {
        int nc = 2 + (int)(nb_rng_next(&r) % 4);
        int64_t n = 0;
        double sep = pow(10.0, -6.0 + 5.0 * nb_rng_uniform(&r));
        double off = pow(10.0, -1.0 + 2.0 * nb_rng_uniform(&r));
        nb_state s;
        CU_ASSERT_EQUAL_FATAL(nb_state_alloc(&s, 6000), 0);
        for (int cl = 0; cl < nc; cl++) {
            int64_t k = cl == nc - 1 ? 6000 - n : 200 + (int64_t)(nb_rng_next(&r) % (6000 / nc));
            double spread = nb_rng_uniform(&r) < 0.3 ? 0 : sep * pow(10.0, -4.0 + 3.0 * nb_rng_uniform(&r));
            double q[3];
            for (int a = 0; a < 3; a++)
                q[a] = off * (2 * nb_rng_uniform(&r) - 1) + sep * (2 * nb_rng_uniform(&r) - 1);
            for (int64_t i = 0; i < k; i++, n++) {
                double b[3];
                for (int a = 0; a < 3; a++) b[a] = q[a] + spread * (2 * nb_rng_uniform(&r) - 1);
                s.x[n] = (float)b[0]; s.y[n] = (float)b[1]; s.z[n] = (float)b[2];
                s.m[n] = 1.0f / 6000; s.vx[n] = s.vy[n] = s.vz[n] = 0;
            }
        }
        nb_t_unequal_masses(&s, 100 + (uint64_t)it);
        char what[96];
        snprintf(what, sizeof what, "random clusters %d: %d clusters, %.2g apart, %.2g from 0", it,
                 nc, sep, off);
        check_case(what, &s, c, 0.5, NULL, NULL);
        nb_state_free(&s);
    }
}

/* Bodies exactly on the cell boundary planes of depths 1..3 (the octant rule
 * puts them on the lower side), with two corner bodies fixing the root. */
static void tree_boundaries(const code *c)
{
    const float L = 1.0f;
    float cx, cy, cz, H;
    nb_tree_root(-L, -L, -L, L, L, L, &cx, &cy, &cz, &H);
    int64_t n = 2 + 15 * 15 * 15;
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_state_alloc(&s, n), 0);
    int64_t b = 0;
    for (int i = -7; i <= 7; i++)
        for (int j = -7; j <= 7; j++)
            for (int k = -7; k <= 7; k++, b++) {
                s.x[b] = cx + i * (H / 8); s.y[b] = cy + j * (H / 8); s.z[b] = cz + k * (H / 8);
            }
    s.x[b] = s.y[b] = s.z[b] = -L; b++;
    s.x[b] = s.y[b] = s.z[b] = L; b++;
    for (int64_t i = 0; i < n; i++) { s.m[i] = 1.0f / n; s.vx[i] = s.vy[i] = s.vz[i] = 0; }
    check_case("lattice on cell boundaries", &s, c, 0.5, NULL, NULL);
    check_case("lattice on cell boundaries", &s, c, 0.0, NULL, NULL);
    nb_state_free(&s);
}

static void tree_small_n(const code *c)
{
    const int64_t ns[] = { 1, 2, 3, 33, 100003 };
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        model_case("plummer", ns[i], 51 + i, c, 0.5);
    model_case("cube", 33, 57, c, 0.0);
}

/* A Plummer sphere with bodies flying away fast and far: the box grows by
 * orders of magnitude; the tree must stay valid and the run finite. */
static void tree_escapers(const code *c)
{
    nb_state s;
    int64_t n = 4099;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", n, 61, &s), 0);
    s.x[5] = 1e4f; s.vx[5] = 1e3f;
    s.y[1000] = -1e6f; s.vy[1000] = -1e5f;
    s.z[4098] = 3e7f; s.vz[4098] = 1e6f;
    s.vx[77] = 300.0f;
    nb_options o;
    opts(&o, c, 0.5);
    o.dt = 1e-2;
    void *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(c->step->init(&ctx, &s, &o), 0);
    CU_ASSERT_EQUAL(c->step->advance(ctx, 20, NULL), 0);
    CU_ASSERT_EQUAL(c->step->download(ctx, &s), 0);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; i++)
        bad += !isfinite(s.x[i]) || !isfinite(s.y[i]) || !isfinite(s.z[i]) || !isfinite(s.vx[i]);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(fabsf(s.z[4098]) > 3e7f);
    nb_tree t;
    char why[200];
    CU_ASSERT_EQUAL_FATAL(nb_tree_fetch(ctx, &t), 0);
    int ok = nb_tree_check(&t, &s, TREE_TOL, why, sizeof why) == 0;
    if (!ok) printf("\n    escapers: %s\n", why);
    CU_ASSERT(ok);
    nb_tree_free(&t);
    c->step->destroy(ctx);
    check_case("escapers", &s, c, 0.5, NULL, NULL);
    nb_state_free(&s);
}

/* The state file "0.4 0 0 0 0 0 0 / 0.4 1 0 0 0 0 0 / 0.2 1e20 0 0 0 0 0": a
 * pair at distance 1 and a body 1e20 away.  The root's d^2 and opening
 * radius^2 both overflow to +inf, and with inf >= inf the walk used the root
 * as one point mass: body-body 0, body-cell 3, all accelerations ~0.
 * bh_far() opens such cells: each body meets all three (9 body-body, 0
 * body-cell).  Accelerations: within the all-pairs tolerance of the double
 * direct sum, except where the reference is below FLT_MIN: the far body's
 * pull is 0.8/1e40 = 8e-41, out of reach of a float sum whose distance^2
 * overflows, so there the error must stay below FLT_MIN. */
static void tree_far_body(const code *c)
{
    const char *path = nb_t_tmpfile(0, ".txt");
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "0.4 0 0 0 0 0 0\n0.4 1 0 0 0 0 0\n0.2 1e20 0 0 0 0 0\n");
    fclose(f);
    nb_state s;
    int rc = nb_state_read(path, &s);
    remove(path);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    nb_options o;
    opts(&o, c, 0.5);
    void *ctx = NULL;
    float a[3][3];                      /* ax, ay, az of the 3 bodies */
    rc = c->step->init(&ctx, &s, &o);
    if (!rc) rc = c->step->accel(ctx, a[0], a[1], a[2]);
    int64_t bb = -1, bc = -1;
    if (!rc) rc = nb_tree_interactions(ctx, &bb, &bc);
    if (ctx) c->step->destroy(ctx);
    if (rc) printf("\n    far body (%s): %s\n", c->label, nb_errmsg());
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    if (bb != 9 || bc != 0)
        printf("\n    far body (%s): body-body %lld, body-cell %lld (want 9, 0)\n", c->label,
               (long long)bb, (long long)bc);
    CU_ASSERT_EQUAL(bb, 9);
    CU_ASSERT_EQUAL(bc, 0);
    const int64_t idx[3] = { 0, 1, 2 };
    double r[3][3];
    nb_ref_accel(&s, o.eps, idx, 3, r[0], r[1], r[2]);
    for (int i = 0; i < 3; i++) {
        double dx = a[0][i] - r[0][i], dy = a[1][i] - r[1][i], dz = a[2][i] - r[2][i];
        double err = sqrt(dx * dx + dy * dy + dz * dz);
        double ref = sqrt(r[0][i] * r[0][i] + r[1][i] * r[1][i] + r[2][i] * r[2][i]);
        double bound = fmax(NB_TOL_ALLPAIRS_MAX * ref, FLT_MIN);
        if (!(err <= bound))
            printf("\n    far body (%s): body %d: |a - a_ref| %.3g, |a_ref| %.3g, bound %.3g\n",
                   c->label, i, err, ref, bound);
        CU_ASSERT(err <= bound);
    }
    nb_state_free(&s);
}

/* Positions that are not finite (a blown-up integration: a step too long,
 * or a force without its softening): the tree code must refuse them with
 * NB_EXIT_RUNTIME at once.  Before it did, NaN compared false everywhere,
 * and every NaN body went down octant 0 to the depth cap into one leaf list:
 * O(N^2) insertions, minutes at this N -- a hang to the user.  The harness's
 * per-test time limit fails the test if that comes back. */
static void tree_nonfinite(const code *c)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 65536, 5, &s), 0);
    for (int64_t i = 0; i < s.n; i += 2) s.x[i] = NAN;
    s.z[1] = INFINITY;
    nb_options o;
    opts(&o, c, 0.5);
    void *ctx = NULL;
    int rc = c->step->init(&ctx, &s, &o);
    const char *msg = nb_errmsg();
    int said = rc && strstr(msg, "not finite") != NULL;
    if (rc != NB_EXIT_RUNTIME || !said)
        printf("\n    non-finite positions (%s): exit %d (want %d), message '%s'\n", c->label, rc,
               NB_EXIT_RUNTIME, rc ? msg : "");
    if (ctx) c->step->destroy(ctx);
    CU_ASSERT_EQUAL(rc, NB_EXIT_RUNTIME);
    CU_ASSERT(said);
    nb_state_free(&s);
}
static void t_cpu_nonfinite(void) { tree_nonfinite(&CPU); }
static void t_gpu_nonfinite(void) { tree_nonfinite(&GPU); }

/* ---- the CPU code's threads ---------------------------------------------- */

/* Accelerations and interaction counts of s with --threads T (CPU code). */
static int cpu_run(const nb_state *s, double theta, int threads, float *a, int64_t *bb,
                   int64_t *bc)
{
    nb_options o;
    opts(&o, &CPU, theta);
    o.threads = threads;
    void *ctx = NULL;
    int64_t n = s->n;
    int rc = CPU.step->init(&ctx, s, &o);
    if (!rc) rc = CPU.step->accel(ctx, a, a + n, a + 2 * n);
    if (!rc) rc = nb_tree_interactions(ctx, bb, bc);
    if (rc) printf("\n    --threads %d: %s\n", threads, nb_errmsg());
    if (ctx) CPU.step->destroy(ctx);
    return rc;
}

/* --threads 1 and --threads 4 give the same bits.  The summation order of a
 * body does not depend on the threads: the tree and its numbering are the
 * same (the octree of the positions, numbered depth first), each group of
 * 32 bodies is walked and summed by one thread, its list in walk order, and
 * the radix sort and the summary are deterministic.  So the accelerations
 * are bit-identical and the interaction counts (per-thread sums, reduced)
 * equal.  Cases: a Plummer sphere at theta 0.5 and 0 (N not a multiple of
 * 32), and coincident bodies (leaf lists at the depth cap). */
static void threads_case(const char *what, const nb_state *s, double theta)
{
    int64_t n = s->n, bb1 = -1, bc1 = -1, bb4 = -2, bc4 = -2;
    float *a1 = malloc((size_t)n * 3 * sizeof *a1), *a4 = malloc((size_t)n * 3 * sizeof *a4);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a4);
    CU_ASSERT_EQUAL_FATAL(cpu_run(s, theta, 1, a1, &bb1, &bc1), 0);
    CU_ASSERT_EQUAL_FATAL(cpu_run(s, theta, 4, a4, &bb4, &bc4), 0);
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < 3 * n; i++)
        if (memcmp(&a1[i], &a4[i], sizeof *a1)) {
            if (first < 0) first = i;
            differ++;
        }
    if (differ)
        printf("\n    %s, theta %g: %lld of %lld components differ; body %lld: %.9g (1 thread) vs "
               "%.9g (4 threads), want the same bits\n", what, theta, (long long)differ,
               (long long)(3 * n), (long long)(first % n), a1[first], a4[first]);
    CU_ASSERT_EQUAL(differ, 0);
    if (bb1 != bb4 || bc1 != bc4)
        printf("\n    %s, theta %g: interactions body-body %lld vs %lld, body-cell %lld vs %lld "
               "(1 vs 4 threads), want equal\n", what, theta, (long long)bb1, (long long)bb4,
               (long long)bc1, (long long)bc4);
    CU_ASSERT_EQUAL(bb1, bb4);
    CU_ASSERT_EQUAL(bc1, bc4);
    free(a1);
    free(a4);
}

static void t_cpu_threads_bit_identical(void)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 20011, 91, &s), 0);
    threads_case("plummer 20011", &s, 0.5);
    nb_state_free(&s);
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 3001, 92, &s), 0);
    threads_case("plummer 3001", &s, 0.0);
    for (int64_t i = 0; i < 1000; i++) {     /* 1000 bodies at one point: a leaf list */
        s.x[i * 3] = 0.1234567f; s.y[i * 3] = -0.3456789f; s.z[i * 3] = 0.0567891f;
    }
    threads_case("1000 coincident + 2001", &s, 0.5);
    nb_state_free(&s);
}

/* --threads is an option of the CPU code: step05 takes it with --cpu and
 * refuses it without (exit 2, one line that names --cpu), on any machine:
 * the refusal comes before the device probe. */
static const char *binary;

static void t_cpu_threads_option(void)
{
    static char out[4096], err[4096];
    char *with[] = { (char *)binary, "--cpu", "--threads", "2", "-n", "3000", "-s", "1",
                     "--check", NULL };
    int rc = nb_t_run(with, out, sizeof out, err, sizeof err, 60);
    if (rc != 0 || !strstr(out, "2 threads") || !strstr(out, "-> PASS")) {
        printf("\n    --cpu --threads 2: exit %d (want 0, '2 threads', PASS):\n", rc);
        nb_t_show(out);
        nb_t_show(err);
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "2 threads"));
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "-> PASS"));
    char *without[] = { (char *)binary, "--threads", "2", "-n", "3000", NULL };
    rc = nb_t_run(without, out, sizeof out, err, sizeof err, 60);
    int lines = nb_t_count_lines(err);
    if (rc != 2 || lines != 1 || !strstr(err, "--cpu")) {
        printf("\n    --threads 2 without --cpu: exit %d, %d stderr lines (want 2, 1 naming "
               "--cpu):\n", rc, lines);
        nb_t_show(err);
    }
    CU_ASSERT_EQUAL(rc, 2);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "--cpu"));
}

/* The walk's vote (step05's bh_cpu_vote.h): a group of 32 bodies takes a
 * cell as one source only if every lane finds it far, bh_far(): d^2 >=
 * open2 and d^2 < inf, with d^2 = dx*dx + dy*dy + dz*dz in float (no FMA).
 * The worker answers random cases with both of its forms (the loop over the
 * lanes, and where built for AVX-512 the mask compares); both must equal the
 * grader's own evaluation of that definition, bit for bit, or the CPU walk
 * would no longer evaluate the GPU's interactions.  open2 is set exactly at
 * a lane's squared distance, the group's smallest, one float above or
 * below, infinity, 0 and NaN; lanes at NaN, at infinity, and 1e20 away
 * (d2 overflows to inf). */
#define VOTE_LANES 32
static int vote_reference(const float *x, const float *y, const float *z, const float m[4])
{
    int far = 1;
    for (int j = 0; j < VOTE_LANES; j++) {
        float dx = m[0] - x[j], dy = m[1] - y[j], dz = m[2] - z[j];
        float d2 = dx * dx + dy * dy + dz * dz;
        far &= (d2 >= m[3]) & (d2 < INFINITY);
    }
    return far;
}

static void t_cpu_vote_forms(void)
{
    enum { ITERS = 4000, PER = 10 };
    static float x[ITERS * PER][VOTE_LANES], y[ITERS * PER][VOTE_LANES], z[ITERS * PER][VOTE_LANES];
    static float m[ITERS * PER][4];
    static int want[ITERS * PER], loop[ITERS * PER], wide[ITERS * PER];
    nb_rng r;
    nb_rng_seed(&r, 2024);
    int64_t cases = 0;
    for (int it = 0; it < ITERS; it++) {
        float px[VOTE_LANES], py[VOTE_LANES], pz[VOTE_LANES];
        float spread = (float)pow(10.0, -6.0 * nb_rng_uniform(&r));   /* 1e-6 ... 1 */
        float cx = (float)(2 * nb_rng_uniform(&r) - 1), cy = (float)(2 * nb_rng_uniform(&r) - 1);
        float cz = (float)(2 * nb_rng_uniform(&r) - 1);
        for (int j = 0; j < VOTE_LANES; j++) {
            px[j] = cx + spread * (float)(2 * nb_rng_uniform(&r) - 1);
            py[j] = cy + spread * (float)(2 * nb_rng_uniform(&r) - 1);
            pz[j] = cz + spread * (float)(2 * nb_rng_uniform(&r) - 1);
        }
        int odd = (int)(nb_rng_next(&r) % 8), lane = (int)(nb_rng_next(&r) % VOTE_LANES);
        if (odd == 1) px[lane] = NAN;
        if (odd == 2) py[lane] = INFINITY;
        if (odd == 3) pz[lane] = -1e20f;
        float d = (float)(4 * nb_rng_uniform(&r)) * (nb_rng_uniform(&r) < 0.5 ? spread : 1.0f);
        float mx = cx + d * (float)(2 * nb_rng_uniform(&r) - 1);
        float my = cy + d * (float)(2 * nb_rng_uniform(&r) - 1);
        float mz = cz + d * (float)(2 * nb_rng_uniform(&r) - 1);
        float d2[VOTE_LANES], lo = INFINITY;
        for (int j = 0; j < VOTE_LANES; j++) {
            float dx = mx - px[j], dy = my - py[j], dz = mz - pz[j];
            d2[j] = dx * dx + dy * dy + dz * dz;
            lo = d2[j] < lo ? d2[j] : lo;
        }
        float pick = d2[nb_rng_next(&r) % VOTE_LANES];
        const float open2[PER] = { pick, nextafterf(pick, 0), nextafterf(pick, INFINITY), lo,
                                   nextafterf(lo, 0), nextafterf(lo, INFINITY),
                                   (float)nb_rng_uniform(&r), INFINITY, 0.0f, NAN };
        for (int k = 0; k < PER; k++, cases++) {
            memcpy(x[cases], px, sizeof px);
            memcpy(y[cases], py, sizeof py);
            memcpy(z[cases], pz, sizeof pz);
            m[cases][0] = mx; m[cases][1] = my; m[cases][2] = mz; m[cases][3] = open2[k];
            want[cases] = vote_reference(px, py, pz, m[cases]);
        }
    }
    /* a worker of the CPU code, on one body, answers the cases */
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 1, 1, &s), 0);
    nb_options o;
    opts(&o, &CPU, 0.5);
    void *ctx = NULL;
    int rc = CPU.step->init(&ctx, &s, &o);
    nb_wbuf a = { 0 }, b = { 0 };
    nb_wput_i64(&a, cases);
    for (int64_t c = 0; c < cases; c++) {
        nb_wput_floats(&a, x[c], VOTE_LANES);
        nb_wput_floats(&a, y[c], VOTE_LANES);
        nb_wput_floats(&a, z[c], VOTE_LANES);
        nb_wput_floats(&a, m[c], 4);
    }
    if (!rc) rc = nb_remote_ext(ctx, "vote", &a, &b);
    int64_t avx512 = 0;
    if (!rc) {
        avx512 = nb_wget_i64(&b);
        nb_wget_ints(&b, loop, cases);
        nb_wget_ints(&b, wide, cases);
        if (b.bad) rc = nb_fail(NB_EXIT_RUNTIME, "vote: a malformed reply");
    }
    nb_wbuf_free(&a);
    nb_wbuf_free(&b);
    if (ctx) CPU.step->destroy(ctx);
    nb_state_free(&s);
    NB_ASSERT_OK_FATAL("the worker's vote", rc);
    int64_t far = 0, bad_loop = 0, bad_wide = 0;
    for (int64_t c = 0; c < cases; c++) {
        far += want[c];
        if (loop[c] != want[c] && bad_loop++ == 0)
            printf("       vote, loop form: %d, definition %d (case %lld, open2 %.9g)\n", loop[c], want[c],
                   (long long)c, (double)m[c][3]);
        if (wide[c] != want[c] && bad_wide++ == 0)
            printf("       vote, AVX-512 form: %d, definition %d (case %lld, open2 %.9g)\n", wide[c], want[c],
                   (long long)c, (double)m[c][3]);
    }
    printf("       %lld cases, %lld far; the worker %s the AVX-512 form\n", (long long)cases, (long long)far,
           avx512 ? "has" : "has no");
    NB_ASSERT(bad_loop == 0, "the loop vote differs from the definition in %lld of %lld cases",
              (long long)bad_loop, (long long)cases);
    NB_ASSERT(bad_wide == 0, "the AVX-512 vote differs from the definition in %lld of %lld cases",
              (long long)bad_wide, (long long)cases);
    NB_ASSERT(far > cases / 10 && far < cases - cases / 10, "far in %lld of %lld cases: both "
              "answers must be exercised", (long long)far, (long long)cases);
}

/* ---- deep trees: the walk's own memory --------------------------------
 * nb_tree_deep_state(): a tree as deep as the cap, whose every cell on one
 * path has 8 cells below it, so that a walk that opens every cell (theta 0)
 * holds about 7 cells per level, ~430, on its stack or list -- far past a
 * stack sized for the log8(N) levels of an ordinary tree.  Both mirror
 * images (the path through octant 0 and through octant 7), for either order
 * in which a walk pushes the children.  Theta 0: the direct sum, all-pairs
 * tolerance, N^2 interactions; theta 0.5 the tree's.  A walk whose stack
 * overflows writes past it: garbage sums here, and under the sanitizers
 * (suite "sanitizers (cpu)", compute-sanitizer) a report. */
static void tree_deep(const code *c)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        nb_state s;
        CU_ASSERT_EQUAL_FATAL(nb_tree_deep_state(&s, mirror), 0);
        char what[64];
        snprintf(what, sizeof what, "deep tree (%s)", mirror ? "octant 7 path" : "octant 0 path");
        int64_t bb = -1, bc = -1;
        check_case(what, &s, c, 0.0, &bb, &bc);
        NB_ASSERT(bb == s.n * s.n && bc == 0, "%s, theta 0: body-body %lld, body-cell %lld; expected "
                  "N^2 = %lld and 0", what, (long long)bb, (long long)bc, (long long)(s.n * s.n));
        check_case(what, &s, c, 0.5, NULL, NULL);
        nb_state_free(&s);
    }
}

static void t_cpu_invariants(void) { tree_invariants(&CPU); }
static void t_cpu_theta0(void) { tree_theta0(&CPU); }
static void t_cpu_plummer65536(void) { tree_plummer65536(&CPU); }
static void t_cpu_coincident(void) { tree_coincident(&CPU); }
static void t_cpu_boundaries(void) { tree_boundaries(&CPU); }
static void t_cpu_clusters(void) { tree_clusters(&CPU); }
static void t_cpu_clusters_random(void) { tree_clusters_random(&CPU); }
static void t_cpu_small_n(void) { tree_small_n(&CPU); }
static void t_cpu_escapers(void) { tree_escapers(&CPU); }
static void t_cpu_far_body(void) { tree_far_body(&CPU); }
static void t_cpu_deep(void) { tree_deep(&CPU); }
static void t_gpu_invariants(void) { tree_invariants(&GPU); }
static void t_gpu_theta0(void) { tree_theta0(&GPU); }
static void t_gpu_plummer65536(void) { tree_plummer65536(&GPU); }
static void t_gpu_coincident(void) { tree_coincident(&GPU); }
static void t_gpu_boundaries(void) { tree_boundaries(&GPU); }
static void t_gpu_clusters(void) { tree_clusters(&GPU); }
static void t_gpu_clusters_random(void) { tree_clusters_random(&GPU); }
static void t_gpu_small_n(void) { tree_small_n(&GPU); }
static void t_gpu_escapers(void) { tree_escapers(&GPU); }
static void t_gpu_far_body(void) { tree_far_body(&GPU); }
static void t_gpu_deep(void) { tree_deep(&GPU); }

/* ---- the GPU tree against the CPU tree, cell by cell ------------------- */

/* How close the centres of mass of the two codes must be, relative to
 * |centre| + half size.  The cells are visited in a canonical order: from
 * the root, children in octant order 0..7 (the cell numbers differ).
 *  - Cubes: bit-identical.  Both codes compute them with the same float
 *    operations (bh_root, bh_child), where an FMA cannot change a result:
 *    the only products that are added are exact halvings.
 *  - Masses and counts: bit-identical.  Both sum the children in the order
 *    0..7 and a leaf list in index order, in double.
 *  - Centres of mass: the same sums, in double, of products of two floats,
 *    which are exact in double: nvcc's FMA contraction (--fmad=true) cannot
 *    change them, so the two codes are expected to agree to the bit.  The
 *    tolerance, 1e-5, is what the check needs: a wrong cell is off by about
 *    its half size.
 *  - Leaf lists: the same bodies in the same order. */
#define COM_TOL 1e-5

typedef struct cmp {
    const nb_tree *a, *b;
    int64_t cells;                  /* cells met in both trees */
    char *why;
    size_t len;
} cmp;

static int differ(cmp *c, const char *what, int64_t ka, int64_t kb)
{
    snprintf(c->why, c->len, "%s (cell %lld of the first tree, %lld of the second)", what,
             (long long)ka, (long long)kb);
    return -1;
}

/* Cell ka of tree a against cell kb of tree b, and their subtrees. */
static int same_cell(cmp *c, int64_t ka, int64_t kb)
{
    const nb_tree *a = c->a, *b = c->b;
    c->cells++;
    if (a->cx[ka] != b->cx[kb] || a->cy[ka] != b->cy[kb] || a->cz[ka] != b->cz[kb] ||
        a->half[ka] != b->half[kb])
        return differ(c, "cubes differ", ka, kb);
    if (a->m[ka] != b->m[kb]) return differ(c, "masses differ", ka, kb);
    if (a->count[ka] != b->count[kb]) return differ(c, "body counts differ", ka, kb);
    double ca[3] = { a->mx[ka], a->my[ka], a->mz[ka] }, cb[3] = { b->mx[kb], b->my[kb], b->mz[kb] };
    double scale = a->half[ka] + fabs(ca[0]) + fabs(ca[1]) + fabs(ca[2]);
    for (int q = 0; q < 3; q++)
        if (!(fabs(ca[q] - cb[q]) <= COM_TOL * scale))
            return differ(c, "centres of mass differ", ka, kb);
    for (int o = 0; o < 8; o++) {
        int xa = a->child[ka * 8 + o], xb = b->child[kb * 8 + o];
        if (xa == NB_TREE_EMPTY || xb == NB_TREE_EMPTY) {
            if (xa != xb) return differ(c, "a child slot is empty in one tree only", ka, kb);
            continue;
        }
        if ((xa < a->n) != (xb < b->n)) return differ(c, "a leaf faces a cell", ka, kb);
        if (xa >= a->n) {
            if (same_cell(c, xa - a->n, xb - b->n)) return -1;
            continue;
        }
        for (; xa != NB_TREE_EMPTY || xb != NB_TREE_EMPTY; xa = a->chain[xa], xb = b->chain[xb])
            if (xa != xb) return differ(c, "leaf lists differ", ka, kb);
    }
    return 0;
}

/* 0 if a and b are the same tree (numbering aside), else -1 with why. */
static int same_tree(const nb_tree *a, const nb_tree *b, char *why, size_t len)
{
    cmp c = { a, b, 0, why, len };
    snprintf(why, len, "ok");
    if (a->n != b->n || a->ncells != b->ncells || a->depth != b->depth) {
        snprintf(why, len, "%lld vs %lld bodies, %lld vs %lld cells, depth %d vs %d",
                 (long long)a->n, (long long)b->n, (long long)a->ncells, (long long)b->ncells,
                 a->depth, b->depth);
        return -1;
    }
    if (same_cell(&c, 0, 0)) return -1;
    if (c.cells != a->ncells) {
        snprintf(why, len, "%lld cells reached from the root, %lld in the tree",
                 (long long)c.cells, (long long)a->ncells);
        return -1;
    }
    return 0;
}

/* The GPU builds the same tree as the CPU, cell by cell (see same_tree():
 * the topology, cubes and masses are functions of the positions), and the
 * same seed gives bit-identical states after several steps (no
 * order-dependent sums). */
static void t_gpu_same_tree_and_deterministic(void)
{
    nb_state s, a, b;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 20011, 71, &s), 0);
    nb_options oc, og;
    opts(&oc, &CPU, 0.5);
    opts(&og, &GPU, 0.5);
    void *cc = NULL, *cg = NULL;
    CU_ASSERT_EQUAL_FATAL(CPU.step->init(&cc, &s, &oc), 0);
    CU_ASSERT_EQUAL_FATAL(GPU.step->init(&cg, &s, &og), 0);
    nb_tree tc, tg;
    CU_ASSERT_EQUAL_FATAL(nb_tree_fetch(cc, &tc), 0);
    CU_ASSERT_EQUAL_FATAL(nb_tree_fetch(cg, &tg), 0);
    char why[200];
    int same = same_tree(&tc, &tg, why, sizeof why) == 0;
    if (!same) printf("\n    gpu tree != cpu tree: %s\n", why);
    CU_ASSERT(same);
    nb_tree_free(&tc);
    nb_tree_free(&tg);
    CPU.step->destroy(cc);
    GPU.step->destroy(cg);

    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&a, &s), 0);
    CU_ASSERT_EQUAL_FATAL(nb_state_copy(&b, &s), 0);
    CU_ASSERT_EQUAL(nb_t_step_run(GPU.step, &a, &og, 7), 0);
    CU_ASSERT_EQUAL(nb_t_step_run(GPU.step, &b, &og, 7), 0);
    size_t nb = (size_t)s.n * sizeof(float);
    CU_ASSERT(memcmp(a.x, b.x, nb) == 0 && memcmp(a.y, b.y, nb) == 0 && memcmp(a.z, b.z, nb) == 0);
    CU_ASSERT(memcmp(a.vx, b.vx, nb) == 0 && memcmp(a.vy, b.vy, nb) == 0 &&
              memcmp(a.vz, b.vz, nb) == 0);
    nb_state_free(&a);
    nb_state_free(&b);
    nb_state_free(&s);
}

/* The GPU walk counts the interactions it evaluates as the CPU walk does:
 * both walk the same tree (see above) in groups of 32 consecutive bodies of
 * the tree order (a warp, a group) and open a cell unless it is far from
 * every body of the group, so their decisions differ only where d^2 and the
 * opening radius^2 agree to about an ulp (FMA contraction on the GPU): the
 * body-body and body-cell counts agree far within the bound, 1%.  A count
 * that forgets a kind of interaction, or a lane, is off by far more.  (The
 * tuned build takes groups of 64 unless NB_TUNE=group=32 says otherwise: set
 * here, for the whole process; the lesson's code does not read NB_TUNE.) */
static void t_gpu_counts_match_cpu(void)
{
    setenv("NB_TUNE", "group=32", 1);
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 20011, 73, &s), 0);
    int64_t n[2][2] = { { -1, -1 }, { -1, -1 } };   /* [cpu, gpu][body-body, body-cell] */
    const code *c[2] = { &CPU, &GPU };
    for (int k = 0; k < 2; k++) {
        nb_options o;
        opts(&o, c[k], 0.5);
        void *ctx = NULL;
        int rc = c[k]->step->init(&ctx, &s, &o);
        if (!rc) rc = nb_tree_interactions(ctx, &n[k][0], &n[k][1]);
        if (ctx) c[k]->step->destroy(ctx);
        NB_ASSERT_OK_FATAL(c[k]->label, rc);
    }
    printf("\n    plummer 20011, theta 0.5: body-body %lld (cpu) %lld (gpu), body-cell %lld (cpu) %lld (gpu)\n",
           (long long)n[0][0], (long long)n[1][0], (long long)n[0][1], (long long)n[1][1]);
    const char *what[2] = { "body-body", "body-cell" };
    for (int q = 0; q < 2; q++) {
        double d = fabs((double)n[1][q] - (double)n[0][q]) / fmax((double)n[0][q], 1.0);
        NB_ASSERT(n[0][q] > 0 && d <= 0.01, "%s interactions: gpu %lld, cpu %lld: relative difference "
                  "%.3g, bound 0.01", what[q], (long long)n[1][q], (long long)n[0][q], d);
    }
    nb_state_free(&s);
}

/* A million bodies in a tight Plummer sphere (radius ~1e-3: a deep tree),
 * theta 0: the direct sum over the tree of a large system (N^2 = 1.1e12
 * interactions), sampled against the double reference with the all-pairs
 * tolerance of this N (nb_tolerance_for_n). */
static void t_gpu_million_theta0(void)
{
    nb_state s;
    const int64_t n = 1048576;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", n, 83, &s), 0);
    for (int64_t i = 0; i < n; i++) { s.x[i] *= 1e-3f; s.y[i] *= 1e-3f; s.z[i] *= 1e-3f; }
    int64_t bb = -1, bc = -1;
    check_case("tight plummer 1048576", &s, &GPU, 0.0, &bb, &bc);
    NB_ASSERT(bb == n * n && bc == 0, "theta 0: body-body %lld, body-cell %lld; expected N^2 = %lld and 0",
              (long long)bb, (long long)bc, (long long)(n * n));
    nb_state_free(&s);
}

/* 1000 consecutive builds on a changing system (a Plummer sphere, large dt,
 * plus a coincident pair): no hang, a valid tree at the end. */
static void t_gpu_1000_builds(void)
{
    nb_state s;
    CU_ASSERT_EQUAL_FATAL(nb_ic_generate("plummer", 5003, 81, &s), 0);
    s.x[10] = s.x[20]; s.y[10] = s.y[20]; s.z[10] = s.z[20];
    s.vx[10] = s.vx[20]; s.vy[10] = s.vy[20]; s.vz[10] = s.vz[20];
    nb_options o;
    opts(&o, &GPU, 0.5);
    o.dt = 1e-2;
    void *ctx = NULL;
    CU_ASSERT_EQUAL_FATAL(GPU.step->init(&ctx, &s, &o), 0);
    CU_ASSERT_EQUAL(GPU.step->advance(ctx, 1000, NULL), 0);
    CU_ASSERT_EQUAL(GPU.step->download(ctx, &s), 0);
    nb_tree t;
    char why[200];
    CU_ASSERT_EQUAL_FATAL(nb_tree_fetch(ctx, &t), 0);
    int ok = nb_tree_check(&t, &s, TREE_TOL, why, sizeof why) == 0;
    if (!ok) printf("\n    after 1000 builds: %s\n", why);
    CU_ASSERT(ok);
    nb_tree_free(&t);
    GPU.step->destroy(ctx);
    nb_state_free(&s);
}

/* The GPU suite alone, under its own name (step05's tuned build: the
 * lesson's CPU code, cpu, is the reference its GPU cases compare with). */
static void gate_gpu(void) { nb_t_gate_table(GPU.step); }
static void gate_cpu(void) { nb_t_gate_table(CPU.step); }

void nb_tree_register_gpu(const nb_step *gpu, const nb_step *cpu, const char *step_binary,
                          const char *suite)
{
    GPU.step = gpu;
    GPU.monopole = !strstr(gpu->name, "tuned");   /* the tuned build's cells pull as quadrupoles */
    CPU.step = cpu;
    binary = step_binary;
    static const nb_test gpu_tests[] = {
        { "gpu tree invariants (plummer 10007, disk 4099)", t_gpu_invariants, 3 },
        { "gpu theta 0 = direct sum (N^2 interactions, max 1e-4)", t_gpu_theta0, NB_FORCES(2) },
        { "gpu plummer 65536 theta 0.5 (median 1e-3, p99 1e-2)", t_gpu_plummer65536, NB_FORCES(3) },
        { "gpu coincident bodies (2, 3, 1000 at one point)", t_gpu_coincident, 2 },
        { "gpu bodies on cell boundaries", t_gpu_boundaries, 1 },
        { "gpu tight clusters 1e-3 and 1e-5 apart (p99 1e-3)", t_gpu_clusters, 2 },
        { "gpu random cluster configurations (median 1e-3, p99 1e-2)", t_gpu_clusters_random, 1 },
        { "gpu N = 1, 2, 3, 33, 100003", t_gpu_small_n, 2 },
        { "gpu escapers", t_gpu_escapers, 1 },
        { "gpu far body (1e20 away): overflowed cells opened", t_gpu_far_body, 1 },
        { "gpu non-finite positions: exit 3, no tree", t_gpu_nonfinite, 1 },
        { "gpu tree = cpu tree; same seed, bit-identical run", t_gpu_same_tree_and_deterministic,
          2 },
        { "gpu 1000 consecutive tree builds", t_gpu_1000_builds, 2 },
        { "gpu interaction counts = cpu's (theta 0.5, within 1%)", t_gpu_counts_match_cpu, 1 },
        { "gpu deep trees (depth 64, 8 cells per level): theta 0 and 0.5", t_gpu_deep, 2 },
        { "gpu 1M tight cluster, theta 0 (N^2 interactions, sampled)", t_gpu_million_theta0, 2 },
        NB_TEST_END
    };
    nb_grade_suite(suite, gpu_tests, nb_grade_gpu_skip(GPU.step));
    static char what[160];
    snprintf(what, sizeof what, "%s: its accelerations at N = 1000 and 4097 (theta 0.5)", GPU.step->name);
    nb_grade_gate(suite, gate_gpu, what);
}

/* The CPU suite alone, under its own name (step05's tuned build: its --cpu).
 * cpu is also the reference of the GPU suite: register it before that. */
void nb_tree_register_cpu(const nb_step *cpu, const char *step_binary, const char *suite)
{
    CPU.step = cpu;
    binary = step_binary;
    static const nb_test cpu_tests[] = {
        { "cpu tree invariants (plummer 10007, disk 4099)", t_cpu_invariants, 3 },
        { "cpu theta 0 = direct sum (N^2 interactions, max 1e-4)", t_cpu_theta0, NB_FORCES(2) },
        { "cpu plummer 65536 theta 0.5 (median 1e-3, p99 1e-2)", t_cpu_plummer65536, NB_FORCES(3) },
        { "cpu coincident bodies (2, 3, 1000 at one point)", t_cpu_coincident, 2 },
        { "cpu bodies on cell boundaries", t_cpu_boundaries, 1 },
        { "cpu tight clusters 1e-3 and 1e-5 apart (p99 1e-3)", t_cpu_clusters, 2 },
        { "cpu random cluster configurations (median 1e-3, p99 1e-2)", t_cpu_clusters_random, 1 },
        { "cpu N = 1, 2, 3, 33, 100003", t_cpu_small_n, 2 },
        { "cpu escapers", t_cpu_escapers, 1 },
        { "cpu far body (1e20 away): overflowed cells opened", t_cpu_far_body, 1 },
        { "cpu non-finite positions: exit 3, no tree", t_cpu_nonfinite, 1 },
        { "cpu --threads 1 and 4: bit-identical accelerations, same interactions",
          t_cpu_threads_bit_identical, 2 },
        { "cpu --threads with --cpu only (exit 2 without)", t_cpu_threads_option, 1 },
        { "cpu walk's vote, both forms = the definition, bit for bit", t_cpu_vote_forms, 1 },
        { "cpu deep trees (depth 64, 8 cells per level): theta 0 and 0.5", t_cpu_deep, 2 },
        NB_TEST_END
    };
    nb_grade_suite(suite, cpu_tests, NULL);
    static char what[160];
    snprintf(what, sizeof what, "%s --cpu: its accelerations at N = 1000 and 4097 (theta 0.5)", CPU.step->name);
    nb_grade_gate(suite, gate_cpu, what);
}

void nb_tree_register(const nb_step *gpu, const nb_step *cpu, const char *step_binary)
{
    nb_tree_register_cpu(cpu, step_binary, "step05 cpu tree");
    nb_tree_register_gpu(gpu, cpu, step_binary, "step05 gpu tree");
}
