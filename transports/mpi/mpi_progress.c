/*
 * Progress.  MPICH (ch4, measured with UCX here) completes a put, a get or
 * an atomic only when the target process is inside MPI: the core's waits
 * call mpi_progress(), and a thread does the same for a PE that computes
 * without calling the library, and serves the atomics other PEs send by
 * active message (mpi_am.c).  The thread needs MPI_THREAD_MULTIPLE.
 */
#include "mpi_plugin.h"

/* The thread's round: one poke of MPI.  (The back-off while the program
 * itself keeps entering MPI, whose lock the thread takes, is the shared
 * one: ../common/progress_thread.h.) */
struct pshm_progress_thread mpi_pt;

/* With atomics by active message, serving them is the poke (its
 * MPI_Test progresses MPI as the probe does). */
static inline void poke(void)
{
    if (g.amo_am) {
        (void)am_serve_thread();
        return;
    }
    int flag;
    (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g.comm, &flag, MPI_STATUS_IGNORE);
}

void mpi_progress(void)
{
    pshm_progress_poke(&mpi_pt);
    poke();
    msg_progress();
}

/* ABI 2.7 poll, with atomics by active message only: there a peer's
 * fetch-add waits for this PE's answer, and a served message keeps the
 * core's wait polling instead of yielding between answers.  On the rma
 * path MPI serves inside its own calls and says nothing of it. */
int mpi_poll(void)
{
    pshm_progress_poke(&mpi_pt);
    int served = am_serve_thread();
    msg_progress();
    return served;
}

int progress_start(unsigned interval_us)
{
    mpi_pt.interval_us = interval_us;
    mpi_pt.serve = poke;
    return pshm_progress_start(&mpi_pt);
}

void progress_stop(void) { pshm_progress_stop(&mpi_pt); }

int progress_running(void) { return mpi_pt.on; }
