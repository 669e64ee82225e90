/* worker_step01_precision.c -- the table of tests/work_step01_precision:
 * step 01 with --precision (step01_cpu/precision, its library and the
 * lesson's), graded by step01's runner in its optional suite "precision"
 * (see nb_worker.h). */
#include "nb_worker.h"

extern const nb_step nb_step01_precision;

const nb_worker_table nb_worker_tables[] = { { "cpu", &nb_step01_precision }, { NULL, NULL } };
const nb_worker_ext nb_worker_exts[] = { { NULL, NULL } };
