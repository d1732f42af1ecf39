/* OpenSHMEM reduction types and operators as MPI datatypes and ops.  Every
 * TYPENAME of the specification's tables (gen/typetables.py) has an MPI
 * type of the same size here; a type MPI reports with another size, or a
 * name missing from this list, is answered -1 and reduced natively
 * (shmem_info lists them). */
#include <string.h>

#include "coll_mpi.h"

/* Plain char is signed on some ABIs and not on others; MPI_CHAR is not
 * valid for reductions at all (a text type), so use its integer twin. */
#define CHAR_INT ((char)-1 < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR)

static MPI_Datatype type_of(const char *t)
{
    static const struct {
        const char *name;
        MPI_Datatype dt;
    } map[] = {
        {"schar", MPI_SIGNED_CHAR},   {"short", MPI_SHORT},
        {"int", MPI_INT},             {"long", MPI_LONG},
        {"longlong", MPI_LONG_LONG},  {"uchar", MPI_UNSIGNED_CHAR},
        {"ushort", MPI_UNSIGNED_SHORT}, {"uint", MPI_UNSIGNED},
        {"ulong", MPI_UNSIGNED_LONG}, {"ulonglong", MPI_UNSIGNED_LONG_LONG},
        {"int8", MPI_INT8_T},         {"int16", MPI_INT16_T},
        {"int32", MPI_INT32_T},       {"int64", MPI_INT64_T},
        {"uint8", MPI_UINT8_T},       {"uint16", MPI_UINT16_T},
        {"uint32", MPI_UINT32_T},     {"uint64", MPI_UINT64_T},
        {"float", MPI_FLOAT},         {"double", MPI_DOUBLE},
        {"longdouble", MPI_LONG_DOUBLE}, {"complexf", MPI_C_FLOAT_COMPLEX},
        {"complexd", MPI_C_DOUBLE_COMPLEX},
    };
    if (!strcmp(t, "char"))
        return CHAR_INT;
    /* size_t and ptrdiff_t have no MPI type of their own: the fixed-width
     * one of their size and signedness. */
    if (!strcmp(t, "size"))
        return sizeof(size_t) == 8 ? MPI_UINT64_T : MPI_UINT32_T;
    if (!strcmp(t, "ptrdiff"))
        return sizeof(ptrdiff_t) == 8 ? MPI_INT64_T : MPI_INT32_T;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].name, t))
            return map[i].dt;
    return MPI_DATATYPE_NULL;
}

static size_t size_of(const char *t)
{
    static const struct {
        const char *name;
        size_t size;
    } sz[] = {{"char", 1}, {"schar", 1}, {"short", sizeof(short)}, {"int", sizeof(int)},
              {"long", sizeof(long)}, {"longlong", sizeof(long long)}, {"uchar", 1},
              {"ushort", sizeof(short)}, {"uint", sizeof(int)}, {"ulong", sizeof(long)},
              {"ulonglong", sizeof(long long)}, {"int8", 1}, {"int16", 2}, {"int32", 4},
              {"int64", 8}, {"uint8", 1}, {"uint16", 2}, {"uint32", 4}, {"uint64", 8},
              {"size", sizeof(size_t)}, {"ptrdiff", sizeof(ptrdiff_t)}, {"float", sizeof(float)},
              {"double", sizeof(double)}, {"longdouble", sizeof(long double)},
              {"complexf", 2 * sizeof(float)}, {"complexd", 2 * sizeof(double)}};
    for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
        if (!strcmp(sz[i].name, t))
            return sz[i].size;
    return 0;
}

int cm_reduction(const char *type, int op, MPI_Datatype *dt, MPI_Op *mop, int mpi_up)
{
    /* In PSHM_OP_* order: and, or, xor, max, min, sum, prod. */
    static const MPI_Op ops[] = {MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};
    if (op < 0 || op >= (int)(sizeof ops / sizeof *ops))
        return -1;
    MPI_Datatype t = type_of(type);
    if (t == MPI_DATATYPE_NULL)
        return -1;
    /* MPI may not be asked before it is started (shmem_info): then the
     * name alone answers. */
    int s = 0;
    if (mpi_up && (MPI_Type_size(t, &s) != MPI_SUCCESS || (size_t)s != size_of(type)))
        return -1;
    *dt = t;
    *mop = ops[op];
    return 0;
}
