/* nb_options.c -- the command line of every step: one table row per option
 * (docs/conventions.md, "Command line").
 *
 * A row carries everything about its option: names, kind, range, help
 * text, typed default, the offsetof() of its nb_options field and the steps
 * it applies to.  nb_options_default(), nb_parse_options() and
 * nb_print_help() are loops over the table, so an option lives in one
 * place.  Every value is parsed completely (no leading or trailing
 * characters), range-checked, and checked in float, the precision the steps
 * compute in: a number that is not 0 but becomes 0 (or a denormal, which
 * the GPU flushes to 0) in float is refused. */
#include <arpa/inet.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_ic.h"
#include "nb_options.h"
#include "nb_view_help.h"

#define NB_VERSION "nbody-lab 1.1"

/* ---- the table ------------------------------------------------------------ */

typedef enum { K_FLAG, K_INT, K_I64, K_U64, K_REAL, K_STR, K_CHOICE, K_HELP, K_VERSION } opt_kind;

#define NO_FIELD ((size_t)-1)
#define F(field) offsetof(nb_options, field)

typedef struct opt_row {
    const char *name;       /* long name, without "--" */
    char        shrt;       /* short name, or 0 */
    opt_kind    kind;
    size_t      field;      /* offsetof(nb_options, field), NO_FIELD for --help, --version */
    unsigned    steps;      /* 0: every step; else the NB_OPT_* bit a step must accept */
    const char *owner;      /* steps != 0: which steps accept it (the refusal names them) */
    double      lo, hi;     /* K_INT, K_I64, K_REAL: the accepted range */
    int         lo_open;    /* K_REAL: lo itself is refused */
    int         multiple;   /* K_INT: the value must be a multiple of this; 0: any */
    double      float_min;  /* K_REAL: a non-zero value below this is refused (see below) */
    const char *const *choices;   /* K_CHOICE: the accepted words, NULL-terminated; the int field
                                   * gets the index of the one given */
    union { long long i; unsigned long long u; double r; const char *s; } def;
    const char *def_text;   /* --help's default where the value alone does not say it */
    const char *meta, *help;
} opt_row;

static const char *const precisions[] = { "single", "double", "mixed", NULL };

const char *nb_precision_name(int precision)
{
    return precision >= 0 && precision <= NB_PREC_MIXED ? precisions[precision] : "?";
}

/* The smallest |value| accepted where a float is computed from it: FLT_MIN,
 * the smallest normal float (the GPU code flushes denormals to 0).  --eps is
 * squared first (eps^2 is what the force uses): sqrt(FLT_MIN) = 1.09e-19. */
#define NB_FLT_NORMAL ((double)FLT_MIN)
#define NB_EPS_MIN    1.0842021724855044e-19

static const opt_row nb_opts[] = {
    { .name = "bodies", .shrt = 'n', .kind = K_I64, .field = F(n), .lo = 1, .hi = (double)NB_MAX_N,
      .def.i = 16384, .meta = "N", .help = "number of bodies, any N >= 1" },
    { .name = "steps", .shrt = 's', .kind = K_INT, .field = F(steps), .lo = 0, .hi = NB_MAX_STEPS,
      .def.i = 10, .meta = "S", .help = "time steps to run (0: initial state only)" },
    { .name = "dt", .kind = K_REAL, .field = F(dt), .lo = 0, .hi = 1, .lo_open = 1,
      .float_min = NB_FLT_NORMAL, .def.r = 1e-3, .meta = "DT", .help = "time step, in (0, 1]" },
    { .name = "eps", .kind = K_REAL, .field = F(eps), .lo = 0, .hi = 10, .lo_open = 1,
      .float_min = NB_EPS_MIN, .def.r = 0.01, .meta = "EPS",
      .help = "Plummer softening length, in (0, 10]" },
    { .name = "ic", .kind = K_STR, .field = F(ic), .def.s = "plummer", .meta = "NAME|FILE",
      .help = "initial conditions: plummer, cube, disk, collision, clusters, a state file, or tipsy:FILE" },
    { .name = "seed", .kind = K_U64, .field = F(seed), .def.u = 1, .meta = "S",
      .help = "RNG seed, integer in [0, 2^64-1]" },
    { .name = "check", .kind = K_FLAG, .field = F(check),
      .help = "verify accelerations against the double-precision direct sum; exit 1 past tolerance" },
    { .name = "bench", .kind = K_FLAG, .field = F(bench),
      .help = "warm-up steps, then time every step; print median and min" },
    { .name = "warmup", .kind = K_INT, .field = F(warmup), .lo = 0, .hi = 1000, .def.i = 1,
      .meta = "W", .help = "untimed warm-up steps before --bench timing, in [0, 1000]" },
    { .name = "csv", .kind = K_FLAG, .field = F(csv), .help = "print one machine-readable CSV line" },
    { .name = "csv-header", .kind = K_FLAG, .field = F(csv_header),
      .help = "print the CSV header line first (implies --csv)" },
    { .name = "save", .kind = K_STR, .field = F(save), .meta = "FILE",
      .help = "write the final state to FILE (text state file)" },
    { .name = "theta", .kind = K_REAL, .field = F(theta), .steps = NB_OPT_THETA,
      .owner = "the tree codes, step05_barneshut and step06_multigpu", .lo = 0, .hi = 1.5,
      .float_min = NB_FLT_NORMAL, .def.r = 0.5, .meta = "T",
      .help = "opening angle of the tree code, in [0, 1.5]" },
    { .name = "block", .kind = K_INT, .field = F(block), .steps = NB_OPT_BLOCK,
      .owner = "the GPU steps", .lo = 32, .hi = 1024, .multiple = 32, .def.i = 0,
      .def_text = "the step's own, printed by --bench", .meta = "B",
      .help = "threads per block, a multiple of 32 in [32, 1024]" },
    { .name = "threads", .kind = K_INT, .field = F(threads), .steps = NB_OPT_THREADS,
      .owner = "the CPU codes: step01_cpu and step05_barneshut --cpu", .lo = 1, .hi = 1024,
      .def.i = 1, .meta = "T", .help = "OpenMP threads of the CPU code (step05: with --cpu), in [1, 1024]" },
    { .name = "gpus", .kind = K_INT, .field = F(gpus), .steps = NB_OPT_GPUS,
      .owner = "step06_multigpu", .lo = 1, .hi = 1024, .def.i = 0,
      .def_text = "every visible GPU", .meta = "P",
      .help = "GPUs to split the bodies over, in [1, 1024] (at most the GPUs present)" },
    { .name = "precision", .kind = K_CHOICE, .field = F(precision), .steps = NB_OPT_PRECISION,
      .owner = "step01_cpu/precision/nbody and step04_shared/tuned/nbody_tuned", .choices = precisions,
      .def.i = NB_PREC_SINGLE, .meta = "P", .help = "arithmetic: single (float), double, or mixed (float "
      "interactions, compensated sums, the state in double)" },
    { .name = "cpu", .kind = K_FLAG, .field = F(cpu), .steps = NB_OPT_CPU,
      .owner = "step05_barneshut", .help = "run the CPU tree code instead of the GPU one" },
    { .name = "render", .kind = K_STR, .field = F(render_dir), .meta = "DIR",
      .help = "write PNG frames of the system into DIR" },
    { .name = "render-every", .kind = K_INT, .field = F(render_every), .lo = 1, .hi = NB_MAX_STEPS,
      .def.i = 10, .meta = "K", .help = "a frame every K steps, K >= 1" },
    { .name = "render-size", .kind = K_INT, .field = F(render_size), .lo = 16, .hi = 8192,
      .def.i = 512, .meta = "P", .help = "frame size in pixels, in [16, 8192]" },
    { .name = "render-tree", .kind = K_FLAG, .field = F(render_tree), .steps = NB_OPT_RENDER_TREE,
      .owner = "the tree codes, step05_barneshut and step06_multigpu",
      .help = "draw the octree's cells over the frames" },
    { .name = "view", .kind = K_FLAG, .field = F(view),
      .help = "watch the run live in a window (OpenGL; keys below), closed after the last step; not with "
              "--bench, --csv, --render" },
    { .name = "view-hold", .kind = K_FLAG, .field = F(view_hold),
      .help = "--view, and keep the window open when the steps are done (until q, Esc or closed)" },
    { .name = "view-size", .kind = K_STR, .field = F(view_size), .def.s = "1024x768", .meta = "WxH",
      .help = "the window's size in pixels, each in [64, 8192]" },
    { .name = "serve", .kind = K_INT, .field = F(serve_port), .lo = 0, .hi = 65535, .def.i = -1,
      .def_text = "off", .meta = "PORT",
      .help = "watch the run in a browser: an HTTP server on 127.0.0.1:PORT (0: any free port); see below" },
    { .name = "serve-addr", .kind = K_STR, .field = F(serve_addr), .def.s = "127.0.0.1", .meta = "ADDR",
      .help = "the address --serve listens on (one that is not loopback is warned about)" },
    { .name = "help", .shrt = 'h', .kind = K_HELP, .field = NO_FIELD,
      .help = "print this help and exit" },
    { .name = "version", .kind = K_VERSION, .field = NO_FIELD, .help = "print the version and exit" },
};
#define NB_NOPTS ((int)(sizeof nb_opts / sizeof nb_opts[0]))

static void *field_of(nb_options *o, const opt_row *d) { return (char *)o + d->field; }

void nb_options_default(nb_options *o)
{
    memset(o, 0, sizeof *o);
    for (int k = 0; k < NB_NOPTS; k++) {
        const opt_row *d = &nb_opts[k];
        void *p = d->field == NO_FIELD ? NULL : field_of(o, d);
        switch (d->kind) {
        case K_FLAG: *(int *)p = 0; break;
        case K_INT:  *(int *)p = (int)d->def.i; break;
        case K_I64:  *(int64_t *)p = d->def.i; break;
        case K_U64:  *(uint64_t *)p = d->def.u; break;
        case K_REAL: *(double *)p = d->def.r; break;
        case K_STR:  *(const char **)p = d->def.s; break;
        case K_CHOICE: *(int *)p = (int)d->def.i; break;
        case K_HELP: case K_VERSION: break;
        }
    }
}

static char theta_help[48];          /* nb_options_theta_help() */
void nb_options_theta_help(const char *text) { snprintf(theta_help, sizeof theta_help, "%s", text ? text : ""); }
static void default_text(const opt_row *d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (d->field == F(theta) && theta_help[0]) { snprintf(buf, len, "%s", theta_help); return; }
    if (d->def_text) { snprintf(buf, len, "%s", d->def_text); return; }
    switch (d->kind) {
    case K_FLAG: snprintf(buf, len, "off"); break;
    case K_INT: case K_I64: snprintf(buf, len, "%lld", d->def.i); break;
    case K_U64: snprintf(buf, len, "%llu", d->def.u); break;
    case K_REAL: snprintf(buf, len, "%g", d->def.r); break;
    case K_STR: snprintf(buf, len, "%s", d->def.s ? d->def.s : "none"); break;
    case K_CHOICE: snprintf(buf, len, "%s", d->choices[d->def.i]); break;
    case K_HELP: case K_VERSION: break;
    }
}

void nb_print_help(FILE *out, const char *prog, unsigned options)
{
    fprintf(out, "usage: %s [options]\n\noptions:\n", prog);
    for (int k = 0; k < NB_NOPTS; k++) {
        const opt_row *d = &nb_opts[k];
        if (d->steps && !(d->steps & options)) continue;
        char left[64], def[64];
        const char *meta = d->meta ? d->meta : "";
        if (d->shrt)
            snprintf(left, sizeof left, "-%c, --%s%s%s", d->shrt, d->name, *meta ? " " : "", meta);
        else
            snprintf(left, sizeof left, "    --%s%s%s", d->name, *meta ? " " : "", meta);
        default_text(d, def, sizeof def);
        fprintf(out, "  %-26s %s", left, d->help);
        if (*def) fprintf(out, " (default: %s)", def);
        fputc('\n', out);
    }
    fprintf(out, "\n%s", NB_VIEW_KEYS_HELP);
    fprintf(out, "\n%s", NB_SERVE_HELP);
    fprintf(out, "\nexit codes: 0 ok, 1 --check failed, 2 bad usage or input, 3 runtime failure\n"
                 "(CUDA error, out of memory, I/O), 4 step not implemented yet, 77 no usable CUDA device\n");
}

/* Parse and store one value.  name: the option as the user wrote it. */
static int set_value(const opt_row *d, const char *name, const char *val, nb_options *o)
{
    int64_t iv = 0;
    uint64_t uv = 0;
    double rv = 0;
    void *p = d->field == NO_FIELD ? NULL : field_of(o, d);
    switch (d->kind) {
    case K_INT:
    case K_I64:
        /* a minus sign where the range has no negative value: "-0" too */
        if (nb_parse_i64(val, &iv) || (double)iv < d->lo || (double)iv > d->hi ||
            (d->multiple && iv % d->multiple) || (d->lo >= 0 && val[0] == '-')) {
            if (d->multiple)
                return nb_fail(NB_EXIT_USAGE, "%s: expected a multiple of %d in [%.0f, %.0f], got '%s'",
                               name, d->multiple, d->lo, d->hi, val);
            return nb_fail(NB_EXIT_USAGE, "%s: expected an integer in [%.0f, %.0f], got '%s'",
                           name, d->lo, d->hi, val);
        }
        if (d->kind == K_INT) *(int *)p = (int)iv;
        else *(int64_t *)p = iv;
        return 0;
    case K_U64:
        if (nb_parse_u64(val, &uv))
            return nb_fail(NB_EXIT_USAGE, "%s: expected an integer in [0, 18446744073709551615], got '%s'",
                           name, val);
        *(uint64_t *)p = uv;
        return 0;
    case K_REAL:
        if (nb_parse_double(val, &rv) || (d->lo_open ? rv <= d->lo : rv < d->lo) || rv > d->hi ||
            (d->lo >= 0 && signbit(rv)))            /* -0 */
            return nb_fail(NB_EXIT_USAGE, "%s: expected a finite number in %c%g, %g], got '%s'",
                           name, d->lo_open ? '(' : '[', d->lo, d->hi, val);
        if (rv != 0 && fabs(rv) < d->float_min)
            return nb_fail(NB_EXIT_USAGE, "%s: %s is too small for float precision (the smallest "
                           "accepted value is %.3g%s)", name, val, d->float_min,
                           d->lo_open ? "" : ", or exactly 0");
        *(double *)p = rv;
        return 0;
    case K_STR:
        if (!*val) return nb_fail(NB_EXIT_USAGE, "%s: expected a %s, got an empty string", name, d->meta);
        *(const char **)p = val;
        return 0;
    case K_CHOICE: {
        char words[128] = "";
        for (int k = 0; d->choices[k]; k++) {
            if (!strcmp(val, d->choices[k])) {
                *(int *)p = k;
                return 0;
            }
            snprintf(words + strlen(words), sizeof words - strlen(words), "%s%s", k ? ", " : "",
                     d->choices[k]);
        }
        return nb_fail(NB_EXIT_USAGE, "%s: expected one of %s, got '%.60s'", name, words, val);
    }
    case K_FLAG:
        *(int *)p = 1;
        return 0;
    case K_HELP: case K_VERSION:
        return 0;
    }
    return 0;
}

int nb_options_fit(const nb_options *o, unsigned options, const char *prog, const char *which)
{
    for (int k = 0; k < NB_NOPTS; k++) {
        const opt_row *d = &nb_opts[k];
        if (d->steps & o->given & ~options)
            return nb_fail(NB_EXIT_USAGE, "--%s does not apply to %s%s (it is an option of %s)", d->name,
                           prog, which, d->owner);
    }
    return 0;
}

/* "WxH": two decimal numbers of at most 5 digits and an 'x', nothing else. */
static int parse_wxh(const char *s, int *w, int *h)
{
    int v[2] = { 0, 0 };
    for (int k = 0; k < 2; k++) {
        int digits = 0;
        for (; *s >= '0' && *s <= '9'; s++, digits++)
            if (digits < 5) v[k] = 10 * v[k] + (*s - '0');
        if (digits == 0 || digits > 5 || *s != (k ? '\0' : 'x'))
            return -1;
        s++;
    }
    *w = v[0];
    *h = v[1];
    return 0;
}

/* The row of argv[i] ('arg': "--name", "--name=value", "-x" or "-xVALUE"),
 * the name to quote in messages and the value given with it (NULL: none
 * yet); NB_EXIT_USAGE for an unknown option or a value a flag cannot take. */
static int find_option(const char *arg, const char *prog, const opt_row **row, char *name,
                       size_t name_len, const char **value)
{
    const opt_row *d = NULL;
    const char *val = NULL;
    if (arg[0] == '-' && arg[1] == '-' && arg[2]) {
        const char *body = arg + 2;
        const char *eq = strchr(body, '=');
        size_t len = eq ? (size_t)(eq - body) : strlen(body);
        for (int k = 0; k < NB_NOPTS; k++)
            if (strlen(nb_opts[k].name) == len && !strncmp(nb_opts[k].name, body, len)) d = &nb_opts[k];
        snprintf(name, name_len, "--%.*s", (int)(len < 40 ? len : 40), body);
        if (!d) return nb_fail(NB_EXIT_USAGE, "unknown option '%.200s' (see %s --help)", arg, prog);
        if (eq) {
            if (d->kind == K_FLAG || d->kind == K_HELP || d->kind == K_VERSION)
                return nb_fail(NB_EXIT_USAGE, "%s takes no value (got '%.200s')", name, arg);
            val = eq + 1;
        }
    } else if (arg[0] == '-' && arg[1] && arg[1] != '-') {
        for (int k = 0; k < NB_NOPTS; k++)
            if (nb_opts[k].shrt && nb_opts[k].shrt == arg[1]) d = &nb_opts[k];
        if (!d) return nb_fail(NB_EXIT_USAGE, "unknown option '%.200s' (see %s --help)", arg, prog);
        snprintf(name, name_len, "-%c/--%s", arg[1], d->name);
        if (arg[2]) {
            if (d->kind == K_FLAG || d->kind == K_HELP || d->kind == K_VERSION)
                return nb_fail(NB_EXIT_USAGE, "unknown option '%.200s' (see %s --help)", arg, prog);
            val = arg + 2;             /* -n4096 */
        }
    } else {
        return nb_fail(NB_EXIT_USAGE, "unexpected argument '%.200s' (options start with '-'; see %s --help)",
                       arg, prog);
    }
    *row = d;
    *value = val;
    return 0;
}

/* What the options given say together (after the loop: the order of the
 * options does not matter).  warmup, render_opt, addr_given: --warmup,
 * --render-every or --render-size, --serve-addr were given. */
static int check_together(nb_options *o, int warmup, int render_opt, int addr_given)
{
    if (o->csv_header) o->csv = 1;
    if (o->render_tree && !o->render_dir)
        return nb_fail(NB_EXIT_USAGE, "--render-tree needs --render DIR");
    if (parse_wxh(o->view_size, &o->view_w, &o->view_h) || o->view_w < 64 || o->view_h < 64 ||
        o->view_w > 8192 || o->view_h > 8192)
        return nb_fail(NB_EXIT_USAGE, "--view-size: expected WxH with W and H in [64, 8192], got '%.40s'",
                       o->view_size);
    o->serve = o->serve_port >= 0;
    if (o->view_hold) o->view = 1;             /* --view-hold is --view that stays open at the end */
    const char *live = o->view_hold ? "--view-hold" : o->view ? "--view" : "--serve";
    if ((o->view || o->serve) && (o->bench || o->csv))
        return nb_fail(NB_EXIT_USAGE, "%s does not combine with %s: a timed or machine-read run "
                       "draws no live view", live, o->bench ? "--bench" : "--csv");
    if ((o->view || o->serve) && o->render_dir)
        return nb_fail(NB_EXIT_USAGE, "%s does not combine with --render DIR (the view's s key "
                       "saves the frame on screen)", live);
    if (addr_given && !o->serve)
        return nb_fail(NB_EXIT_USAGE, "--serve-addr needs --serve PORT");
    unsigned char a6[16];
    if (inet_pton(AF_INET, o->serve_addr, a6) != 1 && inet_pton(AF_INET6, o->serve_addr, a6) != 1)
        return nb_fail(NB_EXIT_USAGE, "--serve-addr: expected an IPv4 or IPv6 address such as "
                       "127.0.0.1 or ::1, got '%.60s'", o->serve_addr);
    if (render_opt && !o->render_dir)
        return nb_fail(NB_EXIT_USAGE, "--render-every and --render-size need --render DIR");
    if (warmup && !o->bench)
        return nb_fail(NB_EXIT_USAGE, "--warmup needs --bench (its untimed steps come before the "
                       "timed ones)");
    if (o->bench && o->steps == 0)
        return nb_fail(NB_EXIT_USAGE, "--bench times the steps: -s 0 leaves none to time (give -s "
                       ">= 1)");
    if (o->bench && o->save && o->warmup > 0)
        return nb_fail(NB_EXIT_USAGE, "--save with --bench would save the state after the %d "
                       "warm-up step%s too (%d + %d steps, not -s %d): add --warmup 0, or save from "
                       "a run without --bench", o->warmup, o->warmup == 1 ? "" : "s", o->warmup,
                       o->steps, o->steps);
    if (!nb_ic_is_model(o->ic) && !strncmp(o->ic, "tipsy:", 6) && !o->ic[6])
        return nb_fail(NB_EXIT_USAGE, "--ic: 'tipsy:' needs a file name (tipsy:FILE)");
    return 0;
}

int nb_parse_options(int argc, char **argv, unsigned options, const char *prog, nb_options *o)
{
    nb_options_default(o);
    int help = 0, version = 0, warmup = 0, render_opt = 0, addr_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const opt_row *d = NULL;
        const char *val = NULL;
        char name[64];
        int rc = find_option(arg, prog, &d, name, sizeof name, &val);
        if (rc) return rc;
        if (d->steps && !(d->steps & options))
            return nb_fail(NB_EXIT_USAGE, "%s does not apply to %s (it is an option of %s)", name, prog,
                           d->owner);
        int takes_value = d->kind != K_FLAG && d->kind != K_HELP && d->kind != K_VERSION;
        if (takes_value && !val) {
            if (i + 1 >= argc) return nb_fail(NB_EXIT_USAGE, "%s needs a value: %s", name, d->help);
            val = argv[++i];
        }
        rc = set_value(d, name, val ? val : "", o);
        if (rc) return rc;
        if (d->kind == K_HELP) help = 1;
        if (d->kind == K_VERSION) version = 1;
        if (d->field == F(n)) o->n_given = 1;
        if (d->field == F(warmup)) warmup = 1;
        if (d->field == F(render_every) || d->field == F(render_size)) render_opt = 1;
        if (d->field == F(serve_addr)) addr_given = 1;
        o->given |= d->steps;
    }
    if (help) { nb_print_help(stdout, prog, options); return -1; }
    if (version) { printf("%s (%s)\n", prog, NB_VERSION); return -1; }
    return check_together(o, warmup, render_opt, addr_given);
}
