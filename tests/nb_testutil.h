/* nb_testutil.h -- small helpers shared by the test suites. */
#ifndef NB_TESTUTIL_H
#define NB_TESTUTIL_H
#include <stdint.h>
#include <stddef.h>
#include "nb_step.h"
#include "nb_state.h"

/* Run argv[0] with argv (NULL-terminated), capture stdout/stderr (truncated
 * to the buffers, NUL-terminated; either may be NULL).  Returns the exit
 * status, 128+signal if killed, -1 if it could not run. A run longer than
 * timeout_s seconds is killed (returns 128+SIGKILL). */
int nb_t_run(char *const argv[], char *out, size_t outlen, char *err, size_t errlen,
             int timeout_s);
/* The beginning of file path into buf (NUL-terminated; "" if unreadable). */
void nb_t_slurp(const char *path, char *buf, size_t len);
/* The same with stdout sent to stdout_path (e.g. "/dev/full"; NULL: captured
 * into out as above). */
int nb_t_run_io(char *const argv[], const char *stdout_path, char *out, size_t outlen, char *err,
                size_t errlen, int timeout_s);
/* Number of lines in s (a final line without '\n' counts). */
int nb_t_count_lines(const char *s);

/* Generate a model with the default options, n bodies, seed. Asserts success. */
int nb_t_model(const char *ic, int64_t n, uint64_t seed, nb_state *s);
/* init + accel + destroy on a step: accelerations of state s (n floats each,
 * allocated with malloc).  Returns the step's code. */
int nb_t_step_accel(const nb_step *step, const nb_state *s, const nb_options *o,
                    float **ax, float **ay, float **az);
/* init + advance(steps) + download + destroy: s is replaced by the final state. */
int nb_t_step_run(const nb_step *step, nb_state *s, const nb_options *o, int steps);
/* Temporary file path under $TMPDIR (static buffer per call slot 0..3). */
const char *nb_t_tmpfile(int slot, const char *suffix);

#endif
