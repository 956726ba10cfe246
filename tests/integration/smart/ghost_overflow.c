/*
 * SI_PROGRESS=ghost with more receives outstanding than a rank keeps in
 * cells (run with SI_GHOST_CELLS=2048: 1536 held). Ranks pair up; the
 * receiver first posts kHeld receives whose messages come last, which take
 * every cell receives may hold; the sender has meanwhile sent kBurst small
 * messages. The receiver then posts kBurst receives for those: they go in
 * overflow cells, and the ghost answers each at once in the receiver's
 * completion ring, which holds 256; the receiver computes before it looks,
 * so the ghost must keep the other answers (ghostN_backlogged) until the
 * ring has room. Every message is checked, and the counters must show the
 * overflow cells and the backlog.
 */
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"

enum { kHeld = 1536, kBurst = 300, kBytes = 32 };

static unsigned seed_of(int sender, int tag) {
    return 131u * (unsigned)sender + (unsigned)tag;
}

static int check(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    for (int r = 1; r < nranks - nranks % 2; r += 2) {
        const long long overflow = stats_counter(r, "ghost_overflow_posts");
        errs += MT_CHECK(overflow >= kBurst, "rank %d: %lld overflow posts, expected %d or more", r,
                         overflow, kBurst);
    }
    const long long backlogged = stats_sum(0, "ghost", "_backlogged");
    errs += MT_CHECK(backlogged >= 1, "no answer waited for room in a completion ring");
    return errs;
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
    const int total = kHeld + kBurst;
    unsigned char* buffers = mtest_malloc((size_t)kBytes * (size_t)total);
    MPI_Request* requests = mtest_malloc(sizeof(MPI_Request) * (size_t)total);
    memset(buffers, 0, (size_t)kBytes * (size_t)total);
    /* Tag t travels in buffers + t * kBytes: the held ones first, then the burst. */
    unsigned char* burst = buffers + (size_t)kBytes * kHeld;
    if (paired && sender)
        for (int t = kHeld; t < total; ++t) {
            mtest_fill(buffers + (size_t)kBytes * (size_t)t, kBytes, seed_of(rank, t));
            MPI_Isend(buffers + (size_t)kBytes * (size_t)t, kBytes, MPI_BYTE, peer, t,
                      MPI_COMM_WORLD, &requests[t]);
        }
    if (paired && !sender) {
        for (int t = 0; t < kHeld; ++t)
            MPI_Irecv(buffers + (size_t)kBytes * (size_t)t, kBytes, MPI_BYTE, peer, t,
                      MPI_COMM_WORLD, &requests[t]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (paired && !sender) {
        for (int t = kHeld; t < total; ++t)
            MPI_Irecv(buffers + (size_t)kBytes * (size_t)t, kBytes, MPI_BYTE, peer, t,
                      MPI_COMM_WORLD, &requests[t]);
        mtest_sleep_ms(100); /* computing: the ghost answers meanwhile */
        MPI_Waitall(kBurst, requests + kHeld, MPI_STATUSES_IGNORE);
        for (int t = kHeld; t < total; ++t)
            errs += MT_VERIFY("burst message", burst + (size_t)kBytes * (size_t)(t - kHeld), kBytes,
                              seed_of(peer, t));
    }
    if (paired && sender) MPI_Waitall(kBurst, requests + kHeld, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The held receives' messages. */
    if (paired && sender)
        for (int t = 0; t < kHeld; ++t) {
            mtest_fill(buffers + (size_t)kBytes * (size_t)t, kBytes, seed_of(rank, t));
            MPI_Isend(buffers + (size_t)kBytes * (size_t)t, kBytes, MPI_BYTE, peer, t,
                      MPI_COMM_WORLD, &requests[t]);
        }
    if (paired) MPI_Waitall(kHeld, requests, MPI_STATUSES_IGNORE);
    if (paired && !sender)
        for (int t = 0; t < kHeld; ++t)
            errs += MT_VERIFY("held message", buffers + (size_t)kBytes * (size_t)t, kBytes,
                              seed_of(peer, t));
    free(requests);
    free(buffers);
    return stats_finish(errs, 0, check);
}
