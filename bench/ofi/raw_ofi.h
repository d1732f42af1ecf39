/* What raw_ofi_put and raw_ofi_msg share: errors, and the domain with
 * what the ofi plugin asks libfabric for (its MR modes and threading). */
#ifndef PSHM_BENCH_RAW_OFI_H
#define PSHM_BENCH_RAW_OFI_H

#include <stdio.h>
#include <stdlib.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_tagged.h>
#include <sys/uio.h>

#include "../raw_pair.h"

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        int rc_ = (int)(x);                                                                        \
        if (rc_) {                                                                                 \
            fprintf(stderr, "%s: %s\n", #x, fi_strerror(-rc_));                                    \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct raw_ofi {
    struct fi_info *info;
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av; /* a table of the processes */
    struct fid_cq *cq; /* context format, no wait object */
};

/* The first provider with caps (FI_PROVIDER chooses), its fabric, domain,
 * address vector (for n processes) and CQ. */
static inline void raw_ofi_open(uint64_t caps, int n, struct raw_ofi *r)
{
    struct fi_info *h = fi_allocinfo();
    h->caps = caps;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_ENDPOINT;
    h->domain_attr->threading = FI_THREAD_SAFE;
    CHECK(fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &r->info));
    fi_freeinfo(h);
    CHECK(fi_fabric(r->info->fabric_attr, &r->fab, NULL));
    CHECK(fi_domain(r->fab, r->info, &r->dom, NULL));
    struct fi_av_attr ava = {.type = FI_AV_TABLE, .count = (size_t)n};
    CHECK(fi_av_open(r->dom, &ava, &r->av, NULL));
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE};
    CHECK(fi_cq_open(r->dom, &cqa, &r->cq, NULL));
}

/* Posts a tagged receive of len bytes into buf (its own context),
 * reading the CQ while the provider is out of room. */
static inline void raw_ofi_post_trecv(struct fid_ep *ep, struct fid_cq *cq, void *buf, size_t len,
                                      uint64_t tag)
{
    struct iovec iov = {buf, len};
    struct fi_msg_tagged m = {
        .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .tag = tag, .context = buf};
    ssize_t rc;
    while ((rc = fi_trecvmsg(ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        (void)fi_cq_read(cq, NULL, 0);
    CHECK(rc);
}

static inline void raw_ofi_close(struct raw_ofi *r)
{
    fi_close(&r->cq->fid);
    fi_close(&r->av->fid);
    fi_close(&r->dom->fid);
    fi_close(&r->fab->fid);
    fi_freeinfo(r->info);
}

#endif
