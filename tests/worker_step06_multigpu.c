/* worker_step06_multigpu.c -- the tables of tests/work_step06_multigpu (step06
 * and step05's GPU code, which step06 must equal bit for bit) and what the
 * multi-GPU suite asks of them (see nb_worker.h). */
#include <stdlib.h>
#include "nb_worker.h"
#include "bh_gpu.h"
#include "mg.h"

const nb_worker_table nb_worker_tables[] = {
    { "multigpu", &nb_step06_multigpu }, { "gpu", &nb_step05_gpu }, { NULL, NULL }
};

static int ext_device_count(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t; (void)ctx; (void)in;
    nb_wput_i64(out, mg_device_count());
    return 0;
}

/* the interaction counts of the last force computation and the GPUs of the run */
static int ext_interactions(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)in;
    if (!ctx || t->step != &nb_step06_multigpu) return nb_fail(NB_EXIT_RUNTIME, "worker: no step06 context");
    int64_t bb = -1, bc = -1;
    int rc = mg_interactions(ctx, &bb, &bc);
    if (rc) return rc;
    nb_wput_i64(out, bb);
    nb_wput_i64(out, bc);
    nb_wput_i64(out, mg_gpus(ctx));
    return 0;
}

/* NCCL_NVLS_ENABLE after the step's probe (which must set it to 0) */
static int ext_nvls(const nb_worker_table *t, void *ctx, nb_wbuf *in, nb_wbuf *out)
{
    (void)t; (void)ctx; (void)in;
    unsetenv("NCCL_NVLS_ENABLE");
    nb_options o;
    nb_options_default(&o);
    o.n = 1000;
    int rc = nb_step06_multigpu.probe(&o);
    if (rc) return rc;
    const char *v = getenv("NCCL_NVLS_ENABLE");
    nb_wput_str(out, v ? v : "(unset)");
    return 0;
}

const nb_worker_ext nb_worker_exts[] = {
    { "device_count", ext_device_count }, { "interactions", ext_interactions }, { "nvls", ext_nvls },
    { NULL, NULL }
};
