/* lint: 3: __no_address_safety_analysis__ */
/* the older spelling */
__attribute__((__no_address_safety_analysis__)) static float at(const float *p, long j) { return p[j]; }
float first(const float *p) { return at(p, 0); }
