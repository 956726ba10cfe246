/*
 * MPI_Allgather and MPI_Alltoall on the test communicators for 0, 1 and 100
 * ints per block and 1 MiB sent per rank in total, each also with
 * MPI_IN_PLACE (Allgather: every rank's own block is already at its place
 * in the receive buffer; Alltoall: the data to send is taken from the
 * receive buffer and replaced by the data received, MPI 2.2 and later).
 * One case per communicator uses a contiguous datatype for a whole block on
 * the send side and ints on the receive side.
 *
 * Every block carries a pattern identifying (source rank, destination rank);
 * receive buffers have a guard area that must stay untouched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kGuard = 64, kFill = 0xE7 };

static unsigned seed_of(int from, int to, int count) {
    return (unsigned)(from * 7919 + to * 104729 + count * 3 + 1);
}

/* Allgather: the block of rank r is the same for every destination (to = -1). */
static int allgather_case(MPI_Comm comm, const char* name, int count, int in_place, int derived) {
    int rank, size, errs = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t block = sizeof(int) * (size_t)count;
    unsigned char* send = mtest_malloc(block);
    unsigned char* recv = mtest_malloc(block * (size_t)size + kGuard);
    mtest_fill(send, block, seed_of(rank, -1, count));
    memset(recv, kFill, block * (size_t)size + kGuard);
    if (in_place) memcpy(recv + block * (size_t)rank, send, block);
    MPI_Datatype blocktype;
    if (derived) {
        MPI_Type_contiguous(count, MPI_INT, &blocktype);
        MPI_Type_commit(&blocktype);
        MPI_Allgather(send, 1, blocktype, recv, count, MPI_INT, comm);
        MPI_Type_free(&blocktype);
    } else {
        MPI_Allgather(in_place ? MPI_IN_PLACE : send, count, MPI_INT, recv, count, MPI_INT, comm);
    }
    for (int r = 0; r < size; ++r) {
        char what[128];
        snprintf(what, sizeof what, "MPI_Allgather%s%s on %s, %d ints, block of %d",
                 in_place ? " (in place)" : "", derived ? " (derived type)" : "", name, count, r);
        errs += MT_VERIFY(what, recv + block * (size_t)r, block, seed_of(r, -1, count));
    }
    errs += MT_VERIFY_VALUE("MPI_Allgather guard", recv + block * (size_t)size, kGuard, kFill);
    free(send);
    free(recv);
    return errs;
}

static int alltoall_case(MPI_Comm comm, const char* name, int count, int in_place, int derived) {
    int rank, size, errs = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t block = sizeof(int) * (size_t)count;
    unsigned char* send = mtest_malloc(block * (size_t)size);
    unsigned char* recv = mtest_malloc(block * (size_t)size + kGuard);
    for (int r = 0; r < size; ++r)
        mtest_fill(send + block * (size_t)r, block, seed_of(rank, r, count));
    memset(recv, kFill, block * (size_t)size + kGuard);
    if (in_place) memcpy(recv, send, block * (size_t)size);
    MPI_Datatype blocktype;
    if (derived) {
        MPI_Type_contiguous(count, MPI_INT, &blocktype);
        MPI_Type_commit(&blocktype);
        MPI_Alltoall(send, 1, blocktype, recv, count, MPI_INT, comm);
        MPI_Type_free(&blocktype);
    } else {
        MPI_Alltoall(in_place ? MPI_IN_PLACE : send, count, MPI_INT, recv, count, MPI_INT, comm);
    }
    for (int r = 0; r < size; ++r) {
        char what[128];
        snprintf(what, sizeof what, "MPI_Alltoall%s%s on %s, %d ints, block from %d",
                 in_place ? " (in place)" : "", derived ? " (derived type)" : "", name, count, r);
        errs += MT_VERIFY(what, recv + block * (size_t)r, block, seed_of(r, rank, count));
    }
    errs += MT_VERIFY_VALUE("MPI_Alltoall guard", recv + block * (size_t)size, kGuard, kFill);
    free(send);
    free(recv);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm comm;
    const char* name;
    for (int c = 0; mtest_comm_get(c, &comm, &name); ++c) {
        if (comm != MPI_COMM_NULL) {
            int size;
            MPI_Comm_size(comm, &size);
            const int large = (1 << 20) / (int)sizeof(int) / size; /* 1 MiB per rank */
            const int counts[] = {0, 1, 100, large};
            for (int k = 0; k < 4; ++k)
                for (int in_place = 0; in_place <= 1; ++in_place) {
                    errs += allgather_case(comm, name, counts[k], in_place, 0);
                    errs += alltoall_case(comm, name, counts[k], in_place, 0);
                }
            errs += allgather_case(comm, name, 100, 0, 1);
            errs += alltoall_case(comm, name, 100, 0, 1);
        }
        mtest_comm_release(&comm);
    }
    return mtest_finish(errs);
}
