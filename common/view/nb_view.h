/* nb_view.h -- what nb_main() asks of the GL view: the live window (--view)
 * and --render's GL frames.  common/view/nb_view.c implements it where
 * the kit is built with OpenGL (common/view/gl.mk),
 * common/view/nb_view_none.c where it is not (--view then exits 2 saying
 * why, and --render falls back to the CPU splatter).
 *
 * The window, and the keys that --help lists (NB_VIEW_KEYS_HELP,
 * nb_view_help.h): space
 * pause/resume, '.' one step, 't' tree overlay (tree codes), '[' / ']' its
 * depth, 'c' colour mode (mass per pixel, body mass, speed), 's'
 * screenshot (nbody_<program>_<step>.png in the current directory, _1, _2
 * ... added rather than overwrite a file: the frame --render draws at that
 * step, from the camera and in the colour mode on screen, without the
 * heads-up line), 'r' reset the
 * camera, arrows or a mouse drag rotate, '+' / '-' or the wheel zoom, 'q'
 * or Esc quit; the window closes by itself after the last step unless
 * --view-hold keeps it open.  The heads-up line (on screen and in the title bar): step, t,
 * N, ms per step, G interactions/s, |dE/E0| (N <= NB_VIEW_ENERGY_MAX_N),
 * colour mode, tree depth.
 *
 * Decoupled: while the simulation runs, a frame is drawn when the time
 * since the last one is at least 1/60 s and at least 1/NB_VIEW_BUDGET
 * times what a frame costs (feeding, drawing, presenting, measured on the
 * wall clock: a running mean without the first frame), so that drawing
 * adds at most NB_VIEW_BUDGET to the simulation's time, and a step waits at
 * most one frame.  The budget is 4% for a 5% target: the frame's wall clock
 * does not see all of its cost (the GPU's work for a frame can finish
 * during the next step).  Frames that cost more than NB_VIEW_SLOWEST_MS *
 * NB_VIEW_BUDGET (software GL) still come every NB_VIEW_SLOWEST_MS: then
 * the view takes more than NB_VIEW_BUDGET, and the report says how much.
 *
 * Test hooks (environment):
 *   NB_VIEW_EVENTS="space . . s q"  input events, one per turn of the loop,
 *       dispatched to the callbacks GLFW calls: a key (space, esc, left,
 *       right, up, down, or one character), drag:DX:DY (a mouse drag by
 *       DX, DY pixels), wheel:N, close (the window manager's close), or
 *       wait:K (K turns without an event); and two for measuring: depth:D
 *       (the tree overlay on, down to depth D) and bench:K (K frames drawn
 *       back to back, their GPU and wall times in the report).  When the events have run out
 *       and the run has all its steps or is paused, the view closes itself (a window with
 *       --view-hold stays open at the end of the steps, until q or a close).
 *   NB_VIEW_HEADLESS=WxH  no window: the view draws into a W x H image of
 *       a headless context (nb_egl.h), with the events above (none: it
 *       runs all the steps and closes); for tests and for measuring the
 *       view on a server without a display. */
#ifndef NB_VIEW_H
#define NB_VIEW_H
#include <stddef.h>
#include <stdint.h>
#include "nb_options.h"
#include "nb_render.h"
#include "nb_state.h"
#include "nb_step.h"
#include "nb_view_help.h"   /* NB_VIEW_KEYS_HELP, NB_SERVE_HELP */
#ifdef __cplusplus
extern "C" {
#endif

#define NB_VIEW_BUDGET 0.04
#define NB_VIEW_SLOWEST_MS 250.0
#define NB_VIEW_ENERGY_MAX_N 8192

/* The run as the view drives it (nb_driver.c fills it). */
typedef struct nb_sim {
    const nb_step    *step;
    void             *ctx;
    nb_state         *st;       /* the host copy: valid after a download */
    const nb_options *o;
    int64_t           done;     /* steps done */
    int               fresh;    /* st was downloaded (and checked) since the view last looked */
    /* One leapfrog step (advance(1)) with the watchdog's downloads
     * (nb_driver.c); done++.  t: the step's timing. */
    int (*advance)(struct nb_sim *sim, nb_step_time *t);
    /* A state just downloaded into st: the watchdog's check. */
    int (*check)(struct nb_sim *sim);
    void             *user;
} nb_sim;

/* Called right after the options: 0 when --view can run here, else
 * NB_EXIT_USAGE with one line (no display, built without a window, a bad
 * NB_VIEW_HEADLESS).  0 without --view. */
int nb_view_usable(const nb_options *o);
/* The view's loop: steps until the run has o->steps and their last frame
 * is drawn (with --view-hold, until q, Esc or a close: the window stays
 * open at the end), or the window closes; with a window, the keys' line
 * (NB_VIEW_KEYS_LINE) once on stderr when it opens.
 * report: lines for the run's report (each starting with two spaces).
 * Returns the exit code (the message in nb_errmsg()). */
int nb_view_run(nb_sim *sim, char *report, size_t len);

/* --render's frames through GL: open fails (non-zero, the reason in
 * nb_errmsg()) where no GL context can be made; draw writes the frame of
 * the current step, size x size RGB with its facts, into rgb; *downloaded:
 * sim->st now holds the state (the watchdog then checks it). */
typedef struct nb_glframes nb_glframes;
int  nb_glframes_open(nb_glframes **f, nb_sim *sim, const nb_render_view *v);
int  nb_glframes_draw(nb_glframes *f, nb_sim *sim, unsigned char *rgb, int *downloaded);
/* What drew the frames: the GL renderer, the context, how the bodies came. */
const char *nb_glframes_describe(nb_glframes *f);
/* Where their time went on the run's thread: opening the context and the
 * renderer, the first frame, then per frame the bodies (and cells) in,
 * drawing, reading back (which waits for the GPU). */
void nb_glframes_timing(nb_glframes *f, char *buf, size_t len);
void nb_glframes_close(nb_glframes *f);

/* The facts of the frame of the current step (program, step, t, N, scale,
 * legend) for a w x h frame of view v in colour mode 'mode' (density). */
struct nb_facts;
void nb_view_facts(struct nb_facts *f, const nb_sim *sim, const nb_render_view *v, int w);

#ifdef __cplusplus
}
#endif
#endif
