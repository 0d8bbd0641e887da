/* Lab 10 benchmark: carried packed accumulators in a kernel's loops (see simdscan.h). The
 * target's rules (which instructions are packed adds and maxima, which register an instruction
 * writes and reads) are for the architecture this benchmark was built for: the listing is of
 * the object it links. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "listing.h"
#include "simdscan.h"

#define MAX_REACH 32
#define MAX_OPS 6

enum { K_NONE, K_ADD, K_MAX };

typedef struct {
    char op[MAX_OPS][48];
    int n;
} ops_t;

/* Splits operands at the commas outside (), [] and {}. */
static void split(const char *s, ops_t *o)
{
    int depth = 0;
    size_t len = 0;
    o->n = 0;
    for (;; s++) {
        if ((*s == ',' && depth == 0) || !*s) {
            if (o->n < MAX_OPS) {
                o->op[o->n][len < 47 ? len : 47] = '\0';
                o->n++;
            }
            len = 0;
            if (!*s)
                return;
            continue;
        }
        depth += (*s == '(' || *s == '[' || *s == '{') - (*s == ')' || *s == ']' || *s == '}');
        if (o->n < MAX_OPS && len < 47 && !(len == 0 && *s == ' '))
            o->op[o->n][len++] = *s;
    }
}

#if defined(__x86_64__)
/* %xmm3, %ymm3, %zmm3 (a mask such as {%k1} may follow): 3; anything else: -1. */
static int reg_no(const char *op)
{
    if (op[0] != '%' || !op[1] || !strchr("xyz", op[1]) || strncmp(op + 2, "mm", 2) != 0)
        return -1;
    return atoi(op + 4);
}

static int kind(const char *mn, int *reads_dest)
{
    const char *b = mn[0] == 'v' ? mn + 1 : mn;
    size_t n = strlen(b);
    if (n < 4 || b[n - 2] != 'p' || (b[n - 1] != 's' && b[n - 1] != 'd'))
        return K_NONE;
    *reads_dest = mn[0] != 'v'; /* SSE's two-operand forms: dest op= src */
    if (!strncmp(b, "fmadd", 5) || !strncmp(b, "fmsub", 5) || !strncmp(b, "fnmadd", 6) ||
        !strncmp(b, "fnmsub", 6)) {
        *reads_dest = 1;
        return K_ADD;
    }
    if (n == 5 && !strncmp(b, "add", 3)) /* a sum adds; a subtraction is rarely one */
        return K_ADD;
    /* A maximum as max/min, or as a compare and a blend (`x > m ? x : m` may compile to either) */
    return (n == 5 && (!strncmp(b, "max", 3) || !strncmp(b, "min", 3))) ||
           !strncmp(b, "cmp", 3) || !strncmp(b, "blend", 5) ? K_MAX : K_NONE;
}

/* The register an instruction writes (AT&T: the last operand), or -1. */
static int dest_of(const char *mn, const ops_t *o)
{
    if (strstr(mn, "comis") || strstr(mn, "test"))
        return -1;
    return o->n ? reg_no(o->op[o->n - 1]) : -1;
}

static int first_source(const ops_t *o) { (void)o; return 0; }
static int last_source(const ops_t *o) { return o->n - 2; }
#elif defined(__aarch64__)
/* v3.4s, q3, d3, s3, h3, b3, z3.s, {v3.4s: 3; anything else (x3, w3, p0/m, sp): -1. */
static int reg_no(const char *op)
{
    op += op[0] == '{';
    if (!op[0] || !strchr("vqdshbz", op[0]) || op[1] < '0' || op[1] > '9')
        return -1;
    return atoi(op + 1);
}

static int kind(const char *mn, int *reads_dest)
{
    static const char *const acc[] = { "fmla", "fmls", "fnmla", "fnmls", "fmad", "fmsb",
                                       "fnmad", "fnmsb", NULL };
    *reads_dest = 0;
    for (int k = 0; acc[k]; k++)
        if (!strcmp(mn, acc[k]))
            return *reads_dest = 1, K_ADD;
    if (!strcmp(mn, "fadd"))
        return K_ADD;
    /* A maximum as fmax/fmin, or as a compare and a bit select (`x > m ? x : m` with NaN's
     * meaning kept compiles to fcmgt and bsl) */
    static const char *const max[] = { "fmax", "fmaxnm", "fmin", "fminnm", "fcmgt", "fcmge",
                                       "fcmlt", "fcmle", "bsl", "bit", "bif", "sel", NULL };
    for (int k = 0; max[k]; k++)
        if (!strcmp(mn, max[k]))
            return K_MAX;
    return K_NONE;
}

/* The register an instruction writes (the first operand, except stores and compares), or -1. */
static int dest_of(const char *mn, const ops_t *o)
{
    if (!strncmp(mn, "st", 2) || !strncmp(mn, "fcmp", 4) || !o->n)
        return -1;
    return reg_no(o->op[0]);
}

/* What else a load writes: ldp's second register, every register of ld1-ld4's list. */
static unsigned long long more_writes(const char *mn, const ops_t *o)
{
    unsigned long long w = 0;
    if ((!strcmp(mn, "ldp") || !strcmp(mn, "ldnp")) && o->n > 1 && reg_no(o->op[1]) >= 0)
        w |= 1ull << reg_no(o->op[1]);
    const char *list = o->n && o->op[0][0] == '{' ? o->op[0] : "{";
    for (const char *p = list + 1; *p; p++)
        if ((p[-1] == '{' || p[-1] == ' ' || p[-1] == '-') && reg_no(p) >= 0)
            w |= 1ull << reg_no(p);
    return w;
}

static int first_source(const ops_t *o) { (void)o; return 1; }
static int last_source(const ops_t *o) { return o->n - 1; }
#else
static int reg_no(const char *op) { (void)op; return -1; }
static int kind(const char *mn, int *reads_dest) { (void)mn; *reads_dest = 0; return K_NONE; }
static int dest_of(const char *mn, const ops_t *o) { (void)mn; (void)o; return -1; }
static int first_source(const ops_t *o) { (void)o; return 0; }
static int last_source(const ops_t *o) { return o->n - 1; }
#endif

#if !defined(__aarch64__)
/* Elsewhere an instruction writes one register at most. */
static unsigned long long more_writes(const char *mn, const ops_t *o)
{
    (void)mn;
    (void)o;
    return 0;
}
#endif

/* A packed instruction: x86's p[sd] mnemonics (kind checks the suffix); on aarch64 a first
 * operand with an arrangement (v0.4s, z0.s), not a scalar (s0). */
static int packed(const ops_t *o)
{
#if defined(__aarch64__)
    return o->n && (o->op[0][0] == 'v' || o->op[0][0] == 'z') && strchr(o->op[0], '.');
#else
    (void)o;
    return 1;
#endif
}

static int is_branch(const char *mn)
{
#if defined(__aarch64__)
    return !strcmp(mn, "b") || !strncmp(mn, "b.", 2) || !strncmp(mn, "cb", 2) ||
           !strncmp(mn, "tb", 2);
#else
    return mn[0] == 'j' || !strncmp(mn, "loop", 4);
#endif
}

typedef struct {
    const ls_insn_t *in;
    size_t n;
    unsigned long long written_anywhere;
} loop_t;

/* The carried packed instruction of this loop for kind k, or NULL: one that reads a register
 * the loop writes somewhere but has not written before it. */
static const ls_insn_t *carried(const loop_t *lp, int k)
{
    unsigned long long written = 0;
    for (size_t i = 0; i < lp->n; i++) {
        ops_t o;
        int rd = 0, kk = kind(lp->in[i].mn, &rd);
        split(lp->in[i].ops, &o);
        int d = dest_of(lp->in[i].mn, &o);
        if (kk == k && packed(&o)) {
            for (int s = first_source(&o); s <= last_source(&o) + (rd && d >= 0); s++) {
                int r = s > last_source(&o) ? d : reg_no(o.op[s]);
                if (r >= 0 && !(written >> r & 1) && (lp->written_anywhere >> r & 1))
                    return &lp->in[i];
            }
        }
        written |= (d >= 0 ? 1ull << d : 0) | more_writes(lp->in[i].mn, &o);
    }
    return NULL;
}

static unsigned long long writes(const ls_insn_t *in, size_t n)
{
    unsigned long long w = 0;
    for (size_t i = 0; i < n; i++) {
        ops_t o;
        split(in[i].ops, &o);
        int d = dest_of(in[i].mn, &o);
        w |= (d >= 0 ? 1ull << d : 0) | more_writes(in[i].mn, &o);
    }
    return w;
}

/* Whether the back edge at f's instruction b has another back edge strictly inside its loop. */
static int has_inner(const ls_insn_t *in, size_t n, const char *fn, size_t b)
{
    for (size_t i = 0; i < n; i++)
        if (i != b && is_branch(in[i].mn) && !strcmp(in[i].target, fn) && in[i].to <= in[i].addr &&
            in[i].to >= in[b].to && in[i].addr <= in[b].addr &&
            (in[i].to > in[b].to || in[i].addr < in[b].addr))
            return 1;
    return 0;
}

static void note(ss_kernel_t *out, const char *fn, const ls_insn_t *in)
{
    if (!out->example[0])
        snprintf(out->example, sizeof out->example, "%.40s: %.16s %.60s", fn, in->mn, in->ops);
}

/* Adds function f's innermost loops to out. */
static void scan_function(const ls_listing_t *l, const ls_func_t *f, ss_kernel_t *out)
{
    const ls_insn_t *in = l->in + f->first;
    for (size_t b = 0; b < f->n; b++) {
        if (!is_branch(in[b].mn) || strcmp(in[b].target, f->name) || in[b].to > in[b].addr ||
            has_inner(in, f->n, f->name, b))
            continue;
        size_t head = b;
        while (head > 0 && in[head - 1].addr >= in[b].to)
            head--;
        loop_t lp = { in + head, b - head + 1, writes(in + head, b - head + 1) };
        const ls_insn_t *a = carried(&lp, K_ADD), *m = carried(&lp, K_MAX);
        out->add_loops += a != NULL;
        out->max_loops += m != NULL;
        if (a)
            note(out, f->name, a);
    }
}

/* The functions f reaches by direct calls and jumps, appended to reach[] (f already in it). */
static void callees(const ls_listing_t *l, long f, long *reach, int *n)
{
    const ls_insn_t *in = l->in + l->fn[f].first;
    for (size_t i = 0; i < l->fn[f].n && *n < MAX_REACH; i++) {
        long c = ls_find(l, in[i].reloc[0] ? in[i].reloc : in[i].target);
        int seen = c < 0;
        for (int k = 0; k < *n && !seen; k++)
            seen = reach[k] == c;
        if (!seen)
            reach[(*n)++] = c;
    }
}

int ss_scan(const char *listing, const char *fn, ss_kernel_t *out)
{
    ls_listing_t l;
    long reach[MAX_REACH];
    int n = 0;
    if (!listing || !fn || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    if (ls_read(listing, &l) != 0)
        return -ENOMEM;
    long f = ls_find(&l, fn);
    if (f >= 0) {
        reach[n++] = f;
        for (int k = 0; k < n; k++)
            callees(&l, reach[k], reach, &n);
        for (int k = 0; k < n; k++)
            scan_function(&l, &l.fn[reach[k]], out);
    }
    out->found = f >= 0;
    out->functions = n;
    ls_free(&l);
    return 0;
}
