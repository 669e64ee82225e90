/* nb_gpuprobe.c -- the grader's own device probe (see nb_remote.h): the
 * kit's nb_cuda_probe() (common/nb_cuda.cu), linked into the runners of GPU
 * steps only. */
#include "nb_remote.h"

int nb_cuda_probe(void);            /* common/nb_cuda.h, without the CUDA headers */

int nb_grade_cuda_probe(const nb_options *o)
{
    (void)o;
    return nb_cuda_probe();
}
