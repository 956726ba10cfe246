/*
 * Direct delivery (SI_PROGRESS=smart on shared memory, p2p/direct.cpp): a
 * sender blocked in MPI writes the data of a rendezvous into the receive its
 * receiver posted, while that receiver computes. MPI's rules must hold as on
 * the usual path; each case has the receiver post its receives, then compute
 * long enough for its senders to block, then wait:
 *   order      an eager message then a rendezvous, same tag: the first
 *              receive gets the eager one (the sender may not claim it)
 *   truncate   300000 bytes into a 100000-byte receive: MPI_ERR_TRUNCATE,
 *              the first 100000 bytes, count 100000
 *   wildcard   two senders, two MPI_ANY_SOURCE receives: one message each
 *   ssend      MPI_Ssend, and a zero-byte one (a rendezvous without data)
 * The cases run 5 times; rank 0 checks, after MPI_Finalize, that rank 2
 * counts at least one direct delivery (the path was taken; helpers waking its
 * interrupt thread may win some races, and order must never be direct) and
 * that the senders count as many direct writes.
 * Needs 3 ranks: 0 and 1 send, 2 receives.
 */
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kBig = 300000, kSmall = 100, kShort = 100000, kRounds = 5 };
static const double kReceiverWork = 0.02; /* senders block meanwhile */

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    const long long delivered = stats_counter(2, "direct_deliveries");
    const long long written = stats_counter(0, "direct_writes") + stats_counter(1, "direct_writes");
    errs += MT_CHECK(delivered >= 1, "rank 2 got no direct delivery in %d rounds", kRounds);
    errs += MT_CHECK(written == delivered, "senders wrote %lld, rank 2 got %lld", written,
                     delivered);
    (void)nranks;
    return errs;
}

static int case_order(int rank, unsigned char* a, unsigned char* b) {
    int errs = 0;
    if (rank == 0) {
        mtest_fill(a, kSmall, 11);
        mtest_fill(b, kBig, 12);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Request eager;
        MPI_Isend(a, kSmall, MPI_BYTE, 2, 5, MPI_COMM_WORLD, &eager);
        MPI_Send(b, kBig, MPI_BYTE, 2, 5, MPI_COMM_WORLD);
        MPI_Wait(&eager, MPI_STATUS_IGNORE);
    } else if (rank == 2) {
        MPI_Request requests[2];
        MPI_Status statuses[2];
        MPI_Irecv(a, kBig, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(b, kBig, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &requests[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        work_until(kReceiverWork, NULL, NULL);
        MPI_Waitall(2, requests, statuses);
        int count = 0;
        MPI_Get_count(&statuses[0], MPI_BYTE, &count);
        errs += MT_EQ(count, kSmall);
        errs += MT_VERIFY("order: first receive", a, kSmall, 11);
        MPI_Get_count(&statuses[1], MPI_BYTE, &count);
        errs += MT_EQ(count, kBig);
        errs += MT_VERIFY("order: second receive", b, kBig, 12);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return errs;
}

static int case_truncate(int rank, unsigned char* a) {
    int errs = 0;
    if (rank == 1) {
        mtest_fill(a, kBig, 21);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(a, kBig, MPI_BYTE, 2, 6, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Request request;
        MPI_Status status;
        memset(a, 0, kBig);
        MPI_Irecv(a, kShort, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &request);
        MPI_Barrier(MPI_COMM_WORLD);
        work_until(kReceiverWork, NULL, NULL);
        errs += MT_CLASS(MPI_Wait(&request, &status), MPI_ERR_TRUNCATE);
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_EQ(count, kShort);
        errs += MT_VERIFY("truncate: delivered part", a, kShort, 21);
        errs += MT_VERIFY_VALUE("truncate: beyond the receive", a + kShort, kBig - kShort, 0);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return errs;
}

static int case_wildcard(int rank, unsigned char* a, unsigned char* b) {
    int errs = 0;
    if (rank < 2) {
        mtest_fill(a, kBig, 30 + (unsigned)rank);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(a, kBig, MPI_BYTE, 2, 7, MPI_COMM_WORLD);
        return errs;
    }
    MPI_Request requests[2];
    MPI_Status statuses[2];
    MPI_Irecv(a, kBig, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(b, kBig, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &requests[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    work_until(kReceiverWork, NULL, NULL);
    MPI_Waitall(2, requests, statuses);
    errs += MT_CHECK(statuses[0].MPI_SOURCE + statuses[1].MPI_SOURCE == 1,
                     "wildcard: sources %d and %d", statuses[0].MPI_SOURCE, statuses[1].MPI_SOURCE);
    errs += MT_VERIFY("wildcard: first", a, kBig, 30 + (unsigned)statuses[0].MPI_SOURCE);
    errs += MT_VERIFY("wildcard: second", b, kBig, 30 + (unsigned)statuses[1].MPI_SOURCE);
    return errs;
}

static int case_ssend(int rank, unsigned char* a) {
    int errs = 0;
    if (rank == 0) {
        mtest_fill(a, kBig, 41);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Ssend(a, kBig, MPI_BYTE, 2, 8, MPI_COMM_WORLD);
        MPI_Ssend(a, 0, MPI_BYTE, 2, 9, MPI_COMM_WORLD);
    } else if (rank == 2) {
        MPI_Request requests[2];
        MPI_Status statuses[2];
        MPI_Irecv(a, kBig, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(a + kBig, 1, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &requests[1]);
        MPI_Barrier(MPI_COMM_WORLD);
        work_until(kReceiverWork, NULL, NULL);
        MPI_Waitall(2, requests, statuses);
        errs += MT_VERIFY("ssend", a, kBig, 41);
        int count = -1;
        MPI_Get_count(&statuses[1], MPI_BYTE, &count);
        errs += MT_EQ(count, 0);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return errs;
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) MT_FATAL("direct_delivery needs 3 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char* a = mtest_malloc(kBig + 1);
    unsigned char* b = mtest_malloc(kBig);
    for (int round = 0; round < kRounds; ++round) {
        errs += case_order(rank, a, b);
        errs += case_truncate(rank, a);
        errs += case_wildcard(rank, a, b);
        errs += case_ssend(rank, a);
    }
    free(a);
    free(b);
    return stats_finish(errs, 0, check_counters);
}
