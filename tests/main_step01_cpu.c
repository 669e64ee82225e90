/* main_step01_cpu.c -- the CUnit runner grading step01_cpu: the conformance
 * suite, the step's code under ASan and UBSan, its force loop under
 * ThreadSanitizer (the suite "races"), and --precision double and mixed (the
 * optional exercise of handouts/08_precision.md, step01_cpu/precision: its
 * program and tests/work_step01_precision).  The step runs in
 * tests/work_step01_cpu (and its sanitized and race-checking builds), never
 * in this process (nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

int main(int argc, char **argv)
{
    static const nb_remote_spec cpu = { "cpu", "step01_cpu", NB_OPT_THREADS, 0, NULL };
    static const nb_remote_spec precision = { "cpu", "step01_cpu", NB_OPT_THREADS | NB_OPT_PRECISION, 0, NULL };
    const nb_step *c = nb_remote(WORKER, &cpu);
    nb_conformance_register(c, STEP_BINARY);
    nb_asan_register(nb_remote(WORKER_ASAN, &cpu));
    nb_races_register(nb_remote(WORKER_TSAN, &cpu), WORKER_TSAN, NB_TSAN_CONTROL, NB_TSAN_SYMBOLIZER, NB_TSAN_WHY);
    nb_precision_register(nb_remote(PRECISION_WORKER, &precision), PRECISION_BINARY);
    nb_grade_optional("precision");          /* its points apart from the lab's */
    return nb_grade_main("step01_cpu", argc, argv);
}
