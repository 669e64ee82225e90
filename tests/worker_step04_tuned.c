/* worker_step04_tuned.c -- the tables of tests/work_step04_tuned (see nb_worker.h). */
#include "nb_worker.h"

extern const nb_step nb_step04_tuned;

const nb_worker_table nb_worker_tables[] = { { "gpu", &nb_step04_tuned }, { NULL, NULL } };
const nb_worker_ext nb_worker_exts[] = { { NULL, NULL } };
