/*
 * Unit test of the ops-table rules (core/abi.c): versions and sizes,
 * mandatory ops, and the fallbacks of optional ones.
 */
#include <stdio.h>
#include <string.h>

#include "abi.h"
#define CHECK_WITHOUT_SHMEM /* these tests call the core directly, not the library */
#include "../common/check.h"

static void f_put(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)src, (void)len;
}
static void f_get(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)dst, (void)len;
}
static void f_put_nbi(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)src, (void)len;
}
static void f_amo(pshm_tctx c, int pe, int seg, size_t off, int op, int type, const void *operand,
                  const void *compare, void *fetch, int nbi)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)op, (void)type, (void)operand, (void)compare,
        (void)fetch, (void)nbi;
}
static void f_sync(pshm_tctx c) { (void)c; }
static int f_ctx_create(long o, pshm_tctx *c)
{
    (void)o;
    *c = NULL;
    return 0;
}
static void f_ctx_destroy(pshm_tctx c) { (void)c; }
static void f_put_signal(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len,
                         int sig_seg, size_t sig_off, uint64_t signal, int sig_op, int nbi)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)src, (void)len, (void)sig_seg, (void)sig_off,
        (void)signal, (void)sig_op, (void)nbi;
}

static pshm_transport_ops complete(void)
{
    pshm_transport_ops o = {
        .hdr = PSHM_ABI_HEADER(pshm_transport_ops),
        .ctx_create = f_ctx_create,
        .ctx_destroy = f_ctx_destroy,
        .put = f_put,
        .get = f_get,
        .amo = f_amo,
        .fence = f_sync,
        .quiet = f_sync,
    };
    return o;
}

static void test_complete_table(void)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    in.put_nbi = f_put_nbi;
    in.put_signal = f_put_signal;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK_EQ(out.put_nbi, f_put_nbi); /* given: kept */
    CHECK_EQ(out.get_nbi, f_get);     /* absent: falls back to get */
    CHECK_EQ(out.put_signal, f_put_signal);
    CHECK_EQ(out.hdr.size, sizeof out);
}

/* A 2.0 table stops after progress: what lies beyond its size is never
 * read, whatever it holds. */
static void test_older_minor(void)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    in.hdr.minor = 0;
    in.hdr.size = (uint32_t)offsetof(pshm_transport_ops, put_signal);
    in.put_signal = f_put_signal; /* beyond its size: must be ignored */
    in.seg_register = (int (*)(int, void *, size_t))1;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK_EQ(out.put_signal, NULL);
    CHECK_EQ(out.seg_register, NULL);
    CHECK_EQ(out.put_nbi, f_put);
    CHECK_EQ(out.put, f_put);

    in.hdr.size -= 8; /* a 2.0 table must reach progress */
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    char want[128];
    snprintf(want, sizeof want, "its ops table is %zu bytes, but ABI 2.0's is at least %zu",
             offsetof(pshm_transport_ops, put_signal) - 8, offsetof(pshm_transport_ops, put_signal));
    CHECK_HAS(why, want);
}

static void test_newer_minor(void)
{
    struct {
        pshm_transport_ops ops;
        void *later[2];
    } in = {complete(), {(void *)1, (void *)2}};
    pshm_transport_ops out;
    char why[512] = "";
    in.ops.hdr.minor = PSHM_TRANSPORT_ABI_MINOR + 3;
    in.ops.hdr.size = sizeof in;
    CHECK_EQ(pshm_abi_adopt_ops(&in.ops, &out, why, sizeof why), 0, "%s", why);
    CHECK_EQ(out.hdr.size, sizeof out);

    in.ops.hdr.size = (uint32_t)offsetof(pshm_transport_ops, put_signal);
    CHECK_NE(pshm_abi_adopt_ops(&in.ops, &out, why, sizeof why), 0);
    CHECK_HAS(why, "the plugin was built inconsistently");
}

static void f_put_nbe(pshm_tctx c, int pe, int seg, size_t off, const void *src, size_t len,
                      pshm_treq *r)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)src, (void)len, (void)r;
}
static void f_get_nbe(pshm_tctx c, int pe, int seg, size_t off, void *dst, size_t len,
                      pshm_treq *r)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)dst, (void)len, (void)r;
}
static void f_amo_nbe(pshm_tctx c, int pe, int seg, size_t off, int op, int type,
                      const void *operand, const void *compare, void *fetch, pshm_treq *r)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)op, (void)type, (void)operand, (void)compare,
        (void)fetch, (void)r;
}
static int f_req_test(pshm_tctx c, pshm_treq r)
{
    (void)c, (void)r;
    return 1;
}

/* ABI 2.2's nbe ops: all four kept; a partial set dropped (the core's
 * quiet fallback); a 2.1 table's bytes beyond coll never read. */
static void test_nbe_ops(void)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    in.put_nbe = f_put_nbe, in.get_nbe = f_get_nbe, in.amo_nbe = f_amo_nbe;
    in.req_test = f_req_test;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.put_nbe == f_put_nbe && out.get_nbe == f_get_nbe && out.amo_nbe == f_amo_nbe &&
          out.req_test == f_req_test);
    in.req_test = NULL;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(!out.put_nbe && !out.get_nbe && !out.amo_nbe && !out.req_test);
    in.req_test = f_req_test;
    in.hdr.minor = 1;
    in.hdr.size = (uint32_t)offsetof(pshm_transport_ops, put_nbe);
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(!out.put_nbe && !out.req_test);
    in.hdr.size -= 8; /* a 2.1 table must reach reserved (2.1's coll) */
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    CHECK_HAS(why, "ABI 2.1's is at least");
}

static void test_major(void)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    in.hdr.major = 3;
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    CHECK_HAS(why, "built for transport ABI 3.");
    CHECK_HAS(why, "rebuild the plugin");
}

static void test_mandatory(void)
{
    static const struct {
        const char *name;
        size_t off;
    } ops[] = {
        {"ctx_create", offsetof(pshm_transport_ops, ctx_create)},
        {"ctx_destroy", offsetof(pshm_transport_ops, ctx_destroy)},
        {"put", offsetof(pshm_transport_ops, put)},
        {"get", offsetof(pshm_transport_ops, get)},
        {"amo", offsetof(pshm_transport_ops, amo)},
        {"fence", offsetof(pshm_transport_ops, fence)},
        {"quiet", offsetof(pshm_transport_ops, quiet)},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        pshm_transport_ops in = complete(), out;
        char why[512] = "", want[128];
        memset((char *)&in + ops[i].off, 0, sizeof(void (*)(void)));
        CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "without %s", ops[i].name);
        snprintf(want, sizeof want, "its ops table lacks %s, which every transport must provide",
                 ops[i].name);
        CHECK_HAS(why, want);
    }
    /* fence and quiet are not needed when every op completes at once. */
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    in.fence = in.quiet = NULL;
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    CHECK_HAS(why, "unless it declares PSHM_CAP_COMPLETE_ON_RETURN");
    in.caps = PSHM_CAP_COMPLETE_ON_RETURN;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.quiet == NULL && out.fence == NULL);
}

static void f_p(pshm_tctx c, int pe, int seg, size_t off, uint64_t v, size_t len)
{
    (void)c, (void)pe, (void)seg, (void)off, (void)v, (void)len;
}

/* A 2.2 (or 2.3: services only) plugin's ops table ends at req_test: it
 * stays whole, and p, which 2.4 appended, is absent even if memory
 * follows; one short of 2.2's size is refused.  A 2.4 table keeps p. */
static void test_minor_2_2(void)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    CHECK_GE(PSHM_TRANSPORT_ABI_MINOR, 4);
    in.hdr.minor = 2;
    in.hdr.size = (uint32_t)offsetof(pshm_transport_ops, p);
    in.put_nbe = f_put_nbe, in.get_nbe = f_get_nbe, in.amo_nbe = f_amo_nbe;
    in.req_test = f_req_test;
    in.p = f_p; /* beyond the table's size: must not be read */
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK_EQ(out.req_test, f_req_test);
    CHECK(out.p == NULL, "a 2.2 table's p was read");
    in.hdr.minor = 3;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.p == NULL, "a 2.3 table's p was read");
    in.hdr.minor = 4;
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    CHECK_HAS(why, "ABI 2.4's is at least");
    in.hdr.size = sizeof in;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK_EQ(out.p, f_p);
    in.hdr.minor = 2;
    in.hdr.size = (uint32_t)offsetof(pshm_transport_ops, p) - 8;
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    CHECK_HAS(why, "ABI 2.2's is at least");
}

/* The slot 2.1 named coll is reserved in place: the 2.2 ops behind it keep
 * their offsets, so ABI 2.2 and 2.3 plugins built before the rename load. */
_Static_assert(offsetof(pshm_transport_ops, put_nbe) ==
                   offsetof(pshm_transport_ops, reserved) + sizeof(void *),
               "reserved sits where coll was");

static void f_msg_send(int pe, uint64_t tag, const void *buf, size_t len, uint64_t *done)
{
    (void)pe, (void)tag, (void)buf, (void)len, (void)done;
}

static void f_msg_recv(uint64_t tag, void *buf, size_t len, uint64_t *done)
{
    (void)tag, (void)buf, (void)len, (void)done;
}

static void f_progress(void) {}

/* The 2.5 message ops: kept with both and progress; a 2.4 table (ending
 * at p) has none even if memory follows; one of them, or both without
 * progress (the core waits for them by polling it), is none. */
static void test_msg_ops(void)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "";
    CHECK_GE(PSHM_TRANSPORT_ABI_MINOR, 5);
    in.msg_send = f_msg_send, in.msg_recv = f_msg_recv, in.progress = f_progress;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.msg_send == f_msg_send && out.msg_recv == f_msg_recv, "the message ops were dropped");
    in.hdr.minor = 4;
    in.hdr.size = (uint32_t)offsetof(pshm_transport_ops, msg_send);
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.msg_send == NULL && out.msg_recv == NULL, "a 2.4 table's message ops were read");
    in.hdr.minor = 5;
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    CHECK_HAS(why, "ABI 2.5's is at least");
    in.hdr.size = sizeof in;
    in.msg_recv = NULL;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.msg_send == NULL, "msg_send kept without msg_recv");
    in.msg_recv = f_msg_recv;
    in.progress = NULL;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    CHECK(out.msg_send == NULL && out.msg_recv == NULL, "message ops kept without progress");
}

/* An optional op appended in ABI 2.minor that only works with progress:
 * kept with progress; absent from a table of the minor before (which
 * ends where the op begins); such a short table claiming its own minor is
 * refused; dropped without progress. */
static void check_appended(size_t off, uint32_t minor, void (*fn)(void), const char *name)
{
    pshm_transport_ops in = complete(), out;
    char why[512] = "", want[64];
    void (*got)(void);
    CHECK_GE(PSHM_TRANSPORT_ABI_MINOR, minor);
    memcpy((char *)&in + off, &fn, sizeof fn);
    in.progress = f_progress;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    memcpy(&got, (char *)&out + off, sizeof got);
    CHECK(got == fn, "%s was dropped", name);
    in.hdr.minor = minor - 1;
    in.hdr.size = (uint32_t)off;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    memcpy(&got, (char *)&out + off, sizeof got);
    CHECK(got == NULL, "a 2.%u table's %s was read", minor - 1, name);
    in.hdr.minor = minor;
    CHECK_NE(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0);
    snprintf(want, sizeof want, "ABI 2.%u's is at least", minor);
    CHECK_HAS(why, want);
    in.hdr.size = sizeof in;
    in.progress = NULL;
    CHECK_EQ(pshm_abi_adopt_ops(&in, &out, why, sizeof why), 0, "%s", why);
    memcpy(&got, (char *)&out + off, sizeof got);
    CHECK(got == NULL, "%s kept without progress", name);
}

static int f_block(unsigned max_us)
{
    (void)max_us;
    return 0;
}

/* 2.6 block: it stands for progress's polls. */
static void test_block(void)
{
    check_appended(offsetof(pshm_transport_ops, block), 6, (void (*)(void))f_block, "block");
}

static int f_poll(void) { return 1; }

/* 2.7 poll: it is progress that answers. */
static void test_poll(void)
{
    check_appended(offsetof(pshm_transport_ops, poll), 7, (void (*)(void))f_poll, "poll");
}

/* Another kind of component (collectives) under the same rule, with its
 * own numbers: {1, 0} is what a 1.0 {version = 1, size} reads as. */
static void test_other_kind(void)
{
    static const struct pshm_abi_rule rule = {"collectives interface", "component",
                                              "rebuild it", 2, 0};
    static const uint32_t sizes[] = {24};
    char why[512] = "";
    pshm_abi_header h = {1, 0, 200};
    CHECK_NE(pshm_abi_check_header(&rule, "descriptor", &h, sizes, why, sizeof why), 0);
    CHECK_HAS(why, "built for collectives interface 1.0, this library speaks ABI 2.0: rebuild it");
    h = (pshm_abi_header){2, 0, 16};
    CHECK_NE(pshm_abi_check_header(&rule, "descriptor", &h, sizes, why, sizeof why), 0);
    CHECK_HAS(why, "its descriptor is 16 bytes, but ABI 2.0's is at least 24");
    CHECK_HAS(why, "the component was built inconsistently");
    h = (pshm_abi_header){2, 5, 24}; /* a newer minor holds all of ours */
    CHECK_EQ(pshm_abi_check_header(&rule, "descriptor", &h, sizes, why, sizeof why), 0, "%s", why);
    h = (pshm_abi_header){2, 5, 20};
    CHECK_NE(pshm_abi_check_header(&rule, "descriptor", &h, sizes, why, sizeof why), 0);
}

int main(void)
{
    static const struct unit_test tests[] = {
        {"complete_table", test_complete_table},
        {"older_minor", test_older_minor},
        {"newer_minor", test_newer_minor},
        {"major", test_major},
        {"mandatory", test_mandatory},
        {"nbe_ops", test_nbe_ops},
        {"minor_2_2", test_minor_2_2},
        {"msg_ops", test_msg_ops},
        {"block", test_block},
        {"poll", test_poll},
        {"other_kind", test_other_kind},
    };
    return RUN_TESTS(tests);
}
