/* scripts/tables/accel_error.c -- the error of another code's accelerations
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
 * Exit: 0; 1 when an acceleration (any of the N) is not a finite float
 * (the line is printed, and one on stderr says how many); 2 for bad
 * arguments (EPS >= EPS_MIN: the double sum skips no self-term) or a file
 * that is missing, not a regular file, short, longer than N lines or
 * malformed, or a position that is not a finite float (one line on stderr
 * says which); 3 when memory runs out or the line cannot be written. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "nb_error.h"
#include "nb_state.h"
#include "nb_verify.h"

/* The smallest softening taken: the reference's r^3 with r = EPS must not
 * underflow in double (its self-term would be 0/0). */
#define EPS_MIN 1e-30

/* Reads n lines of three numbers from path into a, b, c, and nothing after
 * them but blank lines; 0 or NB_EXIT_USAGE with one line on stderr.  A
 * number that is not a finite float is refused, unless nonfinite is not
 * NULL: then it is stored and counted there (the accelerations under
 * test). */
static int read3(const char *path, int64_t n, float *a, float *b, float *c, int64_t *nonfinite)
{
    FILE *f = fopen(path, "r");
    struct stat st;
    if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "accel_error: %s: %s\n", path, f ? "not a regular file" : strerror(errno));
        if (f) fclose(f);
        return NB_EXIT_USAGE;
    }
    char line[512];
    const char *why = NULL;
    int64_t i = 0, ln = 0;
    while (!why && fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        double x, y, z;
        char extra;
        ln++;
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) why = "is too long";
        else if (i == n) { if (strspn(line, " \t\r\n") != len) why = "is past the N bodies"; }
        else if (sscanf(line, "%lf %lf %lf %c", &x, &y, &z, &extra) != 3) why = "is not three numbers";
        else {
            a[i] = (float)x; b[i] = (float)y; c[i] = (float)z;
            int finite = isfinite(a[i]) && isfinite(b[i]) && isfinite(c[i]);
            if (!finite && !nonfinite) why = "holds a number that is not a finite float";
            else if (!finite) (*nonfinite)++;
            if (!why) i++;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (why) {
        fprintf(stderr, "accel_error: %s: line %" PRId64 " %s\n", path, ln, why);
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
    if (argv[1][0] < '1' || argv[1][0] > '9' || errno || *end || n > (1LL << 30)) {
        fprintf(stderr, "accel_error: N must be a whole number from 1 to 2^30 (got '%s')\n", argv[1]);
        return NB_EXIT_USAGE;
    }
    errno = 0;
    double eps = strtod(argv[2], &end);
    if (end == argv[2] || *end || errno || !(eps >= EPS_MIN) || !isfinite(eps)) {
        fprintf(stderr, "accel_error: EPS must be a finite number >= %g (got '%s')\n", EPS_MIN, argv[2]);
        return NB_EXIT_USAGE;
    }
    nb_state s;
    float *a = NULL;
    int rc = nb_state_alloc(&s, n);
    if (!rc && !(a = malloc(3 * (size_t)n * sizeof *a))) rc = NB_EXIT_RUNTIME;
    if (rc) {
        fprintf(stderr, "accel_error: out of memory for %lld bodies\n", n);
        nb_state_free(&s);
        return NB_EXIT_RUNTIME;
    }
    int64_t nonfinite = 0;
    rc = read3(argv[3], n, s.x, s.y, s.z, NULL);
    if (!rc) rc = read3(argv[4], n, a, a + n, a + 2 * n, &nonfinite);
    nb_errstats st;
    if (!rc) {
        for (int64_t i = 0; i < n; i++) {
            s.m[i] = (float)(1.0 / (double)n);
            s.vx[i] = s.vy[i] = s.vz[i] = 0;
        }
        if ((rc = nb_accel_errors(&s, eps, a, a + n, a + 2 * n, NB_REF_SAMPLES, &st)))
            fprintf(stderr, "accel_error: %s\n", nb_errmsg());
    }
    if (!rc) {
        printf("%" PRId64 " %.3g %.3g %.3g %" PRId64 "\n", st.count, st.median, st.p99, st.max, st.nonfinite);
        if (fflush(stdout) || ferror(stdout)) {
            fprintf(stderr, "accel_error: standard output: %s\n", strerror(errno));
            rc = NB_EXIT_RUNTIME;
        } else if (nonfinite) {
            fprintf(stderr, "accel_error: %" PRId64 " of the %lld accelerations are not finite floats\n",
                    nonfinite, n);
            rc = NB_EXIT_CHECK;
        }
    }
    free(a);
    nb_state_free(&s);
    return rc;
}
