/* nb_timer.h -- host clocks, per-step timing records, their summary, and the
 * progress line.
 *
 * What a figure covers (docs/conventions.md, Timing), the same in every step:
 *   force_ms  the force computation alone (the force kernel(s); for the tree
 *             code also the tree build, reported separately by the step);
 *   step_ms   the whole leapfrog step: kick, drift, tree build, force, kick;
 *   force_start_ms  where the force computation starts in the step (after
 *             the opening kick and drift), so that a record says where its
 *             spans lie: 0 <= force_start_ms, force_start_ms + force_ms <=
 *             step_ms, the rest of the step being the closing kick.
 *   Host<->device copies are excluded from both: bodies stay on the device
 *   between steps.  GPU times come from CUDA events, CPU times from
 *   CLOCK_MONOTONIC.  Rates (interactions/s, GFLOP/s at 20 flops per
 *   interaction) are computed from the median force_ms. */
#ifndef NB_TIMER_H
#define NB_TIMER_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define NB_FLOPS_PER_INTERACTION 20.0

double nb_now_ms(void);                 /* monotonic clock, milliseconds */

typedef struct nb_step_time {
    double  force_start_ms;             /* from the start of the step to the start of the force
                                           computation (the opening kick and drift) */
    double  force_ms;                   /* force computation of this step */
    double  step_ms;                    /* the whole step */
    int64_t interactions;               /* interactions evaluated (N^2 for all-pairs) */
} nb_step_time;

typedef struct nb_bench {
    int     count;                      /* timed steps */
    double  force_med, force_min;       /* ms */
    double  step_med, step_min;         /* ms */
    double  force_mean, step_mean;      /* ms: what a long run costs a step when the steps are
                                           unequal (step05's tuned build keeps its tree for
                                           several steps and rebuilds it on one) */
    double  interactions;               /* per step (median over steps) */
    double  inter_per_s;                /* interactions / force_med */
    double  gflops;                     /* inter_per_s * 20 / 1e9 */
} nb_bench;

void   nb_bench_summarize(const nb_step_time *t, int count, nb_bench *out);
double nb_median(double *v, int64_t count);     /* sorts v in place */
double nb_percentile(double *v, int64_t count, double p);  /* sorts v; p in [0,1] */

/* Progress on stderr ("step k of S, elapsed, ETA"), only when stderr is a
 * terminal and the run has lasted more than two seconds; at most ~4 lines/s. */
typedef struct nb_progress { double t0, last, after_ms; int64_t total; const char *what; int shown; } nb_progress;
void nb_progress_start(nb_progress *p, const char *what, int64_t total);
void nb_progress_update(nb_progress *p, int64_t done);
void nb_progress_end(nb_progress *p);

#ifdef __cplusplus
}
#endif
#endif
