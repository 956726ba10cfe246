/*
 * Helpers are forked after the verbs transport registered its memory
 * (SmartInterrupts starts them once the transports exist). On a kernel that
 * does not copy pinned pages at fork (before Linux 5.13) that is safe only
 * with libibverbs' fork support on, which MPI_Init must have turned on:
 * ibv_is_fork_initialized() must not say IBV_FORK_DISABLED (on later kernels
 * it says IBV_FORK_UNNEEDED). Then 1 MiB rendezvous messages both ways, with
 * the helpers alive, must arrive intact (a page copied away from the NIC
 * would lose or corrupt them).
 */
#include <infiniband/verbs.h>
#include <stdlib.h>

#include "../mtest.h"

enum { kBytes = 1 << 20, kRounds = 8 };

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const enum ibv_fork_status status = ibv_is_fork_initialized();
    errs += MT_CHECK(status != IBV_FORK_DISABLED,
                     "rank %d: libibverbs fork support is off after MPI_Init", rank);
    unsigned char* out = malloc(kBytes);
    unsigned char* in = malloc(kBytes);
    if (out == NULL || in == NULL) MT_FATAL("out of memory");
    const int peer = rank ^ 1;
    if (peer < size) {
        for (int round = 0; round < kRounds; ++round) {
            mtest_fill(out, kBytes, (unsigned)(rank * 100 + round));
            MPI_Sendrecv(out, kBytes, MPI_BYTE, peer, round, in, kBytes, MPI_BYTE, peer, round,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += MT_VERIFY("received", in, kBytes, (unsigned)(peer * 100 + round));
        }
    }
    free(out);
    free(in);
    return mtest_finish(errs);
}
