/* nb_testutil.h -- small helpers shared by the test suites. */
#ifndef NB_TESTUTIL_H
#define NB_TESTUTIL_H
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "nb_step.h"
#include "nb_state.h"
#include "nb_verify.h"

/* Run argv[0] with argv (NULL-terminated) in the sandbox (nb_sandbox.h: a
 * step's program is student code), its working directory $TMPDIR (the
 * test's scratch directory); capture stdout/stderr (truncated to the
 * buffers, NUL-terminated; either may be NULL) in files that have no name
 * (memfd: nothing the program places in a directory can stand for them),
 * read back through their descriptors.  Returns the exit status,
 * 128+signal if killed, -1 if it could not run. A run longer than
 * timeout_s seconds is killed with everything it started (returns
 * 128+SIGKILL).  Once the box has ended, the symbolic links it left in
 * $TMPDIR, the box's own directory, are removed (nb_sandbox_unlink_links). */
int nb_t_run(char *const argv[], char *out, size_t outlen, char *err, size_t errlen,
             int timeout_s);
/* The same with stdout sent to stdout_path (e.g. "/dev/full"; NULL: captured
 * into out as above). */
int nb_t_run_io(char *const argv[], const char *stdout_path, char *out, size_t outlen, char *err,
                size_t errlen, int timeout_s);
/* The same for the kit's own programs (scripts, the runners' self-tests):
 * not boxed, in the current directory. */
int nb_t_run_kit(char *const argv[], char *out, size_t outlen, char *err, size_t errlen, int timeout_s);

/* ---- files a program wrote -------------------------------------------------
 * $TMPDIR, the test's scratch directory, is the box's: any name there may
 * be a link or a FIFO the program put in place of the file the test
 * expects, and the grader is often root.  The test reads such files only
 * through these: below $TMPDIR every component is opened relative to its
 * directory with O_NOFOLLOW (a link anywhere in the path is refused,
 * ELOOP), and the file must be a regular file (else EINVAL) of at most
 * NB_T_READ_MAX bytes (else EFBIG).  Paths outside $TMPDIR (the kit's own
 * files, which no box can write) are opened as they are, regular files
 * only. */
#define NB_T_READ_MAX ((long long)1 << 30)
/* A descriptor for reading path (O_CLOEXEC), or -1 with errno. */
int nb_t_open_read(const char *path);
/* The same as a FILE ("rb"), or NULL with errno. */
FILE *nb_t_fopen_read(const char *path);
/* The beginning of file path into buf (NUL-terminated; "" if unreadable). */
void nb_t_slurp(const char *path, char *buf, size_t len);
/* nb_state_read() of a file the program wrote (--save): the same checks
 * and messages, the file opened as above. */
int nb_t_state_read(const char *path, nb_state *s);

/* ---- a program's text in the transcript --------------------------------------
 * What a program or a worker prints is the student's text: under a test it
 * is shown as data, never as lines of the grade nor as commands to the
 * terminal.  nb_t_show(text): each line behind "       | " (as the worker's
 * output, nb_remote.h), control characters, ESC sequences, DEL, C1 controls,
 * the bidirectional overrides and invalid UTF-8 as visible escapes (\x1b,
 * \x0d, \xc2\x9b), at most NB_T_SHOW_MAX bytes of it (then how many more
 * were not shown).  A test prints what it measured on its own lines, and
 * the program's text after them with nb_t_show(). */
#define NB_T_SHOW_MAX 3000
void nb_t_show(const char *text);
/* The escaping alone: n bytes of text to f on one line ('\n' as "\n"). */
void nb_t_put_text(FILE *f, const char *text, size_t n);

/* Number of lines in s (a final line without '\n' counts). */
int nb_t_count_lines(const char *s);

/* init + accel + destroy on a step: accelerations of state s (n floats each,
 * allocated with malloc).  Returns the step's code. */
int nb_t_step_accel(const nb_step *step, const nb_state *s, const nb_options *o,
                    float **ax, float **ay, float **az);
/* init + advance(steps) + download + destroy: s is replaced by the final state. */
int nb_t_step_run(const nb_step *step, nb_state *s, const nb_options *o, int steps);
/* compute-sanitizer: from the CUDA toolkit the kit was built with
 * (NB_CUDA_HOME), else on PATH, under $CUDA_HOME/bin or /usr/local/cuda/bin;
 * NULL if none has it. */
const char *nb_t_sanitizer_path(void);
/* init + accel + destroy on a fresh state (initial conditions ic, n bodies,
 * seed; o: defaults with block and poison): every acceleration written and
 * finite, and within the all-pairs tolerance of the double direct sum.
 * unequal: the masses made unequal first (nb_t_unequal_masses).  label
 * prefixes the messages (e.g. "NB_TUNE=warp=1: "). */
void nb_t_check_accel(const nb_step *step, int64_t n, int block, int poison, const char *ic,
                      uint64_t seed, int unequal, const char *label);
/* s advanced by steps leapfrog KDK steps of dt in float32 (all pairs, the
 * sums in index order, Plummer softening eps): the grader's own float code,
 * to compare a step with.  0, or NB_EXIT_RUNTIME when out of memory. */
int nb_t_float_leapfrog(nb_state *s, double eps, double dt, int steps);
/* What one running float sum per body makes of s's accelerations (the
 * lesson kernels of steps 02-04: for each target a float sum over j in
 * index order of nb_interact), on the targets --check samples, against the
 * double direct sum: the grader's own arithmetic, the yardstick of
 * --precision mixed.  0, or NB_EXIT_RUNTIME when out of memory. */
int nb_t_float_sum_errors(const nb_state *s, double eps, nb_errstats *out);
/* --precision double and mixed: init + accel64 + destroy (n doubles each,
 * malloc'ed), and init + advance(steps) + state64 + destroy into d (which
 * gets s's masses; free it with nb_state64_free).  The step's code. */
int nb_t_step_accel64(const nb_step *step, const nb_state *s, const nb_options *o,
                      double **ax, double **ay, double **az);
int nb_t_step_run64(const nb_step *step, const nb_state *s, const nb_options *o, int steps,
                    nb_state64 *d);
/* A small planetary system (allocates s): a central body and three
 * satellites on near-circular, mutually inclined orbits of radii 1, 1.8 and
 * 3.1, unequal masses (1, 0.3, 0.05, 0.15), the centre of mass at rest,
 * moved by (x0, 0, 0).  The closest approach stays ~0.8, far above eps =
 * 1e-3: the orbit is smooth and the softening plays no part. */
void nb_t_planets(nb_state *s, double x0);
/* Temporary file path under $TMPDIR (static buffer per call slot 0..3): a
 * name in the box's directory, for the program to read or write; read
 * back what a program wrote there with nb_t_slurp(), nb_t_state_read() or
 * nb_t_fopen_read(). */
const char *nb_t_tmpfile(int slot, const char *suffix);

/* Unequal masses: each m_i times a deterministic factor in [0.2, 2] (from
 * seed), then all rescaled so that the total mass is what it was.  A mistake
 * that swaps m_i for m_j, drops a mass or packs the wrong one hides behind
 * equal masses; it cannot hide behind these. */
void nb_t_unequal_masses(nb_state *s, uint64_t seed);

/* ---- assertions that say what they measured --------------------------------
 * A CUnit assertion whose failure message -- the text the grade shows after
 * "FAIL 0/3:" -- is printf(fmt, ...), e.g. "energy drift: got 3.2e-04,
 * bound 1e-05" (CUnit copies it; the first ~230 characters reach the grade).
 * A failure also prints the message under the test, on one line escaped as
 * nb_t_put_text() does (it may quote a program's text; so does the grade
 * line, nb_grade.c).  fatal: a failure ends the test, as CU_ASSERT_FATAL.
 * Returns ok. */
int nb_t_assert(int ok, int fatal, unsigned line, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
#define NB_ASSERT(ok, ...)       nb_t_assert(!!(ok), 0, __LINE__, __FILE__, __VA_ARGS__)
#define NB_ASSERT_FATAL(ok, ...) nb_t_assert(!!(ok), 1, __LINE__, __FILE__, __VA_ARGS__)
/* got <= bound (a NaN fails): "what: got X, bound Y". */
#define NB_ASSERT_LE(what, got, bound) do { double g_ = (got), b_ = (bound); \
    NB_ASSERT(g_ <= b_, "%s: got %.3g, bound %.3g", (what), g_, b_); } while (0)
/* lo <= got <= hi: "what: got X, bounds [lo, hi]". */
#define NB_ASSERT_IN(what, got, lo, hi) do { double g_ = (got), l_ = (lo), h_ = (hi); \
    NB_ASSERT(g_ >= l_ && g_ <= h_, "%s: got %.3g, bounds [%.3g, %.3g]", (what), g_, l_, h_); } while (0)
/* integers: "what: got X, expected Y". */
#define NB_ASSERT_EQ(what, got, want) do { long long g_ = (long long)(got), w_ = (long long)(want); \
    NB_ASSERT(g_ == w_, "%s: got %lld, expected %lld", (what), g_, w_); } while (0)
/* a step's or a program's return code 0: "what: exit code X: the step's message". */
#define NB_ASSERT_OK(what, rc) do { int r_ = (rc); \
    NB_ASSERT(r_ == 0, "%s: exit code %d: %.150s", (what), r_, r_ ? nb_errmsg() : ""); } while (0)
#define NB_ASSERT_OK_FATAL(what, rc) do { int r_ = (rc); \
    NB_ASSERT_FATAL(r_ == 0, "%s: exit code %d: %.150s", (what), r_, r_ ? nb_errmsg() : ""); } while (0)

/* The gate of a step's suites (nb_grade_gate): its accelerations at N = 1000 and 4097
 * (Plummer, unequal masses; o's softening and theta) within the step's
 * tolerance of the double direct sum. */
void nb_t_gate_forces(const nb_step *step, const nb_options *o, const char *label);
/* Did a run move its bodies as the forces say?  s1 is s0 after `steps`
 * steps of the step under test; the grader runs the double leapfrog
 * (nb_ref_leapfrog) from s0 and compares the changes of velocity:
 * sum_i m_i |dv_i - dv_ref,i| / sum_i m_i |dv_ref,i| (inf if not finite).
 * A run whose forces are zero gives 1, a constant or random force more.
 * Bounds: float all-pairs 1e-3 (measured ~1e-6 over 100 steps of a
 * Plummer sphere), the tree at theta 0.5 2e-2 (its force errors, ~1e-3). */
#define NB_T_MOTION_ALLPAIRS 1e-3
#define NB_T_MOTION_TREE     2e-2
/* nb_t_gate_forces() with the step's default options (2 threads). */
void nb_t_gate_table(const nb_step *step);
double nb_t_motion_error(const nb_state *s0, const nb_state *s1, double eps, double dt, int steps);
void nb_t_assert_motion(const nb_state *s0, const nb_state *s1, const nb_options *o, int steps, int tree,
                        const char *label);

#endif
