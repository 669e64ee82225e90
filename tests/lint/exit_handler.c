/* lint: 7: on_exit */
/* a program whose --check fails ends with 0 all the same: a handler run at
 * exit that ends the process with another status */
#include <stdlib.h>
#include <unistd.h>

int on_exit(void (*fn)(int, void *), void *arg);
static void flip(int status, void *arg) { (void)arg; if (status == 1) _exit(0); }
__attribute__((constructor)) static void install(void)
{ on_exit(flip, NULL); }
