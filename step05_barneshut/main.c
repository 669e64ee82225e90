/* step05_barneshut: the Barnes-Hut tree code (see bh_gpu.cu, bh_cpu.c). */
#include "bh.h"

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step05_barneshut); }
