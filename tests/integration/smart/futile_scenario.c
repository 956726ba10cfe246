/*
 * The futile-interrupt scenario of the thesis: the receiver has posted
 * Irecv(tag 1), which has not arrived; a rendezvous message for tag 2, whose
 * receive is not posted yet, arrives while the receiver computes. An
 * interrupt thread woken on every RTS would wake for nothing; the helper must
 * see that the RTS matches no requested receive and leave the rank asleep.
 * With SI_PROGRESS=interrupt, the design SmartInterrupts replaces, that RTS
 * must wake the receiver's thread for a futile pass: the counters show it.
 *
 * Ranks pair up (0->1, 2->3, ...). Run with SI_PROGRESS=smart or interrupt.
 */
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kLarge = 1 << 20, kSmall = 64 };

static int check_interrupt_counters(int nranks) {
    int errs = 0;
    for (int r = 1; r < nranks - (nranks % 2); r += 2) {
        const long long futile = stats_counter(r, "futile_wakeups");
        errs += MT_CHECK(futile >= 1, "rank %d: the tag-2 RTS woke its thread for nothing, "
                         "but futile_wakeups is %lld", r, futile);
    }
    return errs;
}

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    const char* mode = getenv("SI_PROGRESS");
    if (mode != NULL && strcmp(mode, "interrupt") == 0) return check_interrupt_counters(nranks);
    int errs = 0;
    for (int r = 1; r < nranks - (nranks % 2); r += 2) {
        const long long requests = stats_counter(r, "interrupt_requests");
        const long long wakeups = stats_counter(r, "wakeups");
        errs += MT_CHECK(requests >= 1, "rank %d posted no interrupt request", r);
        errs += MT_CHECK(wakeups == 0, "rank %d was woken %lld times for nothing", r, wakeups);
    }
    // Someone did look: the helper (its counters are on rank 0, the node's
    // first rank), or a sender blocked in MPI_Send scanning for it (a helper
    // that shares the ranks' cores may not get one while they all run).
    long long scans = stats_sum(0, "helper", "_scans");
    for (int r = 0; r < nranks; ++r) scans += stats_counter(r, "blocked_scans");
    errs += MT_CHECK(scans > 0, "nobody examined a rank (scans = %lld)", scans);
    return errs;
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank < size - (size % 2);
    unsigned char* first = malloc(kLarge);
    unsigned char* second = malloc(kLarge);
    if (first == NULL || second == NULL) MT_FATAL("out of memory");

    if (paired && rank % 2 == 0) {
        mtest_fill(second, kLarge, 2);
        mtest_fill(first, kSmall, 1);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(second, kLarge, MPI_BYTE, rank + 1, 2, MPI_COMM_WORLD);
        // Eager, so that its arrival could never justify a wake-up either.
        MPI_Send(first, kSmall, MPI_BYTE, rank + 1, 1, MPI_COMM_WORLD);
    } else if (paired) {
        MPI_Request request;
        MPI_Irecv(first, kLarge, MPI_BYTE, rank - 1, 1, MPI_COMM_WORLD, &request);
        MPI_Barrier(MPI_COMM_WORLD);
        work_until(0.3, NULL, NULL);  // the tag-2 RTS arrives meanwhile
        MPI_Recv(second, kLarge, MPI_BYTE, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Status status;
        MPI_Wait(&request, &status);
        int count = 0;
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_EQ(count, kSmall);
        errs += MT_VERIFY("tag 1", first, kSmall, 1);
        errs += MT_VERIFY("tag 2", second, kLarge, 2);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(first);
    free(second);
    return stats_finish(errs, 0, check_counters);
}
