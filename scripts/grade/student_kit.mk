# scripts/grade/student_kit.mk -- `make student-kit`; included by the top-level
# Makefile.  See docs/grading.md ("The student kit") and scripts/grade/student_kit.sh.
#
#   make student-kit                 the kit (solution regions blanked) -> dist/
#   make student-kit DEST=/tmp/kit   somewhere else
#   make student-kit KEEP=1          the same tree with the solutions kept
#                                    (marker lines dropped)

NB_KIT_SCRIPTS := $(dir $(lastword $(MAKEFILE_LIST)))

.PHONY: student-kit
student-kit:
	@bash $(NB_KIT_SCRIPTS)student_kit.sh $(if $(KEEP),--keep-solutions) $(DEST)
