/* suite_sanitizer.c -- the GPU programs under compute-sanitizer, as graded
 * tests (docs/conventions.md, Tests and grading).
 *
 * Some mistakes leave every result right and still break the program: a
 * kernel without its `i < n` bound writes past the end of an array into
 * padding that nobody reads; a missing __syncthreads() between tiles races,
 * but the values read are usually still the right ones.  Only the sanitizers
 * see them.  Steps 02-04 run them in their gpu suite
 * (suite_gpu_allpairs.c); the tree code (step05) registers this suite: its
 * program runs once under memcheck (out of
 * bounds and misaligned accesses, leaks) and, where it shares memory between
 * threads, once under racecheck, at N = 1001 (not a multiple of any block
 * size) with --check, and must get "0 errors" and exit 0.
 *
 * Inactive (SKIPPED, not graded) without a usable device.  On a machine with
 * a device but no compute-sanitizer (it comes with the CUDA toolkit) the
 * tests fail and say so: a grade must not silently leave them out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nb_grade.h"
#include "nb_testutil.h"

static const char *BIN;
static const char *EXTRA;           /* one more option for the program (e.g. "--cpu"), or NULL */
static char out[1 << 15], err[1 << 16];

static void run_tool(const char *tool)
{
    const char *cs = nb_t_sanitizer_path();
    if (!cs) {
        CU_FAIL("compute-sanitizer not found on PATH or in CUDA_HOME/bin (it comes with the CUDA toolkit)");
        return;
    }
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)cs;
    argv[k++] = "--tool"; argv[k++] = (char *)tool;
    argv[k++] = "--error-exitcode"; argv[k++] = "99";
    if (!strcmp(tool, "memcheck")) { argv[k++] = "--leak-check"; argv[k++] = "full"; }
    argv[k++] = (char *)BIN;
    argv[k++] = "-n"; argv[k++] = "1001"; argv[k++] = "-s"; argv[k++] = "2"; argv[k++] = "--check";
    if (EXTRA) argv[k++] = (char *)EXTRA;
    argv[k] = NULL;
    int rc = nb_t_run(argv, out, sizeof out, err, sizeof err, 300);
    /* the tool writes its report to stdout, the program's own lines too */
    const char *summary = strstr(out, "ERROR SUMMARY:");
    if (!summary) summary = strstr(out, "RACECHECK SUMMARY:");
    int clean = rc == 0 && summary &&
                (strstr(summary, "ERROR SUMMARY: 0 errors") || strstr(summary, "0 hazards displayed (0 errors"));
    if (!clean) {
        const char *first = strstr(out, "========= ");
        char sum[201], rep[301];
        snprintf(sum, sizeof sum, "%s", summary ? summary : "no summary line");
        snprintf(rep, sizeof rep, "%s", first ? first : "(none)");
        printf("       %s: exit %d; the summary, then the first report line:\n", tool, rc);
        nb_t_show(sum);
        nb_t_show(rep);
    }
    char msg[700];
    snprintf(msg, sizeof msg, "%s %s -n 1001 -s 2 --check: exit %d, %s (expected exit 0 and 0 errors)", tool,
             BIN, rc, clean ? "clean" : summary ? "errors reported" : "no summary");
    CU_assertImplementation(clean, __LINE__, msg, __FILE__, "", CU_FALSE);
}

static void t_memcheck(void) { run_tool("memcheck"); }
static void t_racecheck(void) { run_tool("racecheck"); }

static const nb_step *GS;
static char gate_what[160];
static void gate(void) { nb_t_gate_table(GS); }

void nb_sanitizer_register(const nb_step *step, const char *binary, const char *extra, int racecheck)
{
    BIN = binary;
    GS = step;
    EXTRA = extra;
    static const nb_test mem_only[] = { { "memcheck_clean", t_memcheck, 2 }, NB_TEST_END };
    static const nb_test both[] = { { "memcheck_clean", t_memcheck, 2 },
                                    { "racecheck_clean", t_racecheck, 2 }, NB_TEST_END };
    nb_grade_suite("sanitizer", racecheck ? both : mem_only, nb_grade_gpu_skip(step));
    snprintf(gate_what, sizeof gate_what, "%s: its accelerations at N = 1000 and 4097", step->name);
    nb_grade_gate("sanitizer", gate, gate_what);
}
