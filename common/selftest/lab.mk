# The shared helpers' own test program. Its bench-harness tests run on a clock they advance
# themselves (tests/check_common.c defines __wrap_mm_now_ns and __wrap_mm_elapsed_s), so that
# they check the harness's arithmetic and never this machine's scheduler.
LAB_LDLIBS += -Wl,--wrap=mm_now_ns -Wl,--wrap=mm_elapsed_s
# The student process's confinement (common/student/mm_student_confine.c) is tested here too
# (tests/check_student_confine.c).
CPPFLAGS += -I$(ROOT)/common/student
$(OUT)/check_lab: $(OUT)/obj/common/student/mm_student_confine.o
