/*
 * Many messages between random pairs, posted in random order with short
 * computations in between, with sizes on both sides of the eager limit:
 * nothing may be lost or corrupted, and the counters must add up:
 *   - wake-ups the ranks received = wake-ups the helpers and the ranks
 *     blocked in MPI fired,
 *   - futile + late wake-ups <= wake-ups on every rank,
 *   - interrupt requests <= nonblocking receives the rank posted,
 *   - RDMA Reads = rendezvous messages the rank received.
 *
 *   random_pairs [messages per rank]     (default 500)
 *
 * Every message is a pure function of (sender, index), so each rank can
 * enumerate what it will receive, and rank 0 can check everyone's counters.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

/* 16384 B goes eagerly and 32769 B by rendezvous under both default limits
 * (SI_EAGER_LIMIT: 32 KiB on shared memory, 16 KiB over verbs), so the
 * count of reads does not depend on which transport a pair uses. */
static const int kSizes[] = {0, 100, 16384, 32769, 65536, 300000};
enum { kSizeCount = sizeof kSizes / sizeof kSizes[0], kEagerLimit = 16384 };

static int g_messages = 500;

static uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

struct Message {
    int source, dest, index, bytes;
};

static struct Message message(int source, int index, int nranks) {
    const uint32_t h = mix((uint32_t)source * 100003U + (uint32_t)index);
    int dest = (int)(h % (uint32_t)(nranks - 1));
    if (dest >= source) ++dest;
    const struct Message m = {source, dest, index, kSizes[mix(h) % kSizeCount]};
    return m;
}

static unsigned seed_of(const struct Message* m) {
    return (unsigned)(m->source * 1000003 + m->index);
}

static void shuffle(struct Message* items, int count, uint32_t seed) {
    for (int i = count - 1; i > 0; --i) {
        const int j = (int)(mix(seed + (uint32_t)i) % (uint32_t)(i + 1));
        const struct Message t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

/* Messages rank `dest` receives; sets *rendezvous to how many are rendezvous. */
static int incoming(int dest, int nranks, struct Message* out, int* rendezvous) {
    int count = 0;
    *rendezvous = 0;
    for (int s = 0; s < nranks; ++s)
        for (int i = 0; s != dest && i < g_messages; ++i) {
            const struct Message m = message(s, i, nranks);
            if (m.dest != dest) continue;
            if (out != NULL) out[count] = m;
            ++count;
            *rendezvous += m.bytes > kEagerLimit;
        }
    return count;
}

static int check_counters(int nranks, const int* notes) {
    (void)notes;
    int errs = 0;
    const char* mode = getenv("SI_PROGRESS");
    const int smart = mode != NULL && strcmp(mode, "smart") == 0;
    long long received_wakeups = 0;
    for (int r = 0; r < nranks; ++r) {
        int rendezvous = 0;
        const int receives = incoming(r, nranks, NULL, &rendezvous);
        const long long wakeups = stats_counter(r, "wakeups");
        const long long futile = stats_counter(r, "futile_wakeups") + stats_counter(r, "late_wakeups");
        const long long requests = stats_counter(r, "interrupt_requests");
        const long long reads = stats_counter(r, "rdma_reads");
        received_wakeups += wakeups;
        errs += MT_CHECK(reads == rendezvous, "rank %d: %lld RDMA Reads for %d rendezvous messages",
                         r, reads, rendezvous);
        if (!smart) continue;
        errs += MT_CHECK(wakeups >= 0 && futile >= 0 && futile <= wakeups,
                         "rank %d: futile or late %lld of %lld wake-ups", r, futile, wakeups);
        errs += MT_CHECK(requests >= 0 && requests <= receives,
                         "rank %d: %lld interrupt requests for %d receives", r, requests, receives);
    }
    if (!smart) return errs;
    long long fired = 0;
    // Helpers wake interrupt threads, and so do ranks blocked in MPI.
    for (int r = 0; r < nranks; ++r)
        fired += stats_sum(r, "helper", "_wakes") + stats_counter(r, "blocked_wakes");
    errs += MT_CHECK(fired == received_wakeups,
                     "helpers and blocked ranks fired %lld wake-ups, ranks got %lld", fired,
                     received_wakeups);
    return errs;
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    if (argc > 1) g_messages = atoi(argv[1]);
    int errs = 0, rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) MT_FATAL("random_pairs needs at least 2 ranks");

    int rendezvous = 0;
    const int receive_count = incoming(rank, size, NULL, &rendezvous);
    struct Message* receives = malloc(sizeof *receives * (size_t)(receive_count + 1));
    struct Message* sends = malloc(sizeof *sends * (size_t)g_messages);
    MPI_Request* requests = malloc(sizeof *requests * (size_t)(receive_count + g_messages));
    unsigned char** buffers = malloc(sizeof *buffers * (size_t)(receive_count + g_messages));
    if (!receives || !sends || !requests || !buffers) MT_FATAL("out of memory");
    incoming(rank, size, receives, &rendezvous);
    for (int i = 0; i < g_messages; ++i) sends[i] = message(rank, i, size);
    shuffle(receives, receive_count, 17U * (uint32_t)rank + 1);
    shuffle(sends, g_messages, 31U * (uint32_t)rank + 7);

    // Interleave posting receives and sends, computing a little in between.
    int posted = 0, r = 0, s = 0;
    while (r < receive_count || s < g_messages) {
        const uint32_t coin = mix((uint32_t)(rank * 7919 + posted));
        if (r < receive_count && (s == g_messages || coin % 2 == 0)) {
            const struct Message* m = &receives[r++];
            buffers[posted] = malloc((size_t)m->bytes + 1);
            MPI_Irecv(buffers[posted], m->bytes, MPI_BYTE, m->source, m->index, MPI_COMM_WORLD,
                      &requests[posted]);
        } else {
            const struct Message* m = &sends[s++];
            buffers[posted] = malloc((size_t)m->bytes + 1);
            mtest_fill(buffers[posted], (size_t)m->bytes, seed_of(m));
            MPI_Isend(buffers[posted], m->bytes, MPI_BYTE, m->dest, m->index, MPI_COMM_WORLD,
                      &requests[posted]);
        }
        ++posted;
        if (coin % 8 == 0) work_until(1e-6 * (double)(coin % 50), NULL, NULL);
    }
    MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);

    // Receives and sends were interleaved in the same order as above.
    r = 0;
    s = 0;
    for (int i = 0; i < posted; ++i) {
        const uint32_t coin = mix((uint32_t)(rank * 7919 + i));
        if (r < receive_count && (s == g_messages || coin % 2 == 0)) {
            const struct Message* m = &receives[r++];
            errs += MT_VERIFY("message", buffers[i], (size_t)m->bytes, seed_of(m));
        } else {
            ++s;
        }
        free(buffers[i]);
    }
    free(receives);
    free(sends);
    free(requests);
    free(buffers);
    return stats_finish(errs, 0, check_counters);
}
