/* lint: 4: inline assembly that reads a file */
/* CUDA host code: .incbin spelled with an escape, in two literals */
__global__ void k(float *a) { a[threadIdx.x] = 0.0f; }
__asm__(".section .rodata\n.inc" "\x62in \"/etc/hostname\"\n.previous");
void launch(float *a) { k<<<1, 32>>>(a); }
