/*
 * SI_PROGRESS=ghost with memory from MPI_Alloc_mem, which the ghosts map:
 * a large message whose buffers are both such memory is one memcpy in the
 * ghost, one with a single end there one cross-memory copy, one with neither
 * two (through the ghost's bounce buffer). Ranks pair up (0->1, 2->3); each
 * pair sends kBig bytes in the four combinations and a small message into
 * MPI_Alloc_mem memory, every payload checked. Rank 0 then checks that the
 * ghosts copied 3 of the 4 large messages per pair in one copy
 * (ghostN_single_copy_bytes) and every large one from the sender's memory.
 * MPI_Free_mem gives the memory back; a second round on new memory must see
 * its own data (a ghost's mapping of freed memory must not be reused).
 * With a node per rank (over verbs), every large message is read by RDMA
 * from the sender's ghost instead, which registers the sender's block when
 * it maps it and a copy otherwise.
 */
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"

enum { kBig = 1 << 20, kSmall = 100, kRounds = 2 };

static int check(int nranks, const int* notes) {
    (void)notes;
    const long long pairs = nranks / 2;
    int errs = 0;
    if (ghost_domain_size(nranks) == 1) {
        /* Every pair spans two nodes: each large message was read by RDMA. */
        const long long read = stats_sum_all(nranks, "ghost", "_rdma_read_bytes");
        return MT_CHECK(read == 4LL * kBig * pairs * kRounds,
                        "ghosts read %lld bytes from other nodes, expected %lld", read,
                        4LL * kBig * pairs * kRounds);
    }
    const long long single = stats_sum(0, "ghost", "_single_copy_bytes");
    const long long referenced = stats_sum(0, "ghost", "_referenced_bytes");
    errs += MT_CHECK(single == 3LL * kBig * pairs * kRounds,
                     "ghosts copied %lld bytes in one copy, expected %lld", single,
                     3LL * kBig * pairs * kRounds);
    errs += MT_CHECK(referenced == 4LL * kBig * pairs * kRounds,
                     "ghosts copied %lld bytes from senders' memory, expected %lld", referenced,
                     4LL * kBig * pairs * kRounds);
    return errs;
}

static void* allocate(int shared, size_t bytes) {
    void* memory = NULL;
    if (shared)
        MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &memory);
    else
        memory = mtest_malloc(bytes);
    return memory;
}

static void release(int shared, void* memory) {
    if (shared)
        MPI_Free_mem(memory);
    else
        free(memory);
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int rank = 0, size = 0, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank < size - size % 2;
    const int sender = rank % 2 == 0;
    const int peer = sender ? rank + 1 : rank - 1;
    for (int round = 0; round < kRounds && paired; ++round) {
        // (sender's memory shared, receiver's memory shared)
        for (int both = 0; both < 4; ++both) {
            const int shared = sender ? both & 1 : (both >> 1) & 1;
            const unsigned seed = 10u * (unsigned)round + (unsigned)both + 1;
            unsigned char* buffer = allocate(shared, kBig);
            if (sender) {
                mtest_fill(buffer, kBig, seed);
                MPI_Send(buffer, kBig, MPI_BYTE, peer, both, MPI_COMM_WORLD);
            } else {
                memset(buffer, 0, kBig);
                MPI_Recv(buffer, kBig, MPI_BYTE, peer, both, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                errs += MT_VERIFY("large message", buffer, kBig, seed);
            }
            release(shared, buffer);
        }
        unsigned char* small = allocate(1, kSmall);
        if (sender) {
            mtest_fill(small, kSmall, 99);
            MPI_Send(small, kSmall, MPI_BYTE, peer, 9, MPI_COMM_WORLD);
        } else {
            memset(small, 0, kSmall);
            MPI_Recv(small, kSmall, MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += MT_VERIFY("small message", small, kSmall, 99);
        }
        release(1, small);
    }
    return stats_finish(errs, 0, check);
}
