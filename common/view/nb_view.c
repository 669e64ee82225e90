/* nb_view.c -- the live view (--view, --serve) and --render's GL frames, in
 * a build with OpenGL (see nb_view.h for the keys, the pacing and the test
 * hooks).
 *
 * The window is GLFW's (OpenGL 3.3 core, forward compatible); with --serve
 * alone, or NB_VIEW_HEADLESS, the same loop draws into the image of a
 * headless EGL context (nb_egl.h).  The drawing is nb_gl.c's in both, and
 * the bodies come through nb_gl_fetch(): on the GPU without a host copy
 * where the step and the context allow it.
 *
 * Input: GLFW calls key(), button(), cursor() and scroll() below; the
 * event script NB_VIEW_EVENTS and the browser's controls (--serve,
 * nb_serve.h) call the same functions, through the pointers GLFW holds for
 * the window (without a window, directly), so a test and a browser drive
 * exactly the code a person at the window does.  With --serve, each frame
 * drawn while a browser watches is also read back and handed to the
 * server's thread, which encodes and sends it; a screenshot asked for by a
 * browser goes to that browser instead of a file.
 *
 * Ctrl-C (SIGINT) and SIGTERM stop the loop as 'q' does, so that --check,
 * --save and the report still follow; the handler is one-shot: a second
 * Ctrl-C kills the program. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "nb_egl.h"
#include "nb_error.h"
#include "nb_gl.h"
#include "nb_serve.h"
#include "nb_timer.h"
#include "nb_verify.h"
#include "nb_view.h"
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifdef NB_HAVE_GLFW
#define GLFW_INCLUDE_NONE 1
#include <GLFW/glfw3.h>
#endif

/* GLFW's key codes and actions (the same numbers without GLFW). */
enum {
    K_SPACE = 32, K_PERIOD = 46, K_MINUS = 45, K_EQUAL = 61, K_C = 67, K_Q = 81, K_R = 82,
    K_S = 83, K_T = 84, K_LBRACKET = 91, K_RBRACKET = 93, K_ESCAPE = 256, K_RIGHT = 262,
    K_LEFT = 263, K_DOWN = 264, K_UP = 265, K_KP_SUBTRACT = 333, K_KP_ADD = 334,
    A_RELEASE = 0, A_PRESS = 1, A_REPEAT = 2
};

typedef struct view {
    nb_sim       *sim;
    nb_gl        *gl;
    nb_gl_feed    feed;
    nb_egl       *egl;               /* headless */
    void         *win;               /* GLFWwindow, or NULL headless */
    int           w, h;              /* the image drawn */
    nb_render_view rv;
    nb_gl_scene   sc;
    nb_gl_camera  cam0;
    int           paused, step_req, quit, shot_req, finished, dirty;
    int           bench;             /* frames still to draw back to back (bench:K) */
    double       *bench_gpu, *bench_wall;
    int           bench_n, bench_cap;
    char          bench_report[2048];
    int           tree_ok, tree_on, tree_depth, tree_levels;
    int           dragging;
    double        mx, my;
    const char   *stop_why;
    /* the event script */
    char         *script;
    char        **tok;
    int           ntok, itok, wait;
    /* statistics */
    int64_t       frames, shots;
    double        t0, last_end, frame_cost, cost_avg, frame_ms_sum, step_ms, inter_s, e0, de;
    /* where the frames' time goes (the report): opening, the first frame,
     * then the others' bodies in, draw issued, the wait for the GPU */
    double        open_ms, first_ms, in_ms, issue_ms, finish_ms;
    int64_t       e_done;            /* the step of the last |dE/E0|, -1 none */
    char          last_shot[512];
    /* --serve */
    nb_serve     *srv;
    int           watchers;          /* viewers connected at the last look */
    int           shot_to;           /* the viewer a screenshot goes to; 0: a file */
    char          serve_report[2048];
} view;

static double now_ms(void) { return nb_now_ms(); }

/* The window ends with the run: when the steps are done and their last
 * frame is drawn (and no browser watches, with --serve too), unless
 * --view-hold keeps it open until q, Esc or the window manager closes it.
 * The event script (a test's) ends it its own way (nb_view.h), except that
 * --view-hold keeps a window open at the end of the steps there too. */
static int hold(const view *v) { return v->win && v->sim->o->view_hold; }

/* Ctrl-C and SIGTERM: the loop stops at its next turn (one-shot handler). */
static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

/* ---- input --------------------------------------------------------------- */

static void rotate(view *v, double dyaw, double dpitch)
{
    v->sc.cam.yaw += dyaw;
    v->sc.cam.pitch += dpitch;
    v->dirty = 1;
}

static void zoom(view *v, double f)
{
    v->sc.cam.half /= f;
    v->dirty = 1;
}

static void on_key(view *v, int key, int action)
{
    if (action != A_PRESS && action != A_REPEAT)
        return;
    switch (key) {
    case K_SPACE: v->paused = !v->paused; v->dirty = 1; break;
    case K_PERIOD: v->paused = 1; v->step_req = 1; break;
    case K_T:
        if (v->tree_ok) { v->tree_on = !v->tree_on; v->dirty = 1; }
        break;
    case K_LBRACKET:
    case K_RBRACKET:
        if (!v->tree_ok) break;
        if (!v->tree_levels) {
            nb_run_info info;
            memset(&info, 0, sizeof info);
            if (v->sim->step->info) v->sim->step->info(v->sim->ctx, &info);
            v->tree_levels = info.tree_depth > 0 ? info.tree_depth : 16;
        }
        if (key == K_LBRACKET)
            v->tree_depth = v->tree_depth < 0 ? v->tree_levels - 2 : v->tree_depth > 0 ? v->tree_depth - 1 : 0;
        else if (v->tree_depth >= 0)
            v->tree_depth = v->tree_depth + 1 >= v->tree_levels - 1 ? -1 : v->tree_depth + 1;
        if (v->tree_depth < -1) v->tree_depth = 0;
        v->tree_on = 1;
        v->dirty = 1;
        break;
    case K_C: v->sc.mode = (v->sc.mode + 1) % NB_COLOUR_MODES; v->dirty = 1; break;
    case K_S: v->shot_req = 1; break;
    case K_R: v->sc.cam = v->cam0; v->dirty = 1; break;
    case K_LEFT: rotate(v, -M_PI / 36, 0); break;
    case K_RIGHT: rotate(v, M_PI / 36, 0); break;
    case K_UP: rotate(v, 0, -M_PI / 36); break;
    case K_DOWN: rotate(v, 0, M_PI / 36); break;
    case K_EQUAL: case K_KP_ADD: zoom(v, 1.25); break;
    case K_MINUS: case K_KP_SUBTRACT: zoom(v, 0.8); break;
    case K_Q: case K_ESCAPE: v->quit = 1; v->stop_why = "quit"; break;
    default: break;
    }
}

static void on_button(view *v, int press) { v->dragging = press; }

static void on_cursor(view *v, double x, double y)
{
    if (v->dragging)
        rotate(v, (x - v->mx) * 0.01, (y - v->my) * 0.01);
    v->mx = x;
    v->my = y;
}

static void on_scroll(view *v, double dy) { zoom(v, pow(1.1, dy)); }

#ifdef NB_HAVE_GLFW
static view *of(GLFWwindow *w) { return (view *)glfwGetWindowUserPointer(w); }
static void cb_key(GLFWwindow *w, int key, int sc, int action, int mods)
{
    (void)sc; (void)mods;
    on_key(of(w), key, action);
}
static void cb_button(GLFWwindow *w, int button, int action, int mods)
{
    (void)mods;
    if (button == GLFW_MOUSE_BUTTON_LEFT) on_button(of(w), action == GLFW_PRESS);
}
static void cb_cursor(GLFWwindow *w, double x, double y) { on_cursor(of(w), x, y); }
static void cb_scroll(GLFWwindow *w, double dx, double dy) { (void)dx; on_scroll(of(w), dy); }
static char glfw_why[256];
static void cb_error(int code, const char *what) { snprintf(glfw_why, sizeof glfw_why, "%s (GLFW error 0x%x)", what, code); }
#endif

/* One event of the script, through the window's callbacks (or directly,
 * headless).  0, or NB_EXIT_USAGE for an event it does not know. */
static int dispatch(view *v, const char *t)
{
    int key = 0;
    double a = 0, b = 0;
    if (!strcmp(t, "space")) key = K_SPACE;
    else if (!strcmp(t, "esc")) key = K_ESCAPE;
    else if (!strcmp(t, "left")) key = K_LEFT;
    else if (!strcmp(t, "right")) key = K_RIGHT;
    else if (!strcmp(t, "up")) key = K_UP;
    else if (!strcmp(t, "down")) key = K_DOWN;
    else if (strlen(t) == 1) {
        key = t[0] >= 'a' && t[0] <= 'z' ? t[0] - 'a' + 'A' : t[0] == '+' ? K_KP_ADD : t[0];
    } else if (sscanf(t, "wait:%lf", &a) == 1 && a >= 0) {
        v->wait = (int)a;
        return 0;
    } else if (sscanf(t, "bench:%lf", &a) == 1 && a >= 1 && a <= 100000) {
        v->bench = (int)a;
        return 0;
    } else if (sscanf(t, "depth:%lf", &a) == 1 && a >= 0 && a <= 64) {
        v->tree_depth = (int)a;
        v->tree_on = v->tree_ok;
        v->dirty = 1;
        return 0;
    } else if (!strcmp(t, "close")) {
#ifdef NB_HAVE_GLFW
        if (v->win) { glfwSetWindowShouldClose((GLFWwindow *)v->win, GLFW_TRUE); return 0; }
#endif
        v->quit = 1;
        v->stop_why = "window closed";
        return 0;
    } else if (sscanf(t, "wheel:%lf", &a) == 1) {
#ifdef NB_HAVE_GLFW
        if (v->win) {
            GLFWscrollfun f = glfwSetScrollCallback((GLFWwindow *)v->win, NULL);
            glfwSetScrollCallback((GLFWwindow *)v->win, f);
            f((GLFWwindow *)v->win, 0, a);
            return 0;
        }
#endif
        on_scroll(v, a);
        return 0;
    } else if (sscanf(t, "drag:%lf:%lf", &a, &b) == 2) {
#ifdef NB_HAVE_GLFW
        if (v->win) {
            GLFWwindow *w = (GLFWwindow *)v->win;
            GLFWmousebuttonfun fb = glfwSetMouseButtonCallback(w, NULL);
            GLFWcursorposfun fc = glfwSetCursorPosCallback(w, NULL);
            glfwSetMouseButtonCallback(w, fb);
            glfwSetCursorPosCallback(w, fc);
            fc(w, 100, 100);
            fb(w, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
            fc(w, 100 + a, 100 + b);
            fb(w, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
            return 0;
        }
#endif
        on_cursor(v, 100, 100);
        on_button(v, 1);
        on_cursor(v, 100 + a, 100 + b);
        on_button(v, 0);
        return 0;
    } else
        return nb_fail(NB_EXIT_USAGE, "NB_VIEW_EVENTS: unknown event '%.40s'", t);
#ifdef NB_HAVE_GLFW
    if (v->win) {
        GLFWkeyfun f = glfwSetKeyCallback((GLFWwindow *)v->win, NULL);
        glfwSetKeyCallback((GLFWwindow *)v->win, f);
        f((GLFWwindow *)v->win, key, 0, GLFW_PRESS, 0);
        f((GLFWwindow *)v->win, key, 0, GLFW_RELEASE, 0);
        return 0;
    }
#endif
    on_key(v, key, A_PRESS);
    return 0;
}

static int parse_script(view *v, const char *s)
{
    if (!s)
        return 0;
    v->script = strdup(s);
    size_t len = strlen(s);
    v->tok = calloc(len / 2 + 2, sizeof *v->tok);
    if (!v->script || !v->tok)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory for NB_VIEW_EVENTS");
    for (char *p = strtok(v->script, " \t\n,"); p; p = strtok(NULL, " \t\n,"))
        v->tok[v->ntok++] = p;
    if (!v->ntok)
        v->tok[v->ntok++] = "wait:0";            /* set but empty: still scripted */
    return 0;
}

/* ---- frames ---------------------------------------------------------------- */

static int parse_size(const char *s, int *w, int *h)
{
    char tail;
    return s && sscanf(s, "%dx%d%c", w, h, &tail) == 2 && *w >= 16 && *h >= 16 && *w <= 8192 &&
           *h <= 8192 ? 0 : -1;
}

static int take_shot(view *v)
{
    nb_facts f;
    nb_view_facts(&f, v->sim, &v->rv, v->w < v->h ? v->w : v->h);
    f.mode = v->sc.mode;
    f.lo = v->sc.lo[f.mode];
    f.hi = v->sc.hi[f.mode];
    f.unit_px = 2.0 * v->sc.cam.half / (v->w < v->h ? v->w : v->h);
    nb_gl_scene sc = v->sc;
    sc.facts = &f;
    if (v->shot_to > 0) {                           /* a browser's: drawn here, sent by the server */
        unsigned char *slot = nb_serve_slot(v->srv, NB_SERVE_SHOT, v->w, v->h);
        if (!slot)
            return 0;                               /* the last one is still being sent */
        int rc = nb_gl_draw(v->gl, NB_GL_OFFSCREEN, v->w, v->h, &sc);
        if (!rc) rc = nb_gl_read(v->gl, NB_GL_OFFSCREEN, v->w, v->h, slot);
        if (rc)
            return rc;
        char name[128];
        snprintf(name, sizeof name, "nbody_%s_%06lld.png", v->sim->step->name, (long long)v->sim->done);
        nb_serve_submit(v->srv, NB_SERVE_SHOT, NULL, name, v->shot_to);
        v->shots++;
        return 0;
    }
    size_t bytes = (size_t)v->w * v->h * 3;
    unsigned char *rgb = malloc(bytes);
    if (!rgb)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory for a screenshot");
    int rc = nb_gl_draw(v->gl, NB_GL_OFFSCREEN, v->w, v->h, &sc);
    if (!rc)
        rc = nb_gl_read(v->gl, NB_GL_OFFSCREEN, v->w, v->h, rgb);
    if (!rc) {
        char why[1200];
        /* never over an existing file: a second shot of a step gets _1, _2, ... */
        for (int k = 0; k < 1000; k++) {
            if (k == 0)
                snprintf(v->last_shot, sizeof v->last_shot, "nbody_%s_%06lld.png", v->sim->step->name,
                         (long long)v->sim->done);
            else
                snprintf(v->last_shot, sizeof v->last_shot, "nbody_%s_%06lld_%d.png",
                         v->sim->step->name, (long long)v->sim->done, k);
            if (access(v->last_shot, F_OK) != 0)
                break;
        }
        if (nb_png_write(v->last_shot, rgb, v->w, v->h, why, sizeof why))
            rc = nb_fail(NB_EXIT_RUNTIME, "screenshot: %s", why);
        else
            v->shots++;
    }
    free(rgb);
    return rc;
}

/* The heads-up line's parts: |dE/E0|, the tree, the colour mode, the state. */
static const char *hud_parts(view *v, char *de, size_t dlen, char *tree, size_t tlen, const char **state)
{
    if (v->sim->st->n > NB_VIEW_ENERGY_MAX_N) snprintf(de, dlen, "n/a (N > %d)", NB_VIEW_ENERGY_MAX_N);
    else if (v->de < 0) snprintf(de, dlen, "-");
    else snprintf(de, dlen, "%.2e", v->de);
    if (!v->tree_ok) snprintf(tree, tlen, "no tree");
    else if (!v->tree_on) snprintf(tree, tlen, "tree off (t)");
    else if (v->tree_depth < 0) snprintf(tree, tlen, "tree: all levels");
    else snprintf(tree, tlen, "tree: depth <= %d", v->tree_depth);
    *state = v->finished ? "done" : v->paused ? "paused" : "running";
    static const char *modes[] = { "colour: mass per pixel", "colour: mass", "colour: speed" };
    return modes[v->sc.mode];
}

static void hud_line(view *v, char *buf, size_t len)
{
    char de[32], tree[48];
    const char *state, *mode = hud_parts(v, de, sizeof de, tree, sizeof tree, &state);
    snprintf(buf, len, "%s   %.3f ms/step   %.3g G interactions/s   |dE/E0| %s   %s   %s", state,
             v->step_ms, v->inter_s * 1e-9, de, mode, tree);
}

/* The frame just drawn, read back for the browsers (--serve) with the
 * heads-up line's facts as JSON; dropped when the server still holds the
 * last one. */
static int serve_frame(view *v)
{
    unsigned char *slot = nb_serve_slot(v->srv, NB_SERVE_FRAME, v->w, v->h);
    if (!slot)
        return 0;
    int rc = nb_gl_read(v->gl, v->win ? NB_GL_WINDOW : NB_GL_OFFSCREEN, v->w, v->h, slot);
    if (rc)
        return rc;
    char de[32], tree[48], status[768];
    const char *state, *mode = hud_parts(v, de, sizeof de, tree, sizeof tree, &state);
    snprintf(status, sizeof status, "{\"type\":\"frame\",\"program\":\"%s\",\"step\":%lld,\"steps\":%d,"
             "\"t\":%.6g,\"n\":%lld,\"ms\":%.3f,\"gis\":%.3g,\"de\":\"%s\",\"state\":\"%s\","
             "\"mode\":\"%s\",\"tree\":\"%s\",\"w\":%d,\"h\":%d}", v->sim->step->name,
             (long long)v->sim->done, v->sim->o->steps, v->sim->done * v->sim->o->dt,
             (long long)v->sim->st->n, v->step_ms, v->inter_s * 1e-9, de, state, mode, tree, v->w, v->h);
    nb_serve_submit(v->srv, NB_SERVE_FRAME, status, NULL, 0);
    return 0;
}

static int draw(view *v)
{
    double t0 = now_ms();
    int downloaded = 0, rc;
#ifdef NB_HAVE_GLFW
    if (v->win)
        glfwGetFramebufferSize((GLFWwindow *)v->win, &v->w, &v->h);
#endif
    if (v->w < 1 || v->h < 1)
        return 0;                                   /* minimized */
    rc = nb_gl_fetch(v->gl, &v->feed, v->sim->step, v->sim->ctx, v->sim->st, v->tree_depth,
                    v->tree_on, &downloaded);
    if (!rc && downloaded)
        rc = v->sim->check(v->sim);
    if (rc)
        return rc;
    double t1 = now_ms();
    if (downloaded)
        v->sim->fresh = 1;
    /* |dE/E0| from a fresh host copy: O(N^2), so at most once per 100 steps
     * while running (and for each new state while paused) */
    int64_t d = v->sim->done;
    if (v->sim->fresh && v->sim->st->n <= NB_VIEW_ENERGY_MAX_N && v->e0 != 0 &&
        (v->e_done < 0 || d - v->e_done >= 100 || ((v->paused || v->finished) && d != v->e_done))) {
        v->de = fabs((nb_energy(v->sim->st, v->sim->o->eps, NULL, NULL) - v->e0) / v->e0);
        v->sim->fresh = 0;
        v->e_done = d;
    }
    v->sc.tree = v->tree_on;
    if (v->shot_req) {
        v->shot_req = 0;
        rc = take_shot(v);
        v->shot_to = 0;
        if (rc)
            return rc;
    }
    nb_facts f;
    char hud[256];
    nb_view_facts(&f, v->sim, &v->rv, v->w < v->h ? v->w : v->h);
    f.mode = v->sc.mode;
    f.lo = v->sc.lo[f.mode];
    f.hi = v->sc.hi[f.mode];
    f.unit_px = 2.0 * v->sc.cam.half / (v->w < v->h ? v->w : v->h);
    hud_line(v, hud, sizeof hud);
    f.hud = hud;
    v->sc.facts = &f;
    rc = nb_gl_draw(v->gl, v->win ? NB_GL_WINDOW : NB_GL_OFFSCREEN, v->w, v->h, &v->sc);
    v->sc.facts = NULL;
    if (!rc && v->srv && v->watchers > 0)
        rc = serve_frame(v);                    /* before a window's buffers swap */
    if (rc)
        return rc;
#ifdef NB_HAVE_GLFW
    if (v->win) {
        char title[256];
        snprintf(title, sizeof title, "%s   step %lld   t = %.4g   N = %lld", v->sim->step->name,
                 (long long)v->sim->done, v->sim->done * v->sim->o->dt, (long long)v->sim->st->n);
        glfwSetWindowTitle((GLFWwindow *)v->win, title);
        glfwSwapBuffers((GLFWwindow *)v->win);
    }
#endif
    double t2 = now_ms();
    nb_gl_finish();
    v->frames++;
    v->dirty = 0;
    v->last_end = now_ms();
    v->frame_cost = v->last_end - t0;
    if (v->frames == 1)
        v->first_ms = v->frame_cost;
    else {
        v->in_ms += t1 - t0;
        v->issue_ms += t2 - t1;
        v->finish_ms += v->last_end - t2;
    }
    v->frame_ms_sum += v->frame_cost;
    /* the pacing's cost: a running mean, without the first frame (warm-up) */
    v->cost_avg = v->frames == 1 ? 0.0 : v->frames == 2 ? v->frame_cost
                : 0.8 * v->cost_avg + 0.2 * v->frame_cost;
    return 0;
}

/* ---- the loop ------------------------------------------------------------ */

static int open_view(view *v, nb_sim *sim)
{
    const char *headless = getenv("NB_VIEW_HEADLESS");
    int rc;
    v->sim = sim;
    v->tree_depth = -1;
    v->de = -1;
    v->e_done = -1;
    if (headless && *headless) {
        if (parse_size(headless, &v->w, &v->h))
            return nb_fail(NB_EXIT_USAGE, "NB_VIEW_HEADLESS: expected WxH in [16, 8192], got '%.40s'",
                           headless);
        if ((rc = nb_egl_open(&v->egl)))
            return rc;
    } else if (!sim->o->view) {                     /* --serve alone: no window */
        v->w = sim->o->view_w;
        v->h = sim->o->view_h;
        if ((rc = nb_egl_open(&v->egl)))
            return nb_fail(rc, "--serve: %s", nb_errmsg());
    } else {
#ifdef NB_HAVE_GLFW
        int ww = sim->o->view_w, wh = sim->o->view_h;
        glfwSetErrorCallback(cb_error);
        if (!glfwInit())
            return nb_fail(NB_EXIT_USAGE, "--view: cannot open a window (%s); use --render DIR to "
                           "write the frames instead", glfw_why);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        char title[128];
        snprintf(title, sizeof title, "nbody-lab: %s", sim->step->name);
        GLFWwindow *w = glfwCreateWindow(ww, wh, title, NULL, NULL);
        if (!w) {
            glfwTerminate();
            return nb_fail(NB_EXIT_USAGE, "--view: cannot open an OpenGL 3.3 window (%s); use "
                           "--render DIR to write the frames instead", glfw_why);
        }
        v->win = w;
        glfwSetWindowUserPointer(w, v);
        glfwMakeContextCurrent(w);
        glfwSwapInterval(0);                        /* never wait for a vertical retrace */
        glfwSetKeyCallback(w, cb_key);
        glfwSetMouseButtonCallback(w, cb_button);
        glfwSetCursorPosCallback(w, cb_cursor);
        glfwSetScrollCallback(w, cb_scroll);
        glfwGetFramebufferSize(w, &v->w, &v->h);
#else
        return nb_fail(NB_EXIT_USAGE, "--view: this program was built without a window (GLFW 3 "
                       "not found); use --render DIR to write the frames instead");
#endif
    }
    if ((rc = nb_gl_create(&v->gl, sim->st->n)))
        return rc;
    if ((rc = nb_render_setup(&v->rv, sim->st, v->w < v->h ? v->w : v->h, NULL)))
        return rc;
    nb_gl_scales(&v->sc, sim->st, &v->rv);
    v->cam0 = v->sc.cam = nb_gl_camera_of(&v->rv);
    v->tree_ok = sim->step->cells != NULL;
    if (sim->st->n <= NB_VIEW_ENERGY_MAX_N)
        v->e0 = nb_energy(sim->st, sim->o->eps, NULL, NULL);
    if (sim->o->serve &&
        (rc = nb_serve_open(&v->srv, sim->o->serve_addr, sim->o->serve_port, sim->step->name)))
        return rc;
    const char *ev = getenv("NB_VIEW_EVENTS");
    /* headless without a browser: ends by itself */
    return parse_script(v, ev ? ev : v->egl && !v->srv ? "" : NULL);
}

static void close_view(view *v)
{
    nb_serve_close(v->srv, NULL, NULL, 0);          /* if the loop did not */
    nb_gl_feed_close(&v->feed);
    nb_gl_destroy(v->gl);
#ifdef NB_HAVE_GLFW
    if (v->win) {
        glfwDestroyWindow((GLFWwindow *)v->win);
        glfwTerminate();
    }
#endif
    nb_egl_close(v->egl);
    free(v->script);
    free(v->tok);
}

static int loop(view *v)
{
    nb_sim *sim = v->sim;
    const int64_t steps = sim->o->steps;
    int rc;
    v->t0 = now_ms();
    v->last_end = v->t0 - 1e9;                  /* the first frame at once */
    v->dirty = 1;
    for (;;) {
        if (v->bench > 0) {                      /* frames back to back, timed */
            if (v->bench_n == v->bench_cap) {
                int cap = v->bench_cap ? 2 * v->bench_cap : 256;
                double *g = realloc(v->bench_gpu, cap * sizeof *g), *w = g ? realloc(v->bench_wall, cap * sizeof *w) : NULL;
                if (g) v->bench_gpu = g;
                if (!g || !w) return nb_fail(NB_EXIT_RUNTIME, "out of memory for bench:K");
                v->bench_wall = w;
                v->bench_cap = cap;
            }
            v->dirty = 1;
            if ((rc = draw(v)))
                return rc;
            v->bench_gpu[v->bench_n] = nb_gl_draw_ms(v->gl, 1);
            v->bench_wall[v->bench_n++] = v->frame_cost;
            if (--v->bench == 0) {                /* the batch's line of the report */
                size_t k = strlen(v->bench_report);
                int n = v->bench_n;
                double gpu = nb_median(v->bench_gpu, n), wl = nb_median(v->bench_wall, n);
                char tree[48] = "";
                if (v->tree_on && v->tree_depth >= 0) snprintf(tree, sizeof tree, ", tree to depth %d", v->tree_depth);
                else if (v->tree_on) snprintf(tree, sizeof tree, ", tree: all levels");
                snprintf(v->bench_report + k, sizeof v->bench_report - k,
                         "    bench: %d frames of %dx%d back to back%s: GPU time per draw median "
                         "%.3f ms (GL timer query), %.0f frames/s; whole frame (bodies%s in, draw, "
                         "finish) median %.3f ms\n", n, v->w, v->h, tree, gpu,
                         gpu > 0 ? 1000.0 / gpu : 0.0, v->tree_on ? " and cells" : "", wl);
                v->bench_n = 0;
            }
            continue;
        }
        if (interrupted) {
            v->quit = 1;
            v->stop_why = interrupted == SIGINT ? "interrupted: Ctrl-C" : "interrupted: SIGTERM";
            break;
        }
        /* the browsers' controls, as many as came (a step or a screenshot ends a turn) */
        if (v->srv) {
            char ev[64];
            int who = 0, fresh = 0;
            while (!v->step_req && !v->shot_req && !v->quit && nb_serve_event(v->srv, ev, sizeof ev, &who)) {
                if (!strcmp(ev, "s")) {
                    v->shot_req = 1;
                    v->shot_to = who;
                } else if ((rc = dispatch(v, ev)))
                    return rc;
            }
            v->watchers = nb_serve_viewers(v->srv, &fresh);
            if (fresh) v->dirty = 1;                /* a new viewer: a frame even while paused */
            if (v->finished && !v->win && !v->tok && !v->watchers) {
                v->quit = 1;
                v->stop_why = "all steps done, no browser watching";
            }
        }
        /* events */
        if (v->tok) {
            if (v->wait > 0)
                v->wait--;
            else if (v->itok < v->ntok) {
                if ((rc = dispatch(v, v->tok[v->itok++])))
                    return rc;
            } else if ((v->finished && !hold(v)) || (v->paused && !v->finished)) {
                v->quit = 1;
                v->stop_why = "the events ran out";
            }
        } else if (v->finished && !v->dirty && !v->quit && v->sim->o->view && !hold(v) &&
                   (!v->srv || !v->watchers)) {
            v->quit = 1;                            /* the last frame is on screen */
            v->stop_why = "all steps done";
        }
#ifdef NB_HAVE_GLFW
        if (v->win) {
            int idle = (v->paused || v->finished) && !v->dirty && !v->step_req && !v->shot_req && !v->tok;
            if (idle) glfwWaitEventsTimeout(0.1);
            else glfwPollEvents();
            if (glfwWindowShouldClose((GLFWwindow *)v->win)) {
                v->quit = 1;
                v->stop_why = "window closed";
            }
        }
#endif
        if (v->srv && !v->win && (v->paused || v->finished) && (!v->dirty || !v->watchers) &&
            !v->step_req && !v->shot_req && !v->tok && !v->quit)
            nb_serve_wait(v->srv, 100);             /* nothing to do until a browser asks */
        if (v->quit)
            break;
        /* a step */
        if ((!v->paused || v->step_req) && sim->done < steps) {
            nb_step_time t;
            memset(&t, 0, sizeof t);
            if ((rc = sim->advance(sim, &t)))
                return rc;
            v->step_ms = t.step_ms;
            v->inter_s = t.force_ms > 0 ? t.interactions / (t.force_ms * 1e-3) : 0;
            v->dirty = 1;
        }
        v->step_req = 0;
        if (sim->done >= steps && !v->finished) {
            v->finished = 1;
            v->dirty = 1;
        }
        /* a frame, when due and someone looks (a window, a browser, a test) */
        double since = now_ms() - v->last_end;
        double budget = v->srv && !v->win ? NB_SERVE_BUDGET : NB_VIEW_BUDGET;
        double gap = v->paused || v->finished ? 1000.0 / 60
                   : fmin(NB_VIEW_SLOWEST_MS, fmax(1000.0 / 60, v->cost_avg / budget));
        int looking = v->win || !v->srv || v->watchers > 0 || v->tok;
        if (v->shot_req || (v->dirty && looking && since >= gap)) {
            if ((rc = draw(v)))
                return rc;
        }
    }
    return 0;
}

int nb_view_run(nb_sim *sim, char *report, size_t len)
{
    view v;
    memset(&v, 0, sizeof v);
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;                     /* a second Ctrl-C kills */
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    double t_open = now_ms();
    int rc = open_view(&v, sim);
    v.open_ms = now_ms() - t_open;
    if (!rc && v.win)                               /* once, for the person at the window */
        fprintf(stderr, "%s; %s\n", NB_VIEW_KEYS_LINE,
                sim->o->view_hold ? "the window stays open at the end (--view-hold)"
                                  : "the window closes after the last step (--view-hold keeps it open)");
    if (!rc)
        rc = loop(&v);
    double wall = now_ms() - v.t0;
    if (v.srv) {
        char why[160];
        snprintf(why, sizeof why, "stopped at step %lld of %d: %s", (long long)sim->done, sim->o->steps,
                 rc ? "an error" : v.stop_why ? v.stop_why : "all steps done");
        nb_serve_close(v.srv, why, v.serve_report, sizeof v.serve_report);
        v.srv = NULL;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (report && len) {
        char gl[256] = "";
        if (v.gl) nb_gl_describe(gl, sizeof gl);
        snprintf(report, len,
                 "  view: stopped at step %lld of %d (%s); %lld frames drawn (%s, %dx%d), "
                 "%.1f%% of the %.0f ms run spent on them\n"
                 "    renderer %s%s%s; bodies %s, %s\n"
                 "    screenshots: %lld%s%s\n",
                 (long long)sim->done, sim->o->steps, v.stop_why ? v.stop_why : "all steps done",
                 (long long)v.frames, v.win ? "window" : v.srv || v.serve_report[0] ? "headless, served" : "headless", v.w, v.h,
                 wall > 0 ? 100.0 * v.frame_ms_sum / wall : 0.0, wall, gl,
                 v.egl ? " through " : "", v.egl ? nb_egl_describe(v.egl) : "",
                 nb_gl_feed_describe(&v.feed), v.gl ? nb_gl_bodies_how(v.gl) : "not drawn", (long long)v.shots, v.shots ? ", last " : "",
                 v.last_shot);
    }
    if (report && len && v.frames > 0) {
        size_t k = strlen(report);
        double m = v.frames > 1 ? (double)(v.frames - 1) : 1.0;
        snprintf(report + k, len - k,
                 "    view time: %.0f ms to open (context, renderer), first frame %.1f ms; the other "
                 "%lld frames %.2f ms each (bodies%s in %.2f, draw issued %.2f, finish %.2f: waits "
                 "for the GPU's drawing)\n", v.open_ms, v.first_ms, (long long)(v.frames - 1),
                 (v.in_ms + v.issue_ms + v.finish_ms) / m, v.tree_on ? " and cells" : "",
                 v.in_ms / m, v.issue_ms / m, v.finish_ms / m);
    }
    if (report && len) {
        size_t k = strlen(report);
        snprintf(report + k, len - k, "%s%s", v.bench_report, v.serve_report);
    }
    free(v.bench_gpu);
    free(v.bench_wall);
    close_view(&v);
    return rc;
}

int nb_view_usable(const nb_options *o)
{
    int rc;
    if (o->serve && (rc = nb_serve_usable()))
        return rc;
    if (!o->view)
        return 0;
    const char *headless = getenv("NB_VIEW_HEADLESS");
    int w, h;
    if (headless && *headless)
        return parse_size(headless, &w, &h)
            ? nb_fail(NB_EXIT_USAGE, "NB_VIEW_HEADLESS: expected WxH in [16, 8192], got '%.40s'", headless)
            : 0;
#ifndef NB_HAVE_GLFW
    return nb_fail(NB_EXIT_USAGE, "--view: this program was built without a window (GLFW 3 not "
                   "found at build time: install libglfw3-dev and rebuild); use --render DIR to "
                   "write the frames instead");
#else
    const char *d = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
    if ((!d || !*d) && (!wl || !*wl))
        return nb_fail(NB_EXIT_USAGE, "--view: no display (DISPLAY is not set); use --render DIR "
                       "to write the frames instead");
    return 0;
#endif
}

/* ---- --render's GL frames ----------------------------------------------------- */

struct nb_glframes {
    nb_egl        *egl;
    nb_gl         *gl;
    nb_gl_feed     feed;
    nb_gl_scene    sc;
    nb_render_view rv;
    char           how[768];
    /* where a frame's time goes on the run's thread (the report) */
    double         open_ms, first_ms, in_ms, draw_ms, read_ms;
    int64_t        frames;
};

int nb_glframes_open(nb_glframes **out, nb_sim *sim, const nb_render_view *rv)
{
    *out = NULL;
    nb_glframes *f = calloc(1, sizeof *f);
    if (!f)
        return nb_fail(NB_EXIT_RUNTIME, "out of memory");
    double t0 = now_ms();
    int rc = nb_egl_open(&f->egl);
    if (!rc)
        rc = nb_gl_create(&f->gl, sim->st->n);
    if (rc) {
        nb_glframes_close(f);
        return rc;
    }
    f->rv = *rv;
    nb_gl_scales(&f->sc, sim->st, rv);
    f->sc.cam = nb_gl_camera_of(rv);
    f->sc.mode = NB_COLOUR_DENSITY;
    f->sc.tree = sim->o->render_tree;
    f->open_ms = now_ms() - t0;
    *out = f;
    return 0;
}

int nb_glframes_draw(nb_glframes *f, nb_sim *sim, unsigned char *rgb, int *downloaded)
{
    double t0 = now_ms();
    int rc = nb_gl_fetch(f->gl, &f->feed, sim->step, sim->ctx, sim->st, -1, sim->o->render_tree,
                        downloaded);
    if (rc)
        return rc;
    double t1 = now_ms();
    nb_facts facts;
    nb_view_facts(&facts, sim, &f->rv, f->rv.size);
    f->sc.facts = &facts;
    rc = nb_gl_draw(f->gl, NB_GL_OFFSCREEN, f->rv.size, f->rv.size, &f->sc);
    f->sc.facts = NULL;
    double t2 = now_ms();
    if (!rc)
        rc = nb_gl_read(f->gl, NB_GL_OFFSCREEN, f->rv.size, f->rv.size, rgb);
    double t3 = now_ms();
    if (f->frames++ == 0)
        f->first_ms = t3 - t0;                      /* warm-up: sizes the images, registers */
    else {
        f->in_ms += t1 - t0;
        f->draw_ms += t2 - t1;
        f->read_ms += t3 - t2;
    }
    return rc;
}

void nb_glframes_timing(nb_glframes *f, char *buf, size_t len)
{
    int64_t k = f->frames > 1 ? f->frames - 1 : 1;
    snprintf(buf, len, "GL renderer opened in %.0f ms, first frame %.1f ms; the other %lld frames "
             "%.2f ms each on the run's thread (bodies%s in %.2f, draw issued %.2f, read back %.2f: "
             "waits for the GPU's drawing)",
             f->open_ms, f->first_ms, (long long)(f->frames > 1 ? f->frames - 1 : 0),
             (f->in_ms + f->draw_ms + f->read_ms) / k, f->sc.tree ? " and cells" : "", f->in_ms / k,
             f->draw_ms / k, f->read_ms / k);
}

const char *nb_glframes_describe(nb_glframes *f)
{
    char gl[256];
    nb_gl_describe(gl, sizeof gl);
    snprintf(f->how, sizeof f->how, "the GL renderer (%s, through %s); bodies %s, %s", gl,
             nb_egl_describe(f->egl), nb_gl_feed_describe(&f->feed), nb_gl_bodies_how(f->gl));
    return f->how;
}

void nb_glframes_close(nb_glframes *f)
{
    if (!f)
        return;
    nb_gl_feed_close(&f->feed);
    nb_gl_destroy(f->gl);
    nb_egl_close(f->egl);
    free(f);
}
