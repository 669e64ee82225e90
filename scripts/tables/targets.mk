# scripts/tables/targets.mk -- bench, tables, plots, profile; included by the
# top-level Makefile (which provides `all`, building every step).
#
#   make bench                 every step that can run here at a few N: one Markdown table
#   make tables [TABLES=full] [QUICK=1]  the course reports' tables and table 5 -> handouts/results/<slug>/
#                              (sizes: TABLES=auto full with a GPU, small without; budget and ETA printed first)
#   make plots  [SLUG=h100]    figures from those CSVs (gnuplot)   -> handouts/results/<slug>/
#   make drift                 the last-bit drift of one run over its rounding variants (scripts/tables/drift.sh)
#   make profile [PROFILE_N=]  ncu on the force kernels -> handouts/results/<slug>/profile.md
#   make report [SLUG=...]     one self-contained HTML page -> report/index.html
#   make report-check          that page in headless Chromium: renders, images load, no broken link
#
# Variables passed on to the scripts (see each script's header): QUICK, SLUG,
# RESULTS_DIR, NB_BIN_DIR, THREADS, PROFILE_N, NCU, and the budgets of tables.sh.
# Exit codes: 0 ok; 2 a tool is missing (gnuplot, ncu) or nothing to plot;
# 3 nothing could be measured; 77 (profile only) no usable GPU.

NB_SCRIPTS := $(dir $(lastword $(MAKEFILE_LIST)))
NB_SCRIPT_VARS := TABLES QUICK REPEATS SLUG PRECISION_TABLE CPU_MAX_N DRIFT_N DRIFT_DT DRIFT_EPS DRIFT_STEPS DRIFT_EVERY RESULTS_DIR REPORT REPORT_FRAMES REPORT_RUN REPORT_SCREENSHOT NB_BIN_DIR THREADS PROFILE_N NCU KREGEX \
                  TABLES_BUDGET_S PRECISION_BUDGET_S RUN_LIMIT_S CPU_BUDGET_S CPU_TARGET_S CPU_MAX_STEPS \
                  GPU_TARGET_S GPU_MIN_STEPS GPU_MAX_STEPS STD_STEPS \
                  BENCH_GPU_N BENCH_CPU_N BENCH_TARGET_S TREE_N LESSON_THETA TUNED_THETA TREE_STEPS
# Pass only the variables that are set, so the scripts' defaults apply otherwise.
NB_SCRIPT_ENV = $(foreach v,$(NB_SCRIPT_VARS),$(if $(value $(v)),$(v)='$($(v))'))

.PHONY: bench bench-tree tables plots drift profile report report-check

bench: all
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)bench.sh

# the lesson's GPU tree and its tuned build at equal accuracy (scripts/tables/tree_tuned.sh)
bench-tree: all
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)tree_tuned.sh

tables: all
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)tables.sh

plots:
	@$(NB_SCRIPTS)../setup/ensure_deps.sh gnuplot
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)plots.sh

drift: all
	@$(NB_SCRIPTS)../setup/ensure_deps.sh gnuplot
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)drift.sh

profile: all
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)profile.sh

report: all
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)report.sh

report-check: report
	@$(NB_SCRIPTS)../setup/ensure_deps.sh chromium
	@$(NB_SCRIPT_ENV) bash $(NB_SCRIPTS)report_check.sh
