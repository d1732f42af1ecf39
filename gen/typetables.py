"""The OpenSHMEM type tables: the one place every typed family comes from.

Each entry is (TYPENAME, C type, size in bytes on LP64).  The library, the
header and the generated tests all read these lists.
"""

RMA = [
    ("float", "float", 4), ("double", "double", 8), ("longdouble", "long double", 16),
    ("char", "char", 1), ("schar", "signed char", 1), ("short", "short", 2),
    ("int", "int", 4), ("long", "long", 8), ("longlong", "long long", 8),
    ("uchar", "unsigned char", 1), ("ushort", "unsigned short", 2),
    ("uint", "unsigned int", 4), ("ulong", "unsigned long", 8),
    ("ulonglong", "unsigned long long", 8),
    ("int8", "int8_t", 1), ("int16", "int16_t", 2), ("int32", "int32_t", 4),
    ("int64", "int64_t", 8), ("uint8", "uint8_t", 1), ("uint16", "uint16_t", 2),
    ("uint32", "uint32_t", 4), ("uint64", "uint64_t", 8), ("size", "size_t", 8),
    ("ptrdiff", "ptrdiff_t", 8),
]

_by_name = {t[0]: t for t in RMA}


def pick(*names):
    return [_by_name[n] for n in names]


AMO_STD = pick("int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
               "uint32", "uint64", "size", "ptrdiff")
AMO_EXT = AMO_STD + pick("float", "double")
AMO_BIT = pick("uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64")
P2P = AMO_STD
P2P_DEPRECATED = pick("short", "ushort")
# 1.6 has only the deprecated wait_until and test for short and unsigned
# short; the set forms (_all, _any, _some and _vector) of these types are a
# PlugSHMEM extension, declared in shmemx.h, so 16-bit flags need no cast.
P2P_SET_EXT = P2P_DEPRECATED

SIZES = [8, 16, 32, 64, 128]

# C types that are distinct to _Generic on LP64: the exact-width, size_t and
# ptrdiff_t names are typedefs of these, so they must not be listed twice.
GENERIC_BASE = {"float", "double", "longdouble", "char", "schar", "short", "int", "long",
                "longlong", "uchar", "ushort", "uint", "ulong", "ulonglong"}


# What each exact-width or library typedef is on LP64 (x86-64 Linux).
LP64_CANONICAL = {"int8": "schar", "int16": "short", "int32": "int", "int64": "long",
                  "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulong",
                  "size": "ulong", "ptrdiff": "long"}


def generic(table):
    """The entries of a table that _Generic can tell apart, as (TYPENAME,
    C type, size) with the C type made canonical: a table without "int" but
    with "int32" still answers for int32_t (which is int)."""
    out, seen = [], set()
    for tn, ty, sz in sorted(table, key=lambda t: t[0] not in GENERIC_BASE):
        canon = LP64_CANONICAL.get(tn, tn)
        if canon in seen:
            continue
        seen.add(canon)
        out.append((tn, _by_name[canon][1], sz))
    return out


def is_float(t):
    return t[0] in ("float", "double", "longdouble")


def is_signed(t):
    return t[0] in ("char", "schar", "short", "int", "long", "longlong", "int8", "int16",
                    "int32", "int64", "ptrdiff")


# ---- reductions and scans (spec "teamreducetypes"; 1.6 errata applied) ----
# The complex types exist for SUM/PROD and the scans only.
COMPLEX = [("complexd", "double _Complex", 16), ("complexf", "float _Complex", 8)]
REDUCE_BIT = pick("uchar", "ushort", "uint", "ulong", "ulonglong", "int8", "int16", "int32",
                  "int64", "uint8", "uint16", "uint32", "uint64", "size")
REDUCE_MINMAX = pick("char", "schar", "short", "int", "long", "longlong", "ptrdiff") + REDUCE_BIT + \
    pick("float", "double", "longdouble")
REDUCE_SUM = REDUCE_MINMAX + COMPLEX
# Team reductions: op -> types.
REDUCE_OPS = [("and", REDUCE_BIT), ("or", REDUCE_BIT), ("xor", REDUCE_BIT),
              ("max", REDUCE_MINMAX), ("min", REDUCE_MINMAX),
              ("sum", REDUCE_SUM), ("prod", REDUCE_SUM)]
SCAN_OPS = [("sum_inscan", REDUCE_SUM), ("sum_exscan", REDUCE_SUM)]

# Deprecated active-set reductions, shmem_TYPENAME_OP_to_all.
TO_ALL_BIT = pick("short", "int", "long", "longlong")
TO_ALL_MINMAX = TO_ALL_BIT + pick("float", "double", "longdouble")
TO_ALL_SUM = TO_ALL_MINMAX + COMPLEX
TO_ALL_OPS = [("and", TO_ALL_BIT), ("or", TO_ALL_BIT), ("xor", TO_ALL_BIT),
              ("max", TO_ALL_MINMAX), ("min", TO_ALL_MINMAX),
              ("sum", TO_ALL_SUM), ("prod", TO_ALL_SUM)]
