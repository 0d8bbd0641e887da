# Lab 07: `replay` prints what your allocator does with the training trace, step by step.
LAB_PROGS := replay=tools/replay.c
# The CUDA back end (src/cudadev.c) is C against the CUDA runtime: built everywhere, it runs on a
# real GPU where one is usable and on the emulated device (common/cudaemu/) elsewhere.
LAB_CUDA := 1
