/* Streaming JSON writer (see mm_json.h). */
#include "mm_json.h"
#include <assert.h>
#include <math.h>

static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void member(mm_json_t *j, const char *key)
{
    if (j->count[j->depth]++ > 0)
        fputc(',', j->f);
    if (key) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

static void open_nested(mm_json_t *j, const char *key, char opener)
{
    assert(j->depth + 1 < MM_JSON_MAX_DEPTH);
    member(j, key);
    fputc(opener, j->f);
    j->count[++j->depth] = 0;
}

void mm_json_begin(mm_json_t *j, FILE *f)
{
    j->f = f;
    j->on_end = NULL;
    j->depth = 0;
    j->count[0] = 0;
    fputc('{', f);
}

void mm_json_object(mm_json_t *j, const char *key) { open_nested(j, key, '{'); }
void mm_json_array(mm_json_t *j, const char *key) { open_nested(j, key, '['); }

void mm_json_close(mm_json_t *j, char closer)
{
    assert(j->depth > 0);
    fputc(closer, j->f);
    j->depth--;
}

void mm_json_end(mm_json_t *j)
{
    while (j->depth > 0)
        mm_json_close(j, '}');
    fputs("}\n", j->f);
    fflush(j->f);
    if (j->on_end)
        j->on_end(j);
}

void mm_json_num(mm_json_t *j, const char *key, double v)
{
    member(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.6g", v);
    else
        fputs("null", j->f);
}

void mm_json_int(mm_json_t *j, const char *key, long long v)
{
    member(j, key);
    fprintf(j->f, "%lld", v);
}

void mm_json_str(mm_json_t *j, const char *key, const char *s)
{
    member(j, key);
    put_string(j->f, s ? s : "");
}

void mm_json_bool(mm_json_t *j, const char *key, int v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->f);
}

void mm_json_nums(mm_json_t *j, const char *key, const double *v, size_t n)
{
    mm_json_array(j, key);
    for (size_t i = 0; i < n; i++)
        mm_json_num(j, NULL, v[i]);
    mm_json_close(j, ']');
}
