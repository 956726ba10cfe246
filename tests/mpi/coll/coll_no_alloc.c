/*
 * A blocking collective on a small communicator allocates no heap memory
 * once warmed up: after a few calls of each (barrier, bcast, reduce,
 * allreduce, gather, scatter, allgather, alltoall; 8 B, 1 KiB and 4 KiB;
 * MPI_IN_PLACE where allowed; contiguous types), kCalls more calls make
 * fewer than kCalls / 10 malloc, calloc, realloc or aligned allocations in
 * the calling thread. Not none: the point-to-point engine's pools (requests,
 * unexpected messages, the queue of sends waiting for room in a ring) grow
 * when a call first reaches a new high-water mark, which the timing of the
 * ranks decides; an allocation per call, or per few calls, fails. A barrier
 * (counted too) follows every call, as in OSU's loops: a rooted collective
 * does not synchronise, and without it the ranks that only send (a
 * reduce's leaves) would run ahead by any number of calls, each message
 * waiting at the root as an unexpected one, for which the engine allocates
 * an entry beyond the 64 it keeps (what MPI allows, not a cost per call).
 * The testlist runs it with the default algorithms (the shared-memory ones
 * on one node) and with the point-to-point ones forced (SI_COLL_<NAME>).
 *
 * The count comes from alloc_count.h (what a blocking call does runs in its
 * own thread, which is the one counted); the MPICH build runs the same
 * calls unchecked.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "mtest.h"

/* The MPICH build only runs the calls, once and fewer: its polling ranks
 * take milliseconds per call on an oversubscribed host. */
#ifdef COUNT_ALLOCATIONS
enum { kWarmUp = 8, kCalls = 50, kPasses = 2 };
#else
enum { kWarmUp = 2, kCalls = 3, kPasses = 1 };
#endif

typedef enum {
    op_barrier,
    op_bcast,
    op_reduce,
    op_reduce_in_place,
    op_allreduce,
    op_allreduce_in_place,
    op_gather,
    op_scatter,
    op_allgather,
    op_allgather_in_place,
    op_alltoall,
    op_alltoall_in_place,
    op_count
} Op;

#ifdef COUNT_ALLOCATIONS
static const char* const kNames[op_count] = {
    "MPI_Barrier",   "MPI_Bcast",   "MPI_Reduce",    "MPI_Reduce (in place)",
    "MPI_Allreduce", "MPI_Allreduce (in place)", "MPI_Gather", "MPI_Scatter",
    "MPI_Allgather", "MPI_Allgather (in place)", "MPI_Alltoall", "MPI_Alltoall (in place)"};
#endif

/* One call of `op` with blocks of `bytes` (a multiple of sizeof(int)). */
static int call(Op op, MPI_Comm comm, int bytes, char* send, char* recv) {
    int me;
    MPI_Comm_rank(comm, &me);
    const int ints = bytes / (int)sizeof(int);
    switch (op) {
        case op_barrier: return MPI_Barrier(comm);
        case op_bcast: return MPI_Bcast(send, bytes, MPI_BYTE, 0, comm);
        case op_reduce: return MPI_Reduce(send, recv, ints, MPI_INT, MPI_SUM, 0, comm);
        case op_reduce_in_place:
            return MPI_Reduce(me == 0 ? MPI_IN_PLACE : send, recv, ints, MPI_INT, MPI_SUM, 0,
                              comm);
        case op_allreduce: return MPI_Allreduce(send, recv, ints, MPI_INT, MPI_SUM, comm);
        case op_allreduce_in_place:
            return MPI_Allreduce(MPI_IN_PLACE, recv, ints, MPI_INT, MPI_SUM, comm);
        case op_gather: return MPI_Gather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, 0, comm);
        case op_scatter: return MPI_Scatter(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, 0, comm);
        case op_allgather:
            return MPI_Allgather(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
        case op_allgather_in_place:
            return MPI_Allgather(MPI_IN_PLACE, 0, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
        case op_alltoall: return MPI_Alltoall(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
        case op_alltoall_in_place:
            return MPI_Alltoall(MPI_IN_PLACE, 0, MPI_BYTE, recv, bytes, MPI_BYTE, comm);
        default: return MPI_ERR_ARG;
    }
}

/* kWarmUp calls, then kCalls counted ones if `counted`. */
static int check(Op op, MPI_Comm comm, int bytes, int counted) {
    int errs = 0, n;
    MPI_Comm_size(comm, &n);
    const size_t room = (size_t)bytes * (size_t)n;
    char* send = mtest_malloc(room);
    char* recv = mtest_malloc(room);
    memset(send, 1, room);
    memset(recv, 0, room);
    for (int i = 0; i < kWarmUp; ++i) {
        errs += MT_EQ(call(op, comm, bytes, send, recv), MPI_SUCCESS);
        MPI_Barrier(comm);
    }
#ifdef COUNT_ALLOCATIONS
    t_allocations = 0;
    t_counting = counted;
#endif
    int failed = 0;
    for (int i = 0; i < kCalls; ++i) {
        failed += call(op, comm, bytes, send, recv) != MPI_SUCCESS;
        failed += MPI_Barrier(comm) != MPI_SUCCESS;
    }
#ifdef COUNT_ALLOCATIONS
    t_counting = 0;
    if (counted)
        errs += MT_CHECK(t_allocations < kCalls / 10,
                         "%s of %d bytes on %d ranks: %ld heap allocations in %d calls",
                         kNames[op], bytes, n, t_allocations, kCalls);
#endif
    errs += MT_EQ(failed, 0);
    free(send);
    free(recv);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    static const int kBytes[] = {8, 1024, 4096};
    /* A communicator of its own, as an application's library would use;
     * the world communicator runs the same calls. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    const MPI_Comm comms[] = {dup, MPI_COMM_WORLD};
    /* A first pass uncounted, so that the first calls of the job, which
     * size the engine's pools, do not count against the collectives. */
    for (int counted = 2 - kPasses; counted <= 1; ++counted)
        for (size_t c = 0; c < sizeof comms / sizeof comms[0]; ++c)
            for (size_t b = 0; b < sizeof kBytes / sizeof kBytes[0]; ++b)
                for (int op = 0; op < op_count; ++op)
                    errs += check((Op)op, comms[c], kBytes[b], counted);
    MPI_Comm_free(&dup);
    return mtest_finish(errs);
}
