/* lint: 4: the attribute optimize */
/* other flags for one function */
static float at(const float *p, long j)
    __attribute__((noinline, optimize("O0")));
static float at(const float *p, long j) { return p[j]; }
float first(const float *p) { return at(p, 0); }
