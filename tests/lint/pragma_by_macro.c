/* lint: 5: #pragma GCC optimize */
/* the same pragma made by _Pragma and stringizing */
#define STR(x) #x
#define FLAGS(x) _Pragma(STR(GCC optimize(x)))
FLAGS("O0")
float first(const float *p) { return p[0]; }
