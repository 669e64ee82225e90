/* suite_serve.c -- --serve, the view in a browser (common/view/nb_serve.c), in the
 * common runner: the kit's own code, run through tests/serve_prog (nb_main()
 * with a step of known motion, no student code) and checked from outside by
 * tests/serve_check.py, which starts the program itself, unboxed (a boxed
 * program has a loopback of its own that no browser outside the box sees).
 *
 * "serve":
 *   the token (403 without it or with a wrong one), paths (404, '..' too),
 *   methods (405), a huge header and URL, garbage, a bad or foreign
 *   WebSocket request: all refused while it goes on serving; 'q' from the
 *   page ends the program and the port is closed;
 *   the page in headless Chromium (DevTools protocol; suite "serve browser",
 *   skipped where no chromium is installed): the picture appears
 *   and changes, pause stops the step counter, one step moves it by one, a
 *   drag and the wheel move the camera, the screenshot button downloads
 *   the --render frame of that step byte for byte, the stop button ends
 *   the program;
 *   two viewers at once; one that never reads does not stop the run; with
 *   every viewer gone the run goes on;
 *   Ctrl-C stops the run cleanly and --save still writes;
 *   bad --serve options and a port in use: exit 2, one line. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_testutil.h"

#define PROG "./serve_prog"

/* An executable on PATH, or NULL. */
static const char *on_path(const char *name)
{
    static char buf[4][600];
    static int k;
    const char *path = getenv("PATH");
    char *b = buf[k++ & 3];
    for (const char *p = path ? path : "/usr/bin:/bin"; p && *p;) {
        size_t len = strcspn(p, ":");
        snprintf(b, sizeof buf[0], "%.*s/%s", (int)len, p, name);
        if (access(b, X_OK) == 0) return b;
        p += len + (p[len] == ':');
    }
    return NULL;
}

/* python3 serve_check.py CHECK PROG args...: its lines into the test's
 * output, its exit code back (77: it cannot run here).  Its time limits are
 * hang detectors, over 10 times what a check takes on a loaded 2-core
 * machine (the longest, viewers: 12 s idle, 20 s loaded): no check
 * measures a speed. */
static int check(const char *what, const char *const *args)
{
    char *argv[24];
    int n = 0;
    argv[n++] = (char *)on_path("python3");
    argv[n++] = "serve_check.py";
    argv[n++] = (char *)what;
    argv[n++] = PROG;
    for (int k = 0; args[k] && n < 23; k++) argv[n++] = (char *)args[k];
    argv[n] = NULL;
    static char out[1 << 16], err[1 << 14];
    setenv("NB_SERVE_CHECK_TIMEOUT", "280", 1);
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 290);
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
        if (strncmp(line, "ok: ", 4)) printf("       %s\n", line);      /* the failures, the summary */
    if (rc && *err) printf("       stderr: %.600s\n", err);
    return rc;
}

static void t_http(void)
{
    static const char *const args[] = { "-n", "3000", "-s", "1000000", NULL };
    int rc = check("http", args);
    NB_ASSERT(rc == 0, "serve_check.py http: exit %d (the FAIL lines above)", rc);
}

static void t_browser(void)
{
    static const char *const args[] = { "-n", "3000", "--ic", "collision", "-s", "1000000", NULL };
    int rc = check("browser", args);
    NB_ASSERT(rc == 0, "serve_check.py browser: exit %d (the FAIL lines above)", rc);
}

static void t_viewers(void)
{
    static const char *const args[] = { "-n", "3000", "-s", "1000000", "--view-size", "640x480", NULL };
    int rc = check("viewers", args);
    NB_ASSERT(rc == 0, "serve_check.py viewers: exit %d (the FAIL lines above)", rc);
}

static void t_interrupt(void)
{
    static const char *const args[] = { "-n", "2000", "-s", "1000000", NULL };
    int rc = check("interrupt", args);
    NB_ASSERT(rc == 0, "serve_check.py interrupt: exit %d (the FAIL lines above)", rc);
}

/* Each refused with exit 2 and one line naming what is wrong. */
static void t_bad_options(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    NB_ASSERT_FATAL(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0 &&
                    getsockname(fd, (struct sockaddr *)&a, &al) == 0, "cannot hold a port for the test");
    char busy[16];
    snprintf(busy, sizeof busy, "%d", ntohs(a.sin_port));
    struct { const char *args[6]; const char *says; } cases[] = {
        { { "--serve", "65536" }, "--serve" },
        { { "--serve", "-1" }, "--serve" },
        { { "--serve", "80x" }, "--serve" },
        { { "--serve", "0", "--serve-addr", "1.2.3" }, "--serve-addr" },
        { { "--serve-addr", "127.0.0.1" }, "needs --serve" },
        { { "--serve", "0", "--bench" }, "--bench" },
        { { "--serve", "0", "--render", "x" }, "--render" },
        { { "--serve", busy }, "in use" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[12] = { PROG, "-n", "100", "-s", "5" };
        int n = 5;
        for (int j = 0; cases[k].args[j]; j++) argv[n++] = (char *)cases[k].args[j];
        argv[n] = NULL;
        static char out[4096], err[4096];
        int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
        char cmd[200] = "";
        for (int j = 5; j < n; j++) { strcat(cmd, " "); strncat(cmd, argv[j], 40); }
        NB_ASSERT(rc == 2 && nb_t_count_lines(err) == 1 && strstr(err, cases[k].says),
                  "serve_prog%s: exit %d, stderr '%.200s' (exit 2 and one line naming %s expected)", cmd, rc,
                  err, cases[k].says);
    }
    close(fd);
}

/* Why the suite cannot run here, or NULL. */
static const char *serve_skip(void)
{
#ifndef NB_HAVE_SERVE
    return "built without --serve: " NB_SERVE_WHY;
#else
    static char why[900];
    if (!on_path("python3")) return "python3 not found";
    if (access(PROG, X_OK)) return "tests/serve_prog was not built";
    /* the program serves and ends by itself (no steps to run, no viewer) */
    char *argv[] = { PROG, "-n", "10", "-s", "0", "--serve", "0", NULL };
    static char out[4096], err[4096];
    int rc = nb_t_run_kit(argv, out, sizeof out, err, sizeof err, 60);
    if (rc == 0 && strstr(out, "serve: port")) return NULL;
    err[strcspn(err, "\n")] = '\0';
    snprintf(why, sizeof why, "serve_prog --serve cannot run here (exit %d): %.700s", rc, err);
    return why;
#endif
}

/* Where no chromium is installed (a GPU server often has none: the page is
 * for the student's own browser) the page's test is skipped, with the
 * reason, never passed; CI installs Debian's chromium and runs it. */
static const char *browser_skip(void)
{
    const char *env = getenv("CHROMIUM");
    if (env && *env) return access(env, X_OK) == 0 ? NULL : "CHROMIUM names no executable";
    if (access("/usr/bin/chromium", X_OK) == 0 || access("/usr/bin/chromium-browser", X_OK) == 0)
        return NULL;
    return "no chromium here (/usr/bin/chromium: Debian's chromium package, which .ci/run installs)";
}

void nb_suite_serve_register(void)
{
    static const nb_test tests[] = {
        { "token_paths_hostile_requests", t_http, 2 },
        { "viewers_many_slow_and_gone", t_viewers, 2 },
        { "ctrl_c_stops_save_writes", t_interrupt, 1 },
        { "bad_options_and_busy_port", t_bad_options, 1 },
        NB_TEST_END
    };
    static const nb_test browser[] = {
        { "page_in_headless_chromium", t_browser, 3 },
        NB_TEST_END
    };
    const char *skip = serve_skip();
    nb_grade_suite("serve", tests, skip);
    nb_grade_suite("serve browser", browser, skip ? skip : browser_skip());
}
