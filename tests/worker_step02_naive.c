/* worker_step02_naive.c -- the tables of tests/work_step02_naive (see nb_worker.h). */
#include "nb_worker.h"

extern const nb_step nb_step02_naive;

const nb_worker_table nb_worker_tables[] = { { "gpu", &nb_step02_naive }, { NULL, NULL } };
const nb_worker_ext nb_worker_exts[] = { { NULL, NULL } };
