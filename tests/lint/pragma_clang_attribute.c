/* lint: 3: #pragma clang attribute */
/* clang's way to put an attribute on every function that follows */
#pragma clang attribute push (__attribute__((no_sanitize("address"))), apply_to = function)
float first(const float *p) { return p[0]; }
#pragma clang attribute pop
