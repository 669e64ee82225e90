/* nb_fuzz.h -- the fuzz harnesses, shared by the libFuzzer targets
 * (fuzz_*.c, clang -fsanitize=fuzzer) and the replay of the corpus and the
 * regression inputs in the normal build (replay.c, tests/suite_common.c).
 *
 * Each takes one input and returns the code the kit gave (0, 2, 3; -1 for
 * --help in the option parser), or NB_FUZZ_BROKEN when an invariant broke:
 * a refusal without a one-line message, an accepted state with a
 * non-finite value or no bodies, an unexpected code.  nb_fuzz_why() says
 * which. */
#ifndef NB_FUZZ_H
#define NB_FUZZ_H
#include <stddef.h>
#include <stdint.h>

#define NB_FUZZ_BROKEN (-100)

void nb_fuzz_setup(void);                              /* once: limits, quiet stdout */
int nb_fuzz_state(const uint8_t *data, size_t size);   /* --ic FILE: detection, text reader */
int nb_fuzz_tipsy(const uint8_t *data, size_t size);   /* tipsy:FILE, as a file and as a stream */
int nb_fuzz_options(const uint8_t *data, size_t size); /* the command line: NUL-separated words */
const char *nb_fuzz_why(void);

/* The harness for a target name ("state", "tipsy", "options"), or NULL. */
typedef int (*nb_fuzz_fn)(const uint8_t *data, size_t size);
nb_fuzz_fn nb_fuzz_target(const char *name);

/* Run every file of dir through the harness of target; *count += the
 * files run.  Returns how many broke an invariant (each named on stderr). */
int nb_fuzz_replay(const char *dir, const char *target, int *count);

#endif
