/* A collectives component as coll_ext.h 1.0 defined it: {version, size}
 * where the header now is.  The loader must refuse it by its version. */
struct cext_1_0 {
    unsigned version;
    unsigned size;
    const char *name;
};

__attribute__((visibility("default"))) const struct cext_1_0 plugshmem_collectives = {
    1, sizeof(struct cext_1_0), "old"};
