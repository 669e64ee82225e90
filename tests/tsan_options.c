/* tsan_options.c -- ThreadSanitizer's defaults in the grader's race-checking
 * programs (tests/work_<runner>_tsan, tests/tsan_control; common/tsan.mk):
 * the first report ends the program with exit code 66, and the OpenMP
 * runtime (libomp, not instrumented; Archer tells TSan what it does) is not
 * reported on.  TSAN_OPTIONS overrides them: tests/suite_races.c sets its
 * own. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "halt_on_error=1:exitcode=66:ignore_noninstrumented_modules=1";
}
