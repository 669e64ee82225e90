/* lint: 3: an #include of a file that is not a header (tests/lint/table.def) */
static const float table[] = {
#include "table.def"
};
float first(void) { return table[0]; }
