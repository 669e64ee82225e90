/* lint: sys_header.h:3: no_sanitize */
/* a header that calls itself a system header (its warnings silenced) is read all the same */
#include "sys_header.h"
float first(const float *p) { return at(p, 0); }
