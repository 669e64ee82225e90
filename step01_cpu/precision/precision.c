/* step01_cpu/precision/precision.c -- the table of this folder's program:
 * step 01 (nb_step01_cpu, ../cpu.c) with --precision.  single runs the
 * lesson's code, as step01_cpu/nbody does; double and mixed run wide.c's
 * table (nb_step.precision_variant), which nb_main() and the grader's
 * worker swap in after parsing the options.
 *
 * The lesson's functions are reached through its table: a C table is
 * filled with constants, so each entry below forwards to nb_step01_cpu's. */
#include "precision.h"

static int fwd_init(void **ctx, const nb_state *s, const nb_options *o) { return nb_step01_cpu.init(ctx, s, o); }
static int fwd_accel(void *ctx, float *ax, float *ay, float *az) { return nb_step01_cpu.accel(ctx, ax, ay, az); }
static int fwd_advance(void *ctx, int steps, nb_step_time *t) { return nb_step01_cpu.advance(ctx, steps, t); }
static int fwd_download(void *ctx, nb_state *s) { return nb_step01_cpu.download(ctx, s); }
static void fwd_info(void *ctx, nb_run_info *info) { nb_step01_cpu.info(ctx, info); }
static void fwd_destroy(void *ctx) { nb_step01_cpu.destroy(ctx); }

const nb_step nb_step01_precision = {
    .name = "step01_cpu",
    .idea = "the CPU reference: all-pairs forces, float3, leapfrog, OpenMP",
    .options = NB_OPT_THREADS | NB_OPT_PRECISION,
    .init = fwd_init,
    .accel = fwd_accel,
    .advance = fwd_advance,
    .download = fwd_download,
    .info = fwd_info,
    .destroy = fwd_destroy,
    /* single: the lesson's figure (cpu.c's table) */
    .host_bytes_per_body = (double)(11 * sizeof(float) + 4 * sizeof(float3)),
    .precision_variant = &nb_step01_wide,       /* --precision double, mixed: wide.c */
};
