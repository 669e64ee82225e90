/* main_step05_tuned.c -- the CUnit runner grading step05's tuned build
 * (step05_barneshut/tuned/nbody_tuned, tuned.cu): the conformance suite with the
 * tree's tolerance, the lesson's GPU tree suite (the lesson's CPU code is
 * its reference: the tuned build uses the same cells), "step05 tuned" (the quadrupole expansion against the
 * grader's own, the orders against each other, NB_TUNE), and the program
 * under compute-sanitizer.  The tables run in tests/work_step05_tuned
 * (its table "tuned", nb_remote.h). */
#include "nb_grade.h"
#include "nb_remote.h"

void nb_tree_register_gpu(const nb_step *gpu, const nb_step *cpu, const char *step_binary,
                          const char *suite);                            /* suite_tree.c */
void nb_tree_tuned_register(const nb_step *step, const char *binary);  /* suite_tree_tuned.c */

#define OPTIONS (NB_OPT_THETA | NB_OPT_RENDER_TREE)

int main(int argc, char **argv)
{
    static const nb_remote_spec tuned = { "tuned", "step05_tuned", OPTIONS, 1, nb_grade_cuda_probe };
    static const nb_remote_spec cpu = { "cpu", "step05_barneshut", OPTIONS | NB_OPT_CPU | NB_OPT_BLOCK |
                                        NB_OPT_THREADS, 1, NULL };
    const nb_step *g = nb_remote(WORKER, &tuned), *c = nb_remote(WORKER, &cpu);
    nb_conformance_register(g, STEP_BINARY);
    nb_tree_register_gpu(g, c, STEP_BINARY, "step05 tuned gpu tree");
    nb_tree_tuned_register(g, STEP_BINARY);
    nb_sanitizer_register(g, STEP_BINARY, NULL, 1);
    return nb_grade_main("step05_tuned", argc, argv);
}
