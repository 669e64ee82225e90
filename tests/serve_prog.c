/* serve_prog.c -- a kit program for the --serve tests (tests/suite_serve.c,
 * tests/serve_check.py): nb_main() -- the one command line, the view's loop,
 * the server -- with a step of known motion instead of a student's (the
 * bodies turn about the z axis by 0.01 rad a step, a step takes 2 ms), so
 * the server is tested on the kit's own code, in any tree, the student kit
 * too.  Its name in pictures and screenshots is "serveprog". */
#include "nb_turning.h"

int main(int argc, char **argv)
{
    nb_step serveprog = nb_turning_step("serveprog", "bodies turning about z, 2 ms a step (the --serve "
                                        "tests' program)", 0, 2.0);
    return nb_main(argc, argv, &serveprog);
}
