/* main_step05_tuned.c -- the CUnit runner grading step05's tuned build
 * (step05_barneshut/tuned/nbody_tuned: tuned.cu, and cpu_tuned.c with
 * --cpu): the conformance suite with the tree's tolerance for both tables,
 * the lesson's CPU tree suite on its --cpu and its GPU tree suite on the GPU
 * code (the --cpu code is the reference there: the same cells), "step05
 * tuned" (the quadrupole expansion against the grader's own, the orders
 * against each other, NB_TUNE), the program under compute-sanitizer, and
 * the --cpu code under ASan and UBSan and under ThreadSanitizer.  The tables
 * run in tests/work_step05_tuned and its sanitized twins (nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

void nb_tree_register_cpu(const nb_step *cpu, const char *step_binary, const char *suite);
void nb_tree_register_gpu(const nb_step *gpu, const nb_step *cpu, const char *step_binary,
                          const char *suite);                            /* suite_tree.c */
void nb_tree_tuned_register(const nb_step *step, const char *binary);  /* suite_tree_tuned.c */

#define OPTIONS (NB_OPT_THETA | NB_OPT_RENDER_TREE | NB_OPT_CPU)

int main(int argc, char **argv)
{
    static const nb_remote_spec tuned = { "tuned", "step05_tuned", OPTIONS, 1, nb_grade_cuda_probe };
    static const nb_remote_spec cpu = { "cpu", "step05_tuned", OPTIONS | NB_OPT_THREADS, 1, NULL };
    const nb_step *g = nb_remote(WORKER, &tuned), *c = nb_remote(WORKER, &cpu);
    nb_remote_set_variant(g, c);
    nb_conformance_register(g, STEP_BINARY);
    nb_conformance_register(c, STEP_BINARY);
    nb_tree_register_cpu(c, STEP_BINARY, "step05 tuned cpu tree");
    nb_tree_register_gpu(g, c, STEP_BINARY, "step05 tuned gpu tree");
    nb_tree_tuned_register(g, STEP_BINARY);
    nb_sanitizer_register(g, STEP_BINARY, NULL, 1);
    nb_asan_register(nb_remote(WORKER_ASAN, &cpu));
    nb_races_register(nb_remote(WORKER_TSAN, &cpu), WORKER_TSAN, NB_TSAN_CONTROL, NB_TSAN_SYMBOLIZER, NB_TSAN_WHY);
    return nb_grade_main("step05_tuned", argc, argv);
}
