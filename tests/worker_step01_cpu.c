/* worker_step01_cpu.c -- the tables of tests/work_step01_cpu (see nb_worker.h). */
#include "nb_worker.h"

extern const nb_step nb_step01_cpu;

const nb_worker_table nb_worker_tables[] = { { "cpu", &nb_step01_cpu }, { NULL, NULL } };
const nb_worker_ext nb_worker_exts[] = { { NULL, NULL } };
