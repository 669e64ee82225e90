/* nb_io.c -- the text state file (DESIGN.md section 4).
 *
 * One body per line: "m x y z vx vy vz"; '#' starts a comment; blank lines
 * are ignored.  Written with %.9g: 9 significant digits identify every float
 * exactly, so load -> save -> load gives the same bits. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_io.h"

static int grow(nb_state *s, int64_t *cap)
{
    int64_t nc = *cap ? *cap * 2 : 1024;
    float **arrays[7] = { &s->m, &s->x, &s->y, &s->z, &s->vx, &s->vy, &s->vz };
    for (int k = 0; k < 7; k++) {
        float *p = realloc(*arrays[k], (size_t)nc * sizeof(float));
        if (!p) return nb_fail(NB_EXIT_RUNTIME, "out of host memory reading a state file (%lld bodies)",
                               (long long)nc);
        *arrays[k] = p;
    }
    *cap = nc;
    return NB_OK;
}

int nb_state_read(const char *path, nb_state *s)
{
    memset(s, 0, sizeof *s);
    FILE *f = fopen(path, "r");
    if (!f)
        return nb_fail(NB_EXIT_USAGE, "--ic: cannot open '%s': %s (not a model name: %s)",
                       path, strerror(errno), "plummer, cube, disk, collision");
    char *line = NULL;
    size_t linecap = 0;
    int64_t cap = 0, n = 0, lineno = 0;
    int rc = NB_OK;
    while (getline(&line, &linecap, f) > 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) continue;
        double v[7];
        int k;
        for (k = 0; k < 7; k++) {
            char *end;
            errno = 0;
            v[k] = strtod(p, &end);
            if (end == p || !isfinite(v[k]) || (*end && !strchr(" \t\r\n", *end))) break;
            p = end;
        }
        while (k == 7 && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
        if (k < 7 || *p) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: malformed line: expected 7 finite numbers "
                         "'m x y z vx vy vz'", path, (long long)lineno);
            break;
        }
        if (v[0] < 0) {
            rc = nb_fail(NB_EXIT_USAGE, "%s:%lld: negative mass %g", path, (long long)lineno, v[0]);
            break;
        }
        if (n == cap && (rc = grow(s, &cap))) break;
        s->m[n] = (float)v[0];
        s->x[n] = (float)v[1];  s->y[n] = (float)v[2];  s->z[n] = (float)v[3];
        s->vx[n] = (float)v[4]; s->vy[n] = (float)v[5]; s->vz[n] = (float)v[6];
        n++;
    }
    if (!rc && ferror(f)) rc = nb_fail(NB_EXIT_RUNTIME, "--ic: error reading '%s': %s", path, strerror(errno));
    if (!rc && n == 0) rc = nb_fail(NB_EXIT_USAGE, "--ic: '%s' holds no bodies", path);
    free(line);
    fclose(f);
    if (rc) { s->n = 1; nb_state_free(s); return rc; }
    s->n = n;
    return NB_OK;
}

int nb_state_write(const char *path, const nb_state *s)
{
    FILE *f = fopen(path, "w");
    if (!f) return nb_fail(NB_EXIT_RUNTIME, "--save: cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "# nbody-lab state file: %lld bodies\n# m x y z vx vy vz\n", (long long)s->n);
    for (int64_t i = 0; i < s->n; i++)
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", s->m[i], s->x[i], s->y[i], s->z[i],
                s->vx[i], s->vy[i], s->vz[i]);
    int bad = ferror(f);
    if (fclose(f) || bad) return nb_fail(NB_EXIT_RUNTIME, "--save: error writing '%s': %s", path, strerror(errno));
    return NB_OK;
}
