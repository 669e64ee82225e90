/* tune_step04.c -- the measurements behind step04's tuned build
 * (handouts/04_shared.md, "Going further"), in one process so that a CUDA
 * context is made once:
 *
 *   make -C tests tune_step04 && tests/tune_step04 [N...] > tune.csv
 *
 * At each N: the lesson kernel (block 128, 256, 512) and the tuned build
 * with its picker's choice, with each technique switched off in turn, and a
 * grid of block sizes, bodies per thread and j-slices, and up to N = 16384
 * the warp-per-target kernel's block sizes and bodies per warp, and from
 * N = 8192 on the each-pair-once kernel's block sizes, R and tiles (NB_TUNE,
 * see step04_shared/tuned/tuned.cu).  Every configuration is checked against the
 * double direct sum (max error over the sampled bodies; the all-pairs
 * tolerance is 1e-4 up to N = 65536).  One CSV line per configuration:
 *   build,n,tune,force_ms_med,step_ms_med,g_inter_per_s,err_max
 * Default N: 1024 2048 4096 8192 16384 65536 262144 1048576.  Exit 77
 * without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_ic.h"
#include "nb_step.h"
#include "nb_verify.h"

extern const nb_step nb_step04_shared, nb_step04_tuned;

static int measure(const char *build, const nb_step *step, const nb_state *s0, int block,
                   const char *tune, int steps)
{
    nb_options o;
    nb_options_default(&o);
    o.n = s0->n;
    o.block = block;
    if (tune) setenv("NB_TUNE", tune, 1); else unsetenv("NB_TUNE");
    nb_state s;
    if (nb_state_copy(&s, s0)) return 3;
    void *ctx = NULL;
    nb_step_time *t = calloc((size_t)steps, sizeof *t);
    float *a = malloc((size_t)s.n * 3 * sizeof *a);
    int rc = !t || !a ? nb_fail(NB_EXIT_RUNTIME, "out of host memory") : 0;
    if (!rc) rc = step->init(&ctx, &s, &o);
    int warm = s.n > 300000 ? 1 : 3;
    if (!rc) rc = step->advance(ctx, warm, NULL);
    if (!rc) rc = step->advance(ctx, steps, t);
    nb_errstats e;
    memset(&e, 0, sizeof e);
    if (!rc) rc = step->download(ctx, &s);
    if (!rc && s.n <= 300000) {                  /* the check, at the end state */
        rc = step->accel(ctx, a, a + s.n, a + 2 * s.n);
        if (!rc) rc = nb_accel_errors(&s, o.eps, a, a + s.n, a + 2 * s.n, NB_REF_SAMPLES, &e);
    }
    if (rc) {
        printf("%s,%lld,\"%s block=%d\",,,,failed: %s\n", build, (long long)s.n, tune ? tune : "", block,
               nb_errmsg());
    } else {
        nb_bench b;
        nb_bench_summarize(t, steps, &b);
        printf("%s,%lld,\"%s%sblock=%d\",%.6g,%.6g,%.4g,%.3g\n", build, (long long)s.n, tune ? tune : "",
               tune ? " " : "", block, b.force_med, b.step_med, b.inter_per_s * 1e-9,
               s.n <= 300000 ? e.max : -1.0);
    }
    fflush(stdout);
    if (ctx) step->destroy(ctx);
    free(t); free(a);
    nb_state_free(&s);
    return rc;
}

int main(int argc, char **argv)
{
    long long def[] = { 1024, 2048, 4096, 8192, 16384, 65536, 262144, 1048576 };
    int nn = argc > 1 ? argc - 1 : (int)(sizeof def / sizeof def[0]);
    if (nb_step04_tuned.probe(NULL)) { fprintf(stderr, "tune_step04: %s\n", nb_errmsg()); return 77; }
    printf("build,n,tune,force_ms_med,step_ms_med,g_inter_per_s,err_max\n");
    for (int k = 0; k < nn; k++) {
        long long n = argc > 1 ? atoll(argv[k + 1]) : def[k];
        if (n < 1) { fprintf(stderr, "tune_step04: bad N '%s'\n", argv[k + 1]); return 2; }
        nb_state s0;
        if (nb_ic_generate("plummer", n, 1, &s0)) { fprintf(stderr, "tune_step04: %s\n", nb_errmsg()); return 3; }
        int steps = n >= 1048576 ? 3 : n >= 65536 ? 11 : 21;
        static const int blocks[] = { 128, 256, 512 };
        for (int b = 0; b < 3; b++) measure("lesson", &nb_step04_shared, &s0, blocks[b], NULL, steps);
        static const char *const variants[] = { "", "newton=0", "newton=0,warp=0", "graph=0",
                                                "graph=0,fuse=0", "newton=0,warp=0,slices=1",
                                                "newton=0,warp=0,slices=1,graph=0,fuse=0,r=1,block=256",
                                                NULL };
        for (int v = 0; variants[v]; v++) measure("tuned", &nb_step04_tuned, &s0, 0, variants[v], steps);
        char tune[96];
        static const int tb[] = { 64, 128, 256, 512 }, ts[] = { 4, 8, 16, 32, 64, 128 };
        for (int b = 0; b < 4; b++)
            for (int r = 1; r <= 4; r *= 2) {
                if (n > 65536) {
                    snprintf(tune, sizeof tune, "newton=0,warp=0,block=%d,r=%d", tb[b], r);
                    measure("tuned", &nb_step04_tuned, &s0, 0, tune, steps);
                    continue;
                }
                for (int q = 0; q < 6; q++) {
                    if (n / ts[q] < 16 || tb[b] == 512) continue;
                    snprintf(tune, sizeof tune, "newton=0,warp=0,block=%d,r=%d,slices=%d", tb[b], r, ts[q]);
                    measure("tuned", &nb_step04_tuned, &s0, 0, tune, steps);
                }
            }
        if (n <= 16384) {                        /* a warp per target: R and the block size */
            static const int wr[] = { 1, 2, 4 }, wb[] = { 64, 128, 256 };
            for (int b = 0; b < 3; b++)
                for (int r = 0; r < 3; r++) {
                    snprintf(tune, sizeof tune, "newton=0,warp=1,block=%d,r=%d", wb[b], wr[r]);
                    measure("tuned", &nb_step04_tuned, &s0, 0, tune, steps);
                }
        }
        if (n >= 8192) {                         /* each pair once: block, R and the tiles */
            static const int nb[] = { 128, 256, 512 }, nt[] = { 0, 32, 128 };
            for (int b = 0; b < 3; b++)
                for (int r = 2; r <= 4; r *= 2)
                    for (int q = 0; q < 3; q++) {
                        if (nt[q]) snprintf(tune, sizeof tune, "newton=1,block=%d,r=%d,tiles=%d", nb[b], r, nt[q]);
                        else snprintf(tune, sizeof tune, "newton=1,block=%d,r=%d", nb[b], r);
                        measure("tuned", &nb_step04_tuned, &s0, 0, tune, steps);
                    }
        }
        nb_state_free(&s0);
    }
    return 0;
}
