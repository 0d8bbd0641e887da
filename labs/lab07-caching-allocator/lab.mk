# Lab 07: `replay` prints what your allocator does with the training trace, step by step.
LAB_PROGS := replay=tools/replay.c
