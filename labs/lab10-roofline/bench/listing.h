/* Lab 10 benchmark: an `objdump -dr --no-show-raw-insn` listing read into functions and their
 * instructions (mnemonic, operands, the target of a direct branch or call, the symbol a
 * relocation names), for simdscan.c. */
#ifndef RL_LISTING_H
#define RL_LISTING_H
#include <stddef.h>

typedef struct {
    unsigned long addr;
    char mn[24];       /* mnemonic, prefixes (rep, notrack, ...) left out */
    char ops[120];     /* operands, the comment left out */
    char target[64];   /* a direct branch's or call's target function ("" if none) */
    unsigned long to;  /* its address */
    char reloc[64];    /* the symbol a relocation on this instruction names ("" if none) */
} ls_insn_t;

typedef struct {
    char name[64];
    size_t first, n;   /* its instructions: in[first .. first + n) */
} ls_func_t;

typedef struct {
    ls_insn_t *in;
    size_t nin, capin;
    ls_func_t *fn;
    size_t nfn, capfn;
} ls_listing_t;

/* Reads the listing text into *l (zeroed first). Returns 0 or -ENOMEM (then *l is freed). */
int ls_read(const char *text, ls_listing_t *l);
void ls_free(ls_listing_t *l);

/* The index of function `name` in l, or -1. */
long ls_find(const ls_listing_t *l, const char *name);

#endif
