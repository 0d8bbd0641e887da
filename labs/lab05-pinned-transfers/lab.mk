# Lab 05: src/kernels.cu is C++ (built by nvcc where it exists); the C link needs libstdc++ then.
LAB_LDLIBS := $(if $(NVCC),-lstdc++)
