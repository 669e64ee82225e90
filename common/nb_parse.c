/* nb_parse.c -- strict number parsers and nb_env_i64() (see nb_parse.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "nb_parse.h"

/* strtoll and friends skip leading white space (newlines included) and
 * accept a sign; a value must start with a digit, a sign or a point here. */
static int starts_number(const char *s)
{
    return s && (*s == '-' || *s == '+' || *s == '.' || (*s >= '0' && *s <= '9'));
}

int nb_parse_i64(const char *s, int64_t *out)
{
    if (!starts_number(s)) return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

int nb_parse_u64(const char *s, uint64_t *out)
{
    if (!starts_number(s) || *s == '-') return -1;      /* strtoull would wrap negatives */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

int nb_parse_double(const char *s, double *out)
{
    if (!starts_number(s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v)) return -1;
    if (errno == ERANGE && fabs(v) > 1.0) return -1;    /* overflow; underflow is checked in float */
    *out = v;
    return 0;
}

int nb_env_i64(const char *name, int64_t lo, int64_t hi, int64_t *out)
{
    const char *v = getenv(name);
    int64_t x;
    if (!v || !*v) return 0;
    if (nb_parse_i64(v, &x) || x < lo || x > hi) return -1;
    *out = x;
    return 1;
}
