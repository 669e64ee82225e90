/* step01_cpu/main.c -- the program: everything but the step is in common/. */
#include "cpu.h"

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step01_cpu); }
