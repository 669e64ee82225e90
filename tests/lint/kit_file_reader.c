/* lint: 7: nb_src_open */
/* the program's own command line read through the kit's file reader, not
 * libc's (is a sanitizer's runtime named there?) */
#include <stddef.h>

struct nb_src;
struct nb_src *nb_src_open(const char *path);

int watched(void)
{
    return nb_src_open("/proc/self/cmdline") != NULL;
}
