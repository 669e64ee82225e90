/* lint: 6: __real_malloc */
/* a block the fence does not see: the allocator under its wrapper, where
 * a read past the end meets no unreadable page */
#include <stddef.h>

void *__real_malloc(size_t n);

float *arrays(size_t n)
{
    return (float *)__real_malloc(n * sizeof(float));
}
