/*
 * MPI_Alloc_mem / MPI_Free_mem. A runtime may hand out memory that is
 * pre-registered for RDMA or lives in a shared segment, so the memory must
 * behave like ordinary memory everywhere: fully writable, usable as send
 * and receive buffer for eager and rendezvous messages and in collectives,
 * several blocks alive at once and freed in any order. Sizes from 0 bytes
 * (valid: the size is a non-negative integer) to 4 MiB.
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static const MPI_Aint kSizes[] = {0, 1, 100, 4096, 16385, 1 << 20, 4 << 20};
enum { kBlocks = sizeof kSizes / sizeof kSizes[0] };

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* All blocks alive at once; each filled completely. */
    unsigned char* blocks[kBlocks];
    for (int b = 0; b < kBlocks; ++b) {
        blocks[b] = NULL;
        int rc = MPI_Alloc_mem(kSizes[b], MPI_INFO_NULL, &blocks[b]);
        errs += MT_CHECK(rc == MPI_SUCCESS, "MPI_Alloc_mem(%ld) returned %d", (long)kSizes[b], rc);
        if (kSizes[b] > 0 && blocks[b] == NULL)
            MT_FATAL("MPI_Alloc_mem(%ld) gave NULL", (long)kSizes[b]);
        mtest_fill(blocks[b], (size_t)kSizes[b], (unsigned)(b + rank * 100));
    }
    /* No two blocks overlap: each still holds its own pattern. */
    for (int b = 0; b < kBlocks; ++b) {
        char what[64];
        snprintf(what, sizeof what, "block of %ld bytes", (long)kSizes[b]);
        errs += MT_VERIFY(what, blocks[b], (size_t)kSizes[b], (unsigned)(b + rank * 100));
    }

    /* Send from and receive into MPI_Alloc_mem memory: every size to the
     * right neighbour, received in a second set of blocks. */
    for (int b = 0; b < kBlocks; ++b) {
        unsigned char* in = NULL;
        MPI_Alloc_mem(kSizes[b], MPI_INFO_NULL, &in);
        MPI_Status status;
        int count = -1;
        MPI_Sendrecv(blocks[b], (int)kSizes[b], MPI_BYTE, right, b, in, (int)kSizes[b], MPI_BYTE,
                     left, b, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_EQ(count, kSizes[b]);
        char what[64];
        snprintf(what, sizeof what, "%ld bytes between MPI_Alloc_mem blocks", (long)kSizes[b]);
        errs += MT_VERIFY(what, in, (size_t)kSizes[b], (unsigned)(b + left * 100));
        MPI_Free_mem(in);
    }

    /* A collective with both buffers from MPI_Alloc_mem. */
    const MPI_Aint chunk = 256 * 1024;
    unsigned char *mine = NULL, *all = NULL;
    MPI_Alloc_mem(chunk, MPI_INFO_NULL, &mine);
    MPI_Alloc_mem(chunk * size, MPI_INFO_NULL, &all);
    mtest_fill(mine, (size_t)chunk, 77 + (unsigned)rank);
    MPI_Allgather(mine, (int)chunk, MPI_BYTE, all, (int)chunk, MPI_BYTE, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
        errs += MT_VERIFY("MPI_Allgather in MPI_Alloc_mem memory", all + chunk * r, (size_t)chunk,
                          77 + (unsigned)r);
    MPI_Free_mem(mine);
    MPI_Free_mem(all);

    /* Free in an order different from allocation: odd blocks, then even. */
    for (int b = 1; b < kBlocks; b += 2) MPI_Free_mem(blocks[b]);
    for (int b = 0; b < kBlocks; b += 2) MPI_Free_mem(blocks[b]);

    /* Allocation and release in a loop reuses memory without trouble. */
    for (int i = 0; i < 100; ++i) {
        unsigned char* p = NULL;
        MPI_Alloc_mem(64 * 1024, MPI_INFO_NULL, &p);
        if (p == NULL) MT_FATAL("MPI_Alloc_mem gave NULL in round %d", i);
        memset(p, i, 64 * 1024);
        MPI_Free_mem(p);
    }
    return mtest_finish(errs);
}
