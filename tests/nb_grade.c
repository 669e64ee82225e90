/* nb_grade.c -- the grading harness (see nb_grade.h).
 *
 * Suites run one at a time with CU_run_suite(); a test-complete handler
 * prints one line per test from CUnit's failure records.  Inactive suites
 * (skip reason given) are never run: their tests are printed as SKIPPED with
 * the reason and count neither as passed nor as failed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <CUnit/TestRun.h>
#include "nb_grade.h"

#define MAX_SUITES 32
#define MAX_TESTS 256

typedef struct g_suite {
    CU_pSuite   suite;
    const char *name;
    const nb_test *tests;
    char        skip[256];
    int         skipped;
} g_suite;

typedef struct g_result {
    const char *suite, *test;
    int points, earned;
    const char *status;            /* PASS, FAIL, SKIP */
    char detail[320];
} g_result;

static g_suite suites[MAX_SUITES];
static int nsuites;
static g_result results[MAX_TESTS];
static int nresults;
static int registry_ready;

static int ensure_registry(void)
{
    if (registry_ready) return 0;
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: cannot initialize the registry: %s\n", CU_get_error_msg());
        return -1;
    }
    registry_ready = 1;
    return 0;
}

int nb_grade_suite(const char *name, const nb_test *tests, const char *skip_reason)
{
    return nb_grade_suite_setup(name, tests, skip_reason, NULL);
}

int nb_grade_suite_setup(const char *name, const nb_test *tests, const char *skip_reason,
                         CU_InitializeFunc setup)
{
    if (ensure_registry() || nsuites == MAX_SUITES) return -1;
    g_suite *g = &suites[nsuites];
    g->suite = CU_add_suite(name, setup, NULL);
    if (!g->suite) return -1;
    g->name = name;
    g->tests = tests;
    for (const nb_test *t = tests; t->name; t++)
        if (!CU_add_test(g->suite, t->name, t->fn)) return -1;
    if (skip_reason) {
        snprintf(g->skip, sizeof g->skip, "%s", skip_reason);
        g->skipped = 1;
        CU_set_suite_active(g->suite, CU_FALSE);
    }
    nsuites++;
    return 0;
}

const char *nb_grade_gpu_skip(const nb_step *step)
{
    static char why[256];
    if (!step->probe || step->probe(NULL) == 0) return NULL;
    snprintf(why, sizeof why, "%s", nb_errmsg());
    return why;
}

static int points_of(const g_suite *g, const char *test)
{
    for (const nb_test *t = g->tests; t->name; t++)
        if (!strcmp(t->name, test)) return t->points;
    return 0;
}

static g_suite *current;

static void on_test_complete(const CU_pTest test, const CU_pSuite suite, const CU_pFailureRecord fail)
{
    (void)suite;
    if (nresults == MAX_TESTS) return;
    g_result *r = &results[nresults++];
    r->suite = current->name;
    r->test = test->pName;
    r->points = points_of(current, test->pName);
    if (fail) {
        int nf = 0;
        for (CU_pFailureRecord f = fail; f; f = f->pNext) nf++;
        r->status = "FAIL";
        r->earned = 0;
        snprintf(r->detail, sizeof r->detail, "%s (%s:%u)%s", fail->strCondition ? fail->strCondition : "?",
                 fail->strFileName ? fail->strFileName : "?", fail->uiLineNumber,
                 nf > 1 ? " and more" : "");
    } else {
        r->status = "PASS";
        r->earned = r->points;
        r->detail[0] = '\0';
    }
    printf("  %-4s %3d/%-3d %s/%s%s%s\n", r->status, r->earned, r->points, r->suite, r->test,
           fail ? ": " : "", r->detail);
    fflush(stdout);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", *s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

static void write_results(const char *runner, int passed, int failed, int skipped, int earned, int possible)
{
    if (getenv("NB_GRADE_NO_RESULTS")) return;
    mkdir("results", 0777);
    char path[512];
    snprintf(path, sizeof path, "results/%s.tsv", runner);
    FILE *f = fopen(path, "w");
    if (f) {
        for (int k = 0; k < nresults; k++)
            fprintf(f, "%s\t%s\t%s\t%s\t%d\t%d\n", runner, results[k].suite, results[k].test,
                    results[k].status, results[k].earned, results[k].points);
        fclose(f);
    }
    snprintf(path, sizeof path, "results/%s.json", runner);
    f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "{\"runner\": ");
    json_str(f, runner);
    fprintf(f, ", \"passed\": %d, \"failed\": %d, \"skipped\": %d, \"points\": %d, \"possible\": %d,\n"
               " \"tests\": [\n", passed, failed, skipped, earned, possible);
    for (int k = 0; k < nresults; k++) {
        fprintf(f, "  {\"suite\": ");
        json_str(f, results[k].suite);
        fprintf(f, ", \"test\": ");
        json_str(f, results[k].test);
        fprintf(f, ", \"status\": \"%s\", \"points\": %d, \"earned\": %d, \"detail\": ", results[k].status,
                results[k].points, results[k].earned);
        json_str(f, results[k].detail);
        fprintf(f, "}%s\n", k + 1 < nresults ? "," : "");
    }
    fprintf(f, " ]}\n");
    fclose(f);
}

int nb_grade_main(const char *runner, int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;      /* optional suite name filter */
    if (ensure_registry()) return 1;
    CU_set_fail_on_inactive(CU_FALSE);
    CU_set_error_action(CUEA_IGNORE);
    CU_set_test_complete_handler(on_test_complete);
    printf("== %s ==\n", runner);
    fflush(stdout);
    int passed = 0, failed = 0, skipped = 0, earned = 0, possible = 0;
    for (int s = 0; s < nsuites; s++) {
        g_suite *g = &suites[s];
        if (only && !strstr(g->name, only)) continue;
        if (g->skipped) {
            for (const nb_test *t = g->tests; t->name && nresults < MAX_TESTS; t++) {
                g_result *r = &results[nresults++];
                r->suite = g->name; r->test = t->name; r->points = t->points; r->earned = 0;
                r->status = "SKIP";
                snprintf(r->detail, sizeof r->detail, "SKIPPED (%s)", g->skip);
                printf("  SKIP   -/%-3d %s/%s: %s\n", t->points, g->name, t->name, r->detail);
            }
            continue;
        }
        current = g;
        int before = nresults;
        CU_run_suite(g->suite);
        if (CU_get_number_of_suites_failed() > 0 && nresults == before) {
            /* suite setup failed: every test of it fails */
            for (const nb_test *t = g->tests; t->name && nresults < MAX_TESTS; t++) {
                g_result *r = &results[nresults++];
                r->suite = g->name; r->test = t->name; r->points = t->points; r->earned = 0;
                r->status = "FAIL";
                snprintf(r->detail, sizeof r->detail, "suite initialization failed");
                printf("  FAIL   0/%-3d %s/%s: %s\n", t->points, g->name, t->name, r->detail);
            }
        }
    }
    for (int k = 0; k < nresults; k++) {
        if (!strcmp(results[k].status, "SKIP")) { skipped++; continue; }
        possible += results[k].points;
        earned += results[k].earned;
        if (!strcmp(results[k].status, "PASS")) passed++;
        else failed++;
    }
    int skipped_points = 0;
    for (int k = 0; k < nresults; k++)
        if (!strcmp(results[k].status, "SKIP")) skipped_points += results[k].points;
    printf("%s: score %d/%d points", runner, earned, possible);
    if (skipped) printf(" (%d points in %d skipped tests not graded)", skipped_points, skipped);
    printf("\n%s: %d passed, %d failed, %d skipped\n", runner, passed, failed, skipped);
    write_results(runner, passed, failed, skipped, earned, possible);
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
