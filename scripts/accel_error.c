/* scripts/accel_error.c -- the error of another code's accelerations
 * against the kit's double direct sum (common/nb_verify.h), for
 * `make bench-tree`'s ECL-BH row.
 *
 *   accel_error N EPS POSITIONS ACCELERATIONS
 *
 * POSITIONS: N lines "x y z" (every body of mass 1/N, as the peer's own
 * generator makes them); ACCELERATIONS: N lines "ax ay az", the peer's
 * accelerations at those positions.  The error of each sampled body is
 * nb_rel_error() against the double sum with Plummer softening EPS, on the
 * NB_REF_SAMPLES bodies that --check samples.  Prints one line:
 * "count median p99 max nonfinite".
 * Exit: 0; 1 when an acceleration of a sampled body is not finite (the
 * line is printed, and one on stderr says how many); 2 for bad arguments
 * (EPS must be > 0: the double sum skips no self-term) or a file that is
 * missing, short, longer than N lines or malformed (one line on stderr
 * says which); 3 when memory runs out. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nb_error.h"
#include "nb_state.h"
#include "nb_verify.h"

/* Reads n lines of three numbers from path into a, b, c, and nothing after
 * them but blank lines; 0 or NB_EXIT_USAGE. */
static int read3(const char *path, int64_t n, float *a, float *b, float *c)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "accel_error: %s: %s\n", path, strerror(errno));
        return NB_EXIT_USAGE;
    }
    char line[512];
    const char *why = NULL;
    int64_t i = 0;
    while (!why && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        double x, y, z;
        char extra;
        if (len == sizeof line - 1 && line[len - 1] != '\n') why = "is too long";
        else if (i == n) { if (strspn(line, " \t\r\n") != len) why = "is past the N bodies"; }
        else if (sscanf(line, "%lf %lf %lf %c", &x, &y, &z, &extra) != 3) why = "is not three numbers";
        else { a[i] = (float)x; b[i] = (float)y; c[i] = (float)z; }
        if (!why && i < n) i++;
    }
    int bad = ferror(f);
    fclose(f);
    if (why) {
        fprintf(stderr, "accel_error: %s: line %" PRId64 " %s\n", path, i + 1, why);
        return NB_EXIT_USAGE;
    }
    if (bad || i < n) {
        fprintf(stderr, "accel_error: %s: %" PRId64 " lines where %" PRId64 " were expected\n", path, i, n);
        return NB_EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    char *end;
    if (argc != 5) {
        fprintf(stderr, "usage: accel_error N EPS POSITIONS ACCELERATIONS\n");
        return NB_EXIT_USAGE;
    }
    errno = 0;
    long long n = strtoll(argv[1], &end, 10);
    if (errno || *end || n <= 0 || n > (1LL << 30)) {
        fprintf(stderr, "accel_error: N must be a whole number from 1 to 2^30 (got '%s')\n", argv[1]);
        return NB_EXIT_USAGE;
    }
    errno = 0;
    double eps = strtod(argv[2], &end);
    if (end == argv[2] || *end || errno || !(eps > 0) || !isfinite(eps)) {
        fprintf(stderr, "accel_error: EPS must be a finite number > 0 (got '%s')\n", argv[2]);
        return NB_EXIT_USAGE;
    }
    nb_state s;
    if (nb_state_alloc(&s, n)) return NB_EXIT_RUNTIME;
    float *a = malloc(3 * (size_t)n * sizeof *a);
    if (!a) {
        fprintf(stderr, "accel_error: out of memory for %lld bodies\n", n);
        nb_state_free(&s);
        return NB_EXIT_RUNTIME;
    }
    int rc = read3(argv[3], n, s.x, s.y, s.z);
    if (!rc) rc = read3(argv[4], n, a, a + n, a + 2 * n);
    nb_errstats st;
    if (!rc) {
        for (int64_t i = 0; i < n; i++) {
            s.m[i] = (float)(1.0 / (double)n);
            s.vx[i] = s.vy[i] = s.vz[i] = 0;
        }
        rc = nb_accel_errors(&s, eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &st);
    }
    if (!rc) {
        printf("%" PRId64 " %.3g %.3g %.3g %" PRId64 "\n", st.count, st.median, st.p99, st.max, st.nonfinite);
        if (st.nonfinite) {
            fprintf(stderr, "accel_error: %" PRId64 " of the %" PRId64
                    " sampled accelerations are not finite\n", st.nonfinite, st.count);
            rc = NB_EXIT_CHECK;
        }
    }
    free(a);
    nb_state_free(&s);
    return rc;
}
