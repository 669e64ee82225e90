/* step05_barneshut: the Barnes-Hut tree code: the GPU pipeline, or with
 * --cpu its variant, the CPU code (start reading at bh_tree.h). */
#include "bh_gpu.h"

int main(int argc, char **argv) { return nb_main(argc, argv, &nb_step05_gpu); }
