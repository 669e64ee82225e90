/* nb_mem.h -- host memory: how much a run may still allocate, checked
 * before allocating (README.md, Conventions: "Memory").
 *
 * Available = the smaller of MemAvailable (/proc/meminfo) and, for every
 * memory cgroup of this process and its ancestors, limit - usage + the
 * reclaimable page cache (v2: memory.max - memory.current + inactive_file;
 * v1: memory.limit_in_bytes - memory.usage_in_bytes + total_inactive_file).
 * The test hook NB_FAKE_MEM_AVAILABLE=BYTES in the environment replaces it
 * (a decimal integer; anything else is ignored). */
#ifndef NB_MEM_H
#define NB_MEM_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Bytes this process may still allocate, or a negative value if unknown;
 * why (may be NULL): which bound it is ("MemAvailable", "cgroup limit",
 * "NB_FAKE_MEM_AVAILABLE"). */
double nb_mem_available(char *why, size_t len);

/* 0 if n bodies at bytes_per_body fit in the available host memory plus
 * 'held' bytes this run has already allocated for them, else
 * NB_EXIT_RUNTIME with "out of host memory<context>: N bodies need about X
 * GiB (B B/body), Y GiB are available (why)<hint>".  context and hint may
 * be "" (e.g. " reading 'f.bin'", "; use a smaller -n"). */
int nb_mem_check(int64_t n, double bytes_per_body, double held, const char *context,
                 const char *hint);
/* The same with 'extra' bytes the run needs besides its bodies (frames,
 * timing records), named by extra_what in the message ("... plus 805 MiB for
 * --render frames of 8192x8192 pixels"). */
int nb_mem_check_extra(int64_t n, double bytes_per_body, double held, double extra,
                       const char *extra_what, const char *context, const char *hint);

#ifdef __cplusplus
}
#endif
#endif
