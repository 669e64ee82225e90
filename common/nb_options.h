/* nb_options.h -- the one command line of every step (docs/conventions.md,
 * "Command line").
 *
 * Every option is one row of the table in nb_options.c: its name, kind,
 * range, help text, typed default, offsetof() of its field below and the
 * steps it applies to.  One loop fills the defaults, parses, validates and
 * prints --help; adding an option is adding a row (and its field here).
 *
 * Parsing is strict: unknown options, leading or trailing garbage
 * ("-n 12x", "-n ' 12'"), values out of range, NaN/inf, values that become 0
 * in float (the precision the steps compute in), missing values and options
 * that do not apply to the step are refused with NB_EXIT_USAGE and one
 * message naming the option and the accepted range. */
#ifndef NB_OPTIONS_H
#define NB_OPTIONS_H
#include <stdint.h>
#include <stdio.h>
#include "nb_parse.h"
#include "nb_state.h"   /* NB_MAX_N */
#ifdef __cplusplus
extern "C" {
#endif

/* Options that only some steps accept (bits of nb_step.options). */
enum {
    NB_OPT_THREADS     = 1u << 0,  /* --threads T: OpenMP threads of a CPU code */
    NB_OPT_BLOCK       = 1u << 1,  /* --block B: threads per block of a GPU code */
    NB_OPT_THETA       = 1u << 2,  /* --theta T: opening angle of the tree code */
    NB_OPT_CPU         = 1u << 3,  /* --cpu: the step's CPU code instead of its GPU code */
    NB_OPT_RENDER_TREE = 1u << 4,  /* --render-tree: octree cells over the frames */
    NB_OPT_GPUS        = 1u << 5,  /* --gpus P: GPUs to split the bodies over (step06) */
    NB_OPT_PRECISION   = 1u << 6   /* --precision: step01_cpu/precision, step04's tuned build */
};

/* --precision (handouts/08_precision.md): what a step computes in.  single:
 * float everywhere (every step); double: positions, velocities, every
 * interaction and every sum in double; mixed: the state in double, the
 * interactions in float from positions relative to an origin, each with a
 * Newton step on its 1/r^3, summed in short float chunks whose totals are
 * added with compensation (two floats). */
enum { NB_PREC_SINGLE = 0, NB_PREC_DOUBLE = 1, NB_PREC_MIXED = 2 };
/* "single", "double", "mixed" ("?" for anything else) */
const char *nb_precision_name(int precision);

#define NB_MAX_STEPS  1000000000

typedef struct nb_options {
    int64_t     n;            /* -n, --bodies */
    int         n_given;      /* -n was on the command line */
    int         steps;        /* -s, --steps */
    double      dt;           /* --dt */
    double      eps;          /* --eps */
    const char *ic;           /* --ic: a model name, a state file or tipsy:FILE */
    uint64_t    seed;         /* --seed */
    int         check;        /* --check */
    int         bench;        /* --bench */
    int         warmup;       /* --warmup (with --bench) */
    int         csv;          /* --csv */
    int         csv_header;   /* --csv-header (implies --csv) */
    const char *save;         /* --save FILE, NULL: none */
    double      theta;        /* --theta (tree code) */
    int         block;        /* --block; 0: the step's default */
    int         threads;      /* --threads (CPU codes) */
    int         cpu;          /* --cpu */
    const char *render_dir;   /* --render DIR, NULL: none */
    int         render_every; /* --render-every K */
    int         render_tree;  /* --render-tree */
    int         render_size;  /* --render-size P */
    int         gpus;         /* --gpus P; 0: every visible GPU */
    int         precision;    /* --precision: NB_PREC_SINGLE, NB_PREC_DOUBLE or NB_PREC_MIXED */
    int         view;         /* --view: the live window (set by --view-hold too) */
    int         view_hold;    /* --view-hold: the window stays open when the steps are done */
    const char *view_size;    /* --view-size WxH */
    int         view_w, view_h;   /* parsed from view_size */
    int         serve_port;   /* --serve PORT; -1: off (0: any free port) */
    int         serve;        /* --serve was given */
    const char *serve_addr;   /* --serve-addr ADDR */
    unsigned    given;        /* NB_OPT_* bits of the step-specific options on the command line */
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
/* --help's default for --theta where it is not 0.5 (nb_main_theta()); "": 0.5 */
void nb_options_theta_help(const char *text);
/* A program with a --cpu variant parses with the options of both of its
 * tables; once nb_main() has picked the table that runs, an option given
 * on the command line that this table does not accept is refused here:
 * NB_EXIT_USAGE naming the option, prog and 'which' (" without --cpu"),
 * else 0. */
int nb_options_fit(const nb_options *o, unsigned options, const char *prog, const char *which);

/* The strict number parsers and nb_env_i64() are nb_parse.h's (included above). */

#ifdef __cplusplus
}
#endif
#endif
