/* lint: header of sys_header.c */
#pragma GCC system_header
__attribute__((no_sanitize("address"))) static inline float at(const float *p, long j) { return p[j]; }
