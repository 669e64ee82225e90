/* nb_turning.h -- a step of known motion for the kit's own tests of the view
 * and the server (suite_view.c, serve_prog.c): no student code, so those
 * tests hold in any tree, the student kit's too.
 *
 * The bodies turn about the z axis by 0.01 rad a step (their velocities and
 * masses stay those they started with, the accelerations are zero); a step
 * sleeps step_ms and reports step_ms as its force and step time (1 ms when
 * step_ms is 0: no sleep).  With NB_OPT_RENDER_TREE in options it has a tree:
 * the root cube (centre 0, half-size 1) and its 8 children. */
#ifndef NB_TURNING_H
#define NB_TURNING_H

#include "nb_step.h"

/* The step, named 'name' (pictures and screenshots carry it); one per
 * program: the last call's step_ms holds for every step it made. */
nb_step nb_turning_step(const char *name, const char *idea, unsigned options, double step_ms);

#endif
