/*
 * coll-mpi.so: MPI itself (an MPI-4 session), whether it can serve this
 * job, teams as communicators, and the component's descriptor.
 *
 * Why a session and not MPI_Init: a program may call MPI_Init after
 * shmem_init and MPI_Finalize before shmem_finalize (the specification's
 * interoperability chapter).  A session is MPI's own way for a library to
 * use MPI beside the program's world model, and MPICH 4.0.2 keeps session
 * communicators working across the program's MPI_Init and MPI_Finalize
 * (checked both ways round under hydra).  It cannot be opened again after
 * the last session of a process closed without the world model (MPICH
 * 4.0.2 crashed in MPI_Session_init), so the session stays open from the
 * first shmem_init to process exit, and the component stays loaded.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_mpi.h"
#include "../../transports/common/pmi_rank.h"

const struct pshm_cext_svc *cm_svc;
static MPI_Session session = MPI_SESSION_NULL;
static MPI_Group world_group = MPI_GROUP_NULL;
static int active;      /* between init and fini */
static int atexit_done;
static char describe_buf[512];

__attribute__((noreturn)) void cm_fail(const char *what, int rc)
{
    char msg[PSHM_MPI_ERROR_LEN];
    cm_svc->fatal("mpi collectives: %s failed: %s", what, pshm_mpi_error(rc, msg));
}

/* MPI learns its rank from its launcher's PMI-1; without one every
 * process would be an MPI singleton.  Looked at without starting MPI. */
static int cm_query(const struct pshm_cext_svc *svc, char *why, size_t whylen)
{
    return pshm_pmi_rank_matches(svc->my_pe, svc->n_pes, why, whylen) ? 0 : -1;
}

static void close_at_exit(void)
{
    /* After a normal shmem_finalize only: a job ended by
     * shmem_global_exit or a crash must not wait inside MPI. */
    if (session != MPI_SESSION_NULL && !active) {
        MPI_Group_free(&world_group);
        MPI_Session_finalize(&session);
    }
}

static void pin_self(void)
{
    Dl_info info;
    if (dladdr((void *)pin_self, &info) && info.dli_fname)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

static int open_session(char *why, size_t whylen)
{
    if (session != MPI_SESSION_NULL)
        return 0;
    MPI_Info info;
    MPI_Info_create(&info);
    /* MPICH has one thread level per process, fixed by whoever starts it
     * first (the program's MPI_Init_thread, the mpi transport, or this):
     * ask for what a SHMEM_THREAD_MULTIPLE program may do. */
    MPI_Info_set(info, "thread_level",
                 cm_svc->thread_multiple ? "MPI_THREAD_MULTIPLE" : "MPI_THREAD_SERIALIZED");
    int rc = MPI_Session_init(info, MPI_ERRORS_RETURN, &session);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        session = MPI_SESSION_NULL;
        snprintf(why, whylen, "MPI_Session_init failed (error %d)", rc);
        return -1;
    }
    rc = MPI_Group_from_session_pset(session, "mpi://WORLD", &world_group);
    if (rc != MPI_SUCCESS) {
        snprintf(why, whylen, "MPI_Group_from_session_pset(mpi://WORLD) failed (error %d)", rc);
        return -1;
    }
    pin_self();
    if (!atexit_done) {
        atexit(close_at_exit);
        atexit_done = 1;
    }
    return 0;
}

static int cm_init(const struct pshm_cext_svc *svc, char *why, size_t whylen)
{
    cm_svc = svc;
    if (cm_query(svc, why, whylen) || open_session(why, whylen))
        return -1;
    int r = -1, n = 0;
    MPI_Group_rank(world_group, &r);
    MPI_Group_size(world_group, &n);
    if (r != svc->my_pe || n != svc->n_pes) {
        snprintf(why, whylen, "MPI's world (rank %d of %d) is not this job (PE %d of %d)", r, n,
                 svc->my_pe, svc->n_pes);
        return -1;
    }
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    for (char *p = lib; *p; p++)
        if (*p == '\t')
            *p = ' ';
    snprintf(describe_buf, sizeof describe_buf, "%.400s, through an MPI session", lib);
    active = 1;
    return 0;
}

static void cm_fini(void) { active = 0; }

static const char *cm_describe(void) { return describe_buf; }

static int cm_has_reduction(const char *type, int op)
{
    MPI_Datatype dt;
    MPI_Op mop;
    return cm_reduction(type, op, &dt, &mop, active) == 0;
}

/* A communicator over the members, made from the session's world group
 * with MPI_Comm_create_group's session form, which involves the members
 * only: teams are split by their parent's members, and PEs of the parent
 * outside the new team take no part.  Members create their teams in the
 * same order, and the tag string keeps concurrent creations apart. */
static void *cm_team_create(int n, int me, const int *world)
{
    struct cm_team *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    MPI_Group g;
    int rc = MPI_Group_incl(world_group, n, world, &g);
    if (rc != MPI_SUCCESS)
        cm_fail("MPI_Group_incl", rc);
    /* Named by its members (FNV-1a of their world PEs): members meeting
     * in different creations never share a tag. */
    unsigned long long h = 14695981039346656037ull;
    for (int i = 0; i < n; i++) {
        h ^= (unsigned)world[i];
        h *= 1099511628211ull;
    }
    char tag[80];
    snprintf(tag, sizeof tag, "org.plugshmem.team.%d.%016llx", n, h);
    rc = MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &t->comm);
    MPI_Group_free(&g);
    if (rc != MPI_SUCCESS)
        cm_fail("MPI_Comm_create_from_group", rc);
    MPI_Comm_rank(t->comm, &t->me);
    MPI_Comm_size(t->comm, &t->n);
    if (t->me != me || t->n != n)
        cm_svc->fatal("mpi collectives: a team's communicator has rank %d of %d, the team says %d "
                      "of %d", t->me, t->n, me, n);
    return t;
}

static void cm_team_destroy(void *h)
{
    struct cm_team *t = h;
    if (!t)
        return;
    MPI_Comm_free(&t->comm);
    free(t);
}

int cm_barrier(void *team);
int cm_broadcast(void *team, void *dest, const void *src, size_t nbytes, int root, int root_writes);
int cm_reduce(void *team, void *dest, const void *src, size_t count, size_t esize,
              const char *type, int op);
int cm_scan(void *team, void *dest, const void *src, size_t count, size_t esize, const char *type,
            int op, int exclusive);
int cm_fcollect(void *team, void *dest, const void *src, size_t nbytes);
int cm_collect(void *team, void *dest, const void *src, size_t nbytes);
int cm_alltoall(void *team, void *dest, const void *src, size_t nbytes);
int cm_alltoalls(void *team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t esize);

__attribute__((visibility("default"))) const struct pshm_cext plugshmem_collectives = {
    .hdr = PSHM_CEXT_HEADER,
    .name = "mpi",
    .flags = PSHM_CEXT_SPINS,
    .auto_rules = cm_auto_rules,
    .msg_from = cm_msg_from,
    /* The mpi transport runs on the same MPICH: over it, the native
     * algorithms' data goes through MPI's RMA. */
    .kin_transport = "mpi",
    .declines = "counts past MPI's int (2^31-1 per PE)",
    .query = cm_query,
    .init = cm_init,
    .fini = cm_fini,
    .describe = cm_describe,
    .has_reduction = cm_has_reduction,
    .team_create = cm_team_create,
    .team_destroy = cm_team_destroy,
    .barrier = cm_barrier,
    .broadcast = cm_broadcast,
    .reduce = cm_reduce,
    .scan = cm_scan,
    .fcollect = cm_fcollect,
    .collect = cm_collect,
    .alltoall = cm_alltoall,
    .alltoalls = cm_alltoalls,
};
