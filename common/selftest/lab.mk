# The shared helpers' own test program. Its bench-harness tests run on a clock they advance
# themselves (tests/check_common.c defines __wrap_mm_now_ns and __wrap_mm_elapsed_s), so that
# they check the harness's arithmetic and never this machine's scheduler.
LAB_LDLIBS += -Wl,--wrap=mm_now_ns -Wl,--wrap=mm_elapsed_s
