/* Lab 09: the shipped request traces (include/trace.h). Not yours to edit. Each file of traces/
 * is copied into the program at build time, followed by a NUL (common/mm_embed.h); lab.mk
 * says where the folder is (KV_TRACE_DIR). */
#include "trace.h"
#include "mm_embed.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifndef KV_TRACE_DIR
#error "KV_TRACE_DIR is not set: build with the project's make (labs/lab09-paged-kv-cache/lab.mk)"
#endif

MM_EMBED(kv_trace_chat, KV_TRACE_DIR "/chat.trace");
MM_EMBED(kv_trace_parallel, KV_TRACE_DIR "/parallel.trace");
MM_EMBED(kv_trace_mix, KV_TRACE_DIR "/mix.trace");

static const char *const NAMES[KV_NTRACES] = { "chat", "parallel", "mix" };

const char *kv_trace_name(unsigned k)
{
    return k < KV_NTRACES ? NAMES[k] : NULL;
}

int kv_trace_load(unsigned k, kv_trace_t *t)
{
    const char *text[KV_NTRACES] = { kv_trace_chat, kv_trace_parallel, kv_trace_mix };
    if (k >= KV_NTRACES || !t)
        return -EINVAL;
    return kv_trace_parse(text[k], NAMES[k], t);
}

/* Reads one unsigned number at *p (after blanks); returns 0 or -EIO. */
static int number(const char **p, uint32_t *v)
{
    while (**p == ' ' || **p == '\t')
        (*p)++;
    char *end;
    unsigned long x = strtoul(*p, &end, 10);
    if (end == *p || x > UINT32_MAX)
        return -EIO;
    *p = end;
    *v = (uint32_t)x;
    return 0;
}

/* Parses one request line into t->req[i] (prompt filled at t->tokens + *used). */
static int parse_line(const char *p, kv_trace_t *t, size_t i, size_t *used, size_t cap)
{
    uint32_t f[6];
    for (int k = 0; k < 6; k++)
        if (number(&p, &f[k]))
            return -EIO;
    kv_request_t *r = &t->req[i];
    *r = (kv_request_t){ .id = f[0], .n = f[5], .prompt_len = f[4] };
    t->arrival[i] = f[1];
    if (f[5] < 1 || f[5] > KV_MAX_SAMPLES || f[3] > f[4] || f[4] == 0 || f[4] > cap - *used)
        return -EIO;
    for (uint32_t s = 0; s < f[5]; s++)
        if (number(&p, &r->out_len[s]))
            return -EIO;
    kv_token_t *tok = t->tokens + *used;
    for (uint32_t k = 0; k < f[4]; k++)
        tok[k] = k < f[3] ? kv_prefix_token(f[2], k) : kv_own_token(f[0], k - f[3]);
    r->prompt = tok;
    *used += f[4];
    return 0;
}

/* Counts request lines and the tokens of their prompts (field 5). */
static void measure(const char *text, size_t *lines, size_t *tokens)
{
    *lines = *tokens = 0;
    for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (*p == '#' || *p == '\n')
            continue;
        const char *q = p;
        uint32_t f[5];
        int ok = 1;
        for (int k = 0; k < 5 && ok; k++)
            ok = number(&q, &f[k]) == 0;
        if (ok) {
            (*lines)++;
            *tokens += f[4];
        }
    }
}

static void copy_line(char *dst, size_t cap, const char *src)
{
    size_t n = strcspn(src, "\n");
    n = n < cap - 1 ? n : cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

int kv_trace_parse(const char *text, const char *name, kv_trace_t *t)
{
    if (!text || !t)
        return -EINVAL;
    memset(t, 0, sizeof *t);
    size_t lines, tokens, used = 0, i = 0;
    measure(text, &lines, &tokens);
    t->name = name;
    t->req = calloc(lines + 1, sizeof *t->req);
    t->arrival = calloc(lines + 1, sizeof *t->arrival);
    t->tokens = calloc(tokens + 1, sizeof *t->tokens);
    if (!t->req || !t->arrival || !t->tokens) {
        kv_trace_free(t);
        return -ENOMEM;
    }
    for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (*p == '\n')
            continue;
        if (*p == '#') {
            if (!t->about[0] && strncmp(p, "# about: ", 9) == 0)
                copy_line(t->about, sizeof t->about, p + 9);
            continue;
        }
        if (i >= lines || parse_line(p, t, i, &used, tokens)) {
            kv_trace_free(t);
            return -EIO;
        }
        i++;
    }
    t->n = i;
    return 0;
}

void kv_trace_free(kv_trace_t *t)
{
    if (!t)
        return;
    free(t->req);
    free(t->arrival);
    free(t->tokens);
    memset(t, 0, sizeof *t);
}
