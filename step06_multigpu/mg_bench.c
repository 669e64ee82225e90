/* mg_bench.c -- step06_multigpu, beside the lesson: what --bench and --csv
 * print (read mg.c first; declarations in mg_launch.h).  Each GPU times the
 * phases of its step with CUDA events (mg.c's mark()); a step is as slow as
 * its slowest GPU; the report gives every GPU's median phases, the bytes
 * the all-gathers move and the device memory per GPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include "mg_launch.h"
#include "nb_cuda.h"

static const char *const ph_names[MG_PHASES] = { "gather x", "build", "walk", "gather a",
                                                 "integrate" };

/* One timed step of GPU w: its phases from the events of the step. */
int mg_bench_rec(mg_gpu *w, mg_rec *rec)
{
    float ms[MG_EVENTS - 1];
    for (int e = 0; e + 1 < MG_EVENTS; e++)
        NB_CUDA(cudaEventElapsedTime(&ms[e], w->ev[e], w->ev[e + 1]));
    memset(rec, 0, sizeof *rec);
    rec->ph[PH_GX] = ms[E_DRIFT];               /* ms[e]: from event e to e + 1 */
    rec->ph[PH_BUILD] = ms[E_GX];
    rec->ph[PH_WALK] = ms[E_BUILD];
    rec->ph[PH_GA] = ms[E_WALK];
    rec->ph[PH_INT] = ms[E_START] + ms[E_SCAT];
    float f, s;
    NB_CUDA(cudaEventElapsedTime(&f, w->ev[E_DRIFT], w->ev[E_SCAT]));
    NB_CUDA(cudaEventElapsedTime(&s, w->ev[E_START], w->ev[E_END]));
    rec->force_start = ms[E_START];
    rec->force = f;
    rec->step = s;
    rec->bb = (double)w->bb;
    rec->bc = (double)w->bc;
    return 0;
}

int mg_grow_recs(mg_rec **p, int *cap, size_t need)
{
    if (need <= (size_t)*cap) return 0;
    size_t c = need + need / 2 + 16;
    mg_rec *q = (mg_rec *)realloc(*p, c * sizeof *q);
    if (!q) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for the timings");
    *p = q;
    *cap = (int)c;
    return 0;
}

/* The records of the last advance() (m->cur, P per step): each step's
 * times, as slow as the slowest GPU, and the history for the report. */
int mg_bench_times(mg *m, int steps, nb_step_time *times)
{
    int rc;
    if ((rc = mg_grow_recs(&m->hist, &m->cap_hist, (size_t)(m->nhist + steps) * m->P))) return rc;
    for (int k = 0; k < steps; k++) {
        const mg_rec *r = &m->cur[(size_t)k * m->P];
        double fs = INFINITY, f = 0, s = 0, inter = 0;
        for (int p = 0; p < m->P; p++) {      /* the step is as slow as its slowest GPU */
            fs = fmin(fs, r[p].force_start);  /* (the force of the slowest starts no earlier) */
            f = fmax(f, r[p].force);
            s = fmax(s, r[p].step);
            inter += r[p].bb + r[p].bc;
        }
        times[k].force_start_ms = fs;
        times[k].force_ms = f;
        times[k].step_ms = s;
        times[k].interactions = (int64_t)inter;
        if (m->team) {              /* one process sees only its own counts */
            m->bb = m->bc = 0;
            for (int p = 0; p < m->P; p++) { m->bb += (int64_t)r[p].bb; m->bc += (int64_t)r[p].bc; }
        }
        memcpy(&m->hist[(size_t)m->nhist * m->P], r, (size_t)m->P * sizeof *r);
        m->nhist++;
    }
    return 0;
}

void mg_info(void *ctx, nb_run_info *info)
{
    mg *m = (mg *)ctx;
    mg_gpu *w = &m->g[0];
    if (cudaSetDevice(w->dev) != cudaSuccess) (void)cudaGetLastError();
    nb_step05_gpu.info(w->bh, info);            /* GPU 0: name, SMs, tree */
    char name[128];
    snprintf(name, sizeof name, "%s", info->device);
    snprintf(info->device, sizeof info->device, "%d x %.100s", m->P, name);
    info->sms *= m->P;
    info->device_bytes = w->a.bytes + w->bytes_at;   /* per GPU: each holds all N */
}

static double median_of(const mg *m, int p, int field, double *tmp)
{
    for (int k = 0; k < m->nhist; k++) {
        const mg_rec *r = &m->hist[(size_t)k * m->P + p];
        tmp[k] = field < MG_PHASES ? r->ph[field] : field == MG_PHASES ? r->force : r->step;
    }
    return m->nhist ? nb_median(tmp, m->nhist) : 0.0;
}

void mg_report(void *ctx, FILE *out)
{
    mg *m = (mg *)ctx;
    int version = 0;
    ncclGetVersion(&version);
    const char *nvls = getenv("NCCL_NVLS_ENABLE");
    fprintf(out, "    GPUs: %d, %s; NCCL %d.%d.%d, NCCL_NVLS_ENABLE=%s; ", m->P,
            m->team ? "one process per GPU (mpirun)" : "one process, one thread per GPU",
            version / 10000, version / 100 % 100, version % 100, nvls ? nvls : "(unset)");
    if (m->replicated)
        fprintf(out, "every body integrated on every GPU, the tree order walked in ranges\n");
    else
        fprintf(out, "%lld bodies per slice (tree order walked, index range integrated)\n",
                (long long)m->chunk);
    double *tmp = (double *)malloc((size_t)(m->nhist > 0 ? m->nhist : 1) * sizeof(double));
    if (!tmp) return;
    fprintf(out, "    per GPU (median of %d timed steps, ms, CUDA events):\n", m->nhist);
    for (int p = 0; p < m->P; p++) {
        fprintf(out, "      GPU %d:", p);
        for (int k = 0; k < MG_PHASES; k++)
            fprintf(out, " %s %.3f", ph_names[k], median_of(m, p, k, tmp));
        fprintf(out, " | force %.3f step %.3f\n", median_of(m, p, MG_PHASES, tmp),
                median_of(m, p, MG_PHASES + 1, tmp));
    }
    free(tmp);
    double n = (double)m->n, share = (m->P - 1) / (double)m->P;
    if (m->replicated)
        fprintf(out, "    bytes received per GPU and step: accelerations %.1f MB (12 B x N x (P-1)/P; "
                "no positions: every GPU integrates every body)\n", 12 * n * share / 1e6);
    else
        fprintf(out, "    bytes received per GPU and step: positions %.1f MB + accelerations %.1f MB "
                "= %.1f MB ((16 + 12) B x N x (P-1)/P)\n", 16 * n * share / 1e6,
                12 * n * share / 1e6, 28 * n * share / 1e6);
    fprintf(out, "    interactions per step: body-body %lld, body-cell %lld "
            "(%.1f + %.1f per body)\n", (long long)m->bb, (long long)m->bc, m->bb / n, m->bc / n);
    const mg_gpu *w = &m->g[0];
    fprintf(out, "    device memory per GPU: %.1f MiB (%.1f B/body: tree code %.1f, tree-order "
            "accelerations %.1f); all GPUs %.1f MiB\n", (w->a.bytes + w->bytes_at) / 1048576.0,
            (w->a.bytes + w->bytes_at) / n, w->a.bytes / n, w->bytes_at / n,
            m->P * (w->a.bytes + w->bytes_at) / 1048576.0);
}
