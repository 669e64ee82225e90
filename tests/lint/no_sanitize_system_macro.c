/* lint: 6: no_sanitize_address */
/* pasted by a system header's macro (glibc's __CONCAT): text gcc marks as
 * the system's */
#include <stdio.h>

__attribute__((__CONCAT(no_sanitize_, address))) static float at(const float *p, long j) { return p[j]; }
float first(const float *p) { return at(p, 0); }
