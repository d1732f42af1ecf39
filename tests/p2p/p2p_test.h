/*
 * p2p_test.h -- what the p2p test programs share beside the harness
 * (../common/check.h): the deterministic generator their data comes from.
 */
#ifndef PLUGSHMEM_P2P_TEST_H
#define PLUGSHMEM_P2P_TEST_H

#include <stdint.h>

#include "../common/check.h"

/* splitmix64: the deterministic generator every program draws from. */
static inline uint64_t t_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline uint64_t t_rand(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ull;
    uint64_t z = *state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
