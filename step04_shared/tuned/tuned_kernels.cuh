/* step04_shared/tuned/tuned_kernels.cuh -- the kernels of the tuned build and
 * their launches, written once and compiled once per --precision
 * (handouts/08_precision.md): tuned.cu includes this file three times, with
 * NB_DOUBLE and NB_MIXED set to 0 or 1 and NB_P(name) pasting the
 * precision's suffix onto every top-level name (name_single, name_double,
 * name_mixed), so that the three copies live side by side in one C
 * translation unit.  What a precision changes is confined to the types and
 * the few functions at the top:
 *   single  float4 bodies, float sums, nb_interact (the build as it was);
 *   double  nb_double4 bodies, double sums, nb_interact_d: everything in double;
 *   mixed   float4 bodies relative to an origin (the state itself is double
 *           on the device: kick_drift_kernel rounds it), nb_interact_mixed
 *           (1/r^3 with a Newton step), and every sum in short float chunks
 *           added with compensation: sum_flush() after each chunk moves the
 *           chunk's float sum into its total hi + lo (nb_sum2), partial sums
 *           in memory are double.
 * The kernels' structure, their fixed summation orders (same input, same
 * bits) and their tunings are the same for the three; see tuned.cu for the
 * techniques and the napkin math.  Everything here is static, and every
 * top-level name is written NB_P(name); tuned.cu calls launch_forces_P(),
 * launch_step_P() and max_threads_P() (P: single, double, mixed). */
#ifndef NB_P
#error "tuned_kernels.cuh: define NB_P(name) (the precision's suffix) before including it"
#endif

#if NB_DOUBLE
typedef double NB_P(real);                 /* the arithmetic of the interactions */
typedef nb_double4 NB_P(body);                /* x, y, z, m as the force kernels read them */
typedef double3 NB_P(vec3);                /* accelerations and velocities */
typedef double NB_P(kreal);                /* the arithmetic of the leapfrog's kicks */
typedef nb_double4 NB_P(part4);               /* a partial sum in memory (x, y, z, unused) */
#define make_body make_nb_double4
#elif NB_MIXED
typedef float NB_P(real);
typedef float4 NB_P(body);
typedef double3 NB_P(vec3);
typedef double NB_P(kreal);
typedef nb_double4 NB_P(part4);
#define make_body make_float4
#else
typedef float NB_P(real);
typedef float4 NB_P(body);
typedef float3 NB_P(vec3);
typedef float NB_P(kreal);
typedef float4 NB_P(part4);
#define make_body make_float4
#endif

/* A running sum of interactions on one body: x, y, z, which the inner
 * loops add to; mixed: also the compensated total hi + lo, into which
 * sum_flush() moves x, y, z after each short chunk of sources. */
typedef struct NB_P(sum3) {
    NB_P(real) x, y, z;
#if NB_MIXED
    float hx, hy, hz, lx, ly, lz;
#endif
} NB_P(sum3);

static __device__ __forceinline__ void NB_P(sum_zero)(NB_P(sum3) *s)
{
    s->x = s->y = s->z = 0;
#if NB_MIXED
    s->hx = s->hy = s->hz = s->lx = s->ly = s->lz = 0.0f;
#endif
}

/* mixed: the chunk's float sum into the total, the chunk restarted */
static __device__ __forceinline__ void NB_P(sum_flush)(NB_P(sum3) *s)
{
#if NB_MIXED
    nb_sum2(&s->hx, &s->lx, s->x);
    nb_sum2(&s->hy, &s->ly, s->y);
    nb_sum2(&s->hz, &s->lz, s->z);
    s->x = s->y = s->z = 0.0f;
#else
    (void)s;
#endif
}

/* The sum, after its last sum_flush(), as an acceleration and as a partial */
static __device__ __forceinline__ NB_P(vec3) NB_P(sum_total)(const NB_P(sum3) *s)
{
#if NB_MIXED
    return make_double3((double)s->hx + s->lx, (double)s->hy + s->ly, (double)s->hz + s->lz);
#elif NB_DOUBLE
    return make_double3(s->x, s->y, s->z);
#else
    return make_float3(s->x, s->y, s->z);
#endif
}

static __device__ __forceinline__ NB_P(part4) NB_P(sum_part)(const NB_P(sum3) *s)
{
    NB_P(vec3) t = NB_P(sum_total)(s);
    NB_P(part4) p;
    p.x = t.x; p.y = t.y; p.z = t.z; p.w = 0;
    return p;
}

/* A partial from memory added to the sum (mixed: into the total, as the two
 * floats it splits into) */
static __device__ __forceinline__ void NB_P(sum_add_part)(NB_P(sum3) *s, NB_P(part4) p)
{
#if NB_MIXED
    float h;
    h = (float)p.x; nb_sum2(&s->hx, &s->lx, h); s->lx += (float)(p.x - h);
    h = (float)p.y; nb_sum2(&s->hy, &s->ly, h); s->ly += (float)(p.y - h);
    h = (float)p.z; nb_sum2(&s->hz, &s->lz, h); s->lz += (float)(p.z - h);
#else
    s->x += p.x; s->y += p.y; s->z += p.z;
#endif
}

/* One step of the warp's butterfly: the sum of lane ^ off added */
static __device__ __forceinline__ void NB_P(sum_shfl_xor)(NB_P(sum3) *s, int off)
{
#if NB_MIXED
    float hx = __shfl_xor_sync(0xffffffffu, s->hx, off), lx = __shfl_xor_sync(0xffffffffu, s->lx, off);
    float hy = __shfl_xor_sync(0xffffffffu, s->hy, off), ly = __shfl_xor_sync(0xffffffffu, s->ly, off);
    float hz = __shfl_xor_sync(0xffffffffu, s->hz, off), lz = __shfl_xor_sync(0xffffffffu, s->lz, off);
    nb_sum2(&s->hx, &s->lx, hx); s->lx += lx;
    nb_sum2(&s->hy, &s->ly, hy); s->ly += ly;
    nb_sum2(&s->hz, &s->lz, hz); s->lz += lz;
#else
    s->x += __shfl_xor_sync(0xffffffffu, s->x, off);
    s->y += __shfl_xor_sync(0xffffffffu, s->y, off);
    s->z += __shfl_xor_sync(0xffffffffu, s->z, off);
#endif
}

/* The pull of pj on pi added to s */
static __device__ __forceinline__ void NB_P(interact)(const NB_P(body) *pi, const NB_P(body) *pj, NB_P(real) eps2,
                                                      NB_P(sum3) *s)
{
#if NB_DOUBLE
    nb_interact_d(pi->x, pi->y, pi->z, pj->x, pj->y, pj->z, pj->w, eps2, &s->x, &s->y, &s->z);
#elif NB_MIXED
    nb_interact_mixed(pi->x, pi->y, pi->z, pj->x, pj->y, pj->z, pj->w, eps2, &s->x, &s->y, &s->z);
#else
    nb_interact(pi->x, pi->y, pi->z, pj->x, pj->y, pj->z, pj->w, eps2, &s->x, &s->y, &s->z);
#endif
}

/* Both pulls of a pair: pj's on pi added to s, pi's on pj to (bx, by, bz) */
static __device__ __forceinline__ void NB_P(interact_pair)(const NB_P(body) *pi, const NB_P(body) *pj,
                                                           NB_P(real) eps2, NB_P(sum3) *s,
                                                           NB_P(real) *bx, NB_P(real) *by, NB_P(real) *bz)
{
#if NB_DOUBLE
    nb_interact_pair_d(pi->x, pi->y, pi->z, pi->w, pj->x, pj->y, pj->z, pj->w, eps2, &s->x, &s->y, &s->z,
                       bx, by, bz);
#elif NB_MIXED
    nb_interact_pair_mixed(pi->x, pi->y, pi->z, pi->w, pj->x, pj->y, pj->z, pj->w, eps2, &s->x, &s->y,
                           &s->z, bx, by, bz);
#else
    nb_interact_pair(pi->x, pi->y, pi->z, pi->w, pj->x, pj->y, pj->z, pj->w, eps2, &s->x, &s->y, &s->z,
                     bx, by, bz);
#endif
}

/* A body through the read-only cache (there is no __ldg of a nb_double4) */
static __device__ __forceinline__ NB_P(body) NB_P(load_body)(const NB_P(body) *p)
{
#if NB_DOUBLE
    double2 a = __ldg((const double2 *)p), b = __ldg((const double2 *)p + 1);
    return make_nb_double4(a.x, a.y, b.x, b.y);
#else
    return __ldg(p);
#endif
}

/* A partial sum written by another block, past L1 (the ticket's fence) */
static __device__ __forceinline__ NB_P(part4) NB_P(load_part)(const NB_P(part4) *p)
{
#if NB_DOUBLE || NB_MIXED
    double2 a = __ldcg((const double2 *)p), b = __ldcg((const double2 *)p + 1);
    return make_nb_double4(a.x, a.y, b.x, b.y);
#else
    return __ldcg(p);
#endif
}

/* Accumulate the pull of the first cnt bodies of a shared-memory tile (cnt
 * a multiple of TILE_UNROLL) on R targets; mixed: a chunk per TILE_UNROLL
 * sources. */
template <int R>
static __device__ __forceinline__ void NB_P(tile_pull)(const NB_P(body) *tile, int cnt, NB_P(real) eps2,
                                                       const NB_P(body) *pi, NB_P(sum3) *s)
{
    for (int k0 = 0; k0 < cnt; k0 += TILE_UNROLL) {
#pragma unroll
        for (int k = k0; k < k0 + TILE_UNROLL; k++) {
            NB_P(body) pj = tile[k];
#pragma unroll
            for (int r = 0; r < R; r++) NB_P(interact)(&pi[r], &pj, eps2, &s[r]);
        }
#if NB_MIXED
#pragma unroll
        for (int r = 0; r < R; r++) NB_P(sum_flush)(&s[r]);
#endif
    }
}

/* a_i = t into acc[i]; with vel != NULL also the closing half kick
 * v_i += a_i * hdt. */
static __device__ __forceinline__ void NB_P(store_accel)(NB_P(vec3) *acc, NB_P(vec3) *vel, long long i,
                                                         NB_P(vec3) t, NB_P(kreal) hdt)
{
    acc[i] = t;
    if (vel) {
        NB_P(vec3) v = vel[i];
        v.x += hdt * t.x; v.y += hdt * t.y; v.z += hdt * t.z;
        vel[i] = v;
    }
}

/* Accumulate the pull of the sources [jlo, jhi) on R targets.  Every thread
 * of the block runs the same trips (the barriers), padded sources have mass
 * 0 and add exactly 0. */
template <int R>
static __device__ __forceinline__ void NB_P(tile_sum)(const NB_P(body) *pos, NB_P(body) *tile, int jlo, int jhi,
                                                      NB_P(real) eps2, const NB_P(body) *pi, NB_P(sum3) *s)
{
    for (int base = jlo; base < jhi; base += blockDim.x) {
        int j = base + threadIdx.x;
        tile[threadIdx.x] = j < jhi ? pos[j] : make_body(0, 0, 0, 0);
        __syncthreads();                             /* the tile is loaded */
        int cnt = min((int)blockDim.x, jhi - base);
        cnt = (cnt + TILE_UNROLL - 1) / TILE_UNROLL * TILE_UNROLL;   /* <= blockDim.x */
        NB_P(tile_pull)<R>(tile, cnt, eps2, pi, s);
        __syncthreads();                             /* everyone is done with it */
    }
}

/* a_i of the targets of this block column; with vel != NULL also the closing
 * half kick v_i += a_i * hdt.  Grid: (columns of blockDim.x * R targets) x S
 * slices of slice_len sources.  S > 1: partial[s * n + i] holds slice s's
 * sum, tickets[column] counts the slices done (reset by the last one). */
template <int R>
static __global__ void NB_P(forces_kernel)(const NB_P(body) *pos, NB_P(vec3) *acc, NB_P(vec3) *vel,
                                           NB_P(part4) *partial, unsigned *tickets, int n, int slice_len,
                                           NB_P(real) eps2, NB_P(kreal) hdt)
{
    extern __shared__ float4 smem[];
    NB_P(body) *tile = (NB_P(body) *)smem;
    __shared__ int last;
    const int S = gridDim.y, s = blockIdx.y;
    const long long i0 = (long long)blockIdx.x * blockDim.x * R + threadIdx.x;
    NB_P(body) pi[R];
    NB_P(sum3) a[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        long long i = i0 + (long long)r * blockDim.x;
        pi[r] = i < n ? pos[i] : make_body(0, 0, 0, 0);
        NB_P(sum_zero)(&a[r]);
    }
    const int jlo = s * slice_len, jhi = min(n, jlo + slice_len);
    NB_P(tile_sum)<R>(pos, tile, jlo, jhi, eps2, pi, a);
#pragma unroll
    for (int r = 0; r < R; r++) NB_P(sum_flush)(&a[r]);
    if (S > 1) {
#pragma unroll
        for (int r = 0; r < R; r++) {
            long long i = i0 + (long long)r * blockDim.x;
            if (i < n) partial[(long long)s * n + i] = NB_P(sum_part)(&a[r]);
        }
        __threadfence();                             /* the partials, before the ticket */
        __syncthreads();
        if (threadIdx.x == 0) last = atomicAdd(&tickets[blockIdx.x], 1u) == (unsigned)(S - 1);
        __syncthreads();
        if (!last) return;
        __threadfence();                             /* acquire the other slices' partials */
#pragma unroll
        for (int r = 0; r < R; r++) {
            long long i = i0 + (long long)r * blockDim.x;
            NB_P(sum_zero)(&a[r]);
            if (i < n)
#pragma unroll 8
                for (int q = 0; q < S; q++)          /* the fixed order 0..S-1 */
                    NB_P(sum_add_part)(&a[r], NB_P(load_part)(&partial[(long long)q * n + i]));
        }
        if (threadIdx.x == 0) tickets[blockIdx.x] = 0;   /* for the next launch */
    }
#pragma unroll
    for (int r = 0; r < R; r++) {
        long long i = i0 + (long long)r * blockDim.x;
        if (i < n) NB_P(store_accel)(acc, vel, i, NB_P(sum_total)(&a[r]), hdt);
    }
}

/* a_i of R targets per warp, the warp's lanes splitting the sources; with
 * vel != NULL also the closing half kick.  Grid: ceil(n / R) warps.  Each
 * lane sums its sources in index order (mixed: in chunks of 16); the
 * butterfly then adds the 32 lane sums in a fixed pattern, so the result
 * depends on the inputs and R alone.  Sources come through L1 (__ldg): a
 * few tens of KiB at the N this kernel is picked for. */
template <int R>
static __global__ void NB_P(forces_warp_kernel)(const NB_P(body) *pos, NB_P(vec3) *acc, NB_P(vec3) *vel, int n,
                                                NB_P(real) eps2, NB_P(kreal) hdt)
{
    const int lane = threadIdx.x & 31;
    const long long i0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32 * R;
    if (i0 >= n) return;                             /* the whole warp: i0 is the warp's */
    NB_P(body) pi[R];
    NB_P(sum3) a[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
        pi[r] = i0 + r < n ? NB_P(load_body)(&pos[i0 + r]) : make_body(0, 0, 0, 0);
        NB_P(sum_zero)(&a[r]);
    }
#if NB_MIXED
    for (int j0 = lane; j0 < n; j0 += 16 * 32) {
        const int j1 = min(n, j0 + 16 * 32);
#pragma unroll 4
        for (int j = j0; j < j1; j += 32) {
            NB_P(body) pj = NB_P(load_body)(&pos[j]);
#pragma unroll
            for (int r = 0; r < R; r++) NB_P(interact)(&pi[r], &pj, eps2, &a[r]);
        }
#pragma unroll
        for (int r = 0; r < R; r++) NB_P(sum_flush)(&a[r]);
    }
#else
#pragma unroll 4
    for (int j = lane; j < n; j += 32) {
        NB_P(body) pj = NB_P(load_body)(&pos[j]);
#pragma unroll
        for (int r = 0; r < R; r++) NB_P(interact)(&pi[r], &pj, eps2, &a[r]);
    }
#endif
#pragma unroll
    for (int r = 0; r < R; r++)
        for (int off = 16; off > 0; off >>= 1) NB_P(sum_shfl_xor)(&a[r], off);
#pragma unroll
    for (int r = 0; r < R; r++) {                    /* lane r writes target i0 + r */
        long long i = i0 + r;
        if (lane == r && i < n) NB_P(store_accel)(acc, vel, i, NB_P(sum_total)(&a[r]), hdt);
    }
}

/* The reactions of a piece of tile J in shared memory: single, double: the
 * running sums; mixed: their totals as hi and lo (the chunk of a stage is
 * the rotating register sum, flushed into these after the stage). */
typedef struct NB_P(react) {
#if NB_MIXED
    float4 hi, lo;
#else
    NB_P(part4) v;
#endif
} NB_P(react);

static __device__ __forceinline__ NB_P(react) NB_P(react_of)(NB_P(part4) p)
{
    NB_P(react) q;
#if NB_MIXED
    q.hi = make_float4((float)p.x, (float)p.y, (float)p.z, 0.0f);
    q.lo = make_float4((float)(p.x - q.hi.x), (float)(p.y - q.hi.y), (float)(p.z - q.hi.z), 0.0f);
#else
    q.v = p;
#endif
    return q;
}

static __device__ __forceinline__ NB_P(part4) NB_P(react_part)(const NB_P(react) *q)
{
#if NB_MIXED
    return make_nb_double4((double)q->hi.x + q->lo.x, (double)q->hi.y + q->lo.y, (double)q->hi.z + q->lo.z, 0.0);
#else
    return q->v;
#endif
}

/* Each pair once (Newton's third law), for large N.  The bodies are cut
 * into P tiles of `tile` bodies (the last ones padded with massless bodies
 * at the origin); block (J, I) with I < J takes the pairs of tiles I and J,
 * block (I, I) the pairs inside tile I, one-sided; blocks with I > J have
 * nothing to do.  Within a block, chunks of blockDim.x * R bodies of tile I
 * stay in registers (R per thread) while tile J passes through shared
 * memory in pieces of blockDim.x bodies with their reaction sums.  Each warp
 * takes a 32-body subset of the piece and rotates it around its lanes (7
 * shuffles per step, position, mass and reaction), so in 32 steps every
 * lane's R bodies meet every body of the subset once; then the warps swap
 * subsets, W = blockDim.x / 32 stages, a barrier between them.  mixed: each
 * stage is a chunk, of 32 sources for a register body and 32 R for a
 * reaction, flushed into its compensated total at the stage's end.
 *
 * Every sum is in a fixed order and has one owner, so the result does not
 * depend on scheduling: part[t * npad + i] is the pull of tile t on body i,
 * written by block (t, tile of i) or (tile of i, t) alone (the reactions
 * read-add-write across the block's chunks), and pairs_sum_kernel adds the P
 * of them for t = 0..P-1.  Per pair: 17 instructions (nb_interact_pair) plus
 * 7 / R shuffles, i.e. 9.4 per interaction at R = 4 against 13.4. */
template <int R>
static __global__ void NB_P(forces_pairs_kernel)(const NB_P(body) *__restrict__ pos,
                                                 NB_P(part4) *__restrict__ part, int n, int tile, NB_P(real) eps2)
{
    extern __shared__ float4 smem[];
    NB_P(body) *vpos = (NB_P(body) *)smem;                       /* the piece of tile J ... */
    NB_P(react) *vacc = (NB_P(react) *)(vpos + blockDim.x);      /* ... and its reactions */
    const int I = blockIdx.y, J = blockIdx.x;
    if (I > J) return;                               /* the whole block: the pair is (J, I)'s */
    const int V = blockDim.x, W = V / 32, lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const int next = (lane + 1) & 31;
    const long long npad = (long long)gridDim.x * tile, i0 = (long long)I * tile, j0 = (long long)J * tile;
    const NB_P(body) none = make_body(0, 0, 0, 0);
    const NB_P(part4) zero = { 0, 0, 0, 0 };
    for (int c = 0; c < tile; c += V * R) {          /* a chunk of tile I in registers */
        NB_P(body) hp[R];
        NB_P(sum3) hs[R];
#pragma unroll
        for (int r = 0; r < R; r++) {
            long long i = i0 + c + r * V + threadIdx.x;
            hp[r] = i < n ? pos[i] : none;
            NB_P(sum_zero)(&hs[r]);
        }
        for (int v = 0; v < tile; v += V) {          /* a piece of tile J through shared memory */
            long long j = j0 + v + threadIdx.x;
            vpos[threadIdx.x] = j < n ? pos[j] : none;
            if (I != J) vacc[threadIdx.x] = NB_P(react_of)(c ? part[(long long)I * npad + j] : zero);
            __syncthreads();                         /* the piece is loaded */
            if (I == J) {                            /* inside the tile: one-sided, every j */
                NB_P(tile_pull)<R>(vpos, V, eps2, hp, hs);
            } else {
                for (int st = 0; st < W; st++) {
                    int q = (warp + st) % W * 32 + lane;   /* warp w: subset w + st */
                    NB_P(body) p = vpos[q];
#if NB_MIXED
                    NB_P(real) ax = 0.0f, ay = 0.0f, az = 0.0f;  /* this stage's chunk of the reaction */
#else
                    NB_P(real) ax = vacc[q].v.x, ay = vacc[q].v.y, az = vacc[q].v.z;
#endif
#pragma unroll 4
                    for (int k = 0; k < 32; k++) {
#pragma unroll
                        for (int r = 0; r < R; r++) NB_P(interact_pair)(&hp[r], &p, eps2, &hs[r], &ax, &ay, &az);
                        p.x = __shfl_sync(0xffffffffu, p.x, next);
                        p.y = __shfl_sync(0xffffffffu, p.y, next);
                        p.z = __shfl_sync(0xffffffffu, p.z, next);
                        p.w = __shfl_sync(0xffffffffu, p.w, next);
                        ax = __shfl_sync(0xffffffffu, ax, next);
                        ay = __shfl_sync(0xffffffffu, ay, next);
                        az = __shfl_sync(0xffffffffu, az, next);
                    }
#if NB_MIXED                                         /* 32 steps: back on its lane */
                    nb_sum2(&vacc[q].hi.x, &vacc[q].lo.x, ax);
                    nb_sum2(&vacc[q].hi.y, &vacc[q].lo.y, ay);
                    nb_sum2(&vacc[q].hi.z, &vacc[q].lo.z, az);
#pragma unroll
                    for (int r = 0; r < R; r++) NB_P(sum_flush)(&hs[r]);
#else
                    vacc[q].v.x = ax; vacc[q].v.y = ay; vacc[q].v.z = az;
#endif
                    __syncthreads();                 /* the next stage reads other warps' subsets */
                }
                /* tile I's pull on the piece */
                part[(long long)I * npad + j] = NB_P(react_part)(&vacc[threadIdx.x]);
            }
            __syncthreads();                         /* everyone is done with the piece */
        }
#pragma unroll
        for (int r = 0; r < R; r++) {                /* tile J's pull on the chunk */
            NB_P(sum_flush)(&hs[r]);
            part[(long long)J * npad + i0 + c + r * V + threadIdx.x] = NB_P(sum_part)(&hs[r]);
        }
    }
}

/* a_i = the P pulls part[t * npad + i] added for t = 0..P-1; with vel !=
 * NULL also the closing half kick. */
static __global__ void NB_P(pairs_sum_kernel)(const NB_P(part4) *__restrict__ part, NB_P(vec3) *acc,
                                              NB_P(vec3) *vel, int n, long long npad, int tiles, NB_P(kreal) hdt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    NB_P(sum3) s;
    NB_P(sum_zero)(&s);
#pragma unroll 8
    for (int t = 0; t < tiles; t++) {
#if NB_DOUBLE || NB_MIXED
        NB_P(part4) p = NB_P(load_part)(&part[t * npad + i]);
#else
        NB_P(part4) p = __ldg(&part[t * npad + i]);
#endif
        NB_P(sum_add_part)(&s, p);
    }
    NB_P(store_accel)(acc, vel, i, NB_P(sum_total)(&s), hdt);
}

#if NB_DOUBLE || NB_MIXED
/* The leapfrog in double: v += a dt/2; x += v dt (state: x, y, z, m), and
 * for mixed the force kernels' bodies, pos = state - origin rounded to
 * float; then, after the forces, v += a dt/2 unless the force kernel fused
 * it. */
static __global__ void NB_P(kick_drift_kernel)(nb_double4 *state, NB_P(vec3) *vel, const NB_P(vec3) *acc,
                                               NB_P(body) *pos, int n, double dt, double ox, double oy, double oz)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double h = 0.5 * dt;
    NB_P(vec3) v = vel[i], a = acc[i];
    nb_double4 p = state[i];
    v.x += h * a.x; v.y += h * a.y; v.z += h * a.z;
    p.x += dt * v.x; p.y += dt * v.y; p.z += dt * v.z;
    vel[i] = v;
    state[i] = p;
#if NB_MIXED
    pos[i] = make_float4((float)(p.x - ox), (float)(p.y - oy), (float)(p.z - oz), (float)p.w);
#else
    (void)pos; (void)ox; (void)oy; (void)oz;
#endif
}

static __global__ void NB_P(kick_kernel)(NB_P(vec3) *vel, const NB_P(vec3) *acc, int n, double dt)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double h = 0.5 * dt;
    NB_P(vec3) v = vel[i], a = acc[i];
    v.x += h * a.x; v.y += h * a.y; v.z += h * a.z;
    vel[i] = v;
}
#endif

/* The force kernels' threads per block at most (their registers), for R. */
static int NB_P(max_threads)(int pairs, int r, int *threads)
{
    cudaFuncAttributes fa;
    if (pairs) {
        if (r == 4) NB_CUDA(cudaFuncGetAttributes(&fa, NB_P(forces_pairs_kernel)<4>));
        else if (r == 2) NB_CUDA(cudaFuncGetAttributes(&fa, NB_P(forces_pairs_kernel)<2>));
        else NB_CUDA(cudaFuncGetAttributes(&fa, NB_P(forces_pairs_kernel)<1>));
    } else {
        if (r == 4) NB_CUDA(cudaFuncGetAttributes(&fa, NB_P(forces_kernel)<4>));
        else if (r == 2) NB_CUDA(cudaFuncGetAttributes(&fa, NB_P(forces_kernel)<2>));
        else NB_CUDA(cudaFuncGetAttributes(&fa, NB_P(forces_kernel)<1>));
    }
    *threads = fa.maxThreadsPerBlock;
    return NB_OK;
}

/* Launch the force kernel on c->stream: accelerations into acc, and the
 * closing kick when vel != NULL. */
static int NB_P(launch_forces)(gpu_ctx *c, void *acc_v, void *vel_v)
{
    NB_P(vec3) *acc = (NB_P(vec3) *)acc_v, *vel = (NB_P(vec3) *)vel_v;
    const NB_P(body) *pos = (const NB_P(body) *)c->pos;
    NB_P(part4) *partial = (NB_P(part4) *)c->partial;
    const NB_P(real) eps2 = (NB_P(real))(NB_DOUBLE ? c->eps2d : c->eps2);
    const NB_P(kreal) hdt = (NB_P(kreal))(NB_DOUBLE || NB_MIXED ? 0.5 * c->dtd : 0.5f * c->dt);
    if (c->poison) NB_CUDA(cudaMemsetAsync(acc, 0xff, (size_t)c->n * sizeof *acc, c->stream));
    dim3 grid((unsigned)columns(c), (unsigned)c->t.slices);
    size_t shm = (size_t)c->t.block * sizeof(NB_P(body));
    if (c->t.newton) {
        int P = c->t.tiles, T = c->t.tile;
        dim3 pg((unsigned)P, (unsigned)P);
        size_t pshm = (size_t)c->t.block * (sizeof(NB_P(body)) + sizeof(NB_P(react)));
        if (c->t.r == 4)
            NB_P(forces_pairs_kernel)<4><<<pg, c->t.block, pshm, c->stream>>>(pos, partial, c->n, T, eps2);
        else if (c->t.r == 2)
            NB_P(forces_pairs_kernel)<2><<<pg, c->t.block, pshm, c->stream>>>(pos, partial, c->n, T, eps2);
        else
            NB_P(forces_pairs_kernel)<1><<<pg, c->t.block, pshm, c->stream>>>(pos, partial, c->n, T, eps2);
        NB_LAUNCHED();
        NB_P(pairs_sum_kernel)<<<(c->n + 255) / 256, 256, 0, c->stream>>>(partial, acc, vel, c->n,
                                                                          (long long)P * T, P, hdt);
    } else if (c->t.warp) {
        grid.y = 1;
        if (c->t.r == 4)
            NB_P(forces_warp_kernel)<4><<<grid, c->t.block, 0, c->stream>>>(pos, acc, vel, c->n, eps2, hdt);
        else if (c->t.r == 2)
            NB_P(forces_warp_kernel)<2><<<grid, c->t.block, 0, c->stream>>>(pos, acc, vel, c->n, eps2, hdt);
        else
            NB_P(forces_warp_kernel)<1><<<grid, c->t.block, 0, c->stream>>>(pos, acc, vel, c->n, eps2, hdt);
    } else if (c->t.r == 4)
        NB_P(forces_kernel)<4><<<grid, c->t.block, shm, c->stream>>>(pos, acc, vel, partial, c->tickets, c->n,
                                                                     c->t.slice_len, eps2, hdt);
    else if (c->t.r == 2)
        NB_P(forces_kernel)<2><<<grid, c->t.block, shm, c->stream>>>(pos, acc, vel, partial, c->tickets, c->n,
                                                                     c->t.slice_len, eps2, hdt);
    else
        NB_P(forces_kernel)<1><<<grid, c->t.block, shm, c->stream>>>(pos, acc, vel, partial, c->tickets, c->n,
                                                                     c->t.slice_len, eps2, hdt);
    NB_LAUNCHED();
    return NB_OK;
}

/* One leapfrog step on c->stream, with its three events: kick + drift,
 * the forces (with the closing kick when fused), the closing kick. */
static int NB_P(launch_step)(gpu_ctx *c, unsigned ev_flags)
{
    int rc, grid = (c->n + 255) / 256;
    NB_CUDA(cudaEventRecordWithFlags(c->ev[0], c->stream, ev_flags));
#if NB_DOUBLE || NB_MIXED
    NB_P(kick_drift_kernel)<<<grid, 256, 0, c->stream>>>(c->state, (NB_P(vec3) *)c->vel,
                                                         (const NB_P(vec3) *)c->acc, (NB_P(body) *)c->pos, c->n,
                                                         c->dtd, c->origin[0], c->origin[1], c->origin[2]);
#else                                                /* single: the lesson's kernels (shared.cu) */
    kick_drift_kernel<<<grid, 256, 0, c->stream>>>((float4 *)c->pos, (float3 *)c->vel, (const float3 *)c->acc,
                                                   c->n, c->dt);
#endif
    NB_LAUNCHED();
    NB_CUDA(cudaEventRecordWithFlags(c->ev[1], c->stream, ev_flags));
    if ((rc = NB_P(launch_forces)(c, c->acc, c->t.fuse ? c->vel : NULL))) return rc;
    if (!c->t.fuse) {
#if NB_DOUBLE || NB_MIXED
        NB_P(kick_kernel)<<<grid, 256, 0, c->stream>>>((NB_P(vec3) *)c->vel, (const NB_P(vec3) *)c->acc, c->n,
                                                       c->dtd);
#else
        kick_kernel<<<grid, 256, 0, c->stream>>>((float3 *)c->vel, (const float3 *)c->acc, c->n, c->dt);
#endif
        NB_LAUNCHED();
    }
    NB_CUDA(cudaEventRecordWithFlags(c->ev[2], c->stream, ev_flags));
    return NB_OK;
}

#undef make_body
