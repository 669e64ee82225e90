/* nb_timer.c -- monotonic host clock, timing summaries, progress line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nb_parse.h"
#include "nb_timer.h"

double nb_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of v (sorted in place): the smallest value with at
 * least a fraction p of the values at or below it. NaN sorts last. */
double nb_percentile(double *v, int64_t count, double p)
{
    if (count <= 0) return NAN;
    qsort(v, (size_t)count, sizeof *v, cmp_double);
    int64_t k = (int64_t)ceil(p * (double)count) - 1;
    if (k < 0) k = 0;
    if (k >= count) k = count - 1;
    return v[k];
}

double nb_median(double *v, int64_t count)
{
    if (count <= 0) return NAN;
    qsort(v, (size_t)count, sizeof *v, cmp_double);
    return count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
}

void nb_bench_summarize(const nb_step_time *t, int count, nb_bench *out)
{
    memset(out, 0, sizeof *out);
    out->count = count;
    if (count <= 0) return;
    double *v = malloc((size_t)count * sizeof *v);
    if (!v) return;
    for (int k = 0; k < count; k++) {
        out->force_mean += t[k].force_ms / count;
        out->step_mean += t[k].step_ms / count;
    }
    for (int k = 0; k < count; k++) v[k] = t[k].force_ms;
    out->force_med = nb_median(v, count);
    out->force_min = v[0];
    for (int k = 0; k < count; k++) v[k] = t[k].step_ms;
    out->step_med = nb_median(v, count);
    out->step_min = v[0];
    for (int k = 0; k < count; k++) v[k] = (double)t[k].interactions;
    out->interactions = nb_median(v, count);
    free(v);
    out->inter_per_s = out->force_med > 0 ? out->interactions / (out->force_med * 1e-3) : 0;
    out->gflops = out->inter_per_s * NB_FLOPS_PER_INTERACTION * 1e-9;
}

void nb_progress_start(nb_progress *p, const char *what, int64_t total)
{
    p->t0 = p->last = nb_now_ms();
    p->total = total;
    p->what = what;
    p->shown = 0;
    /* test hook: NB_PROGRESS_AFTER_MS, when the line first shows (2000) */
    int64_t after = 2000;
    p->after_ms = nb_env_i64("NB_PROGRESS_AFTER_MS", 0, 86400000, &after) == 1 ? (double)after : 2000.0;
}

void nb_progress_update(nb_progress *p, int64_t done)
{
    double now = nb_now_ms();
    if (now - p->t0 < p->after_ms || now - p->last < 250.0 || !isatty(2)) return;
    p->last = now;
    double el = (now - p->t0) * 1e-3;
    double eta = done > 0 ? el * (double)(p->total - done) / (double)done : 0;
    fprintf(stderr, "\r%s: step %lld of %lld, %.1f s elapsed, ETA %.1f s   ", p->what,
            (long long)done, (long long)p->total, el, eta);
    fflush(stderr);
    p->shown = 1;
}

void nb_progress_end(nb_progress *p)
{
    if (p->shown) fputc('\n', stderr);
    p->shown = 0;
}
