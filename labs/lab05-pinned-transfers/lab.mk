# Lab 05: `pipetime` (tools/pipetime.c) times your pipeline on this machine's CUDA device (a GPU
# or the emulated device) beside your simulator's timeline of the same plan; see the handout, 4.
LAB_PROGS := pipetime=tools/pipetime.c
