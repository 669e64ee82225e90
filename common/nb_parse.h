/* nb_parse.h -- strict number parsers and the environment's test hooks
 * (nb_parse.c).  They depend on nothing else in common/, so that the
 * command line (nb_options.c), the memory check (nb_mem.c) and the timer
 * (nb_timer.c) can all use them without depending on each other. */
#ifndef NB_PARSE_H
#define NB_PARSE_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Strict number parsers, used by the CLI.  They return 0 on success, -1 on
 * garbage, leading or trailing characters (white space included), overflow,
 * NaN or inf. */
int nb_parse_i64(const char *s, int64_t *out);
int nb_parse_u64(const char *s, uint64_t *out);
int nb_parse_double(const char *s, double *out);

/* A number in the environment (the test hooks: NB_FAKE_MEM_AVAILABLE,
 * NB_FAKE_GPU_FAIL, ...): 1 with *out if 'name' holds a decimal integer in
 * [lo, hi] (nb_parse_i64: no "1e3", no "0x100000", no "12x"), 0 if it is
 * unset or empty, -1 if it holds anything else (the callers ignore it). */
int nb_env_i64(const char *name, int64_t lo, int64_t hi, int64_t *out);

#ifdef __cplusplus
}
#endif
#endif
