/* nb_cuda.h -- the GPU helpers every GPU step uses (common/nb_cuda.cu).
 *
 * Every CUDA call goes through NB_CUDA(call) and every launch is followed by
 * NB_LAUNCHED(); both record one message with the file and line and return
 * NB_EXIT_RUNTIME from the enclosing function (which must return int).  A
 * binary without code for the device gets a message naming the device's
 * compute capability and the ARCH= to rebuild with, not the raw "no kernel
 * image" error. */
#ifndef NB_CUDA_H
#define NB_CUDA_H
#include <stddef.h>
#include <cuda_runtime.h>
#include "nb_error.h"
#include "nb_step.h"

#ifdef __cplusplus
extern "C" {
#endif
int  nb_cuda_error(cudaError_t e, const char *what, const char *file, int line);
/* 0 if a usable device exists (selects device 0), else NB_EXIT_NODEV. Any
 * error of cudaGetDeviceCount counts as "no device", and the message says
 * why: no NVIDIA driver (libcuda.so.1 not found), a driver but no device
 * node, or the runtime's error (e.g. a driver too old).
 * NB_FAKE_NO_DEVICE=reason in the environment fakes it. */
int  nb_cuda_probe(void);
void nb_cuda_info(nb_run_info *info);          /* device name, SMs, clock */
/* Before allocating: does a run of n bodies at bytes_per_body fit in the free
 * device memory?  NB_EXIT_RUNTIME with the sizes if not. */
int  nb_cuda_fits(long long n, double bytes_per_body);
/* cudaMalloc with a message giving the sizes on failure (NB_EXIT_RUNTIME). */
int  nb_cuda_malloc(void **p, size_t bytes, const char *what, double *total);

/* The state back from the float4 layout of steps 03 and 04: positions from
 * pos (x, y, z; the mass stays in s), velocities from vel, both copied
 * through the host buffer staging (n float4).  NB_OK or the CUDA error. */
int  nb_cuda_download_float4(const float4 *pos, const float3 *vel, int64_t n, float4 *staging,
                             nb_state *s);

/* Timing with CUDA events on the default stream. */
typedef struct nb_cuda_timer { cudaEvent_t ev[4]; } nb_cuda_timer;
/* Marks: 0 start of step, 1 before the force computation, 2 after it,
 * 3 end of step.  read() waits for mark 3 and fills force_start_ms (1 - 0),
 * force_ms (2 - 1) and step_ms (3 - 0). */
int  nb_cuda_timer_create(nb_cuda_timer *t);
int  nb_cuda_timer_mark(nb_cuda_timer *t, int mark);
int  nb_cuda_timer_read(nb_cuda_timer *t, nb_step_time *out);
void nb_cuda_timer_destroy(nb_cuda_timer *t);
#ifdef __cplusplus
}
#endif

#define NB_CUDA(call) do { cudaError_t nb_e_ = (call); \
    if (nb_e_ != cudaSuccess) return nb_cuda_error(nb_e_, #call, __FILE__, __LINE__); } while (0)
#define NB_LAUNCHED() NB_CUDA(cudaGetLastError())

#endif
