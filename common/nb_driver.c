/* nb_driver.c -- nb_main(): the program every step shares.
 *
 * parse options -> a file's bodies (read and validated) -> probe the device
 * -> host memory -> device memory -> a model's bodies (generated and
 * validated) -> step.init -> (--bench: warm-up, then per-step timing) or
 * plain steps -> --render frames -> download -> --check against the double
 * direct sum -> --save -> report -> stdout flushed and checked.  --view runs
 * the steps in the view's loop instead (nb_view.h), until the window closes
 * or the steps are done; --check, --save and the report follow as usual.
 * Frames (--render): drawn by the GL renderer through a headless context
 * where one can be made, else by the CPU splatter (the report says which),
 * and written by a writer thread (nb_frames.h).
 * A watchdog downloads the state after the first step, every NB_WATCH_EVERY
 * steps, at every frame drawn from a host copy and at the end: a non-finite
 * position, velocity or acceleration (--check) stops the run with exit 3,
 * so that no run exits 0 with a non-finite state or saves one.
 * Human-readable results go to stdout (or one CSV line with --csv); errors are
 * one line on stderr, and the return value is the exit code. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nb_annot.h"
#include "nb_frames.h"
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_mem.h"
#include "nb_render.h"
#include "nb_step.h"
#include "nb_threads.h"
#include "nb_timer.h"
#include "nb_validate.h"
#include "nb_verify.h"
#include "nb_view.h"

#define NB_CSV_HEADER "step,n,steps,ic,seed,dt,eps,theta,block,threads,device,sms,clock_mhz," \
    "force_ms_med,force_ms_min,step_ms_med,step_ms_min,interactions,inter_per_s,gflops," \
    "err_median,err_p99,err_max,device_bytes,tree_nodes,tree_depth,precision,force_ms_mean," \
    "step_ms_mean"

/* Energy diagnostics (O(N^2) in double) are printed with --check up to this N. */
#define NB_ENERGY_MAX_N 65536

/* The watchdog downloads the state after step 1 and then every this many
 * steps (a download is O(N), a step at least O(N log N)). */
#define NB_WATCH_EVERY 100

/* The GPU memory check of common/nb_cuda.cu: linked into the GPU steps only
 * (a CPU step has no probe and never calls it). */
extern int nb_cuda_fits(long long n, double bytes_per_body) __attribute__((weak));

/* Free text in the report (a file name, a device name): control
 * characters -- a newline in --ic -- become '?', so a result stays one line;
 * in a CSV field, commas and quotes become spaces too. */
static void text_out(FILE *out, const char *s, int csv)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        fputc(c < 0x20 || c == 0x7f ? '?' : csv && (c == ',' || c == '"') ? ' ' : c, out);
    }
}
static void print_text(FILE *out, const char *s) { text_out(out, s, 0); }
static void csv_text(FILE *out, const char *s) { text_out(out, s, 1); }

typedef struct run_ctx {
    const nb_step *step;
    const nb_options *o;
    void *ctx;
    nb_state st;
    nb_render_view view;
    nb_sim sim;                  /* the run as the GL view and frames see it */
    nb_frames *frames;           /* --render: the writer thread */
    nb_glframes *gl;             /* --render through GL, or NULL: the CPU splatter */
    char frames_how[1024];       /* what drew the frames (the report) */
    char frames_time[768];       /* where the frames' time went (the report, not with --csv) */
    char view_report[4096];      /* --view's lines of the report */
} run_ctx;

/* Download the state and stop on a non-finite value: 'done' steps so far. */
static int watch(run_ctx *r, int64_t done)
{
    int rc = r->step->download(r->ctx, &r->st);
    if (rc) return rc;
    r->sim.fresh = 1;
    char when[64];
    snprintf(when, sizeof when, "after step %lld", (long long)done);
    return nb_state_finite(&r->st, when);
}

/* The GL view's hooks into the run (nb_view.h). */
static int sim_check(nb_sim *sim)
{
    run_ctx *r = sim->user;
    char when[64];
    snprintf(when, sizeof when, "after step %lld", (long long)sim->done);
    return nb_state_finite(&r->st, when);
}

static int sim_advance(nb_sim *sim, nb_step_time *t)
{
    run_ctx *r = sim->user;
    int rc = r->step->advance(r->ctx, 1, t);
    sim->done++;
    if (!rc && (sim->done == 1 || sim->done % NB_WATCH_EVERY == 0)) rc = watch(r, sim->done);
    return rc;
}

/* A frame of the current step into the writer's next slot: through GL where
 * a context was made, else the CPU splatter from a download (which the
 * watchdog checks).  A frame the writer has no room for is dropped.
 * *downloaded: r->st was downloaded and checked. */
static int render_now(run_ctx *r, int *downloaded)
{
    *downloaded = 0;
    /* a frame that could not be written stops the run (frames_close says why) */
    if (nb_frames_failed(r->frames)) return NB_EXIT_RUNTIME;
    unsigned char *rgb = nb_frames_slot(r->frames);
    if (!rgb) return 0;
    int rc, size = r->view.size;
    if (r->gl) {
        rc = nb_glframes_draw(r->gl, &r->sim, rgb, downloaded);
        if (!rc && *downloaded) rc = sim_check(&r->sim);
    } else {
        rc = watch(r, r->sim.done);
        *downloaded = 1;
        nb_cells cells, *pc = NULL;
        memset(&cells, 0, sizeof cells);
        if (!rc && r->o->render_tree && r->step->cells) {
            rc = r->step->cells(r->ctx, &cells);
            pc = &cells;
        }
        if (!rc) rc = nb_render_rgb(&r->view, &r->st, pc, rgb);
        if (!rc) {
            nb_facts f;
            nb_annot a = { NULL, 0, 0 };
            nb_view_facts(&f, &r->sim, &r->view, size);
            rc = nb_annot_build(&a, size, size, &f);
            if (!rc) nb_annot_fill(&a, rgb, size, size);
            nb_annot_free(&a);
        }
    }
    if (!rc) nb_frames_submit(r->frames);
    return rc;
}

/* --render: the view, the writer thread, GL if a context can be made. */
static int frames_open(run_ctx *r)
{
    const nb_options *o = r->o;
    int rc = nb_render_setup(&r->view, &r->st, o->render_size, o->render_dir);
    if (!rc) rc = nb_frames_open(&r->frames, o->render_dir, o->render_size, o->render_size);
    if (rc) return rc;
    if (nb_glframes_open(&r->gl, &r->sim, &r->view)) {
        r->gl = NULL;
        snprintf(r->frames_how, sizeof r->frames_how, "the CPU splatter (no GL context: %.900s)",
                 nb_errmsg());
        nb_clear_error();
    }
    return 0;
}

/* Stop the writer (after the frames it has are written) and say what drew them. */
static int frames_close(run_ctx *r, int rc)
{
    if (!r->frames) return rc;
    if (r->gl) snprintf(r->frames_how, sizeof r->frames_how, "%s", nb_glframes_describe(r->gl));
    char gl_time[512] = "";
    if (r->gl) nb_glframes_timing(r->gl, gl_time, sizeof gl_time);
    nb_glframes_close(r->gl);
    r->gl = NULL;
    int64_t written = 0, dropped = 0;
    char keep[1100];
    snprintf(keep, sizeof keep, "%s", rc ? nb_errmsg() : "");
    double busy = 0.0, t0 = nb_now_ms();
    int wrc = nb_frames_close_timed(r->frames, &written, &dropped, &busy);
    double drain = nb_now_ms() - t0;
    r->frames = NULL;
    if (written > 0)
        snprintf(r->frames_time, sizeof r->frames_time, "    frames time: %s%sthe writer %.2f ms a frame "
                 "(PNG, fsync, rename), %.0f ms waited for it at the end\n", gl_time,
                 gl_time[0] ? "; " : "", busy / written, drain);
    char how[1024];
    snprintf(how, sizeof how, "%s", r->frames_how);
    snprintf(r->frames_how, sizeof r->frames_how, "  frames: %lld written to %.200s, %lld dropped "
             "(the writer was behind), drawn by %.600s\n", (long long)written, r->o->render_dir,
             (long long)dropped, how);
    if (r->o->csv) fprintf(stderr, "%s: %s", r->step->name, r->frames_how + 2);
    if (rc && keep[0]) return nb_fail(rc, "%s", keep);     /* the first error wins */
    return wrc ? wrc : rc;                       /* (a frame not written stopped the run) */
}

/* --check of a --precision double or mixed run: the step's own double
 * positions and accelerations (nb_step.state64, accel64) against the double
 * reference, and the energy (e1, may be NULL) of those positions. */
static int check64(run_ctx *r, const char *when, nb_errstats *err, double *e1)
{
    const nb_step *step = r->step;
    int64_t n = r->st.n;
    nb_state64 d;
    int rc = nb_state64_from(&d, &r->st);
    double *a = rc ? NULL : malloc((size_t)n * 3 * sizeof *a);
    if (!rc && !a) rc = nb_fail(NB_EXIT_RUNTIME, "out of host memory for --check");
    if (!rc) rc = step->state64(r->ctx, d.x, d.y, d.z, d.vx, d.vy, d.vz);
    if (!rc) rc = step->accel64(r->ctx, a, a + n, a + 2 * n);
    for (int64_t i = 0; !rc && i < 3 * n; i++)
        if (!isfinite(a[i]))
            rc = nb_fail(NB_EXIT_RUNTIME, "body %lld has a non-finite acceleration (a%c = %g) %s",
                         (long long)(i % n), "xyz"[i / n], a[i], when);
    if (!rc) rc = nb_accel_errors64(&d, r->o->eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, err);
    if (!rc && e1) *e1 = nb_energy64(&d, r->o->eps, NULL, NULL);
    free(a);
    nb_state64_free(&d);
    return rc;
}

static int run(run_ctx *r, nb_bench *bench, nb_errstats *err, int *checked, double energy[2])
{
    const nb_step *step = r->step;
    const nb_options *o = r->o;
    int rc;
    double e0 = 0;
    int want_energy = o->check && !o->csv && r->st.n <= NB_ENERGY_MAX_N;
    if (want_energy) e0 = nb_energy(&r->st, o->eps, NULL, NULL);

    if ((rc = step->init(&r->ctx, &r->st, o))) return rc;
    r->sim = (nb_sim){ step, r->ctx, &r->st, o, 0, 0, sim_advance, sim_check, r };
    int64_t done = 0;
    if (o->view || o->serve) {
        if ((rc = nb_view_run(&r->sim, r->view_report, sizeof r->view_report))) return rc;
        done = r->sim.done;
    } else {
        if (o->render_dir) {
            int downloaded;
            if ((rc = frames_open(r)) || (rc = render_now(r, &downloaded))) return frames_close(r, rc);
        }
        nb_step_time *times = NULL;
        if (o->bench) {
            if (o->warmup > 0 && (rc = step->advance(r->ctx, o->warmup, NULL))) return rc;
            done = o->warmup;
            times = calloc((size_t)(o->steps > 0 ? o->steps : 1), sizeof *times);
            if (!times) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
        }
        nb_progress prog;
        nb_progress_start(&prog, step->name, o->steps);
        for (int k = 0; k < o->steps; k++) {
            rc = step->advance(r->ctx, 1, times ? &times[k] : NULL);
            done++;
            r->sim.done = done;
            int downloaded = 0;
            if (!rc && o->render_dir && (k + 1) % o->render_every == 0) rc = render_now(r, &downloaded);
            if (!rc && !downloaded && k + 1 < o->steps && (k == 0 || (k + 1) % NB_WATCH_EVERY == 0))
                rc = watch(r, done);
            if (rc) {
                nb_progress_end(&prog);         /* the error starts a line of its own */
                free(times);
                return frames_close(r, rc);
            }
            nb_progress_update(&prog, k + 1);
        }
        nb_progress_end(&prog);
        if ((rc = frames_close(r, 0))) { free(times); return rc; }
        if (times) {
            nb_bench_summarize(times, o->steps, bench);
            free(times);
        }
    }
    if ((rc = watch(r, done))) return rc;
    if (o->check) {
        int64_t n = r->st.n;
        char when[64];
        snprintf(when, sizeof when, "after step %lld (--check)", (long long)done);
        if (o->precision != NB_PREC_SINGLE && step->state64 && step->accel64) {
            if ((rc = check64(r, when, err, want_energy ? &energy[1] : NULL))) return rc;
        } else {
            float *a = malloc((size_t)n * 3 * sizeof *a);
            if (!a) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for --check");
            rc = step->accel(r->ctx, a, a + n, a + 2 * n);
            if (!rc) rc = nb_accel_finite(a, a + n, a + 2 * n, n, when);
            if (!rc) rc = nb_accel_errors(&r->st, o->eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, err);
            free(a);
            if (rc) return rc;
            if (want_energy) energy[1] = nb_energy(&r->st, o->eps, NULL, NULL);
        }
        *checked = 1;
        if (want_energy) energy[0] = e0;
    }
    if (o->save && (rc = nb_state_write(o->save, &r->st))) return rc;
    return NB_OK;
}

/* Host memory a run allocates besides its bodies, and what for: a --render
 * frame (12 B/pixel at its peak: the pixels' masses in double, their levels
 * and the RGB image; the view's sample of up to 65536 radii) and --bench's
 * timing records (one per timed step, and a double each to summarize). */
static double extra_bytes(const nb_options *o, char *what, size_t len)
{
    double frame = 0, bench = 0;
    if (o->render_dir)
        frame = 12.0 * o->render_size * o->render_size + 8.0 * o->render_size + 65536 * 8.0;
    if (o->bench) bench = (double)o->steps * (sizeof(nb_step_time) + sizeof(double));
    snprintf(what, len, "%s%s%s", frame > 0 ? "--render frames" : "",
             frame > 0 && bench > 0 ? " and " : "", bench > 0 ? "--bench's timing records" : "");
    return frame + bench;
}

/* Read a file or generate a model into r->st, with the memory checks first
 * and the bodies validated in float (see the order at the top). */
static int bodies(run_ctx *r, nb_options *o)
{
    const nb_step *step = r->step;
    double host = step->host_bytes_per_body > 0 ? step->host_bytes_per_body
                                                : NB_HOST_BYTES_PER_BODY_DEFAULT;
    double dev = step->device_bytes_per_body > 0 ? step->device_bytes_per_body
                                                 : NB_DEVICE_BYTES_PER_BODY_DEFAULT;
    int model = nb_ic_is_model(o->ic), rc;
    char what[80];
    double extra = extra_bytes(o, what, sizeof what);
    if (!model) {
        /* a file is read first: a bad file is exit 2 on every machine, and
         * its size is needed (the readers check the memory for themselves) */
        if ((rc = nb_ic_load(o->ic, o->n, o->n_given, o->seed, &r->st))) return rc;
        o->n = r->st.n;
        if ((rc = nb_state_validate(&r->st, o->eps))) return rc;
        if (step->probe && (rc = step->probe(o))) return rc;
        rc = nb_mem_check_extra(o->n, host, (double)o->n * 7.0 * sizeof(float), extra, what, "",
                                "");
    } else {
        /* the models have total mass 1 */
        if ((rc = nb_eps_check(1.0, o->eps))) return rc;
        if (step->probe && (rc = step->probe(o))) return rc;
        rc = nb_mem_check_extra(o->n, host, 0, extra, what, "", extra > 0 ? "; use a smaller -n, "
                                "--render-size or fewer -s with --bench" : "; use a smaller -n");
    }
    if (rc) return rc;
    if (step->probe && nb_cuda_fits && (rc = nb_cuda_fits((long long)o->n, dev))) return rc;
    if (model) {
        if ((rc = nb_ic_load(o->ic, o->n, o->n_given, o->seed, &r->st))) return rc;
        if ((rc = nb_state_validate(&r->st, o->eps))) return rc;
    }
    return NB_OK;
}

/* What a run measured, for its report. */
typedef struct run_result {
    nb_bench     bench;
    nb_errstats  err;
    double       energy[2];    /* E0 and E with --check (small N), else 0 */
    int          checked;      /* --check compared the accelerations */
    nb_run_info  info;
    nb_tolerance tol;
    int          pass;         /* within tol (1 without --check) */
} run_result;

/* The command line: parsed, the table that runs picked (*step: the --cpu
 * or --precision variant), the options checked against it, the outputs
 * checked before anything is computed.  0: go on; -1: --help or --version
 * printed; else the exit code, its message printed (prog: the name the
 * user ran). */
static int command_line(int argc, char **argv, const nb_step **step, double theta, nb_options *o)
{
    const char *prog = (*step)->name;
    char theta_text[48] = "";
    if (theta > 0) snprintf(theta_text, sizeof theta_text, (*step)->cpu_variant ? "%g; 0.5 with --cpu" : "%g", theta);
    nb_options_theta_help(theta_text);
    /* one command line (and one --help) for a program and its --cpu variant;
     * an option of only one of the two tables is refused with the other */
    unsigned accepted = (*step)->options | ((*step)->cpu_variant ? (*step)->cpu_variant->options : 0);
    int rc = nb_parse_options(argc, argv, accepted, prog, o);
    if (rc < 0) return -1;
    if (rc) { fprintf(stderr, "%s: %s\n", prog, nb_errmsg()); return rc; }
    const char *which = !(*step)->cpu_variant ? "" : o->cpu ? " with --cpu" : " without --cpu";
    if (theta > 0 && !o->cpu && !(o->given & NB_OPT_THETA)) o->theta = theta;
    if (o->cpu && (*step)->cpu_variant) *step = (*step)->cpu_variant;   /* from here on, one table */
    if (o->precision != NB_PREC_SINGLE && (*step)->precision_variant) *step = (*step)->precision_variant;
    if ((rc = nb_options_fit(o, (*step)->options, prog, which)) || (rc = nb_view_usable(o))) {
        fprintf(stderr, "%s: %s\n", prog, nb_errmsg());
        return rc;
    }

    /* where the results will go, before anything is computed */
    const char *input = nb_ic_is_model(o->ic) ? NULL : !strncmp(o->ic, "tipsy:", 6) ? o->ic + 6 : o->ic;
    if ((o->save && (rc = nb_out_check("--save", o->save, input))) ||
        (o->render_dir && (rc = nb_render_check(o->render_dir)))) {
        fprintf(stderr, "%s: %s\n", prog, nb_errmsg());
        return rc;
    }
    return 0;
}

/* The threads of the run, started now (a limit on threads is exit 3 here,
 * not libgomp's exit 1 later): a CPU code's --threads, and the double
 * reference's for --check -- the same --threads, or at most NB_REF_THREADS
 * beside a GPU code. */
static int start_threads(const nb_step *step, const nb_options *o)
{
    int cpu_code = (step->options & NB_OPT_THREADS) != 0;
    int ref = cpu_code ? o->threads : omp_get_max_threads() < NB_REF_THREADS ? omp_get_max_threads()
                                                                             : NB_REF_THREADS;
    nb_ref_set_threads(ref);
    int team = cpu_code ? o->threads : 1;
    if (o->check && ref > team) team = ref;
    return nb_threads_start(team, cpu_code ? "use fewer --threads" : "run without --check");
}

/* The --csv line (NB_CSV_HEADER's columns). */
static void report_csv(const nb_step *step, const nb_options *o, const run_result *res)
{
    const nb_bench *bench = &res->bench;
    const nb_run_info *info = &res->info;
    if (o->csv_header) puts(NB_CSV_HEADER);
    printf("%s,%lld,%d,", step->name, (long long)o->n, o->steps);
    csv_text(stdout, o->ic);
    printf(",%llu,%g,%g,", (unsigned long long)o->seed, o->dt, o->eps);
    if (step->options & NB_OPT_THETA) printf("%g", o->theta);
    printf(",%d,%d,", info->block, (step->options & NB_OPT_THREADS) ? o->threads : 0);
    csv_text(stdout, info->device);
    printf(",%d,%d,", info->sms, info->clock_mhz);
    if (o->bench)
        printf("%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,", bench->force_med, bench->force_min,
               bench->step_med, bench->step_min, bench->interactions, bench->inter_per_s, bench->gflops);
    else
        printf(",,,,,,,");
    if (res->checked) printf("%.3g,%.3g,%.3g,", res->err.median, res->err.p99, res->err.max);
    else printf(",,,");
    printf("%.0f,%lld,%d,%s,", info->device_bytes, (long long)info->tree_nodes, info->tree_depth,
           nb_precision_name(o->precision));
    if (o->bench) printf("%.6g,%.6g\n", bench->force_mean, bench->step_mean);
    else printf(",\n");
}

/* --bench's lines of the report. */
static void report_bench(const run_ctx *r, const nb_bench *bench)
{
    const nb_options *o = r->o;
    printf("  bench: %d timed steps after %d warm-up step%s (%s)\n",
           bench->count, o->warmup, o->warmup == 1 ? "" : "s",
           r->step->probe ? "bodies stay on the device, copies excluded" : "host clock");
    printf("    force  median %10.4f ms   min %10.4f ms   mean %10.4f ms\n", bench->force_med,
           bench->force_min, bench->force_mean);
    printf("    step   median %10.4f ms   min %10.4f ms   mean %10.4f ms\n", bench->step_med,
           bench->step_min, bench->step_mean);
    printf("    rate   %.4g interactions/step, %.4g G interactions/s, %.1f GFLOP/s "
           "(20 flops/interaction, median force time)\n",
           bench->interactions, bench->inter_per_s * 1e-9, bench->gflops);
    if (r->step->report) r->step->report(r->ctx, stdout);
}

/* The report for people: the run, the device, the frames, the view,
 * --bench's times, --check's errors and energy. */
static void report(const run_ctx *r, const run_result *res)
{
    const nb_step *step = r->step;
    const nb_options *o = r->o;
    const nb_run_info *info = &res->info;
    printf("%s: %s\n", step->name, step->idea);
    printf("  bodies %lld (", (long long)o->n);
    print_text(stdout, o->ic);
    printf(", seed %llu), %d steps", (unsigned long long)o->seed, o->steps);
    if (o->bench && o->warmup > 0) printf(" (+%d warm-up)", o->warmup);
    printf(" of dt %g, eps %g", o->dt, o->eps);
    if (step->options & NB_OPT_THETA) printf(", theta %g", o->theta);
    if (step->options & NB_OPT_PRECISION) printf(", precision %s", nb_precision_name(o->precision));
    putchar('\n');
    if (info->clock_mhz || info->block)
        printf("  device %s (%d SMs, %d MHz), block %d, %.1f MiB on the device (%.0f B/body)\n",
               info->device, info->sms, info->clock_mhz, info->block, info->device_bytes / 1048576.0,
               info->device_bytes / (double)o->n);
    else
        printf("  cpu %s, %d thread%s\n", info->device, info->sms, info->sms == 1 ? "" : "s");
    if (info->tree_nodes)
        printf("  tree: %lld cells, depth %d\n", (long long)info->tree_nodes, info->tree_depth);
    fputs(r->frames_how, stdout);
    fputs(r->frames_time, stdout);
    fputs(r->view_report, stdout);
    if (o->bench) report_bench(r, &res->bench);
    if (res->checked) {
        const nb_errstats *err = &res->err;
        printf("  check: %lld bodies vs double direct sum: median %.3g, p99 %.3g, max %.3g -> %s\n",
               (long long)err->count, err->median, err->p99, err->max, res->pass ? "PASS" : "FAIL");
        printf("    tolerance: %s\n", res->tol.why);
        if (res->energy[0] != 0)
            printf("  energy: E0 %.9g, E %.9g, relative change %.3g\n", res->energy[0], res->energy[1],
                   (res->energy[1] - res->energy[0]) / fabs(res->energy[0]));
    }
}

/* The command line, the bodies, the threads, the run, its report: the exit
 * code (nb_main()). */
static int nb_main_run(int argc, char **argv, const nb_step *step, double theta)
{
    const char *prog = step->name;
    nb_options o;
    int rc = command_line(argc, argv, &step, theta, &o);
    if (rc) return rc < 0 ? 0 : rc;

    run_ctx r;
    memset(&r, 0, sizeof r);
    r.step = step;
    r.o = &o;
    if (!(rc = bodies(&r, &o))) {
        o.n = r.st.n;
        rc = start_threads(step, &o);
    }
    if (rc) {
        fprintf(stderr, "%s: %s\n", prog, nb_errmsg());
        nb_state_free(&r.st);
        return rc;
    }
    run_result res;
    memset(&res, 0, sizeof res);
    rc = run(&r, &res.bench, &res.err, &res.checked, res.energy);

    if (!rc) {
        if (step->info) step->info(r.ctx, &res.info);
        else { nb_cpu_model(res.info.device, sizeof res.info.device); res.info.sms = o.threads; }
    }
    res.tol = nb_tolerance_for_precision(step->tree, o.theta, o.n, o.precision);
    res.pass = res.checked ? nb_within_tolerance(&res.err, &res.tol) : 1;
    if (!rc && o.csv) report_csv(step, &o, &res);
    else if (!rc) report(&r, &res);
    if (r.ctx) step->destroy(r.ctx);
    nb_state_free(&r.st);
    if (rc) {
        fprintf(stderr, "%s: %s\n", prog, nb_errmsg());
        return rc;
    }
    if (!res.pass) {
        fprintf(stderr, "%s: check failed: median %.3g, p99 %.3g, max %.3g exceed the tolerance (%s)\n",
                prog, res.err.median, res.err.p99, res.err.max, res.tol.why);
        return NB_EXIT_CHECK;
    }
    return 0;
}

int nb_main(int argc, char **argv, const nb_step *step) { return nb_main_theta(argc, argv, step, 0); }

int nb_main_theta(int argc, char **argv, const nb_step *step, double theta)
{
    /* A closed pipe (nbody | head -1) or the file size limit (ulimit -f)
     * kill a program by default: here a write fails instead (EPIPE, EFBIG),
     * and the run says what happened. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    int rc = nb_main_run(argc, argv, step, theta);
    /* results on a full disk are an I/O error, not a success; a reader that
     * closed the pipe after what it wanted (head -1) is not (coreutils keep
     * quiet too): the run's own code stands */
    errno = 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !bad) { bad = 1; err = errno; }
    if (bad && err == EPIPE) return rc;
    if (bad && (rc == 0 || rc == NB_EXIT_CHECK)) {
        fprintf(stderr, "%s: error writing the results to stdout: %s\n", step->name,
                err ? strerror(err) : "I/O error");
        return NB_EXIT_RUNTIME;
    }
    return rc;
}
