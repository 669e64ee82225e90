/* lint: 3: #pragma GCC optimize */
/* other flags for the rest of the file */
#pragma GCC optimize ("O0")
float first(const float *p) { return p[0]; }
