/* lint: 4: a line directive */
/* a line marker that calls what follows a system header's, so that a check
 * trusting the markers would not read it */
#/**/ 1 "/usr/include/stdio.h" 3
__attribute__((no_sanitize("address"))) static float at(const float *p, long j) { return p[j]; }
float first(const float *p) { return at(p, 0); }
