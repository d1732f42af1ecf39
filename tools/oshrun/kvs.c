/* oshrun: the PMI key-value space, a string-to-string hash table. */
#include "oshrun.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kv {
    struct kv *next;
    char *key;
    char *value;
};

struct kvs {
    struct kv **bucket;
    size_t nbuckets;        /* a power of two */
    size_t n;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;        /* FNV-1a */

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

struct kvs *kvs_new(void)
{
    struct kvs *k = calloc(1, sizeof *k);

    if (k == NULL)
        return NULL;
    k->nbuckets = 64;
    k->bucket = calloc(k->nbuckets, sizeof *k->bucket);
    if (k->bucket == NULL) {
        free(k);
        return NULL;
    }
    return k;
}

static struct kv **slot(const struct kvs *k, const char *key)
{
    struct kv **p = &k->bucket[hash(key) & (k->nbuckets - 1)];

    while (*p != NULL && strcmp((*p)->key, key) != 0)
        p = &(*p)->next;
    return p;
}

/* Every PE puts a few keys per exchange: grow so chains stay short. */
static void grow(struct kvs *k)
{
    size_t nb = k->nbuckets * 2;
    struct kv **b = calloc(nb, sizeof *b);

    if (b == NULL)
        return;                 /* still correct, just slower */
    for (size_t i = 0; i < k->nbuckets; i++) {
        for (struct kv *e = k->bucket[i], *next; e != NULL; e = next) {
            size_t h = hash(e->key) & (nb - 1);

            next = e->next;
            e->next = b[h];
            b[h] = e;
        }
    }
    free(k->bucket);
    k->bucket = b;
    k->nbuckets = nb;
}

int kvs_put(struct kvs *k, const char *key, const char *value)
{
    struct kv **p = slot(k, key);
    char *v = strdup(value);

    if (v == NULL)
        return -1;
    if (*p != NULL) {
        free((*p)->value);
        (*p)->value = v;
        return 0;
    }
    struct kv *e = malloc(sizeof *e);
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        free(v);
        return -1;
    }
    e->value = v;
    e->next = NULL;
    *p = e;
    if (++k->n > k->nbuckets)
        grow(k);
    return 0;
}

const char *kvs_get(const struct kvs *k, const char *key)
{
    struct kv *e = *slot(k, key);

    return e != NULL ? e->value : NULL;
}

void kvs_free(struct kvs *k)
{
    if (k == NULL)
        return;
    for (size_t i = 0; i < k->nbuckets; i++) {
        for (struct kv *e = k->bucket[i], *next; e != NULL; e = next) {
            next = e->next;
            free(e->key);
            free(e->value);
            free(e);
        }
    }
    free(k->bucket);
    free(k);
}
