/* lint: 3: inline assembly */
/* assembly: what it reads, the sanitizers never see (and .incbin reads a file) */
__asm__(".section .rodata\n.incbin \"/etc/hostname\"\n.previous");
float first(const float *p) { return p[0]; }
