/*
 * MPI_Gather and MPI_Scatter on the test communicators, from every root,
 * for 0, 1 and 100 ints per rank and 1 MiB in total, each also with
 * MPI_IN_PLACE at the root (Gather: the root's own block is already in
 * place in the receive buffer; Scatter: the root keeps its block in the
 * send buffer and receives nothing). Arguments that are significant only at
 * the root are NULL elsewhere, as many applications pass them. One case per
 * communicator describes each block as a single contiguous datatype on one
 * side and as plain ints on the other: only the type signatures must match.
 *
 * Every block carries a pattern identifying (source rank, destination rank);
 * receive buffers have a guard area that must stay untouched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kGuard = 64, kFill = 0xD1 };

static unsigned seed_of(int from, int to, int count) {
    return (unsigned)(from * 7919 + to * 104729 + count);
}

static int gather_case(MPI_Comm comm, const char* name, int root, int count, int in_place,
                       int derived) {
    int rank, size, errs = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t block = sizeof(int) * (size_t)count;
    unsigned char* send = mtest_malloc(block);
    unsigned char* recv = rank == root ? mtest_malloc(block * (size_t)size + kGuard) : NULL;
    mtest_fill(send, block, seed_of(rank, root, count));
    if (recv) {
        memset(recv, kFill, block * (size_t)size + kGuard);
        if (in_place) memcpy(recv + block * (size_t)rank, send, block);
    }
    MPI_Datatype blocktype = MPI_DATATYPE_NULL;
    if (derived) {
        MPI_Type_contiguous(count, MPI_INT, &blocktype);
        MPI_Type_commit(&blocktype);
    }
    const void* sendbuf = in_place && rank == root ? MPI_IN_PLACE : send;
    if (derived) /* one block-typed element sent, count ints received */
        MPI_Gather(sendbuf, 1, blocktype, recv, count, MPI_INT, root, comm);
    else
        MPI_Gather(sendbuf, count, MPI_INT, recv, count, MPI_INT, root, comm);
    if (recv) {
        for (int r = 0; r < size; ++r) {
            char what[128];
            snprintf(what, sizeof what, "MPI_Gather%s%s on %s, root %d, %d ints, block of %d",
                     in_place ? " (in place)" : "", derived ? " (derived type)" : "", name, root,
                     count, r);
            errs += MT_VERIFY(what, recv + block * (size_t)r, block, seed_of(r, root, count));
        }
        errs += MT_VERIFY_VALUE("MPI_Gather guard", recv + block * (size_t)size, kGuard, kFill);
    }
    if (derived) MPI_Type_free(&blocktype);
    free(send);
    free(recv);
    return errs;
}

static int scatter_case(MPI_Comm comm, const char* name, int root, int count, int in_place,
                        int derived) {
    int rank, size, errs = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const size_t block = sizeof(int) * (size_t)count;
    unsigned char* send = rank == root ? mtest_malloc(block * (size_t)size) : NULL;
    unsigned char* recv = mtest_malloc(block + kGuard);
    if (send)
        for (int r = 0; r < size; ++r)
            mtest_fill(send + block * (size_t)r, block, seed_of(root, r, count));
    memset(recv, kFill, block + kGuard);
    MPI_Datatype blocktype = MPI_DATATYPE_NULL;
    if (derived) {
        MPI_Type_contiguous(count, MPI_INT, &blocktype);
        MPI_Type_commit(&blocktype);
    }
    void* recvbuf = in_place && rank == root ? MPI_IN_PLACE : recv;
    if (derived) /* count ints sent per rank, one block-typed element received */
        MPI_Scatter(send, count, MPI_INT, recvbuf, 1, blocktype, root, comm);
    else
        MPI_Scatter(send, count, MPI_INT, recvbuf, count, MPI_INT, root, comm);
    char what[128];
    snprintf(what, sizeof what, "MPI_Scatter%s%s on %s, root %d, %d ints",
             in_place ? " (in place)" : "", derived ? " (derived type)" : "", name, root, count);
    if (in_place && rank == root) {
        /* Nothing received; the root's own block is still in its send buffer. */
        errs += MT_VERIFY_VALUE(what, recv, block + kGuard, kFill);
        errs += MT_VERIFY(what, send + block * (size_t)root, block, seed_of(root, root, count));
    } else {
        errs += MT_VERIFY(what, recv, block, seed_of(root, rank, count));
        errs += MT_VERIFY_VALUE(what, recv + block, kGuard, kFill);
    }
    if (derived) MPI_Type_free(&blocktype);
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
            const int counts[] = {0, 1, 100, (1 << 20) / (int)sizeof(int) / size};
            for (int root = 0; root < size; ++root)
                for (int k = 0; k < 4; ++k) {
                    const int in_place = (root + k) % 2;
                    errs += gather_case(comm, name, root, counts[k], in_place, 0);
                    errs += scatter_case(comm, name, root, counts[k], in_place, 0);
                }
            errs += gather_case(comm, name, size - 1, 100, 0, 1);
            errs += scatter_case(comm, name, size - 1, 100, 0, 1);
        }
        mtest_comm_release(&comm);
    }
    return mtest_finish(errs);
}
