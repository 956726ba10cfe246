/*
 * SI_PROGRESS=pef with SI_PEF_PREDICT (progress/pef.hpp): a thread that waits
 * for its receives right after posting them gets its watchdog turns deferred
 * (one cheap timer per receive, no hypervisor exit on a virtual machine), and
 * gets the paper's phase back as soon as it computes with a receive posted.
 *
 *   pef_predict on|off
 *
 * Ranks pair up (0 -> 1, ...). Phase 1: 40 rendezvous messages, each waited
 * for at once. Phase 2: a receive posted, then long work (deferred or not, a
 * turn must bring the data before MPI_Wait). Phase 3: 5 receives, each with
 * 3 ms of work, shorter than the deferred phase (5 ms): the data must arrive
 * during the work of most of them, which only the paper's phase can do. With
 * "on" rank 1 must count deferred sequences, with "off" none.
 * Reading a receive buffer before MPI_Wait is outside the MPI standard; this
 * test does it on purpose, to observe progress.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kBytes = 256 * 1024, kAtOnce = 40, kShortWorks = 5 };

static int g_predict = 1;

#if defined(__GNUC__)
__attribute__((no_sanitize_thread, noinline))
#endif
static int last_byte_set(const void* context) {
    const volatile unsigned char* buffer = context;
    return buffer[kBytes - 1] != 0;
}

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    for (int r = 1; r < nranks - (nranks % 2); r += 2) {
        const long long deferred = stats_counter(r, "pef_deferred_sequences");
        const long long sequences = stats_counter(r, "pef_sequences");
        if (g_predict)
            errs += MT_CHECK(deferred >= kAtOnce / 4,
                             "rank %d: %lld of %lld sequences deferred after %d waits at once", r,
                             deferred, sequences, kAtOnce);
        else
            errs += MT_CHECK(deferred == 0, "rank %d: %lld sequences deferred with the "
                             "prediction off", r, deferred);
    }
    return errs;
}

/* One message from the sender; the receiver works `work_s` (0: waits at
 * once) and returns whether the data came during the work. */
static int exchange(int rank, int sender, unsigned char* buffer, double work_s, int* errs) {
    int arrived = 0;
    if (sender) {
        mtest_fill(buffer, kBytes, 7u + (unsigned)rank);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(buffer, kBytes, MPI_BYTE, rank + 1, 3, MPI_COMM_WORLD);
    } else {
        memset(buffer, 0, kBytes);
        MPI_Request request;
        MPI_Irecv(buffer, kBytes, MPI_BYTE, rank - 1, 3, MPI_COMM_WORLD, &request);
        MPI_Barrier(MPI_COMM_WORLD);
        if (work_s > 0) {
            work_until(work_s, last_byte_set, buffer);
            arrived = last_byte_set(buffer);
        }
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        *errs += MT_VERIFY("received", buffer, kBytes, 7u + (unsigned)rank - 1);
    }
    return arrived;
}

int main(int argc, char** argv) {
    if (argc < 2 || (strcmp(argv[1], "on") != 0 && strcmp(argv[1], "off") != 0)) {
        fprintf(stderr, "usage: pef_predict on|off\n");
        return 2;
    }
    g_predict = strcmp(argv[1], "on") == 0;
    stats_enable();
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank < size - (size % 2);
    const int sender = rank % 2 == 0;
    unsigned char* buffer = malloc(kBytes);
    if (buffer == NULL) MT_FATAL("out of memory");
    if (!paired) {
        for (int i = 0; i < kAtOnce + 1 + kShortWorks; ++i) MPI_Barrier(MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < kAtOnce; ++i) exchange(rank, sender, buffer, 0.0, &errs);
        const int long_work = exchange(rank, sender, buffer, 5.0, &errs);
        if (!sender) errs += MT_CHECK(long_work, "no turn brought the data in 5 s of work");
        int during_short_work = 0;
        for (int i = 0; i < kShortWorks; ++i)
            during_short_work += exchange(rank, sender, buffer, 0.003, &errs);
        if (!sender)
            errs += MT_CHECK(during_short_work >= kShortWorks - 2,
                             "the data came during only %d of %d works of 3 ms: the paper's "
                             "phase did not come back", during_short_work, kShortWorks);
    }
    free(buffer);
    return stats_finish(errs, 0, check_counters);
}
