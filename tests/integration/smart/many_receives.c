/*
 * More nonblocking receives than the default IRB holds (64): rank 1 posts
 * kReceives rendezvous receives from rank 0, then computes outside MPI
 * while rank 0 sends them. Each receive gets an IRB entry while one is free
 * (`interrupt_requests`); the rest are counted in `irb_full`. With
 * SI_IRB_ENTRIES=128 none may find the IRB full, and the data must arrive
 * while rank 1 computes (the receives finish within the compute time).
 * Before them rank 1 posts kSmall 8-byte receives (one from MPI_ANY_SOURCE),
 * which only eager data can fill: they take no entry, and are not counted.
 * Every payload is checked.
 *
 *   many_receives          (SI_IRB_ENTRIES in the environment sets the IRB)
 */
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

enum { kReceives = 100, kBytes = 65536, kSmall = 4, kSmallTag = 1000 };

static int check(int nranks, const int* notes) {
    (void)nranks;
    const char* setting = getenv("SI_IRB_ENTRIES");
    const long long entries = setting != NULL ? (atoll(setting) + 63) / 64 * 64 : 64;
    const long long expected_full = kReceives > entries ? kReceives - entries : 0;
    const long long requests = stats_counter(1, "interrupt_requests");
    const long long full = stats_counter(1, "irb_full");
    int errs = 0;
    errs += MT_CHECK(full == expected_full, "irb_full %lld with %lld entries, expected %lld", full,
                     entries, expected_full);
    errs += MT_CHECK(requests + full == kReceives,
                     "%lld interrupt requests and %lld without an entry for %d receives", requests,
                     full, kReceives);
    if (expected_full == 0)
        errs += MT_CHECK(notes[1] == 1, "rank 1's data did not all arrive while it computed");
    return errs;
}

/* Whether every buffer's last byte came. The peek races with the runtime's
 * write by design (it is the observation), so it reads through volatile and
 * is exempt from ThreadSanitizer's instrumentation (receiver_first.c). */
#if defined(__GNUC__)
__attribute__((no_sanitize_thread, noinline))
#endif
static int
all_arrived(const char* buffers) {
    for (int i = 0; i < kReceives; ++i) {
        const volatile char* last = buffers + (size_t)i * kBytes + kBytes - 1;
        if (*last != 'a' + i % 26) return 0;
    }
    return 1;
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int rank, errs = 0, finished_in_work = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char* buffers = malloc((size_t)kReceives * kBytes);
    MPI_Request requests[kReceives];
    double small[kSmall] = {0};
    MPI_Request small_requests[kSmall];
    if (rank == 1)
        for (int i = 0; i < kSmall; ++i)
            MPI_Irecv(&small[i], 1, MPI_DOUBLE, i == 0 ? MPI_ANY_SOURCE : 0, kSmallTag + i,
                      MPI_COMM_WORLD, &small_requests[i]);
    if (rank == 1)
        for (int i = 0; i < kReceives; ++i)
            MPI_Irecv(buffers + (size_t)i * kBytes, kBytes, MPI_CHAR, 0, i, MPI_COMM_WORLD,
                      &requests[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < kSmall; ++i) {
            small[i] = 0.5 + i;
            MPI_Send(&small[i], 1, MPI_DOUBLE, 1, kSmallTag + i, MPI_COMM_WORLD);
        }
        for (int i = 0; i < kReceives; ++i) {
            memset(buffers + (size_t)i * kBytes, 'a' + i % 26, kBytes);
            MPI_Isend(buffers + (size_t)i * kBytes, kBytes, MPI_CHAR, 1, i, MPI_COMM_WORLD,
                      &requests[i]);
        }
        MPI_Waitall(kReceives, requests, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        /* Computes, never calling MPI, until every buffer's last byte came
         * (or 1 s): the data must move meanwhile. */
        for (double spent = 0; spent < 1.0 && !finished_in_work;) {
            spent += work_until(0.01, NULL, NULL);
            finished_in_work = all_arrived(buffers);
        }
        MPI_Waitall(kReceives, requests, MPI_STATUSES_IGNORE);
        MPI_Waitall(kSmall, small_requests, MPI_STATUSES_IGNORE);
        for (int i = 0; i < kSmall; ++i)
            errs += MT_CHECK(small[i] == 0.5 + i, "small receive %d holds %g", i, small[i]);
        for (int i = 0; i < kReceives; ++i)
            errs += MT_CHECK(buffers[(size_t)i * kBytes] == 'a' + i % 26 &&
                                 buffers[(size_t)i * kBytes + kBytes - 1] == 'a' + i % 26,
                             "receive %d holds the wrong data", i);
    }
    free(buffers);
    return stats_finish(errs, finished_in_work, check);
}
