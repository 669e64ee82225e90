/* lint: 3: disable_sanitizer_instrumentation */
/* clang's */
__attribute__((disable_sanitizer_instrumentation)) static float at(const float *p, long j) { return p[j]; }
float first(const float *p) { return at(p, 0); }
