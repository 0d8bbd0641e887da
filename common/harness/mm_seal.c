/* Sealed results for the grader (see mm_seal.h). */
#include "mm_seal.h"
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KEY_BYTES 32

static unsigned char key[KEY_BYTES];
static int sealing;

int mm_seal_on(void) { return sealing; }

int mm_seal_init(void)
{
    const char *on = getenv("MLMEM_SEAL");
    if (!on || strcmp(on, "1") != 0)
        return 0;
    unsetenv("MLMEM_SEAL");
    size_t got = 0;
    while (got < KEY_BYTES) {
        ssize_t n = read(MM_SEAL_KEY_FD, key + got, KEY_BYTES - got);
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        got += (size_t)n;
    }
    close(MM_SEAL_KEY_FD);
    sealing = 1;
    return 1;
}

/* HMAC-SHA256 under the key of parts[0..n) joined by NUL bytes, in hex (65 bytes with the NUL).
 * Returns 0, -ENOMEM or -EIO. */
static int seal(const char *const *parts, const size_t *lens, size_t n, char hex[65])
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lens[i] + 1;
    unsigned char *msg = malloc(total), mac[EVP_MAX_MD_SIZE];
    if (!msg)
        return -ENOMEM;
    size_t at = 0, maclen = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(msg + at, parts[i], lens[i]);
        at += lens[i];
        msg[at++] = 0;
    }
    int ok = EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, key, KEY_BYTES, msg, total - 1, mac,
                       sizeof mac, &maclen) != NULL;
    free(msg);
    if (!ok || maclen != 32)
        return -EIO;
    for (size_t i = 0; i < maclen; i++)
        snprintf(hex + 2 * i, 3, "%02x", mac[i]);
    return 0;
}

/* Writes buf[0..len) in full to the channel. */
static int put(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(MM_SEAL_FD, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        buf += n, len -= (size_t)n;
    }
    return 0;
}

int mm_seal_record(const char *kind, const char *name, const char *text)
{
    if (!sealing)
        return -ENOTCONN;
    if (!kind || !name || !text)
        return -EINVAL;
    size_t tlen = strcspn(text, "\n");
    const char *parts[] = { kind, name, text };
    size_t lens[] = { strlen(kind), strlen(name), tlen };
    char hex[65], line[1024];
    int rc = seal(parts, lens, 3, hex);
    if (rc)
        return rc;
    int n = snprintf(line, sizeof line, "%s %s %s %.*s\n", kind, name, hex, (int)tlen, text);
    if (n < 0 || (size_t)n >= sizeof line)
        return -E2BIG;
    return put(line, (size_t)n);
}

int mm_seal_report(const char *report, size_t len)
{
    if (!sealing)
        return -ENOTCONN;
    const char *parts[] = { MM_SEAL_REPORT, report };
    size_t lens[] = { sizeof MM_SEAL_REPORT - 1, len };
    char hex[65], head[128];
    int rc = seal(parts, lens, 2, hex);
    if (rc)
        return rc;
    int n = snprintf(head, sizeof head, MM_SEAL_REPORT " %zu %s\n", len, hex);
    return put(head, (size_t)n) ? -EIO : put(report, len);
}
