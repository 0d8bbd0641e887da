/* Lab 10 benchmark: an objdump listing read into functions and instructions (see listing.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "listing.h"

static const char *const PREFIXES[] = { "rep", "repz", "repe", "repnz", "repne", "lock",
                                        "notrack", "bnd", "data16", "cs", "ds", NULL };

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 256;
    void *q = realloc(*p, c * size);
    if (!q)
        return -ENOMEM;
    *p = q;
    *cap = c;
    return 0;
}

/* Copies at most cap - 1 bytes of [s, e) into out, NUL-terminated. */
static void copy(char *out, size_t cap, const char *s, const char *e)
{
    size_t n = (size_t)(e - s) < cap - 1 ? (size_t)(e - s) : cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

static int is_prefix(const char *w, size_t n)
{
    for (int k = 0; PREFIXES[k]; k++)
        if (strlen(PREFIXES[k]) == n && !strncmp(PREFIXES[k], w, n))
            return 1;
    return 0;
}

/* "hex <name+0x10>" at the end of the operands: a direct target. */
static void parse_target(ls_insn_t *in)
{
    char *lt = strchr(in->ops, '<');
    if (!lt)
        return;
    const char *e = lt + 1;
    while (*e && *e != '+' && *e != '>')
        e++;
    copy(in->target, sizeof in->target, lt + 1, e);
    const char *h = lt;
    while (h > in->ops && h[-1] == ' ')
        h--;
    while (h > in->ops && isxdigit((unsigned char)h[-1]))
        h--;
    in->to = strtoul(h, NULL, 16);
}

/* One instruction line's text after "addr:\t". */
static void parse_insn(ls_insn_t *in, const char *s)
{
    const char *w = skip_space(s), *e;
    for (;;) {
        e = w;
        while (*e && *e != ' ' && *e != '\t')
            e++;
        if (!is_prefix(w, (size_t)(e - w)))
            break;
        w = skip_space(e);
    }
    copy(in->mn, sizeof in->mn, w, e);
    const char *o = skip_space(e), *end = o;
    while (*end && *end != '#' && strncmp(end, "//", 2) != 0)
        end++;
    while (end > o && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    copy(in->ops, sizeof in->ops, o, end);
    parse_target(in);
}

static int add_func(ls_listing_t *l, const char *name, const char *end)
{
    if (grow((void **)&l->fn, &l->capfn, l->nfn, sizeof *l->fn) != 0)
        return -ENOMEM;
    ls_func_t *f = &l->fn[l->nfn++];
    copy(f->name, sizeof f->name, name, end);
    f->first = l->nin;
    f->n = 0;
    return 0;
}

static int add_insn(ls_listing_t *l, unsigned long addr, const char *text)
{
    if (!l->nfn || grow((void **)&l->in, &l->capin, l->nin, sizeof *l->in) != 0)
        return l->nfn ? -ENOMEM : 0;
    ls_insn_t *in = &l->in[l->nin++];
    memset(in, 0, sizeof *in);
    in->addr = addr;
    parse_insn(in, text);
    l->fn[l->nfn - 1].n++;
    return 0;
}

/* "\t\t\td46: R_X86_64_PLT32\texp_sum-0x4": the symbol, onto the last instruction. */
static void add_reloc(ls_listing_t *l, const char *r)
{
    if (!l->nin)
        return;
    const char *s = skip_space(strpbrk(r, " \t") ? strpbrk(r, " \t") : r), *e = s;
    while (*e && *e != '+' && *e != '-' && *e != ' ' && *e != '\t')
        e++;
    copy(l->in[l->nin - 1].reloc, sizeof l->in[0].reloc, s, e);
}

static int parse_line(ls_listing_t *l, const char *line)
{
    char *end;
    const char *s = skip_space(line);
    unsigned long addr = strtoul(s, &end, 16);
    if (end == s)
        return 0;
    if (s == line && !strncmp(end, " <", 2) && strstr(end, ">:"))
        return add_func(l, end + 2, strstr(end, ">:"));
    if (*end != ':')
        return 0;
    if (!strncmp(end, ": R_", 4)) {
        add_reloc(l, end + 2);
        return 0;
    }
    return end[1] == '\t' ? add_insn(l, addr, end + 2) : 0;
}

int ls_read(const char *text, ls_listing_t *l)
{
    char line[512];
    memset(l, 0, sizeof *l);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        const char *e = nl ? nl : p + strlen(p);
        copy(line, sizeof line, p, e);
        if (parse_line(l, line) != 0) {
            ls_free(l);
            return -ENOMEM;
        }
        p = nl ? nl + 1 : e;
    }
    return 0;
}

void ls_free(ls_listing_t *l)
{
    free(l->in);
    free(l->fn);
    memset(l, 0, sizeof *l);
}

long ls_find(const ls_listing_t *l, const char *name)
{
    for (size_t k = 0; k < l->nfn; k++)
        if (!strcmp(l->fn[k].name, name))
            return (long)k;
    return -1;
}
