/* mg_follow.c -- step06_multigpu, beside the lesson: under mpirun, the
 * ranks other than 0 do what rank 0's calls ask (mg_tell() in mg_launch.c
 * sends them) until it quits: mg.c's calls, run here.  (Its own file, so
 * that the machinery mg.c uses, mg_launch.c, never calls back into mg.c.) */
#include <stdio.h>
#include <string.h>
#include "mg_launch.h"

int mg_follow(void)
{
    const mg_team *team = mg_get_team();
    mg *m = NULL;
    for (;;) {
        mg_msg h;
        if (team->bcast(&h, sizeof h)) team->abort_all(NB_EXIT_RUNTIME);
        int rc = 0;
        mg_call c = { h.op, h.steps, h.timed, NULL, NULL };
        switch (h.op) {
        case OP_QUIT:
            return h.rc;
        case OP_INIT: {
            mg_params p;
            nb_state s;
            memset(&s, 0, sizeof s);
            if (team->bcast(&p, sizeof p)) team->abort_all(NB_EXIT_RUNTIME);
            nb_options o;
            nb_options_default(&o);
            o.n = p.n; o.dt = p.dt; o.eps = p.eps; o.theta = p.theta;
            o.block = p.block; o.poison = p.poison; o.gpus = p.gpus;
            rc = nb_state_alloc(&s, p.n);
            if (!rc) rc = mg_bcast_state(&s);
            if (!rc) rc = mg_create(&m, p.n, &o);
            if (!rc) rc = mg_start(m, &s);
            nb_state_free(&s);
            break;
        }
        case OP_ADVANCE:
            if (h.timed) rc = mg_grow_recs(&m->cur, &m->cap_cur, (size_t)h.steps * m->P);
            if (!rc) rc = mg_run_all(m, &c);
            break;
        case OP_FORCE:
        case OP_DOWNLOAD:
            rc = mg_run_all(m, &c);
            break;
        case OP_DESTROY:
            mg_destroy(m);
            m = NULL;
            break;
        default:
            rc = nb_fail(NB_EXIT_RUNTIME, "internal error: rank %d got operation %d", team->rank,
                         h.op);
        }
        if (rc) {
            fprintf(stderr, "step06_multigpu: rank %d: %s\n", team->rank, nb_errmsg());
            fflush(stderr);
            team->abort_all(rc);
        }
    }
}

