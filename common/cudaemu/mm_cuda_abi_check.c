/* Compile-time proof that the emulator's numbers, struct layout and function types are the CUDA
 * toolkit's: built only where the toolkit's headers are on the include path (cudaemu.mk), it
 * compares every value and declaration of mm_cuda_values.h with the toolkit's own. A mismatch
 * fails the build, naming it. */
#include <stddef.h>
#include <cuda_runtime_api.h>
#include "mm_cuda_values.h"

MM_EMU_FUNCTIONS(MM_EMU_SAME_FUNCTION_)

#define MM_EMU_SAME_(name, value)                                                             \
    _Static_assert((long)(name) == (long)(value), #name " differs from the CUDA toolkit's");
#define MM_EMU_SAME_ERROR_(name, value, message) MM_EMU_SAME_(name, value)
MM_EMU_ERRORS(MM_EMU_SAME_ERROR_)
MM_EMU_MEMCPY_KINDS(MM_EMU_SAME_)
MM_EMU_MEMORY_TYPES(MM_EMU_SAME_)
MM_EMU_FLAGS(MM_EMU_SAME_)

/* The emulator's struct cudaPointerAttributes, field for field the toolkit's. */
struct mm_emu_attributes_ {
    MM_EMU_POINTER_ATTRIBUTES_FIELDS
};
#define MM_EMU_SAME_FIELD_(f)                                                                 \
    _Static_assert(offsetof(struct mm_emu_attributes_, f) ==                                  \
                       offsetof(struct cudaPointerAttributes, f),                             \
                   "cudaPointerAttributes." #f " is not where the toolkit has it");
MM_EMU_SAME_FIELD_(type)
MM_EMU_SAME_FIELD_(device)
MM_EMU_SAME_FIELD_(devicePointer)
MM_EMU_SAME_FIELD_(hostPointer)
MM_EMU_SAME_FIELD_(reserved)
_Static_assert(sizeof(struct mm_emu_attributes_) == sizeof(struct cudaPointerAttributes),
               "struct cudaPointerAttributes differs in size from the toolkit's");

/* Something to compile: the check is the compilation itself. */
int mm_emu_abi_checked(void);
int mm_emu_abi_checked(void)
{
    return 1;
}
