/* nb_options.c -- strict parsing of the one command line (DESIGN.md section 3).
 *
 * Every value is parsed completely (no trailing characters), range-checked,
 * and NaN/inf are refused.  Errors name the option and the accepted range. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_ic.h"
#include "nb_options.h"

#define NB_VERSION "nbody-lab 1.0"

void nb_options_default(nb_options *o)
{
    memset(o, 0, sizeof *o);
    o->n = 16384;
    o->steps = 10;
    o->dt = 1e-3;
    o->eps = 0.01;
    o->ic = "plummer";
    o->seed = 1;
    o->warmup = 1;
    o->theta = 0.5;
    o->block = 0;
    o->threads = 1;
    o->render_every = 10;
    o->render_size = 512;
}

int nb_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

int nb_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    const char *p = s;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '-') return -1;            /* strtoull would wrap negatives */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

int nb_parse_double(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) return -1;
    if (errno == ERANGE && fabs(v) > 1.0) return -1;    /* overflow; underflow to 0 is fine */
    *out = v;
    return 0;
}

enum kind { K_FLAG, K_INT, K_U64, K_REAL, K_STR };

typedef struct opt_def {
    const char *lng;        /* long name without "--" */
    char        shrt;       /* short name or 0 */
    enum kind   kind;
    unsigned    cap;        /* 0: every step; else the NB_OPT_* bit */
    double      lo, hi;     /* range for K_INT / K_REAL */
    int         lo_open;    /* K_REAL: lower bound excluded */
    const char *meta, *help, *deflt;
} opt_def;

static const opt_def nb_opts[] = {
    { "bodies", 'n', K_INT, 0, 1, (double)NB_MAX_N, 0, "N", "number of bodies, any N >= 1", "16384" },
    { "steps", 's', K_INT, 0, 0, NB_MAX_STEPS, 0, "S", "time steps to run (0: initial state only)", "10" },
    { "dt", 0, K_REAL, 0, 0, 1, 1, "DT", "time step, in (0, 1]", "1e-3" },
    { "eps", 0, K_REAL, 0, 0, 10, 1, "EPS", "Plummer softening length, in (0, 10]", "0.01" },
    { "ic", 0, K_STR, 0, 0, 0, 0, "NAME|FILE", "initial conditions: plummer, cube, disk, collision, a state file, or tipsy:FILE", "plummer" },
    { "seed", 0, K_U64, 0, 0, 0, 0, "S", "RNG seed, integer in [0, 2^64-1]", "1" },
    { "check", 0, K_FLAG, 0, 0, 0, 0, NULL, "verify accelerations against the double-precision direct sum; exit 1 past tolerance", "off" },
    { "bench", 0, K_FLAG, 0, 0, 0, 0, NULL, "warm-up steps, then time every step; print median and min", "off" },
    { "warmup", 0, K_INT, 0, 0, 1000, 0, "W", "untimed warm-up steps before --bench timing, in [0, 1000]", "1" },
    { "csv", 0, K_FLAG, 0, 0, 0, 0, NULL, "print one machine-readable CSV line", "off" },
    { "csv-header", 0, K_FLAG, 0, 0, 0, 0, NULL, "print the CSV header line first (implies --csv)", "off" },
    { "save", 0, K_STR, 0, 0, 0, 0, "FILE", "write the final state to FILE (text state file)", "none" },
    { "theta", 0, K_REAL, NB_OPT_THETA, 0, 1.5, 0, "T", "opening angle of the tree code, in [0, 1.5]", "0.5" },
    { "block", 0, K_INT, NB_OPT_BLOCK, 32, 1024, 0, "B", "threads per block, a multiple of 32 in [32, 1024]", "step's best" },
    { "threads", 0, K_INT, NB_OPT_THREADS, 1, 1024, 0, "T", "OpenMP threads, in [1, 1024]", "1" },
    { "cpu", 0, K_FLAG, NB_OPT_CPU, 0, 0, 0, NULL, "run the sequential CPU tree code instead of the GPU one", "off" },
    { "render", 0, K_STR, 0, 0, 0, 0, "DIR", "write PNG frames of the system into DIR", "none" },
    { "render-every", 0, K_INT, 0, 1, NB_MAX_STEPS, 0, "K", "a frame every K steps, K >= 1", "10" },
    { "render-size", 0, K_INT, 0, 16, 8192, 0, "P", "frame size in pixels, in [16, 8192]", "512" },
    { "render-tree", 0, K_FLAG, NB_OPT_RENDER_TREE, 0, 0, 0, NULL, "draw the octree's cells over the frames", "off" },
    { "help", 'h', K_FLAG, 0, 0, 0, 0, NULL, "print this help and exit", NULL },
    { "version", 0, K_FLAG, 0, 0, 0, 0, NULL, "print the version and exit", NULL },
};
#define NB_NOPTS ((int)(sizeof nb_opts / sizeof nb_opts[0]))

static const char *cap_owner(unsigned cap)
{
    switch (cap) {
    case NB_OPT_THREADS: return "step01_cpu";
    case NB_OPT_BLOCK: return "the GPU steps (step02 to step05)";
    case NB_OPT_THETA: case NB_OPT_CPU: case NB_OPT_RENDER_TREE: return "step05_barneshut";
    default: return "another step";
    }
}

void nb_print_help(FILE *out, const char *prog, unsigned options)
{
    fprintf(out, "usage: %s [options]\n\noptions:\n", prog);
    for (int k = 0; k < NB_NOPTS; k++) {
        const opt_def *d = &nb_opts[k];
        if (d->cap && !(d->cap & options)) continue;
        char left[64];
        if (d->shrt)
            snprintf(left, sizeof left, "-%c, --%s%s%s", d->shrt, d->lng, d->meta ? " " : "", d->meta ? d->meta : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", d->lng, d->meta ? " " : "", d->meta ? d->meta : "");
        fprintf(out, "  %-26s %s", left, d->help);
        if (d->deflt) fprintf(out, " (default: %s)", d->deflt);
        fputc('\n', out);
    }
    fprintf(out, "\nexit codes: 0 ok, 1 --check failed, 2 bad usage or input, 3 runtime failure\n"
                 "(CUDA error, out of memory, I/O), 4 step not implemented yet, 77 no usable CUDA device\n");
}

static int set_value(const opt_def *d, const char *name, const char *val, nb_options *o)
{
    int64_t iv = 0;
    uint64_t uv = 0;
    double rv = 0;
    switch (d->kind) {
    case K_INT:
        if (nb_parse_i64(val, &iv) || (double)iv < d->lo || (double)iv > d->hi)
            return nb_fail(NB_EXIT_USAGE, "%s: expected an integer in [%.0f, %.0f], got '%s'",
                           name, d->lo, d->hi, val);
        break;
    case K_U64:
        if (nb_parse_u64(val, &uv))
            return nb_fail(NB_EXIT_USAGE, "%s: expected an integer in [0, 18446744073709551615], got '%s'",
                           name, val);
        break;
    case K_REAL:
        if (nb_parse_double(val, &rv) || (d->lo_open ? rv <= d->lo : rv < d->lo) || rv > d->hi)
            return nb_fail(NB_EXIT_USAGE, "%s: expected a finite number in %c%g, %g], got '%s'",
                           name, d->lo_open ? '(' : '[', d->lo, d->hi, val);
        break;
    case K_STR:
        if (!*val)
            return nb_fail(NB_EXIT_USAGE, "%s: expected a %s, got an empty string", name, d->meta);
        break;
    case K_FLAG:
        break;
    }
    const char *l = d->lng;
    if (!strcmp(l, "bodies")) o->n = iv;
    else if (!strcmp(l, "steps")) o->steps = (int)iv;
    else if (!strcmp(l, "dt")) o->dt = rv;
    else if (!strcmp(l, "eps")) o->eps = rv;
    else if (!strcmp(l, "ic")) o->ic = val;
    else if (!strcmp(l, "seed")) o->seed = uv;
    else if (!strcmp(l, "warmup")) o->warmup = (int)iv;
    else if (!strcmp(l, "save")) o->save = val;
    else if (!strcmp(l, "theta")) o->theta = rv;
    else if (!strcmp(l, "block")) {
        if (iv % 32)
            return nb_fail(NB_EXIT_USAGE, "%s: expected a multiple of 32 in [32, 1024], got '%s'", name, val);
        o->block = (int)iv;
    }
    else if (!strcmp(l, "threads")) o->threads = (int)iv;
    else if (!strcmp(l, "render")) o->render_dir = val;
    else if (!strcmp(l, "render-every")) o->render_every = (int)iv;
    else if (!strcmp(l, "render-size")) o->render_size = (int)iv;
    return 0;
}

int nb_parse_options(int argc, char **argv, unsigned options, const char *prog, nb_options *o)
{
    nb_options_default(o);
    int help = 0, version = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const opt_def *d = NULL;
        const char *val = NULL;
        char name[64];
        if (arg[0] == '-' && arg[1] == '-' && arg[2]) {
            const char *body = arg + 2;
            const char *eq = strchr(body, '=');
            size_t len = eq ? (size_t)(eq - body) : strlen(body);
            for (int k = 0; k < NB_NOPTS; k++)
                if (strlen(nb_opts[k].lng) == len && !strncmp(nb_opts[k].lng, body, len)) d = &nb_opts[k];
            snprintf(name, sizeof name, "--%.*s", (int)(len < 40 ? len : 40), body);
            if (!d)
                return nb_fail(NB_EXIT_USAGE, "unknown option '%s' (see %s --help)", arg, prog);
            if (eq) {
                if (d->kind == K_FLAG)
                    return nb_fail(NB_EXIT_USAGE, "%s takes no value (got '%s')", name, arg);
                val = eq + 1;
            }
        } else if (arg[0] == '-' && arg[1] && arg[1] != '-' ) {
            for (int k = 0; k < NB_NOPTS; k++)
                if (nb_opts[k].shrt && nb_opts[k].shrt == arg[1]) d = &nb_opts[k];
            if (!d)
                return nb_fail(NB_EXIT_USAGE, "unknown option '%s' (see %s --help)", arg, prog);
            snprintf(name, sizeof name, "-%c/--%s", arg[1], d->lng);
            if (arg[2]) {
                if (d->kind == K_FLAG)
                    return nb_fail(NB_EXIT_USAGE, "unknown option '%s' (see %s --help)", arg, prog);
                val = arg + 2;             /* -n4096 */
            }
        } else {
            return nb_fail(NB_EXIT_USAGE, "unexpected argument '%s' (options start with '-'; see %s --help)",
                           arg, prog);
        }
        if (d->cap && !(d->cap & options))
            return nb_fail(NB_EXIT_USAGE, "%s does not apply to %s (it is an option of %s)",
                           name, prog, cap_owner(d->cap));
        if (d->kind != K_FLAG && !val) {
            if (i + 1 >= argc)
                return nb_fail(NB_EXIT_USAGE, "%s needs a value: %s", name, d->help);
            val = argv[++i];
        }
        int rc = set_value(d, name, val ? val : "", o);
        if (rc) return rc;
        if (!strcmp(d->lng, "check")) o->check = 1;
        else if (!strcmp(d->lng, "bench")) o->bench = 1;
        else if (!strcmp(d->lng, "csv")) o->csv = 1;
        else if (!strcmp(d->lng, "csv-header")) o->csv = o->csv_header = 1;
        else if (!strcmp(d->lng, "cpu")) o->cpu = 1;
        else if (!strcmp(d->lng, "render-tree")) o->render_tree = 1;
        else if (!strcmp(d->lng, "help")) help = 1;
        else if (!strcmp(d->lng, "version")) version = 1;
        if (!strcmp(d->lng, "bodies")) o->n_given = 1;
    }
    if (help) { nb_print_help(stdout, prog, options); return -1; }
    if (version) { printf("%s (%s)\n", prog, NB_VERSION); return -1; }
    if (o->render_tree && !o->render_dir)
        return nb_fail(NB_EXIT_USAGE, "--render-tree needs --render DIR");
    if (!nb_ic_is_model(o->ic) && !strncmp(o->ic, "tipsy:", 6) && !o->ic[6])
        return nb_fail(NB_EXIT_USAGE, "--ic: 'tipsy:' needs a file name (tipsy:FILE)");
    return 0;
}
