# Lab 08: the command-line front end of the budget calculator, built next to the tests:
#   build/labs/lab08-mixed-precision/mlmem-budget --help      (after `make lab08`)
LAB_PROGS := mlmem-budget=cli/mlmem_budget.c

# The lab is built for the CPU it runs on (-march=native, as performance courses do): the
# compiler may use F16C, AVX2 or AVX-512 where this CPU has them, so the benchmark measures your
# code, not the oldest x86-64. A compiler that does not know the flag builds without it.
CFLAGS += $(MM_NATIVE)
