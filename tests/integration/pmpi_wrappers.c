/*
 * The profiling interface (MPI 3.1, chapter 14): a program, or a tool linked
 * into it, defines its own MPI_Send and reaches the library through
 * PMPI_Send. The wrappers here count calls; the counts must be exactly the
 * program's own calls, whatever the library does inside: MPI_Sendrecv,
 * collectives and MPI_Testall must not reach the MPI_ wrappers.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

enum { kSends = 5, kBytes = 1 << 20 };

static int g_init_calls, g_send_calls, g_waitall_calls, g_recv_calls;

int MPI_Init(int* argc, char*** argv) {
    ++g_init_calls;
    return PMPI_Init(argc, argv);
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    ++g_send_calls;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
    ++g_recv_calls;
    return PMPI_Recv(buf, count, datatype, source, tag, comm, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    ++g_waitall_calls;
    return PMPI_Waitall(count, requests, statuses);
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    errs += MT_EQ(g_init_calls, 1);

    // Rank 0 sends kSends messages (eager and rendezvous) to every other rank.
    char* buffer = mtest_malloc(kBytes);
    int expected_sends = 0, expected_recvs = 0;
    for (int i = 0; i < kSends; ++i) {
        const int bytes = i % 2 == 0 ? 8 : kBytes;
        for (int peer = 1; peer < size; ++peer) {
            if (rank == 0) {
                mtest_fill(buffer, (size_t)bytes, (unsigned)(i + peer));
                MPI_Send(buffer, bytes, MPI_BYTE, peer, i, MPI_COMM_WORLD);
                ++expected_sends;
            } else if (rank == peer) {
                MPI_Recv(buffer, bytes, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                errs += MT_VERIFY("received", buffer, (size_t)bytes, (unsigned)(i + peer));
                ++expected_recvs;
            }
        }
    }

    // Calls a library may build from sends, receives and waits.
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int token = rank, got = -1, sum = 0;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 99, &got, 1, MPI_INT, left, 99, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    errs += MT_EQ(got, left);
    MPI_Bcast(buffer, kBytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    errs += MT_EQ(sum, size * (size - 1) / 2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request requests[2];
    MPI_Irecv(&got, 1, MPI_INT, left, 98, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(&token, 1, MPI_INT, right, 98, MPI_COMM_WORLD, &requests[1]);
    int done = 0;
    while (!done) MPI_Testall(2, requests, &done, MPI_STATUSES_IGNORE);
    errs += MT_EQ(got, left);
    MPI_Irecv(&got, 1, MPI_INT, left, 97, MPI_COMM_WORLD, &requests[0]);
    MPI_Isend(&token, 1, MPI_INT, right, 97, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);

    errs += MT_EQ(g_send_calls, expected_sends);
    errs += MT_EQ(g_recv_calls, expected_recvs);
    errs += MT_EQ(g_waitall_calls, 1);
    free(buffer);
    return mtest_finish(errs);
}
