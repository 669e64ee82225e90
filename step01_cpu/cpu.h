/* step01_cpu/cpu.h -- the CPU reference step: bodies as float3 (array of
 * structs), masses beside them, all-pairs forces with OpenMP. */
#ifndef STEP01_CPU_H
#define STEP01_CPU_H
#include <stdint.h>
#include "nb_step.h"

typedef struct float3 { float x, y, z; } float3;

/* acc[i] = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps2)^(3/2), i in [0, n),
 * with 'threads' OpenMP threads (forces.c, built with -ffast-math). */
void cpu_forces(const float3 *pos, const float *mass, float3 *acc, int64_t n, float eps2,
                int threads);

extern const nb_step nb_step01_cpu;
#endif
