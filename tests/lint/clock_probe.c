/* lint: 9: clock_gettime */
/* a clean loop only when the clock says the code runs slowly (under a
 * sanitizer) */
#include <time.h>

int slow(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_nsec % 2;
}
