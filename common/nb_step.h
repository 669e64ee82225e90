/* nb_step.h -- the small interface each step fills in (docs/conventions.md).
 *
 * A step's source holds only its own idea: its data layout, its kernels and
 * its allocate / copy / launch code.  Everything else -- options, initial
 * conditions, the main loop, timing reports, --check, --save, frames -- is
 * nb_main() in common/nb_driver.c, and the CUnit conformance suite drives the
 * same interface.  Each step defines one `const nb_step nb_stepNN_x` (step05
 * two: the GPU code and its --cpu variant) and a main.c whose main() is one
 * line. */
#ifndef NB_STEP_H
#define NB_STEP_H
#include <stddef.h>
#include <stdio.h>
#include "nb_error.h"
#include "nb_options.h"
#include "nb_state.h"
#include "nb_threads.h"      /* nb_cpu_model(), for nb_run_info.device on CPU steps */
#include "nb_timer.h"
#ifdef __cplusplus
extern "C" {
#endif

/* What --bench and --csv print about the machine and the method. */
typedef struct nb_run_info {
    char    device[128];      /* "NVIDIA H100 80GB HBM3" or the CPU model */
    int     sms;              /* multiprocessors (GPU) or threads used (CPU) */
    int     clock_mhz;        /* SM clock (GPU) or 0 */
    int     block;            /* threads per block used, 0 on the CPU */
    double  device_bytes;     /* device memory the step allocated, 0 on the CPU */
    int64_t tree_nodes;       /* tree code: cells in the last tree, else 0 */
    int     tree_depth;       /* tree code: depth of the last tree, else 0 */
} nb_run_info;

/* Octree cells for the tree overlay (--render-tree, the view's `t`): cube
 * centres and half sizes, count entries each, owned by the step (valid until
 * the next call); cell 0 is the root.  Element k of cx is cx[k * stride]
 * (stride 0 counts as 1).  on_device: the caller sets it to 1 to accept
 * device pointers (the GL view copies them on the GPU); the step sets it to
 * 1 if the pointers are device pointers, else 0. */
typedef struct nb_cells {
    int64_t      count;
    const float *cx, *cy, *cz, *half;
    int          stride;
    int          on_device;
} nb_cells;

/* The current bodies where a GPU step keeps them, for the GL view to copy on
 * the device (CUDA-GL interop) instead of through the host: element i of x
 * is x[i * pos_stride] (y, z likewise), of m m[i * m_stride], of vx
 * vx[i * vel_stride]; device pointers on the current CUDA device. */
typedef struct nb_bodies {
    int64_t      n;
    const float *x, *y, *z, *m, *vx, *vy, *vz;
    int          pos_stride, m_stride, vel_stride;
} nb_bodies;

typedef struct nb_step {
    const char *name;          /* "step03_float4" */
    const char *idea;          /* one line: what this step adds */
    unsigned    options;       /* NB_OPT_* bits the step accepts */
    int         tree;          /* 1: tree code (its own tolerance, see nb_verify.h) */

    /* GPU steps: 0 if a usable device is there for a run with options o
     * (o may be NULL: the default options), else NB_EXIT_NODEV with the
     * reason in nb_errmsg().  NULL: the step never needs a device. */
    int  (*probe)(const nb_options *o);

    /* Allocate, upload s, compute the accelerations of the initial positions. */
    int  (*init)(void **ctx, const nb_state *s, const nb_options *o);
    /* Recompute the accelerations of the current positions and copy them out
     * (n floats each).  Does not change the state. */
    int  (*accel)(void *ctx, float *ax, float *ay, float *az);
    /* Run 'steps' leapfrog KDK steps.  times: NULL, or 'steps' records to fill. */
    int  (*advance)(void *ctx, int steps, nb_step_time *times);
    /* Copy the current state into s (allocated, s->n bodies). */
    int  (*download)(void *ctx, nb_state *s);
    /* Fill what --bench/--csv print; may be NULL. */
    void (*info)(void *ctx, nb_run_info *info);
    /* Extra --bench lines (per-kernel split, tree statistics); may be NULL. */
    void (*report)(void *ctx, FILE *out);
    /* Cells of the current tree (tree code only); may be NULL. */
    int  (*cells)(void *ctx, nb_cells *out);
    void (*destroy)(void *ctx);

    /* --cpu runs this table instead (step05: the CPU tree code);
     * NULL: no --cpu variant.  nb_main() swaps the table right after parsing
     * the options, so the variant is a whole step of its own (its probe, its
     * tolerance, its timings), under the same program name and options. */
    const struct nb_step *cpu_variant;
    /* Memory per body, checked by nb_main() before anything is allocated
     * (0: the defaults below).  host: every host byte a run allocates per
     * body -- the nb_state (28 B), the step's own host copies (staging
     * buffers, a CPU code's arrays, a tree's cells) and --check's
     * accelerations (12 B); compared with the available memory (nb_mem.h).
     * device: what init() allocates on the GPU per body, compared with the
     * free device memory through nb_cuda_fits() after the step's probe
     * (runs that use a device only: steps with a probe, not with --cpu). */
    double host_bytes_per_body;
    double device_bytes_per_body;
    /* GPU steps: where the current bodies are on the device (the view
     * draws them without a host copy); may be NULL, or leave out->x NULL
     * (a run with no float copy of its bodies there, --precision double):
     * the view then draws what download() gives. */
    int  (*bodies)(void *ctx, nb_bodies *out);
    /* --precision double and mixed (steps with NB_OPT_PRECISION,
     * handouts/08_precision.md): what the step holds, unrounded, n doubles
     * per array -- the positions and velocities (state64) and the
     * accelerations of the current positions (accel64, which does not
     * change the state).  --check and the grader compare these with the
     * double reference; download() and accel() still round to float.  NULL:
     * the table holds float only. */
    int  (*state64)(void *ctx, double *x, double *y, double *z, double *vx, double *vy, double *vz);
    int  (*accel64)(void *ctx, double *ax, double *ay, double *az);
    /* --precision double or mixed runs this table instead (step01's
     * exercise, step01_cpu/precision: its double and mixed code, wide.c), as
     * --cpu runs cpu_variant; NULL: the table computes every precision it
     * accepts itself. */
    const struct nb_step *precision_variant;
} nb_step;

/* Defaults for a step that leaves the fields 0: generous, so that a step
 * without its own figures is refused rather than killed (the GPU tree
 * code: 107 B/body on the device). */
#define NB_HOST_BYTES_PER_BODY_DEFAULT   256.0
#define NB_DEVICE_BYTES_PER_BODY_DEFAULT 128.0

/* The whole program: parse, generate/load, run, bench, check, save, render.
 * Returns the exit code (after printing one line on stderr if non-zero). */
int nb_main(int argc, char **argv, const nb_step *step);
/* nb_main(), the default --theta (not --cpu's) theta > 0: a tuned tree's best; --help says it */
int nb_main_theta(int argc, char **argv, const nb_step *step, double theta);

#ifdef __cplusplus
}
#endif
#endif
