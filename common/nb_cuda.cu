/* nb_cuda.cu -- GPU helpers shared by every GPU step: error reporting,
 * device probe, device information, checked allocation, event timing.
 *
 *   nvcc -O3 -ftz=true -c nb_cuda.cu   (flags: common/config.mk) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "nb_cuda.h"

/* A kernel compiled with the same targets as the steps: if the driver cannot
 * load it, the binary has no code for this GPU. */
__global__ void nb_probe_kernel(int *p) { if (p) *p = 1; }

static int nb_arch_hint(cudaError_t e, const char *what, const char *file, int line)
{
    int dev = 0;
    cudaDeviceProp p;
    if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&p, dev) == cudaSuccess)
        return nb_fail(NB_EXIT_RUNTIME,
                       "this program has no code for the %s (compute capability %d.%d); "
                       "rebuild with: make clean && make ARCH=sm_%d%d  (%s at %s:%d)",
                       p.name, p.major, p.minor, p.major, p.minor, what, file, line);
    return nb_fail(NB_EXIT_RUNTIME, "%s: %s (%s:%d)", what, cudaGetErrorString(e), file, line);
}

extern "C" int nb_cuda_error(cudaError_t e, const char *what, const char *file, int line)
{
    (void)cudaGetLastError();                   /* clear a sticky non-fatal error */
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction)
        return nb_arch_hint(e, what, file, line);
    if (e == cudaErrorMemoryAllocation)
        return nb_fail(NB_EXIT_RUNTIME, "out of GPU memory: %s (%s:%d)", what, file, line);
    return nb_fail(NB_EXIT_RUNTIME, "CUDA error: %s: %s (%s:%d)", cudaGetErrorString(e), what, file, line);
}

extern "C" int nb_cuda_probe(void)
{
    const char *fake = getenv("NB_FAKE_NO_DEVICE");
    if (fake && *fake)
        return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: %s (faked by NB_FAKE_NO_DEVICE)", fake);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);   /* count may stay unset on error */
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        /* The runtime says "driver version is insufficient" also when there
         * is no driver at all: say which it is. */
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!driver)
            return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: no NVIDIA driver on this machine "
                           "(libcuda.so.1 not found; this step needs an NVIDIA GPU and its driver)");
        dlclose(driver);
        if (access("/dev/nvidiactl", F_OK) != 0)
            return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: the NVIDIA driver library is here but no "
                           "GPU device (/dev/nvidiactl missing): %s", cudaGetErrorString(e));
        return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: %s (this step needs an NVIDIA GPU)",
                       cudaGetErrorString(e));
    }
    if (count <= 0)
        return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: no CUDA device found (this step needs an NVIDIA GPU)");
    e = cudaSetDevice(0);
    if (e == cudaSuccess) e = cudaFree(0);       /* create the context now */
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return nb_fail(NB_EXIT_NODEV, "no usable CUDA device: %s", cudaGetErrorString(e));
    }
    cudaFuncAttributes attr;
    e = cudaFuncGetAttributes(&attr, nb_probe_kernel);
    if (e != cudaSuccess) return nb_cuda_error(e, "loading the kernels", __FILE__, __LINE__);
    return NB_OK;
}

extern "C" void nb_cuda_info(nb_run_info *info)
{
    int dev = 0, clock_khz = 0;
    cudaDeviceProp p;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        snprintf(info->device, sizeof info->device, "unknown GPU");
        return;
    }
    snprintf(info->device, sizeof info->device, "%.127s", p.name);
    info->sms = p.multiProcessorCount;
    if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev) == cudaSuccess)
        info->clock_mhz = clock_khz / 1000;
    (void)cudaGetLastError();
}

extern "C" int nb_cuda_fits(long long n, double bytes_per_body)
{
    size_t fr = 0, tot = 0;
    NB_CUDA(cudaMemGetInfo(&fr, &tot));
    double need = (double)n * bytes_per_body;
    if (need > (double)fr)
        return nb_fail(NB_EXIT_RUNTIME,
                       "out of GPU memory: %lld bodies need %.2f GiB (%.0f B/body) but %.2f of %.2f GiB "
                       "are free; use a smaller -n", n, need / 1073741824.0, bytes_per_body,
                       fr / 1073741824.0, tot / 1073741824.0);
    return NB_OK;
}

extern "C" int nb_cuda_malloc(void **p, size_t bytes, const char *what, double *total)
{
    *p = NULL;
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        size_t fr = 0, tot = 0;
        cudaMemGetInfo(&fr, &tot);
        (void)cudaGetLastError();
        *p = NULL;
        return nb_fail(NB_EXIT_RUNTIME,
                       "out of GPU memory: %s needs %.1f MiB (%.1f MiB allocated before it), "
                       "%.1f of %.1f MiB free; use a smaller -n",
                       what, bytes / 1048576.0, total ? *total / 1048576.0 : 0.0,
                       fr / 1048576.0, tot / 1048576.0);
    }
    if (total) *total += (double)bytes;
    return NB_OK;
}

extern "C" int nb_cuda_timer_create(nb_cuda_timer *t)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k < 4; k++) NB_CUDA(cudaEventCreate(&t->ev[k]));
    return NB_OK;
}

extern "C" int nb_cuda_timer_mark(nb_cuda_timer *t, int mark)
{
    NB_CUDA(cudaEventRecord(t->ev[mark], 0));
    return NB_OK;
}

extern "C" int nb_cuda_timer_read(nb_cuda_timer *t, nb_step_time *out)
{
    float f0 = 0, f = 0, s = 0;
    NB_CUDA(cudaEventSynchronize(t->ev[3]));
    NB_CUDA(cudaEventElapsedTime(&f0, t->ev[0], t->ev[1]));
    NB_CUDA(cudaEventElapsedTime(&f, t->ev[1], t->ev[2]));
    NB_CUDA(cudaEventElapsedTime(&s, t->ev[0], t->ev[3]));
    out->force_start_ms = f0;
    out->force_ms = f;
    out->step_ms = s;
    return NB_OK;
}

extern "C" void nb_cuda_timer_destroy(nb_cuda_timer *t)
{
    for (int k = 0; k < 4; k++)
        if (t->ev[k]) cudaEventDestroy(t->ev[k]);
    memset(t, 0, sizeof *t);
}

int nb_cuda_download_float4(const float4 *pos, const float3 *vel, int64_t n, float4 *staging,
                            nb_state *s)
{
    NB_CUDA(cudaMemcpy(staging, pos, (size_t)n * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; i++) { s->x[i] = staging[i].x; s->y[i] = staging[i].y; s->z[i] = staging[i].z; }
    float3 *v3 = (float3 *)staging;
    NB_CUDA(cudaMemcpy(v3, vel, (size_t)n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; i++) { s->vx[i] = v3[i].x; s->vy[i] = v3[i].y; s->vz[i] = v3[i].z; }
    return NB_OK;
}
