/* lint: 5: no_sanitize */
/* the out-of-bounds read j <= n, hidden from AddressSanitizer */
#include <stdint.h>

__attribute__((no_sanitize("address"))) static float at(const float *p, int64_t j) { return p[j]; }

float sum(const float *p, int64_t n)
{
    float s = 0.0f;
    for (int64_t j = 0; j <= n; j++) s += at(p, j);
    return s;
}
