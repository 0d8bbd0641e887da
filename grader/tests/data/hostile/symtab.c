/* Hostile prologue: look for the harness's functions and key in this process's own symbol table
 * (/proc/self/exe and the load bias) and call what is found, as a student who read the grader
 * would. In a program of its own, nothing of the harness is there to find. */
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int first_bias(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *(uintptr_t *)out = info->dlpi_addr;
    return 1;
}

static void *hostile_lookup(const char *want)
{
    FILE *f = fopen("/proc/self/exe", "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    char *img = malloc((size_t)n);
    rewind(f);
    void *hit = NULL;
    if (img && fread(img, 1, (size_t)n, f) == (size_t)n) {
        const Elf64_Ehdr *eh = (const Elf64_Ehdr *)img;
        const Elf64_Shdr *sh = (const Elf64_Shdr *)(img + eh->e_shoff);
        uintptr_t bias = 0;
        dl_iterate_phdr(first_bias, &bias);
        for (int i = 0; i < eh->e_shnum && !hit; i++) {
            if (sh[i].sh_type != SHT_SYMTAB)
                continue;
            const Elf64_Sym *sym = (const Elf64_Sym *)(img + sh[i].sh_offset);
            const char *str = img + sh[sh[i].sh_link].sh_offset;
            for (size_t k = 0; k < sh[i].sh_size / sizeof *sym; k++)
                if (sym[k].st_value && strcmp(str + sym[k].st_name, want) == 0)
                    hit = (void *)(bias + sym[k].st_value);
        }
    }
    free(img);
    fclose(f);
    return hit;
}

static void hostile(void)
{
    static const char *const names[] = { "mm_test_reached_end", "mm_seal_record",
                                         "mm_seal_report", "mm_seal_init", "srunner_run_all",
                                         "mm_bench_report_open" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *p = hostile_lookup(names[i]);
        fprintf(stderr, "hostile: %s %s\n", names[i], p ? "found" : "absent");
        if (p && i == 0)
            ((void (*)(void))p)();
    }
}
