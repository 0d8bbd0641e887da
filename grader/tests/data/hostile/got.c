/* Hostile prologue: point this process's GOT slot of clock_gettime at a clock that runs four
 * times slow, so that anything timed with it in this process looks four times faster (the
 * program is linked with full RELRO: the page is made writable again first). Where the clock
 * that scores is another process's, it changes nothing. */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int hostile_clock(clockid_t c, struct timespec *t)
{
    struct timespec real;
    long rc = syscall(SYS_clock_gettime, c, &real);
    long long ns = ((long long)real.tv_sec * 1000000000LL + real.tv_nsec) / 4;
    t->tv_sec = ns / 1000000000LL;
    t->tv_nsec = ns % 1000000000LL;
    return (int)rc;
}

static int hostile_bias(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *(uintptr_t *)out = info->dlpi_addr;
    return 1;
}

/* The slot's address: a relocation of clock_gettime in the program's .rela sections. */
static void **hostile_slot(const char *img)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
    uintptr_t bias = 0;
    dl_iterate_phdr(hostile_bias, &bias);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_RELA)
            continue;
        const Elf64_Rela *r = (const Elf64_Rela *)(img + sh[i].sh_offset);
        const Elf64_Shdr *syms = &sh[sh[i].sh_link];
        const Elf64_Sym *sym = (const Elf64_Sym *)(img + syms->sh_offset);
        const char *str = img + sh[syms->sh_link].sh_offset;
        for (size_t k = 0; k < sh[i].sh_size / sizeof *r; k++) {
            size_t s = ELF64_R_SYM(r[k].r_info);
            if (s && strcmp(str + sym[s].st_name, "clock_gettime") == 0)
                return (void **)(bias + r[k].r_offset);
        }
    }
    return NULL;
}

static void hostile(void)
{
    static int done;
    FILE *f = done ? NULL : fopen("/proc/self/exe", "rb");
    if (!f)
        return;
    done = 1;
    static char img[1 << 24];
    size_t n = fread(img, 1, sizeof img, f);
    fclose(f);
    void **slot = n > sizeof(Elf64_Ehdr) ? hostile_slot(img) : NULL;
    long page = sysconf(_SC_PAGESIZE);
    void *at = slot ? (void *)((uintptr_t)slot & ~(uintptr_t)(page - 1)) : NULL;
    if (at && mprotect(at, (size_t)page, PROT_READ | PROT_WRITE) == 0) {
        *slot = (void *)hostile_clock;
        fprintf(stderr, "hostile: clock_gettime's slot patched\n");
    } else {
        fprintf(stderr, "hostile: clock_gettime's slot not found or not writable\n");
    }
}
