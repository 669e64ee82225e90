/* lint: clean -- CUDA: a kernel, its launch, a kit header */
#include "nb_physics.h"

__global__ void k(const float4 *p, float *a, int n, float eps2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    #pragma unroll 4
    for (int j = 0; j < n; j++) nb_interact(p[i].x, p[i].y, p[i].z, p[j].x, p[j].y, p[j].z, p[j].w, eps2, &ax, &ay, &az);
    a[i] = ax + ay + az;
}
void launch(const float4 *p, float *a, int n) { k<<<(n + 127) / 128, 128>>>(p, a, n, 1e-4f); }
