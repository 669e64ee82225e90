/* step02_naive/naive.cu -- the straight port of step01 to CUDA.
 *
 * One thread per body i; the thread walks over all N bodies j, reading each
 * position (a float3, 12 bytes) and its mass (a separate float array) from
 * global memory, and accumulates a_i with nb_interact().  The host allocates,
 * copies in once, launches three kernels per leapfrog step (kick+drift,
 * forces, kick) and copies back only when asked.
 *
 * Napkin math (H100 SXM, 132 SMs): the whole warp reads the same j at once:
 * four load instructions per warp per j (LDG.E x3 for the float3, one for
 * the mass), served from L1 -- bound by load issue and latency, not DRAM.
 *
 *   nvcc -O3 -ftz=true -arch=sm_90 -c naive.cu   (flags: common/config.mk) */
#include <stdlib.h>
#include <string.h>
#include "nb_cuda.h"
#include "nb_physics.h"

#define DEFAULT_BLOCK 256

/* a_i = sum_j m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2) */
__global__ void forces_kernel(const float3 *pos, const float *mass, float3 *acc, int n, float eps2)
{
    /* BEGIN SOLUTION
     * One thread per body i = blockIdx.x * blockDim.x + threadIdx.x (return if i >= n): loop
     * over all n bodies j, accumulating nb_interact() with pos[j] and mass[j]; write acc[i].
     * See handouts/02_naive.md.
     */
    /* BLANK: (void)pos; (void)mass; (void)acc; (void)n; (void)eps2; */
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; j++) {
        float3 pj = pos[j];
        nb_interact(pi.x, pi.y, pi.z, pj.x, pj.y, pj.z, mass[j], eps2, &ax, &ay, &az);
    }
    acc[i] = make_float3(ax, ay, az);
    /* END SOLUTION */
}

/* Leapfrog: v += a dt/2; x += v dt  (before the forces) ... */
__global__ void kick_drift_kernel(float3 *pos, float3 *vel, const float3 *acc, int n, float dt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float h = 0.5f * dt;
    float3 v = vel[i], a = acc[i], p = pos[i];
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
    float3 *pos, *vel, *acc, *out;   /* device */
    float *mass;                     /* device */
    float3 *host;                    /* staging for copies */
    double bytes;
    nb_cuda_timer timer;
} gpu_ctx;

static void gpu_destroy(void *p)
{
    gpu_ctx *c = (gpu_ctx *)p;
    if (!c) return;
    cudaFree(c->pos); cudaFree(c->vel); cudaFree(c->acc); cudaFree(c->out); cudaFree(c->mass);
    nb_cuda_timer_destroy(&c->timer);
    free(c->host);
    free(c);
}

static int forces(gpu_ctx *c, float3 *acc)
{
    if (c->poison) NB_CUDA(cudaMemset(acc, 0xff, (size_t)c->n * sizeof *acc));   /* NaN */
    /* BEGIN SOLUTION
     * Launch forces_kernel with c->grid blocks of c->block threads on (c->pos, c->mass, acc,
     * c->n, c->eps2), then check the launch with NB_LAUNCHED().  See handouts/02_naive.md.
     */
    /* BLANK: return nb_todo("forces_kernel and its launch in forces()", "02_naive"); */
    forces_kernel<<<c->grid, c->block>>>(c->pos, c->mass, acc, c->n, c->eps2);
    NB_LAUNCHED();
    /* END SOLUTION */
    return NB_OK;
}

static int gpu_setup(gpu_ctx *c, const nb_state *s)
{
    size_t n = (size_t)c->n;
    int rc;
    if ((rc = nb_cuda_malloc((void **)&c->pos, n * sizeof(float3), "positions", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->mass, n * sizeof(float), "masses", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->vel, n * sizeof(float3), "velocities", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->acc, n * sizeof(float3), "accelerations", &c->bytes)) ||
        (rc = nb_cuda_malloc((void **)&c->out, n * sizeof(float3), "accelerations (copy)", &c->bytes)))
        return rc;
    c->host = (float3 *)malloc(n * sizeof(float3));
    if (!c->host) return nb_fail(NB_EXIT_RUNTIME, "out of host memory for %zu bodies", n);
    for (size_t i = 0; i < n; i++) c->host[i] = make_float3(s->x[i], s->y[i], s->z[i]);
    NB_CUDA(cudaMemcpy(c->pos, c->host, n * sizeof(float3), cudaMemcpyHostToDevice));
    NB_CUDA(cudaMemcpy(c->mass, s->m, n * sizeof(float), cudaMemcpyHostToDevice));
    for (size_t i = 0; i < n; i++) c->host[i] = make_float3(s->vx[i], s->vy[i], s->vz[i]);
    NB_CUDA(cudaMemcpy(c->vel, c->host, n * sizeof(float3), cudaMemcpyHostToDevice));
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
    NB_CUDA(cudaMemcpy(c->host, c->out, (size_t)c->n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < c->n; i++) { ax[i] = c->host[i].x; ay[i] = c->host[i].y; az[i] = c->host[i].z; }
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
    NB_CUDA(cudaMemcpy(c->host, c->pos, (size_t)c->n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < c->n; i++) { s->x[i] = c->host[i].x; s->y[i] = c->host[i].y; s->z[i] = c->host[i].z; }
    NB_CUDA(cudaMemcpy(c->host, c->vel, (size_t)c->n * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < c->n; i++) { s->vx[i] = c->host[i].x; s->vy[i] = c->host[i].y; s->vz[i] = c->host[i].z; }
    return NB_OK;
}

/* The bodies on the device, for the GL view (nb_step.h). */
static int gpu_bodies(void *p, nb_bodies *b)
{
    gpu_ctx *c = (gpu_ctx *)p;
    *b = (nb_bodies){ c->n, &c->pos->x, &c->pos->y, &c->pos->z, c->mass,
                      &c->vel->x, &c->vel->y, &c->vel->z, 3, 1, 3 };
    return NB_OK;
}

static void gpu_info(void *p, nb_run_info *info)
{
    gpu_ctx *c = (gpu_ctx *)p;
    nb_cuda_info(info);
    info->block = c->block;
    info->device_bytes = c->bytes;
}

/* Host bytes per body: the nb_state (7 floats), the float3 staging buffer
 * and --check's accelerations (3 floats). */
#define HOST_BYTES_PER_BODY (double)(10 * sizeof(float) + sizeof(float3))
/* Device bytes per body: what gpu_setup() allocates. */
#define BYTES_PER_BODY (4 * sizeof(float3) + sizeof(float))

static int gpu_probe(const nb_options *o)
{
    (void)o;                      /* nb_main() checks the device memory (device_bytes_per_body) */
    return nb_cuda_probe();
}

extern "C" const nb_step nb_step02_naive = {
    .name = "step02_naive",
    .idea = "the port to CUDA: one thread per body, float3, global memory",
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
