/* nb_options.h -- the one command line of every step (DESIGN.md section 3).
 *
 * Parsing is strict: unknown options, trailing garbage ("-n 12x"), values out
 * of range, NaN/inf, missing values and options that do not apply to the step
 * are refused with NB_EXIT_USAGE and one message naming the option and the
 * accepted range. */
#ifndef NB_OPTIONS_H
#define NB_OPTIONS_H
#include <stdint.h>
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Options that only some steps accept (bits of nb_step.options). */
enum {
    NB_OPT_THREADS     = 1u << 0,  /* --threads T (OpenMP, step01) */
    NB_OPT_BLOCK       = 1u << 1,  /* --block B (GPU steps) */
    NB_OPT_THETA       = 1u << 2,  /* --theta T (tree code) */
    NB_OPT_CPU         = 1u << 3,  /* --cpu (step05: sequential tree code) */
    NB_OPT_RENDER_TREE = 1u << 4   /* --render-tree (step05) */
};

#define NB_MAX_N      2147483647LL   /* bodies are indexed with int32 on the GPU */
#define NB_MAX_STEPS  1000000000

typedef struct nb_options {
    int64_t     n;            /* -n, --bodies   [1, 2^31-1]       default 16384 */
    int         n_given;      /* -n was on the command line */
    int         steps;        /* -s, --steps    [0, 1e9]          default 10 */
    double      dt;           /* --dt           (0, 1]            default 1e-3 */
    double      eps;          /* --eps          (0, 10]           default 0.01 */
    const char *ic;           /* --ic           name or file      default "plummer" */
    uint64_t    seed;         /* --seed         [0, 2^64-1]       default 1 */
    int         check;        /* --check */
    int         bench;        /* --bench */
    int         warmup;       /* --warmup W     [0, 1000]         default 1 (with --bench) */
    int         csv;          /* --csv */
    int         csv_header;   /* --csv-header */
    const char *save;         /* --save FILE */
    double      theta;        /* --theta        [0, 1.5]          default 0.5 */
    int         block;        /* --block        32..1024, multiple of 32; 0 = step's best */
    int         threads;      /* --threads      [1, 1024]         default 1 */
    int         cpu;          /* --cpu          (step05: sequential CPU tree code) */
    const char *render_dir;   /* --render DIR   PNG frames */
    int         render_every; /* --render-every K [1, 1e9]        default 10 */
    int         render_tree;  /* --render-tree  (step05) */
    int         render_size;  /* --render-size P [16, 8192]       default 512 */
    /* Not on the command line: set by tests. */
    int         poison;       /* GPU steps fill output buffers with NaN before each kernel */
} nb_options;

void nb_options_default(nb_options *o);

/* Parse argv.  'options' is the step's NB_OPT_* mask, 'prog' its name.
 * Returns 0 to go on, -1 when --help/--version was printed (exit 0), or
 * NB_EXIT_USAGE with the message in nb_errmsg(). */
int nb_parse_options(int argc, char **argv, unsigned options, const char *prog,
                     nb_options *o);
void nb_print_help(FILE *out, const char *prog, unsigned options);

/* Strict number parsers, used by the CLI and the file readers.  They return
 * 0 on success, -1 on garbage/trailing characters/overflow/NaN/inf. */
int nb_parse_i64(const char *s, int64_t *out);
int nb_parse_u64(const char *s, uint64_t *out);
int nb_parse_double(const char *s, double *out);

#ifdef __cplusplus
}
#endif
#endif
