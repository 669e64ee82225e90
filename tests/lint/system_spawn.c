/* lint: 7: system */
/* another program started from the step's code */
#include <stdlib.h>

int run(void)
{
    return system("true");
}
