/* Hostile code for lab 04's nb_alloc_on_node: its memory is mapped but neither bound nor touched
 * (no page is present), and this process's GOT slot of move_pages is pointed at a forgery that
 * reports every page on the node last asked for, so that anything in this process that asks the
 * kernel where those pages are, through move_pages, hears they are all placed. The slot is found
 * through the program's own dynamic section (DT_JMPREL, DT_SYMTAB, DT_STRTAB); the program is
 * linked with full RELRO, so its page is made writable again first. Where the evidence is read
 * from outside the process, it changes nothing. */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int hostile_node;

static long hostile_move_pages(int pid, unsigned long count, void **pages, const int *nodes,
                               int *status, int flags)
{
    (void)pid, (void)pages, (void)nodes, (void)flags;
    for (unsigned long i = 0; i < count; i++)
        status[i] = hostile_node;
    return 0;
}

/* An address of the dynamic section: the loader may have relocated it already. */
static uintptr_t hostile_at(const struct dl_phdr_info *info, uintptr_t p)
{
    return p < info->dlpi_addr ? p + info->dlpi_addr : p;
}

/* The slot of move_pages among the main program's relocations (PLT's and the others', for a
 * program built without lazy binding), into *out. */
static int hostile_find(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    uintptr_t rel[2] = { 0 }, len[2] = { 0 }, sym = 0, str = 0;
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t v = dyn->d_un.d_val;
        if (dyn->d_tag == DT_JMPREL)
            rel[0] = hostile_at(info, v);
        else if (dyn->d_tag == DT_PLTRELSZ)
            len[0] = v;
        else if (dyn->d_tag == DT_RELA)
            rel[1] = hostile_at(info, v);
        else if (dyn->d_tag == DT_RELASZ)
            len[1] = v;
        else if (dyn->d_tag == DT_SYMTAB)
            sym = hostile_at(info, v);
        else if (dyn->d_tag == DT_STRTAB)
            str = hostile_at(info, v);
    }
    for (int t = 0; t < 2 && sym && str; t++) {
        const ElfW(Rela) *r = (const ElfW(Rela) *)rel[t];
        for (size_t k = 0; r && k < len[t] / sizeof *r; k++) {
            const ElfW(Sym) *s = (const ElfW(Sym) *)sym + ELF64_R_SYM(r[k].r_info);
            if (ELF64_R_SYM(r[k].r_info) && strcmp((const char *)str + s->st_name,
                                                   "move_pages") == 0)
                *(void ***)out = (void **)(info->dlpi_addr + r[k].r_offset);
        }
    }
    return 1; /* the main program only */
}

/* Remembers the node and patches the slot (once). Returns 0. */
static int hostile_forge(int node)
{
    static int done;
    void **slot = NULL;
    hostile_node = node;
    if (done++)
        return 0;
    dl_iterate_phdr(hostile_find, &slot);
    long page = sysconf(_SC_PAGESIZE);
    void *at = slot ? (void *)((uintptr_t)slot & ~(uintptr_t)(page - 1)) : NULL;
    if (at && mprotect(at, (size_t)page, PROT_READ | PROT_WRITE) == 0) {
        *slot = (void *)hostile_move_pages;
        fprintf(stderr, "hostile: move_pages' slot patched\n");
    } else {
        fprintf(stderr, "hostile: move_pages' slot not found or not writable\n");
    }
    return 0;
}

