/* nb_fence.c -- the allocator of step01's programs: its nbody (and the
 * exercise's) and the grade's plain workers (tests/work_step01_cpu,
 * tests/work_step01_precision), linked with $(NB_FENCE_LDFLAGS)
 * (-Wl,--wrap=malloc and the rest, common/config.mk), so that the program a
 * student runs and the one the grade runs lay out their memory alike (a
 * code cannot tell them apart by it), and what the step's code allocates
 * is watched in the build that is graded, not only in the sanitized ones.
 *
 *  - Every block ends where a page that cannot be read or written begins
 *    (an mmap of its own, the last page PROT_NONE; the block's start keeps
 *    malloc's 16-byte alignment): a read one element past an array, where
 *    the array's length is a multiple of 16 bytes (float3 arrays of a
 *    multiple of 4 bodies: N = 1000), ends the program on SIGSEGV, which
 *    the grader reports as the test's crash.
 *  - The blocks alive are counted (nb_fence_live()): the worker checks that
 *    a step's force or advance call leaves as many as the call before it
 *    (tests/nb_worker.c), so a leak in every call is found.
 * Blocks past 1 GiB, or past 65536 alive at once, come from the C library's
 * malloc, as do those of the C library and the OpenMP runtime themselves
 * (not linked with --wrap); free() and realloc() tell them apart by the
 * table of this file's blocks.  Linked only where --wrap asks for it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);

#define SLOTS (1u << 17)                    /* twice the blocks alive at most */
#define MAX_ALIVE 65536
#define MAX_BLOCK ((size_t)1 << 30)

typedef struct { uintptr_t user; void *base; size_t len, size; } block;
static block table[SLOTS];                  /* open addressing on user; user 1: a removed slot */
static long alive;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t page(void)
{
    static size_t p;
    if (!p) p = (size_t)sysconf(_SC_PAGESIZE);
    return p;
}

static uint32_t slot_of(uintptr_t u) { return (uint32_t)((u >> 4) * 2654435761u) & (SLOTS - 1); }

/* the slot of u (lock held), or -1 */
static long find(uintptr_t u)
{
    for (uint32_t k = slot_of(u), i = 0; i < SLOTS; i++, k = (k + 1) & (SLOTS - 1)) {
        if (table[k].user == u) return k;
        if (!table[k].user) return -1;
    }
    return -1;
}

static void *fenced(size_t size)
{
    if (size == 0) size = 1;
    if (size > MAX_BLOCK) return NULL;
    size_t ps = page(), body = (size + 15) & ~(size_t)15;
    size_t len = ((body + ps - 1) / ps + 1) * ps;
    pthread_mutex_lock(&lock);
    int full = alive >= MAX_ALIVE;
    pthread_mutex_unlock(&lock);
    if (full) return NULL;
    char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return NULL;
    if (mprotect(base + len - ps, ps, PROT_NONE)) { munmap(base, len); return NULL; }
    char *user = base + len - ps - body;
    pthread_mutex_lock(&lock);
    uint32_t k = slot_of((uintptr_t)user);
    while (table[k].user > 1) k = (k + 1) & (SLOTS - 1);
    table[k] = (block){ (uintptr_t)user, base, len, size };
    alive++;
    pthread_mutex_unlock(&lock);
    return user;
}

/* forgets p and returns its block (base NULL: not one of this file's) */
static block take(void *p)
{
    block b = { 0 };
    pthread_mutex_lock(&lock);
    long k = find((uintptr_t)p);
    if (k >= 0) {
        b = table[k];
        table[k].user = 1;
        alive--;
    }
    pthread_mutex_unlock(&lock);
    return b;
}

static size_t size_of(void *p)
{
    pthread_mutex_lock(&lock);
    long k = find((uintptr_t)p);
    size_t s = k >= 0 ? table[k].size : (size_t)-1;
    pthread_mutex_unlock(&lock);
    return s;
}

long nb_fence_live(void)
{
    pthread_mutex_lock(&lock);
    long n = alive;
    pthread_mutex_unlock(&lock);
    return n;
}

void *__wrap_malloc(size_t size)
{
    void *p = fenced(size);
    return p ? p : __real_malloc(size);
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) { errno = ENOMEM; return NULL; }
    void *p = fenced(n * size);             /* a fresh mapping is zeroed */
    return p ? p : __real_calloc(n, size);
}

void __wrap_free(void *p)
{
    if (!p) return;
    block b = take(p);
    if (b.base) munmap(b.base, b.len);
    else __real_free(p);
}

void *__wrap_realloc(void *p, size_t size)
{
    if (!p) return __wrap_malloc(size);
    size_t old = size_of(p);
    if (old == (size_t)-1) return __real_realloc(p, size);
    void *q = __wrap_malloc(size);
    if (!q) return NULL;
    memcpy(q, p, old < size ? old : size);
    __wrap_free(p);
    return q;
}

/* alignments past 16: the C library's (not fenced) */
void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_aligned_alloc(size_t align, size_t size)
{
    return align <= 16 ? __wrap_malloc(size) : __real_aligned_alloc(align, size);
}
int __real_posix_memalign(void **out, size_t align, size_t size);
int __wrap_posix_memalign(void **out, size_t align, size_t size)
{
    if (align > 16) return __real_posix_memalign(out, align, size);
    void *p = __wrap_malloc(size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
