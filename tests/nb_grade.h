/* nb_grade.h -- the grading harness on top of CUnit.
 *
 * Each runner registers suites of tests with points, then nb_grade_main()
 * runs them with CUnit and prints one line per test with its points, a score
 * for the runner and a CUnit-style summary; it writes the per-test results to
 * tests/results/<runner>.tsv (read by `make check-all` for the points table)
 * and a JSON report tests/results/<runner>.json (merged into summary.json).
 *
 * No student code runs in a runner: a step's table is run in its worker
 * and its program in the sandbox (nb_remote.h, nb_sandbox.h); the runner
 * only asks, checks and records.  Every test runs in its own child process
 * (fork), with CUnit's CU_run_test() there, in a scratch directory of its
 * own (TMPDIR: the directory the sandbox lends the step's programs, theirs
 * alone: nb_sandbox_mkdtemp); the child sends its failure records back
 * through a pipe, and its stdout through another (printed under the test's
 * line with control characters escaped and indented past the grade's
 * columns, and kept for the JSON reports).  A test that crashes (a signal), calls exit(),
 * or runs longer than NB_TEST_TIMEOUT seconds (default 300) fails with that
 * reason, and the other tests still run.  The runner process itself never
 * touches CUDA: a context does not survive fork(), so the device probe of
 * nb_grade_gpu_skip() runs in a child too, and each test child initializes
 * CUDA for itself.
 *
 * Pass/fail comes from CUnit's failure records, never from CU_get_error().
 * A suite registered with a skip reason (e.g. no CUDA device) is inactive:
 * its tests print "SKIPPED (<reason>)", earn no points and are never counted
 * as passed; a runner with a skipped suite is not fully graded: its score
 * line counts every point and says how many were NOT GRADED and why, and its
 * JSON report has "graded": false and "not_graded_points".
 *
 * Results: results/<runner>.tsv, whose first line carries the secret of the
 * check-all run (NB_GRADE_NONCE, dropped from the environment at once) and
 * whether the sandbox was degraded, and results/<runner>.json; both written
 * to a temporary file and renamed.
 *
 * Command line of every runner (handled by nb_grade_main):
 *   run_<runner>           run every suite
 *   run_<runner> SUITE     only the suites whose name contains SUITE
 *   run_<runner> --student only the suites of the score (not the kit's
 *                          checks, not the optional exercises)
 *   run_<runner> --list    print "suite<TAB>test<TAB>points" per test, run nothing
 * Environment: NB_TEST_TIMEOUT=seconds (per test, default 300); NB_VERBOSE=1 (make V=1): every test and its output;
 *   NB_GRADE_REQUIRE_GPU=1 makes a runner that is not graded exit 1;
 *   NB_GRADE_REQUIRE_SANDBOX=1 makes a runner whose sandbox is degraded
 *   (nb_sandbox.h) exit 1. */
#ifndef NB_GRADE_H
#define NB_GRADE_H
#include <CUnit/CUnit.h>
#include "nb_step.h"

typedef struct nb_test {
    const char *name;
    CU_TestFunc fn;
    int         points;      /* its points; NB_FORCES(points): see below */
} nb_test;
#define NB_TEST_END { NULL, NULL, 0 }
/* { "name", fn, NB_FORCES(3) }: the test measures the step's forces itself
 * (accelerations against the double sum), so it runs whatever its suite's
 * gate said (nb_grade_gate). */
#define NB_T_FORCES_BIT 0x10000
#define NB_FORCES(points) ((points) | NB_T_FORCES_BIT)

/* Register a suite; skip_reason NULL = active. Returns 0 or -1. */
int nb_grade_suite(const char *name, const nb_test *tests, const char *skip_reason);
/* The same with a setup run before the suite's tests (CUnit's suite
 * initialization: a non-zero return fails every test of the suite). */
int nb_grade_suite_setup(const char *name, const nb_test *tests, const char *skip_reason,
                         CU_InitializeFunc setup);
/* The suite's gate: a check of the step's forces (accelerations against
 * the double direct sum, nb_t_gate_forces) run once, in a test child of its
 * own, before the suite's first test; its result is kept for every suite
 * that names the same gate function.  While the gate fails, the suite's
 * tests (but those flagged NB_T_FORCES, which measure the forces
 * themselves) are not run and earn nothing: "not graded: <what> failed
 * first: ...".  Momentum, bit-identity, a sanitizer's silence, timers, a
 * tree's shape are all kept by a force loop that computes nothing; their
 * points belong to a step whose forces are right.  what: the gate in a
 * few words ("step01_cpu's accelerations, N = 1000").  0 or -1 (no such
 * suite). */
int nb_grade_gate(const char *suite, CU_TestFunc gate, const char *what);
/* The suite is an optional exercise (kind "optional"): its points are
 * reported apart, under their own score line, and are no part of the
 * step's score; its tests fail and pass as any other. */
int nb_grade_optional(const char *suite);
/* NULL if the step can run here, else "no usable CUDA device: <reason>"
 * (static).  step->probe runs in a child process (never in the runner). */
const char *nb_grade_gpu_skip(const nb_step *step);
/* Run everything; returns the exit status (0 all passed, 1 some failed). */
int nb_grade_main(const char *runner, int argc, char **argv);

/* The conformance suite, generic over a step (tests/suite_conformance.c):
 * accelerations vs the reference, momentum, energy drift, determinism,
 * --check, bad input.  binary: path of the step's nbody program.  A step
 * with a --cpu variant registers both tables, its own first:
 *   nb_conformance_register(&nb_step05_gpu, STEP_BINARY);  "conformance (gpu)", "cli"
 *   nb_conformance_register(&nb_step05_cpu, STEP_BINARY);  "conformance (cpu)", runs get --cpu */
void nb_conformance_register(const nb_step *step, const char *binary);
/* The program under compute-sanitizer: memcheck, and racecheck when the step
 * shares memory between threads (tests/suite_sanitizer.c).  extra: one more
 * option for the program, or NULL. */
void nb_sanitizer_register(const nb_step *step, const char *binary, const char *extra, int racecheck);
/* The same suite for one way of running a program, under its own name:
 * option (one argument, e.g. "--gpus=1", or NULL) is added to every program
 * run and parsed into the options of the in-process runs.  step06:
 *   nb_conformance_register_as(&nb_step06_multigpu, STEP_BINARY, "conformance (P = 1)", "--gpus=1");
 *   nb_conformance_register_as(&nb_step06_multigpu, STEP_BINARY, "conformance (P = all)", NULL);
 * The first registration of a runner also registers "cli". */
void nb_conformance_register_as(const nb_step *step, const char *binary, const char *name,
                                const char *option);
/* The GPU all-pairs suite for steps 02-04 (tests/suite_gpu_allpairs.c);
 * binary: the step's program (run under compute-sanitizer). */
void nb_gpu_allpairs_register(const nb_step *step, const char *binary);
/* The CPU code under ASan and UBSan (tests/suite_asan.c): asan_table, the
 * step's table run in its sanitized worker (tests/work_<runner>_asan). */
void nb_asan_register(const nb_step *asan_table);
/* The CPU force loop under ThreadSanitizer (tests/suite_races.c): tsan_table,
 * the step's table run in its race-checking worker (worker, the path of
 * tests/work_<runner>_tsan), the kit's controls (control: tests/tsan_control),
 * the llvm-symbolizer to use (NULL or absent: TSan's own search); why_not:
 * "" where they were built, else why not (the suite is then SKIPPED). */
void nb_races_register(const nb_step *tsan_table, const char *worker, const char *control,
                       const char *symbolizer, const char *why_not);
/* suite_tuned.c: every code path of step04's tuned build (NB_TUNE). */
void nb_tuned_register(const nb_step *step, const char *binary);
/* suite_precision.c: --precision double and mixed (step01, the tuned build). */
void nb_precision_register(const nb_step *step, const char *binary);

/* Suites of the common runner. */
void nb_suite_common_register(void);   /* options, RNG, IC, references, I/O */
void nb_suite_harness_register(void);  /* the harness itself (fake suites, grade table) */
void nb_suite_render_register(void);   /* PNG frames */
void nb_suite_tipsy_register(void);    /* TIPSY reader/writer */

#endif
