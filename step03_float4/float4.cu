/* step03_float4/float4.cu -- step02 with the bodies packed as float4.
 *
 * The only change: a body's position and mass travel together as one float4
 * (x, y, z, m), 16 bytes, 16-byte aligned, so each j costs ONE 128-bit load
 * (LDG.E.128) per warp instead of three 32-bit position loads plus a mass
 * load.  Velocities and accelerations keep their float3 layout.
 *
 * Napkin math (H100 SXM): the warp still reads one broadcast address per j,
 * from L1; the load instructions per interaction drop from 4 to 1, the
 * bytes per interaction stay at 16.  Whether that helps depends on what
 * limits the naive kernel -- `make profile` measures it.
 *
 *   nvcc -O3 -ftz=true -arch=sm_90 -c float4.cu   (flags: common/config.mk) */
#include <stdlib.h>
#include <string.h>
#include "nb_cuda.h"
#include "nb_physics.h"

#define DEFAULT_BLOCK 256

/* a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) */
__global__ void forces_kernel(const float4 *pos, float3 *acc, int n, float eps2)
{
    /* BEGIN SOLUTION
     * As in step02, but each body j is ONE float4 load pos[j] = (x, y, z, m): the mass is
     * pj.w.  See handouts/03_float4.md.
     */
    /* BLANK: (void)pos; (void)acc; (void)n; (void)eps2; */
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 pj = pos[j];
        nb_interact(pi.x, pi.y, pi.z, pj.x, pj.y, pj.z, pj.w, eps2, &ax, &ay, &az);
    }
    acc[i] = make_float3(ax, ay, az);
    /* END SOLUTION */
}

/* Leapfrog: v += a dt/2; x += v dt  (before the forces) ... */
__global__ void kick_drift_kernel(float4 *pos, float3 *vel, const float3 *acc, int n, float dt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float h = 0.5f * dt;
    float3 v = vel[i], a = acc[i];
    float4 p = pos[i];
    v.x += h * a.x; v.y += h * a.y; v.z += h * a.z;
    p.x += dt * v.x; p.y += dt * v.y; p.z += dt * v.z;
    vel[i] = v;
    pos[i] = p;
}

/* ... and v += a dt/2 (after them). */
__global__ void kick_kernel(float3 *vel, const float3 *acc, int n, float dt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float h = 0.5f * dt;
    float3 v = vel[i], a = acc[i];
    v.x += h * a.x; v.y += h * a.y; v.z += h * a.z;
    vel[i] = v;
}

typedef struct gpu_ctx {
    int n, block, grid, poison;
    float eps2, dt;
    float4 *pos;                     /* device: x, y, z, m */
    float3 *vel, *acc, *out;         /* device */
    float4 *host;                    /* staging for copies */
    double bytes;
    nb_cuda_timer timer;
} gpu_ctx;

static void gpu_destroy(void *p)
{
    gpu_ctx *c = (gpu_ctx *)p;
    if (!c) return;
    cudaFree(c->pos); cudaFree(c->vel); cudaFree(c->acc); cudaFree(c->out);
    nb_cuda_timer_destroy(&c->timer);
    free(c->host);
    free(c);
}

static int forces(gpu_ctx *c, float3 *acc)
{
    if (c->poison) NB_CUDA(cudaMemset(acc, 0xff, (size_t)c->n * sizeof *acc));   /* NaN */
    /* BEGIN SOLUTION
     * Launch forces_kernel with c->grid blocks of c->block threads on (c->pos, acc, c->n,
     * c->eps2) -- no mass array any more -- then NB_LAUNCHED().  See handouts/03_float4.md.
     */
    /* BLANK: return nb_todo("forces_kernel and its launch in forces()", "03_float4"); */
    forces_kernel<<<c->grid, c->block>>>(c->pos, acc, c->n, c->eps2);
    NB_LAUNCHED();
    /* END SOLUTION */
    return NB_OK;
}

static int gpu_setup(gpu_ctx *c, const nb_state *s)
{
    size_t n = (size_t)c->n;
    int rc;
    if ((rc = nb_cuda_malloc((void **)&c->pos, n * sizeof(float4), "positions and masses", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->vel, n * sizeof(float3), "velocities", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->acc, n * sizeof(float3), "accelerations", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->out, n * sizeof(float3), "accelerations (copy)", &c->bytes)))
        return rc;
    c->host = (float4 *)malloc(n * sizeof(float4));
    if (!c->host) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %zu bodies", n);
    /* BEGIN SOLUTION
     * The upload: pack each body as one float4 (x, y, z, m) in the staging buffer c->host and
     * copy it to c->pos; the velocities stay float3: pack them in the same buffer and copy
     * them to c->vel.  See handouts/03_float4.md.
     */
    /* BLANK: (void)s; */
    /* BLANK: return nb_todo("the float4 upload in gpu_setup()", "03_float4"); */
    for (size_t i = 0; i < n; i++) c->host[i] = make_float4(s->x[i], s->y[i], s->z[i], s->m[i]);
    NB_CUDA(cudaMemcpy(c->pos, c->host, n * sizeof(float4), cudaMemcpyHostToDevice));
    float3 *v3 = (float3 *)c->host;
    for (size_t i = 0; i < n; i++) v3[i] = make_float3(s->vx[i], s->vy[i], s->vz[i]);
    NB_CUDA(cudaMemcpy(c->vel, v3, n * sizeof(float3), cudaMemcpyHostToDevice));
    /* END SOLUTION */
    if ((rc = nb_cuda_timer_create(&c->timer))) return rc;
    if ((rc = forces(c, c->acc))) return rc;                     /* a(x0) */
    NB_CUDA(cudaDeviceSynchronize());
    return NB_OK;
}

static int gpu_init(void **ctx, const nb_state *s, const nb_options *o)
{
    *ctx = NULL;
    gpu_ctx *c = (gpu_ctx *)calloc(1, sizeof *c);
    if (!c) return nb_fail(NB_EXIT_RUNTIME, "out of host memory");
    c->n = (int)s->n;
    c->block = o->block ? o->block : DEFAULT_BLOCK;
    c->grid = (int)((s->n + c->block - 1) / c->block);
    c->eps2 = (float)(o->eps * o->eps);
    c->dt = (float)o->dt;
    c->poison = o->poison;
    int rc = gpu_setup(c, s);
    if (rc) { gpu_destroy(c); return rc; }
    *ctx = c;
    return NB_OK;
}

static int gpu_accel(void *p, float *ax, float *ay, float *az)
{
    gpu_ctx *c = (gpu_ctx *)p;
    int rc = forces(c, c->out);
    if (rc) return rc;
    float3 *a3 = (float3 *)c->host;
    NB_CUDA(cudaMemcpy(a3, c->out, (size_t)c->n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < c->n; i++) { ax[i] = a3[i].x; ay[i] = a3[i].y; az[i] = a3[i].z; }
    return NB_OK;
}

static int gpu_advance(void *p, int steps, nb_step_time *times)
{
    gpu_ctx *c = (gpu_ctx *)p;
    int rc;
    for (int k = 0; k < steps; k++) {
        if (times && (rc = nb_cuda_timer_mark(&c->timer, 0))) return rc;
        kick_drift_kernel<<<c->grid, c->block>>>(c->pos, c->vel, c->acc, c->n, c->dt);
        NB_LAUNCHED();
        if (times && (rc = nb_cuda_timer_mark(&c->timer, 1))) return rc;
        if ((rc = forces(c, c->acc))) return rc;
        if (times && (rc = nb_cuda_timer_mark(&c->timer, 2))) return rc;
        kick_kernel<<<c->grid, c->block>>>(c->vel, c->acc, c->n, c->dt);
        NB_LAUNCHED();
        if (times) {
            if ((rc = nb_cuda_timer_mark(&c->timer, 3)) || (rc = nb_cuda_timer_read(&c->timer, &times[k])))
                return rc;
            times[k].interactions = (int64_t)c->n * c->n;
        }
    }
    NB_CUDA(cudaDeviceSynchronize());
    return NB_OK;
}

static int gpu_download(void *p, nb_state *s)
{
    gpu_ctx *c = (gpu_ctx *)p;
    return nb_cuda_download_float4(c->pos, c->vel, c->n, c->host, s);
}

/* The bodies on the device, for the GL view (nb_step.h). */
static int gpu_bodies(void *p, nb_bodies *b)
{
    gpu_ctx *c = (gpu_ctx *)p;
    *b = (nb_bodies){ c->n, &c->pos->x, &c->pos->y, &c->pos->z, &c->pos->w,
                      &c->vel->x, &c->vel->y, &c->vel->z, 4, 4, 3 };
    return NB_OK;
}

static void gpu_info(void *p, nb_run_info *info)
{
    gpu_ctx *c = (gpu_ctx *)p;
    nb_cuda_info(info);
    info->block = c->block;
    info->device_bytes = c->bytes;
}

/* Host bytes per body: the nb_state (7 floats), the float4 staging buffer
 * and --check's accelerations (3 floats). */
#define HOST_BYTES_PER_BODY (double)(10 * sizeof(float) + sizeof(float4))
/* Device bytes per body: what gpu_setup() allocates. */
#define BYTES_PER_BODY (sizeof(float4) + 3 * sizeof(float3))

static int gpu_probe(const nb_options *o)
{
    (void)o;                      /* nb_main() checks the device memory (device_bytes_per_body) */
    return nb_cuda_probe();
}

extern "C" const nb_step nb_step03_float4 = {
    .name = "step03_float4",
    .idea = "float4 layout (x, y, z, m): one aligned 16-byte load per body",
    .options = NB_OPT_BLOCK,
    .tree = 0,
    .probe = gpu_probe,
    .init = gpu_init,
    .accel = gpu_accel,
    .advance = gpu_advance,
    .download = gpu_download,
    .info = gpu_info,
    .report = NULL,
    .cells = NULL,
    .destroy = gpu_destroy,
    .cpu_variant = NULL,
    .host_bytes_per_body = HOST_BYTES_PER_BODY,
    .device_bytes_per_body = (double)BYTES_PER_BODY,
    .bodies = gpu_bodies,
    .state64 = NULL,
    .accel64 = NULL,
    .precision_variant = NULL,
};
