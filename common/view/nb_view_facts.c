/* nb_view_facts.c -- the facts a frame of the current step carries
 * (nb_view.h), the same for the GL frames, the view's screenshots and the
 * CPU splatter's frames, in every build. */
#include "nb_annot.h"
#include "nb_view.h"

void nb_view_facts(nb_facts *f, const nb_sim *sim, const nb_render_view *v, int w)
{
    f->program = sim->step->name;
    f->step = sim->done;
    f->t = (double)sim->done * sim->o->dt;
    f->n = sim->st->n;
    f->unit_px = 2.0 * v->half / (w > 0 ? w : 1);
    f->mode = NB_COLOUR_DENSITY;
    f->lo = v->log_lo;
    f->hi = v->log_hi;
    f->hud = 0;
}
