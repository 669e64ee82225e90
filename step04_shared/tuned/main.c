/* step04_shared/tuned/main.c -- nbody_tuned, the tuned build of step04
 * (tuned.cu); `make bench` measures it beside the lesson kernel. */
#include "nb_step.h"

extern const nb_step nb_step04_tuned;

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step04_tuned); }
