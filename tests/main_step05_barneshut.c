/* main_step05_barneshut.c -- the CUnit runner of step05_barneshut: the
 * conformance suite (tree tolerance) for both tables of the program, the GPU
 * pipeline and its --cpu variant, the octree's own suites, the GPU program
 * under compute-sanitizer and the CPU code under ASan and UBSan and under
 * ThreadSanitizer (the suite "races (cpu)").  Every table
 * runs in tests/work_step05_barneshut (nb_remote.h); what the grader knows of
 * them is said here. */
#include "nb_grade.h"
#include "nb_remote.h"

void nb_tree_register(const nb_step *gpu, const nb_step *cpu, const char *step_binary);  /* suite_tree.c */

#define OPTIONS (NB_OPT_BLOCK | NB_OPT_THETA | NB_OPT_CPU | NB_OPT_RENDER_TREE)

int main(int argc, char **argv)
{
    static const nb_remote_spec gpu = { "gpu", "step05_barneshut", OPTIONS, 1, nb_grade_cuda_probe };
    static const nb_remote_spec cpu = { "cpu", "step05_barneshut", OPTIONS | NB_OPT_THREADS, 1, NULL };
    const nb_step *g = nb_remote(WORKER, &gpu), *c = nb_remote(WORKER, &cpu);
    nb_remote_set_variant(g, c);
    nb_conformance_register(g, STEP_BINARY);
    nb_conformance_register(c, STEP_BINARY);
    nb_tree_register(g, c, STEP_BINARY);
    nb_sanitizer_register(g, STEP_BINARY, NULL, 1);
    nb_asan_register(nb_remote(WORKER_ASAN, &cpu));
    nb_races_register(nb_remote(WORKER_TSAN, &cpu), WORKER_TSAN, NB_TSAN_CONTROL, NB_TSAN_SYMBOLIZER, NB_TSAN_WHY);
    return nb_grade_main("step05_barneshut", argc, argv);
}
