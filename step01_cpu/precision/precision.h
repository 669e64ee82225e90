/* step01_cpu/precision/precision.h -- step 01 with --precision single,
 * double and mixed (handouts/08_precision.md, an optional exercise): the
 * lesson's code (../cpu.c, linked from step01's library) for single, wide.c
 * for double and mixed. */
#ifndef STEP01_PRECISION_H
#define STEP01_PRECISION_H
#include "cpu.h"

/* --precision double and mixed (wide.c): the table nb_main() runs instead */
extern const nb_step nb_step01_wide;
/* the program's table (precision.c): step 01's, with --precision */
extern const nb_step nb_step01_precision;
#endif
