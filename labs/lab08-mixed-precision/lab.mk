# Lab 08: the command-line front end of the budget calculator, built next to the tests:
#   build/labs/lab08-mixed-precision/mlmem-budget --help      (after `make lab08`)
LAB_PROGS := mlmem-budget=cli/mlmem_budget.c
