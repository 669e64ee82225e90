/* nb_io.c -- the text state file (README.md, Conventions: "State files").
 *
 * One body per line: "m x y z vx vy vz"; '#' starts a comment; blank lines
 * are ignored.  Written with %.9g: 9 significant digits identify every float
 * exactly, so load -> save -> load gives the same bits.
 *
 * A file written by --save starts with "# nbody-lab state file: N bodies":
 * such a file must hold exactly N bodies and end with a newline, so a file
 * cut short (a full disk, a copy that stopped) is refused, not read as a
 * smaller system.  Files without that line are read as they are.
 *
 * Reading is strict and bounded: a line longer than NB_LINE_MAX bytes or
 * holding a NUL byte is malformed (an endless line or binary data is
 * refused at once instead of being read until memory runs out); every
 * number must be finite after rounding to float, the precision the steps
 * compute in; the arrays grow only while the host memory allows it. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_io.h"
#include "nb_mem.h"

#define STATE_BYTES_PER_BODY (7.0 * sizeof(float))
/* The first line of a file written by --save; a file that has it must hold
 * that many bodies and end with a newline (else it was cut short). */
#define NB_STATE_HEADER "# nbody-lab state file: %lld bodies"
#define NB_STATE_HEADER_START "# nbody-lab state file:"

/* Line 1: the header's count, 0 if the line is no header, -1 if it starts
 * like one but is not. */
static long long header_count(char *line)
{
    if (strncmp(line, NB_STATE_HEADER_START, strlen(NB_STATE_HEADER_START))) return 0;
    size_t len = strlen(line);
    while (len > 0 && strchr(" \t\r", line[len - 1])) line[--len] = '\0';
    long long n = 0;
    int end = -1;
    if (sscanf(line, NB_STATE_HEADER "%n", &n, &end) != 1 || end != (int)len || n < 1 ||
        n > NB_MAX_N)
        return -1;
    return n;
}

static int grow(nb_state *s, int64_t *cap, const char *path)
{
    int64_t nc = *cap ? *cap * 2 : 1024;
    if (nc > NB_MAX_N) nc = NB_MAX_N;
    char ctx[300];
    snprintf(ctx, sizeof ctx, " reading '%s'", nb_short(path));
    int rc = nb_mem_check(nc, STATE_BYTES_PER_BODY, (double)*cap * STATE_BYTES_PER_BODY, ctx, "");
    if (rc) return rc;
    float **arrays[7] = { &s->m, &s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz };
    for (int k = 0; k < 7; k++) {
        float *p = realloc(*arrays[k], (size_t)nc * sizeof(float));
        if (!p) return nb_fail(NB_EXIT_RUNTIME, "out of host memory reading '%s': %lld bodies need "
                               "%.1f MiB", nb_short(path), (long long)nc,
                               (double)nc * STATE_BYTES_PER_BODY / 1048576.0);
        *arrays[k] = p;
    }
    *cap = nc;
    return NB_OK;
}

static const char *const field_name[7] = { "mass", "x", "y", "z", "vx", "vy", "vz" };

/* The seven numbers of a body's line (p: its first character that is not
 * a blank, the comment cut off) into v[], checked; NB_EXIT_USAGE with the
 * line's number for anything else.  cut: the line has no newline (the end of
 * the file); declared: the header's count, 0: no header. */
static int read_body(const char *path, int64_t lineno, char *p, int cut, long long declared,
                     double v[7])
{
    int k;
    for (k = 0; k < 7; k++) {
        char *end;
        errno = 0;
        v[k] = strtod(p, &end);
        if (end == p || !isfinite(v[k]) || (*end && !strchr(" \t\r", *end))) break;
        p = end;
    }
    while (k == 7 && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
    if ((k < 7 || *p) && cut && declared)
        return nb_fail(NB_EXIT_USAGE, "%s:%lld: the file ends inside line %lld (no newline): cut "
                       "short? (the header says %lld bodies)", path, (long long)lineno,
                       (long long)lineno, declared);
    if (k < 7 || *p)
        return nb_fail(NB_EXIT_USAGE, "%s:%lld: malformed line: expected 7 finite numbers "
                       "'m x y z vx vy vz'", path, (long long)lineno);
    for (k = 0; k < 7 && isfinite((float)v[k]); k++) {}
    if (k < 7)
        return nb_fail(NB_EXIT_USAGE, "%s:%lld: %s %g overflows float (the steps compute in float: "
                       "|value| <= %g)", path, (long long)lineno, field_name[k], v[k], (double)FLT_MAX);
    if (v[0] < 0)
        return nb_fail(NB_EXIT_USAGE, "%s:%lld: negative mass %g", path, (long long)lineno, v[0]);
    if (v[0] > 0 && (float)v[0] < FLT_MIN) {    /* 1e-46 became 0, and was accepted */
        return nb_fail(NB_EXIT_USAGE, "%s:%lld: mass %g becomes %g in float (below the smallest "
                       "normal float %g, which the GPU flushes to 0): use 0 or a larger mass",
                       path, (long long)lineno, v[0], (double)(float)v[0], (double)FLT_MIN);
    }
    return NB_OK;
}

int nb_state_read_src(nb_src *src, nb_state *s)
{
    memset(s, 0, sizeof *s);
    const char *path = nb_short(src->path);
    char line[NB_LINE_MAX + 1];
    size_t len;
    int64_t cap = 0, n = 0, lineno = 0;
    long long declared = 0;          /* the header's count, 0: no header */
    int rc = NB_OK, got, cut = 0;
    while ((got = nb_src_line(src, line, sizeof line, &len)) != NB_LINE_EOF) {
        lineno++;
        cut = got == NB_LINE_NOEOL;
        if (got == NB_LINE_LONG) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: malformed line: longer than %d bytes (not a state "
                         "file?)", path, (long long)lineno, NB_LINE_MAX);
            break;
        }
        if (got == NB_LINE_NUL) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: malformed line: a NUL byte at column %zu (binary "
                         "data, not a text state file)", path, (long long)lineno, len + 1);
            break;
        }
        if (lineno == 1 && (declared = header_count(line)) < 0) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:1: malformed header: expected '"
                         NB_STATE_HEADER_START " N bodies' with N in [1, %lld]", path,
                         (long long)NB_MAX_N);
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r') p++;
        if (!*p) continue;
        double v[7];
        if ((rc = read_body(path, lineno, p, cut, declared, v))) break;
        if (declared && n == declared) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: a body past the %lld of the header (line 1)",
                         path, (long long)lineno, declared);
            break;
        }
        if (n == NB_MAX_N) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: more than %lld bodies, the kit's limit", path,
                         (long long)lineno, (long long)NB_MAX_N);
            break;
        }
        if (n == cap && (rc = grow(s, &cap, src->path))) break;
        s->m[n] = (float)v[0];
        s->x[n] = (float)v[1];  s->y[n] = (float)v[2];  s->z[n] = (float)v[3];
        s->vx[n] = (float)v[4]; s->vy[n] = (float)v[5]; s->vz[n] = (float)v[6];
        n++;
    }
    if (!rc && nb_src_error(src))
        rc = nb_fail(NB_EXIT_RUNTIME, "--ic: error reading '%s': %s", path, strerror(errno));
    if (!rc && declared && cut)
        rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: the file ends inside line %lld (no newline): cut "
                     "short? (the header says %lld bodies)", path, (long long)lineno,
                     (long long)lineno, declared);
    if (!rc && declared && n != declared)
        rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: the file ends after %lld bodies, the header (line 1) "
                     "says %lld: cut short?", path, (long long)lineno, (long long)n, declared);
    if (!rc && n == 0) rc = nb_fail(NB_EXIT_USAGE, "--ic: '%s' holds no bodies", path);
    if (rc) { s->n = 1; nb_state_free(s); return rc; }
    s->n = n;
    return NB_OK;
}

int nb_state_read(const char *path, nb_state *s)
{
    memset(s, 0, sizeof *s);
    nb_src src;
    int rc = nb_src_open(&src, path, "state file");
    if (rc) return rc;
    rc = nb_state_read_src(&src, s);
    nb_src_close(&src);
    return rc;
}

int nb_state_write(const char *path, const nb_state *s)
{
    nb_out o;
    int rc = nb_out_open(&o, "--save", path);
    if (rc) return rc;
    fprintf(o.f, NB_STATE_HEADER "\n# m x y z vx vy vz\n", (long long)s->n);
    for (int64_t i = 0; i < s->n && nb_out_ok(&o); i++)
        fprintf(o.f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", s->m[i], s->x[i], s->y[i], s->z[i],
                s->vx[i], s->vy[i], s->vz[i]);
    nb_out_ok(&o);
    return nb_out_close(&o);
}
