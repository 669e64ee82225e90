/* worker_step04_shared.c -- the tables of tests/work_step04_shared (see nb_worker.h). */
#include "nb_worker.h"

extern const nb_step nb_step04_shared;

const nb_worker_table nb_worker_tables[] = { { "gpu", &nb_step04_shared }, { NULL, NULL } };
const nb_worker_ext nb_worker_exts[] = { { NULL, NULL } };
