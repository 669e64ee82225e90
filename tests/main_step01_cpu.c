/* main_step01_cpu.c -- the CUnit runner grading step01_cpu: the conformance
 * suite, and the step's code under ASan and UBSan.  The step runs in
 * tests/work_step01_cpu (and its sanitized build), never in this process
 * (nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

int main(int argc, char **argv)
{
    static const nb_remote_spec cpu = { "cpu", "step01_cpu", NB_OPT_THREADS, 0, NULL };
    nb_conformance_register(nb_remote(WORKER, &cpu), STEP_BINARY);
    nb_asan_register(nb_remote(WORKER_ASAN, &cpu));
    return nb_grade_main("step01_cpu", argc, argv);
}
