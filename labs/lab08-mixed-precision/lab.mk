# Lab 08: the command-line front end of the budget calculator, built next to the tests:
#   build/labs/lab08-mixed-precision/mlmem-budget --help      (after `make lab08`)
LAB_PROGS := mlmem-budget=cli/mlmem_budget.c

# The lab is built for the CPU it runs on (-march=native, as performance courses do): the
# compiler may use F16C, AVX2 or AVX-512 where this CPU has them, so the benchmark measures your
# code, not the oldest x86-64. A compiler that does not know the flag builds without it.
LAB_NATIVE := $(shell $(CC) -march=native -x c -S -o /dev/null /dev/null 2>/dev/null && echo -march=native)
CFLAGS += $(LAB_NATIVE)
