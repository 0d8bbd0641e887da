/* Lab 12 benchmark: loads the CUDA driver API calls of gpu_driver.h with dlopen. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "gpu_driver.h"

#ifdef GD_HAVE_CUDA_H
/* Each call's type, checked against the toolkit's declaration (a mismatch is a compile error
 * with -Werror, a warning without). */
#define GD_CHECK_(name, params)                                                              \
    static CUresult (*const gd_check_##name) params __attribute__((unused)) = name;
GD_CALLS(GD_CHECK_)
#undef GD_CHECK_
#endif

/* The symbol for `name`: drivers before CUDA 12.8 export cuEventElapsedTime only, with the same
 * parameters as its _v2. */
static void *lookup(void *h, const char *name)
{
    void *f = dlsym(h, name);
    if (!f && strcmp(name, "cuEventElapsedTime_v2") == 0)
        f = dlsym(h, "cuEventElapsedTime");
    return f;
}

int gd_load(gd_api_t *api, char *why, size_t n)
{
    /* Already loaded where the CUDA runtime started a real GPU (the shim, before confinement). */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h)
        h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, n, "no CUDA driver library (libcuda.so.1)");
        return -ENODEV;
    }
#define GD_LOAD_(name, params)                                                               \
    if (!(*(void **)&api->name = lookup(h, #name))) {                                        \
        snprintf(why, n, "the CUDA driver library lacks %s", #name);                         \
        return -ENODEV;                                                                      \
    }
    GD_CALLS(GD_LOAD_)
#undef GD_LOAD_
    return 0;
}

const char *gd_error(const gd_api_t *api, CUresult e, char *buf, size_t n)
{
    const char *name = NULL;
    if (api->cuGetErrorName && api->cuGetErrorName(e, &name) == CUDA_SUCCESS && name)
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "CUDA driver error %d", (int)e);
    return buf;
}
