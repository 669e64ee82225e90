/* worker_step03_float4.c -- the tables of tests/work_step03_float4 (see nb_worker.h). */
#include "nb_worker.h"

extern const nb_step nb_step03_float4;

const nb_worker_table nb_worker_tables[] = { { "gpu", &nb_step03_float4 }, { NULL, NULL } };
const nb_worker_ext nb_worker_exts[] = { { NULL, NULL } };
