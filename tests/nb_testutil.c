/* nb_testutil.c -- helpers shared by the test suites (see nb_testutil.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <CUnit/CUnit.h>
#include "nb_ic.h"
#include "nb_io.h"
#include "nb_physics.h"
#include "nb_sandbox.h"
#include "nb_testutil.h"
#include "nb_verify.h"

/* The length of s cut to at most max bytes at a word: at the last space
 * in its second half, else at a character (never inside a UTF-8 sequence);
 * s itself if it fits. */
static size_t word_cut(const char *s, size_t max)
{
    size_t n = strnlen(s, max + 1);
    if (n <= max) return n;
    size_t k = max;
    while (k > max / 2 && s[k] != ' ') k--;
    if (s[k] != ' ') {
        k = max;
        while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80) k--;
    }
    while (k > 0 && strchr(" ,;:(", s[k - 1])) k--;
    return k;
}

/* one conversion of spec with its value v (any type), its * width and
 * precision taken from w and prec where the spec has them */
#define PIECE(v)                                                                                \
    do {                                                                                        \
        if (star_w && star_p) snprintf(piece, sizeof piece, spec, w, prec, v);                  \
        else if (star_w || star_p) snprintf(piece, sizeof piece, spec, star_w ? w : prec, v);   \
        else snprintf(piece, sizeof piece, spec, v);                                            \
    } while (0)

/* vsnprintf, but a string cut by a precision (%.120s: a program's output
 * quoted) is cut at a word and ends in "...", and so is the whole message
 * where it does not fit: no message ends in the middle of a word.  The
 * conversions of C11's printf but %n. */
static void format_words(char *out, size_t size, const char *fmt, va_list ap)
{
    char big[4096], spec[32], piece[1200];
    size_t len = 0;
    big[0] = '\0';
    for (const char *p = fmt; *p && len + 1 < sizeof big;) {
        if (*p != '%') { big[len++] = *p++; big[len] = '\0'; continue; }
        const char *start = p++;
        while (*p && strchr("-+ #0'", *p)) p++;
        int star_w = 0, star_p = 0, have_prec = 0, w = 0, prec = 0;
        if (*p == '*') { star_w = 1; p++; } else while (*p >= '0' && *p <= '9') p++;
        if (*p == '.') {
            have_prec = 1;
            p++;
            if (*p == '*') { star_p = 1; p++; } else while (*p >= '0' && *p <= '9') prec = prec * 10 + (*p++ - '0');
        }
        char length[3] = "";
        while (*p && strchr("hlzjtL", *p) && strlen(length) < 2) length[strlen(length)] = *p++;
        char conv = *p ? *p++ : '\0';
        size_t sl = (size_t)(p - start);
        if (sl >= sizeof spec || !conv) break;
        memcpy(spec, start, sl);
        spec[sl] = '\0';
        if (star_w) w = va_arg(ap, int);
        if (star_p) prec = va_arg(ap, int);
        piece[0] = '\0';
        switch (conv) {
        case '%': snprintf(piece, sizeof piece, "%%"); break;
        case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': {
            if (!strcmp(length, "ll")) PIECE(va_arg(ap, long long));
            else if (!strcmp(length, "l") || !strcmp(length, "z") || !strcmp(length, "j") || !strcmp(length, "t"))
                PIECE(va_arg(ap, long));                    /* size_t, intmax_t, ptrdiff_t: long here */
            else PIECE(va_arg(ap, int));
            break; }
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
            if (!strcmp(length, "L")) PIECE(va_arg(ap, long double));
            else PIECE(va_arg(ap, double));
            break;
        case 'p': snprintf(piece, sizeof piece, "%p", va_arg(ap, void *)); break;
        case 's': {
            const char *v = va_arg(ap, const char *);
            if (!v) v = "(null)";
            size_t keep = have_prec && prec >= 0 ? word_cut(v, (size_t)prec) : strlen(v);
            int cut = have_prec && prec >= 0 && keep < strnlen(v, (size_t)prec + 1);
            snprintf(piece, sizeof piece, "%.*s%s", (int)(keep < sizeof piece - 4 ? keep : sizeof piece - 4), v,
                     cut ? "..." : "");
            break; }
        default:                                     /* %n or unknown: the text as it is, nothing consumed */
            snprintf(piece, sizeof piece, "%s", spec);
            break;
        }
        size_t pl = strlen(piece);
        if (pl > sizeof big - 1 - len) pl = sizeof big - 1 - len;
        memcpy(big + len, piece, pl);
        len += pl;
        big[len] = '\0';
    }
    size_t keep = word_cut(big, size > 4 ? size - 4 : 0);
    int cut = keep < len;
    memcpy(out, big, keep);
    memcpy(out + keep, cut ? "..." : "", cut ? 4 : 1);
}
#undef PIECE

int nb_t_assert(int ok, int fatal, unsigned line, const char *file, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    format_words(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!ok) {                               /* also in the test's output, with the figures */
        fputs("       ", stdout);
        nb_t_put_text(stdout, msg, strlen(msg));
        fputc('\n', stdout);
    }
    /* CUnit copies the message; fatal ends the test (a longjmp) */
    CU_assertImplementation(ok ? CU_TRUE : CU_FALSE, line, msg, file, "", fatal ? CU_TRUE : CU_FALSE);
    return ok;
}

void nb_t_unequal_masses(nb_state *s, uint64_t seed)
{
    nb_rng r;
    nb_rng_seed(&r, seed);
    double before = 0, after = 0;
    for (int64_t i = 0; i < s->n; i++) {
        before += s->m[i];
        s->m[i] = (float)(s->m[i] * (0.2 + 1.8 * nb_rng_uniform(&r)));
        after += s->m[i];
    }
    if (after > 0)
        for (int64_t i = 0; i < s->n; i++) s->m[i] = (float)(s->m[i] * (before / after));
}

/* a(x) into ax, ay, az (float, index order) */
static void float_accel(const nb_state *s, float eps2, float *ax, float *ay, float *az)
{
    for (int64_t i = 0; i < s->n; i++) {
        float sx = 0, sy = 0, sz = 0;
        for (int64_t j = 0; j < s->n; j++) {
            float dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(r2);
            float w = s->m[j] * inv * inv * inv;
            sx += w * dx; sy += w * dy; sz += w * dz;
        }
        ax[i] = sx; ay[i] = sy; az[i] = sz;
    }
}

int nb_t_float_leapfrog(nb_state *s, double eps, double dt, int steps)
{
    int64_t n = s->n;
    float *a = malloc((size_t)(3 * n + 1) * sizeof *a);
    if (!a) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    float *ax = a, *ay = a + n, *az = a + 2 * n, e2 = (float)(eps * eps), h = (float)(0.5 * dt), d = (float)dt;
    float_accel(s, e2, ax, ay, az);
    for (int k = 0; k < steps; k++) {
        for (int64_t i = 0; i < n; i++) {
            s->vx[i] += h * ax[i]; s->vy[i] += h * ay[i]; s->vz[i] += h * az[i];
            s->x[i] += d * s->vx[i]; s->y[i] += d * s->vy[i]; s->z[i] += d * s->vz[i];
        }
        float_accel(s, e2, ax, ay, az);
        for (int64_t i = 0; i < n; i++) { s->vx[i] += h * ax[i]; s->vy[i] += h * ay[i]; s->vz[i] += h * az[i]; }
    }
    free(a);
    return 0;
}

int nb_t_float_sum_errors(const nb_state *s, double eps, nb_errstats *out)
{
    const int64_t n = s->n;
    float *a = malloc((size_t)(3 * n) * sizeof *a);
    int64_t *idx = malloc((size_t)NB_REF_SAMPLES * sizeof *idx);
    if (!a || !idx) {
        free(a); free(idx);
        return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    }
    float *ax = a, *ay = a + n, *az = a + 2 * n;
    for (int64_t i = 0; i < 3 * n; i++) a[i] = NAN;     /* only the sampled targets are read */
    int64_t m = nb_ref_sample(n, NB_REF_SAMPLES, idx);
    const float e2 = (float)(eps * eps);
    #pragma omp parallel for schedule(dynamic, 4)
    for (int64_t k = 0; k < m; k++) {
        int64_t i = idx[k];
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        for (int64_t j = 0; j < n; j++)
            nb_interact(s->x[i], s->y[i], s->z[i], s->x[j], s->y[j], s->z[j], s->m[j], e2, &sx, &sy, &sz);
        ax[i] = sx; ay[i] = sy; az[i] = sz;
    }
    int rc = nb_accel_errors(s, eps, ax, ay, az, NB_REF_SAMPLES, out);
    free(a);
    free(idx);
    return rc;
}

int nb_t_step_accel64(const nb_step *step, const nb_state *s, const nb_options *o,
                      double **ax, double **ay, double **az)
{
    int64_t n = s->n;
    *ax = malloc((size_t)n * sizeof **ax);
    *ay = malloc((size_t)n * sizeof **ay);
    *az = malloc((size_t)n * sizeof **az);
    if (!*ax || !*ay || !*az) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    if (!step->accel64) return nb_fail(NB_EXIT_USAGE, "the grader knows no accel64() of %s", step->name);
    void *ctx = NULL;
    int rc = step->init(&ctx, s, o);
    if (!rc) rc = step->accel64(ctx, *ax, *ay, *az);
    if (ctx) step->destroy(ctx);
    return rc;
}

int nb_t_step_run64(const nb_step *step, const nb_state *s, const nb_options *o, int steps,
                    nb_state64 *d)
{
    int rc = nb_state64_from(d, s);
    if (rc) return rc;
    if (!step->state64) return nb_fail(NB_EXIT_USAGE, "the grader knows no state64() of %s", step->name);
    void *ctx = NULL;
    rc = step->init(&ctx, s, o);
    if (!rc) rc = step->advance(ctx, steps, NULL);
    if (!rc) rc = step->state64(ctx, d->x, d->y, d->z, d->vx, d->vy, d->vz);
    if (ctx) step->destroy(ctx);
    return rc;
}

void nb_t_planets(nb_state *s, double x0)
{
    static const double m[4] = { 1.0, 0.3, 0.05, 0.15 }, r[4] = { 0, 1.0, 1.8, 3.1 };
    static const double phase[4] = { 0, 0.3, 2.4, 4.1 }, tilt[4] = { 0, 0.1, -0.25, 0.4 };
    CU_ASSERT_FATAL(nb_state_alloc(s, 4) == 0);
    double p[3] = { 0, 0, 0 }, mt = 0;
    for (int i = 0; i < 4; i++) {
        double c = cos(phase[i]), sn = sin(phase[i]), v = i ? sqrt((m[0] + m[i]) / r[i]) : 0;
        s->m[i] = (float)m[i];
        s->x[i] = (float)(x0 + r[i] * c);
        s->y[i] = (float)(r[i] * sn * cos(tilt[i]));
        s->z[i] = (float)(r[i] * sn * sin(tilt[i]));
        s->vx[i] = (float)(-v * sn);
        s->vy[i] = (float)(v * c * cos(tilt[i]));
        s->vz[i] = (float)(v * c * sin(tilt[i]));
        p[0] += m[i] * s->vx[i]; p[1] += m[i] * s->vy[i]; p[2] += m[i] * s->vz[i];
        mt += m[i];
    }
    for (int i = 0; i < 4; i++) {               /* the centre of mass at rest */
        s->vx[i] = (float)(s->vx[i] - p[0] / mt);
        s->vy[i] = (float)(s->vy[i] - p[1] / mt);
        s->vz[i] = (float)(s->vz[i] - p[2] / mt);
    }
}

const char *nb_t_tmpfile(int slot, const char *suffix)
{
    static char paths[4][256];
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    snprintf(paths[slot & 3], sizeof paths[0], "%s/nbtest_%d_%d%s", dir, (int)getpid(), slot & 3,
             suffix ? suffix : "");
    return paths[slot & 3];
}

/* ---- files a program wrote ---- */

/* path relative to the directory dir, every component opened from its
 * parent's descriptor with O_NOFOLLOW; ".." refused.  -1 with errno. */
static int open_beneath(const char *dir, const char *rel)
{
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    char comp[4096];
    for (const char *p = rel;;) {
        while (*p == '/') p++;
        size_t len = strcspn(p, "/");
        if (len >= sizeof comp) { close(fd); errno = ENAMETOOLONG; return -1; }
        memcpy(comp, p, len);
        comp[len] = '\0';
        p += len;
        while (*p == '/') p++;
        int last = *p == '\0';
        if (!strcmp(comp, "..") || (last && (!len || !strcmp(comp, ".")))) {
            close(fd);
            errno = EINVAL;
            return -1;
        }
        if (!len || !strcmp(comp, ".")) continue;
        int next = openat(fd, comp, last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
                                         : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        if (next < 0) { errno = e; return -1; }
        fd = next;
        if (last) return fd;
    }
}

int nb_t_open_read(const char *path)
{
    const char *dir = getenv("TMPDIR");
    size_t dl = dir ? strlen(dir) : 0;
    while (dl > 1 && dir[dl - 1] == '/') dl--;
    int fd;
    if (dl && !strncmp(path, dir, dl) && path[dl] == '/') {      /* the box's directory */
        char base[4096];
        if (dl >= sizeof base) { errno = ENAMETOOLONG; return -1; }
        memcpy(base, dir, dl);
        base[dl] = '\0';
        fd = open_beneath(base, path + dl + 1);
    } else {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);     /* no FIFO holds the test */
    }
    if (fd < 0) return -1;
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? EINVAL
                               : (long long)st.st_size > NB_T_READ_MAX ? EFBIG : 0;
    if (!e && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) e = errno;
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

FILE *nb_t_fopen_read(const char *path)
{
    int fd = nb_t_open_read(path);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

void nb_t_slurp(const char *path, char *buf, size_t len)
{
    if (!buf || !len) return;
    buf[0] = '\0';
    FILE *f = nb_t_fopen_read(path);
    if (!f) return;
    size_t got = fread(buf, 1, len - 1, f);
    buf[got] = '\0';
    fclose(f);
}

int nb_t_state_read(const char *path, nb_state *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = nb_t_fopen_read(path);
    if (!f)
        return nb_fail(NB_EXIT_USAGE, "cannot open state file '%s' (a regular file, no link, at most %lld "
                       "bytes): %s", path, NB_T_READ_MAX, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        int e = errno;
        fclose(f);
        return nb_fail(NB_EXIT_RUNTIME, "cannot read state file '%s': %s", path, strerror(e));
    }
    nb_src src;
    int rc = nb_src_from_file(&src, f, path, (int64_t)st.st_size);
    if (!rc) rc = nb_state_read_src(&src, s);
    nb_src_close(&src);
    return rc;
}

/* ---- a program's text in the transcript ---- */

/* How many bytes at p (n left) make one character shown as it is: 1 for
 * printable ASCII and '\t', 2 to 4 for a well-formed UTF-8 sequence that is
 * no control (C1, the bidirectional marks, overrides and isolates); 0: p[0]
 * is shown as an escape. */
static size_t plain_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if ((c >= 0x20 && c < 0x7f) || c == '\t') return 1;
    if (c < 0xc2 || c > 0xf4) return 0;
    size_t len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
    if (len > n) return 0;
    uint32_t cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (p[k] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;  /* overlong */
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0) return 0;     /* surrogates, C1 controls */
    if (cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
        return 0;                                                    /* bidirectional controls */
    return len;
}

void nb_t_put_text(FILE *f, const char *text, size_t n)
{
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        size_t k = plain_len(p + i, n - i);
        if (k) {
            fwrite(p + i, 1, k, f);
            i += k;
        } else {
            if (p[i] == '\n') fputs("\\n", f);
            else fprintf(f, "\\x%02x", p[i]);
            i++;
        }
    }
}

void nb_t_show(const char *text)
{
    size_t n = strlen(text), shown = n < NB_T_SHOW_MAX ? n : NB_T_SHOW_MAX;
    for (size_t i = 0; i < shown;) {
        const char *nl = memchr(text + i, '\n', shown - i);
        size_t len = nl ? (size_t)(nl - (text + i)) : shown - i;
        fputs("       | ", stdout);
        nb_t_put_text(stdout, text + i, len);
        fputc('\n', stdout);
        i += len + (nl != NULL);
    }
    if (n > shown) printf("       | ... (%zu more bytes not shown)\n", n - shown);
}

/* ---- programs ---- */

int nb_t_run(char *const argv[], char *out, size_t outlen, char *err, size_t errlen, int timeout_s)
{
    return nb_t_run_io(argv, NULL, out, outlen, err, errlen, timeout_s);
}

/* Run argv with stdout to fo and stderr to fe: in the sandbox (a step's
 * program), or as a plain child in this directory (the kit's own scripts
 * and runners, nb_t_run_kit).  The child's pid, or -1. */
static pid_t spawn(char *const argv[], int fo, int fe, int boxed)
{
    if (boxed) {
        const char *dir = getenv("TMPDIR");
        nb_sandbox_io io = { -1, fo, fe, -1, -1, dir && *dir ? dir : "/tmp" };
        return nb_sandbox_spawn(argv, &io);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        int fi = open("/dev/null", O_RDONLY);
        if (fi < 0) _exit(126);
        dup2(fi, 0); dup2(fo, 1); dup2(fe, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

/* A file for a program's stdout or stderr that has no name (memfd), or -1
 * with a line under the test. */
static int capture_file(const char *what)
{
    int fd = memfd_create(what, MFD_CLOEXEC);
    if (fd < 0) printf("       the grader cannot capture a program's %s: memfd_create: %s\n", what, strerror(errno));
    return fd;
}

/* The beginning of the capture fd into buf (NUL-terminated). */
static void read_capture(int fd, char *buf, size_t len)
{
    if (!buf || !len) return;
    size_t got = 0;
    while (got + 1 < len) {
        ssize_t n = pread(fd, buf + got, len - 1 - got, (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    buf[got] = '\0';
}

static int run_io(char *const argv[], const char *stdout_path, char *out, size_t outlen, char *err,
                  size_t errlen, int timeout_s, int boxed)
{
    if (out && outlen) out[0] = '\0';
    if (err && errlen) err[0] = '\0';
    int fo = stdout_path ? open(stdout_path, O_WRONLY | O_CLOEXEC) : capture_file("stdout");
    int fe = capture_file("stderr");
    if (stdout_path && fo < 0) printf("       cannot open %s for a program's stdout: %s\n", stdout_path, strerror(errno));
    pid_t pid = fo >= 0 && fe >= 0 ? spawn(argv, fo, fe, boxed) : -1;
    if (pid < 0) {
        if (fo >= 0) close(fo);
        if (fe >= 0) close(fe);
        return -1;
    }
    int status = 0;
    double waited = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) { status = -1; break; }
        if (waited > timeout_s) {
            kill(pid, SIGKILL);                      /* a box: everything in it */
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
            status = (128 + SIGKILL) << 8;
            break;
        }
        struct timespec ts = { 0, 5000000 };
        nanosleep(&ts, NULL);
        waited += 0.005;
    }
    if (boxed) nb_sandbox_unlink_links(getenv("TMPDIR"));   /* the box has ended: its links go */
    if (!stdout_path) read_capture(fo, out, outlen);
    read_capture(fe, err, errlen);
    close(fo);
    close(fe);
    if (status == -1) return -1;
    /* a box passes the program's status on: its exit code, or 128 + the
     * signal that killed it */
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

int nb_t_run_io(char *const argv[], const char *stdout_path, char *out, size_t outlen, char *err,
                size_t errlen, int timeout_s)
{
    return run_io(argv, stdout_path, out, outlen, err, errlen, timeout_s, 1);
}

int nb_t_run_kit(char *const argv[], char *out, size_t outlen, char *err, size_t errlen, int timeout_s)
{
    return run_io(argv, NULL, out, outlen, err, errlen, timeout_s, 0);
}

int nb_t_count_lines(const char *s)
{
    int n = 0;
    for (const char *p = s; *p; p++)
        if (*p == '\n') n++;
    if (*s && s[strlen(s) - 1] != '\n') n++;
    return n;
}

int nb_t_step_accel(const nb_step *step, const nb_state *s, const nb_options *o,
                    float **ax, float **ay, float **az)
{
    void *ctx = NULL;
    *ax = malloc((size_t)s->n * sizeof(float));
    *ay = malloc((size_t)s->n * sizeof(float));
    *az = malloc((size_t)s->n * sizeof(float));
    if (!*ax || !*ay || !*az) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    /* poison the host buffers: an unwritten element fails the comparison */
    for (int64_t i = 0; i < s->n; i++) (*ax)[i] = (*ay)[i] = (*az)[i] = NAN;
    int rc = step->init(&ctx, s, o);
    if (!rc) rc = step->accel(ctx, *ax, *ay, *az);
    if (ctx) step->destroy(ctx);
    if (rc) printf("       %s failed (exit code %d): %s\n", step->name, rc, nb_errmsg());
    return rc;
}

int nb_t_step_run(const nb_step *step, nb_state *s, const nb_options *o, int steps)
{
    void *ctx = NULL;
    int rc = step->init(&ctx, s, o);
    if (!rc) rc = step->advance(ctx, steps, NULL);
    if (!rc) rc = step->download(ctx, s);
    if (ctx) step->destroy(ctx);
    if (rc) printf("       %s failed (exit code %d): %s\n", step->name, rc, nb_errmsg());
    return rc;
}

const char *nb_t_sanitizer_path(void)
{
    static char found[640];
    if (found[0]) return found;
    const char *path = getenv("PATH"), *home = getenv("CUDA_HOME");
    char dirs[4096];
#ifdef NB_CUDA_HOME
    const char *built = NB_CUDA_HOME "/bin";
#else
    const char *built = "";
#endif
    snprintf(dirs, sizeof dirs, "%s:%s:%s/bin:/usr/local/cuda/bin", built, path ? path : "",
             home ? home : "/usr/local/cuda");
    for (char *d = strtok(dirs, ":"); d; d = strtok(NULL, ":")) {
        char p[600];
        snprintf(p, sizeof p, "%s/compute-sanitizer", d);
        if (access(p, X_OK) == 0) { snprintf(found, sizeof found, "%s", p); return found; }
    }
    return NULL;
}

/* The accelerations of a fresh context of step against the double direct sum;
 * unequal: the masses made unequal (nb_t_unequal_masses) first. */
void nb_t_check_accel(const nb_step *step, int64_t n, int block, int poison, const char *ic,
                      uint64_t seed, int unequal, const char *label)
{
    nb_state s;
    nb_options o;
    nb_options_default(&o);
    o.n = n;
    o.block = block;
    o.poison = poison;
    CU_ASSERT_FATAL(nb_ic_generate(ic, n, seed, &s) == 0);
    if (unequal) nb_t_unequal_masses(&s, seed + 1);
    float *ax = NULL, *ay = NULL, *az = NULL;
    int rc = nb_t_step_accel(step, &s, &o, &ax, &ay, &az);
    if (rc) printf("       %sN=%lld block %d: %s\n", label, (long long)n, block, nb_errmsg());
    NB_ASSERT(rc == 0, "%sN=%lld block %d: exit code %d: %.120s", label, (long long)n, block, rc, rc ? nb_errmsg() : "");
    if (!rc) {
        int64_t bad = 0;                         /* every element written and finite */
        for (int64_t i = 0; i < n; i++) bad += !isfinite(ax[i]) || !isfinite(ay[i]) || !isfinite(az[i]);
        NB_ASSERT(bad == 0, "%sN=%lld block %d: %lld of %lld accelerations unwritten or non-finite, expected 0",
                  label, (long long)n, block, (long long)bad, (long long)n);
        nb_errstats e;
        CU_ASSERT_FATAL(nb_accel_errors(&s, o.eps, ax, ay, az, NB_REF_SAMPLES, &e) == 0);
        nb_tolerance tol = nb_tolerance_for_n(0, 0, n);
        if (!nb_within_tolerance(&e, &tol) || bad)
            printf("       %sN=%lld block %d: max error %.3g, %lld unwritten/non-finite\n", label,
                   (long long)n, block, e.max, (long long)bad);
        NB_ASSERT(nb_within_tolerance(&e, &tol), "%sN=%lld block %d: accelerations vs double: median %.3g "
                  "p99 %.3g max %.3g; bounds median %.3g p99 %.3g max %.3g", label, (long long)n, block, e.median,
                  e.p99, e.max, tol.median, tol.p99, tol.max);
    }
    free(ax); free(ay); free(az);
    nb_state_free(&s);
}


/* ---- what a force loop that computes nothing cannot pass ---- */

void nb_t_gate_forces(const nb_step *step, const nb_options *given, const char *label)
{
    /* 1000 bodies, and 4097: past a fixed buffer of 1024 or 4096, sampled
     * (nb_ref_sample(): other bodies every run) */
    static const int64_t sizes[] = { 1000, 4097 };
    for (int k = 0; k < 2; k++) {
        const int64_t n = sizes[k];
        nb_options o = *given;
        o.n = n;
        nb_state s;
        CU_ASSERT_FATAL(nb_ic_generate("plummer", n, 4242 + (uint64_t)k, &s) == 0);
        nb_t_unequal_masses(&s, 4243 + (uint64_t)k);
        float *ax = NULL, *ay = NULL, *az = NULL;
        int rc = nb_t_step_accel(step, &s, &o, &ax, &ay, &az), ok = rc == 0;
        NB_ASSERT(rc == 0, "%s: N = %lld: init/accel: exit code %d: %.160s", label, (long long)n, rc,
                  rc ? nb_errmsg() : "");
        if (!rc) {
            nb_errstats e;
            CU_ASSERT_FATAL(nb_accel_errors(&s, o.eps, ax, ay, az, NB_REF_SAMPLES, &e) == 0);
            nb_tolerance tol = nb_tolerance_for(step->tree, o.theta);
            printf("       %s: N = %lld Plummer, unequal masses: median %.3g p99 %.3g max %.3g, %lld non-finite\n",
                   label, (long long)n, e.median, e.p99, e.max, (long long)e.nonfinite);
            ok = nb_within_tolerance(&e, &tol);
            NB_ASSERT(ok, "%s: N = %lld: accelerations vs the double sum: median %.3g p99 %.3g max %.3g; bounds "
                      "median %.3g p99 %.3g max %.3g", label, (long long)n, e.median, e.p99, e.max, tol.median,
                      tol.p99, tol.max);
        }
        free(ax); free(ay); free(az);
        nb_state_free(&s);
        if (!ok) return;
    }
}

double nb_t_motion_error(const nb_state *s0, const nb_state *s1, double eps, double dt, int steps)
{
    nb_state r;
    if (nb_state_copy(&r, s0)) return INFINITY;
    if (nb_ref_leapfrog(&r, eps, dt, steps)) { nb_state_free(&r); return INFINITY; }
    double num = 0, den = 0;
    for (int64_t i = 0; i < s0->n; i++) {
        double m = s0->m[i];
        double ru[3] = { (double)r.vx[i] - s0->vx[i], (double)r.vy[i] - s0->vy[i], (double)r.vz[i] - s0->vz[i] };
        double su[3] = { (double)s1->vx[i] - s0->vx[i], (double)s1->vy[i] - s0->vy[i],
                         (double)s1->vz[i] - s0->vz[i] };
        double d2 = 0, r2 = 0;
        for (int q = 0; q < 3; q++) { d2 += (su[q] - ru[q]) * (su[q] - ru[q]); r2 += ru[q] * ru[q]; }
        num += m * sqrt(d2);
        den += m * sqrt(r2);
    }
    nb_state_free(&r);
    double e = den > 0 ? num / den : INFINITY;
    return isfinite(e) ? e : INFINITY;
}

void nb_t_assert_motion(const nb_state *s0, const nb_state *s1, const nb_options *o, int steps, int tree,
                        const char *label)
{
    double e = nb_t_motion_error(s0, s1, o->eps, o->dt, steps);
    double bound = tree ? NB_T_MOTION_TREE : NB_T_MOTION_ALLPAIRS;
    printf("       %s: the change of velocity over %d steps vs the double leapfrog: %.3g of its size "
           "(bound %.0e)\n", label, steps, e, bound);
    NB_ASSERT(e <= bound, "%s: the velocities changed unlike the forces say: sum m|dv - dv_ref| / sum m|dv_ref| "
              "over %d steps = %.3g, bound %.0e (a force loop that computes nothing gives 1)", label, steps, e,
              bound);
}

void nb_t_gate_table(const nb_step *step)
{
    nb_options o;
    nb_options_default(&o);
    o.threads = 2;
    nb_t_gate_forces(step, &o, step->name);
}
