/* lint: 4: the sanitizers' interface (__asan_default_options) */
/* AddressSanitizer's options, chosen by the code it checks: heap
 * overflows go unseen */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "poison_heap=0"; }
