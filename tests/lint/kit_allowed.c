/* lint: clean */
/* what a lesson calls of the kit: errors, the clock, the CUDA helpers'
 * names are the kit's own, the step tables */
int nb_fail(int code, const char *fmt, ...);
double nb_now_ms(void);
int nb_todo(const char *what, const char *handout);

int step(double *t)
{
    *t = nb_now_ms();
    return *t < 0 ? nb_fail(3, "clock") : nb_todo("x", "01_cpu");
}
