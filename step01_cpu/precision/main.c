/* step01_cpu/precision/main.c -- the program: step 01 with --precision
 * (precision.c); everything but the step is in common/. */
#include "precision.h"

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step01_precision); }
