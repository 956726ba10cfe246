/*
 * The case SmartInterrupts exists for: the receiver posts a large Irecv
 * first, then computes without calling MPI while the sender's RTS arrives.
 * With asynchronous progress the RDMA Read runs during the computation and
 * the data is in the buffer before MPI_Wait; without it (mode none) nothing
 * can move it before MPI_Wait.
 *
 *   receiver_first arrives|stays [wildcard|-] [bytes] [sender delay s]
 *
 * Ranks pair up (0->1, 2->3, ...). "arrives" requires the data before
 * MPI_Wait, "stays" requires it not to be there. With "arrives" no rank may
 * count a lost wake-up (lost_wakeups); with SI_PROGRESS=smart the receivers'
 * counters must also show how the data came: written by the blocked sender
 * itself (direct_deliveries, the default), or with SI_DIRECT_WRITE=off
 * through at least one wake-up of the interrupt thread, never a futile or
 * late one; with SI_PROGRESS=interrupt, through passes of the receiver's
 * thread (woken by the messages that arrive, or still awake); with SI_PROGRESS=pef, through a turn of
 * the watchdog (a timer signal), which with "stays" must have given up. A sender delay well beyond the helpers' polling period (0.5 s)
 * lets the helper fall asleep with the receive outstanding: a single-host
 * job's sender must ring it when its RTS is there (helper_rings), and the
 * helper must have slept (request_sleeps). With SI_PROGRESS=ghost, the ghosts
 * must have matched every pair and copied each message from its sender.
 * Reading a receive buffer before MPI_Wait is outside the MPI standard; this
 * test does it on purpose, to observe progress.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"
#include "work.h"

struct Tail {
    const unsigned char* buffer;
    const unsigned char* expected;
    size_t offset, bytes;
};

/* The peek races with the runtime's write into the buffer by design: it is
 * the observation. It reads byte by byte through volatile, without memcmp
 * (which ThreadSanitizer intercepts), and is exempt from ThreadSanitizer's
 * instrumentation so that the runtime's own accesses stay checked. */
#if defined(__GNUC__)
__attribute__((no_sanitize_thread, noinline))
#endif
static int tail_arrived(const void* context) {
    const struct Tail* tail = context;
    const volatile unsigned char* seen = tail->buffer + tail->offset;
    for (size_t i = 0; i < tail->bytes; ++i)
        if (seen[i] != tail->expected[i]) return 0;
    return 1;
}

static int progress_mode(const char* name) {
    const char* mode = getenv("SI_PROGRESS");
    return mode != NULL && strcmp(mode, name) == 0;
}

/* SI_DIRECT_WRITE=off: the thesis' path only (a helper wakes the receiver's
 * interrupt thread); otherwise the blocked sender writes the data itself. */
static int direct_write(void) {
    const char* setting = getenv("SI_DIRECT_WRITE");
    return setting == NULL || strcmp(setting, "off") != 0;
}

static double g_sender_delay = 0.005;
static size_t g_bytes;

/* notes[r]: 1 if receiver r had to wait for its data (it had not arrived
 * during MPI_Barrier, whose own progress may already have moved it). */
static int g_expect_arrival;

/* The sender sleeps in MPI_Send until the FIN, which the receiver's
 * asynchronous progress sends while it still computes: a FIN that did not
 * ring would show as a sleep ended by the 200 ms timeout, after which the
 * sender finds it (lost_wakeups). */
static int check_no_lost_wakeups(int nranks) {
    int errs = 0;
    for (int r = 0; r < nranks; ++r) {
        const long long lost = stats_counter(r, "lost_wakeups");
        errs += MT_CHECK(lost == 0, "rank %d: %lld lost wake-ups", r, lost);
    }
    return errs;
}

static int check_receiver_counters(int nranks, const int* notes) {
    int errs = g_expect_arrival ? check_no_lost_wakeups(nranks) : 0;
    if (progress_mode("interrupt")) {
        for (int r = 1; r < nranks - (nranks % 2); r += 2) {
            // Woken by a message, or awake still (from an earlier one, late
            // under load) when its last look before sleeping found this one.
            const long long passes =
                stats_counter(r, "wakeups") + stats_counter(r, "rechecks_with_work");
            errs += MT_CHECK(!notes[r] || passes >= 1,
                             "rank %d: its data came without a pass of its thread", r);
        }
        return errs;
    }
    if (progress_mode("pef")) {
        // The data came through a turn of the watchdog; with "stays" the
        // watchdog (SI_PEF_MAX_TURNS=1) gave up before the RTS came. A pair
        // on shared memory gets no turn at all, unless the handler reads
        // there too (SI_PEF_SHARED_MEMORY=copy); SI_TRANSPORT=verbs puts
        // every pair on the NIC, whose reads move data on their own.
        const char* shared = getenv("SI_PEF_SHARED_MEMORY");
        const char* transport = getenv("SI_TRANSPORT");
        const int copies = (shared != NULL && strcmp(shared, "copy") == 0) ||
                           (transport != NULL && strcmp(transport, "verbs") == 0);
        for (int r = 1; r < nranks - (nranks % 2); r += 2) {
            if (!copies) {
                const long long signals = stats_counter(r, "pef_signals");
                errs += MT_CHECK(signals == 0 && stats_counter(r, "pef_left_to_wait") >= 1,
                                 "rank %d: %lld timer signals for a receive from its host, "
                                 "%lld receives left to the wait",
                                 r, signals, stats_counter(r, "pef_left_to_wait"));
                continue;
            }
            if (!notes[r]) continue;
            const long long signals = stats_counter(r, "pef_signals");
            const long long gave_up = stats_counter(r, "pef_gave_up");
            errs += MT_CHECK(signals >= 1, "rank %d: its data came without a timer signal", r);
            errs += MT_CHECK(g_expect_arrival || gave_up >= 1,
                             "rank %d: the watchdog never gave up (%lld signals)", r, signals);
        }
        return errs;
    }
    if (progress_mode("ghost")) {
        // The ghosts matched every pair and copied the large messages from
        // the senders' memory (across nodes: read them from the senders'
        // ghosts).
        const int pairs = nranks / 2;
        const long long matches = stats_sum_all(nranks, "ghost", "_matches");
        const long long copied = stats_sum_all(nranks, "ghost", "_referenced_bytes") +
                                 stats_sum_all(nranks, "ghost", "_rdma_read_bytes");
        errs += MT_CHECK(matches >= pairs, "ghosts matched %lld messages, expected %d or more",
                         matches, pairs);
        errs += MT_CHECK(g_bytes <= 8192 || copied >= (long long)g_bytes * pairs,
                         "ghosts copied %lld bytes from senders' memory, expected %zu per pair",
                         copied, g_bytes);
        return errs;
    }
    if (!progress_mode("smart")) return errs;
    if (g_sender_delay >= 0.5) {
        const long long slept = stats_sum(0, "helper", "_request_sleeps");
        errs += MT_CHECK(slept >= 1, "no helper slept with the receives outstanding (%lld)", slept);
        long long rings = 0;
        for (int r = 0; r < nranks - (nranks % 2); r += 2) rings += stats_counter(r, "helper_rings");
        errs += MT_CHECK(rings >= 1, "no sender rang a sleeping helper");
    }
    for (int r = 1; r < nranks - (nranks % 2); r += 2) {
        if (!notes[r]) continue;
        const long long wakeups = stats_counter(r, "wakeups");
        const long long futile = stats_counter(r, "futile_wakeups");
        const long long late = stats_counter(r, "late_wakeups");
        const long long direct = stats_counter(r, "direct_deliveries");
        if (direct_write()) {
            // Either the sender wrote the data, or a helper (or a rank blocked
            // elsewhere, scanning) woke the interrupt thread before the sender
            // could claim the receive: a race either may win
            // (direct_delivery.c shows the direct path is taken). The thread
            // may then run late, or futile: no check.
            errs += MT_CHECK(direct >= 1 || wakeups >= 1,
                             "rank %d: its data came with neither a direct delivery nor a "
                             "wake-up", r);
        } else {
            errs += MT_CHECK(wakeups >= 1 && direct == 0,
                             "rank %d: expected a wake-up (%lld, and %lld direct deliveries)", r,
                             wakeups, direct);
            errs += MT_CHECK(futile == 0, "rank %d: %lld futile wake-ups", r, futile);
            // The receiver computes until its data is there: nothing can be late.
            errs += MT_CHECK(late == 0, "rank %d: %lld late wake-ups", r, late);
        }
        const long long latency_mean = stats_counter(r, "wake_latency_us_mean");
        const long long latency_max = stats_counter(r, "wake_latency_us_max");
        errs += MT_CHECK(latency_mean >= 0 && latency_max >= latency_mean,
                         "rank %d: wake latency mean %lld us, max %lld us", r, latency_mean,
                         latency_max);
    }
    return errs;
}

int main(int argc, char** argv) {
    if (argc < 2 || (strcmp(argv[1], "arrives") != 0 && strcmp(argv[1], "stays") != 0)) {
        fprintf(stderr, "usage: receiver_first arrives|stays [wildcard|-] [bytes] [sender delay s]\n");
        return 2;
    }
    const int expect_arrival = g_expect_arrival = strcmp(argv[1], "arrives") == 0;
    const int wildcard = argc > 2 && strcmp(argv[2], "wildcard") == 0;
    const size_t bytes = g_bytes = argc > 3 ? (size_t)atol(argv[3]) : (size_t)1 << 20;
    if (argc > 4) g_sender_delay = atof(argv[4]);
    stats_enable();
    mtest_init(&argc, &argv);
    int errs = 0, rank = 0, size = 0, had_to_wait = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int paired = rank < size - (size % 2);
    const int sender = rank % 2 == 0;
    unsigned char* buffer = malloc(bytes);
    if (buffer == NULL) MT_FATAL("out of memory");

    if (paired && sender) {
        mtest_fill(buffer, bytes, 100 + (unsigned)rank);
        MPI_Barrier(MPI_COMM_WORLD);
        // Let the receiver compute first. A long delay is the helper-sleeps
        // scenario: the sender idles, so that the SCHED_IDLE helper has a
        // core to fall asleep on rather than depending on the scheduler's
        // leftovers with every core computing.
        if (g_sender_delay >= 0.5)
            idle_for(g_sender_delay);
        else
            work_until(g_sender_delay, NULL, NULL);
        MPI_Send(buffer, (int)bytes, MPI_BYTE, rank + 1, 7, MPI_COMM_WORLD);
    } else if (paired) {
        unsigned char expected[64];
        for (size_t i = 0; i < sizeof expected; ++i)
            expected[i] = mtest_pattern(bytes - sizeof expected + i, 100 + (unsigned)rank - 1);
        memset(buffer, 0, bytes);
        MPI_Request request;
        MPI_Irecv(buffer, (int)bytes, MPI_BYTE, wildcard ? MPI_ANY_SOURCE : rank - 1,
                  wildcard ? MPI_ANY_TAG : 7, MPI_COMM_WORLD, &request);
        MPI_Barrier(MPI_COMM_WORLD);
        const struct Tail tail = {buffer, expected, bytes - sizeof expected, sizeof expected};
        had_to_wait = !tail_arrived(&tail);
        const double waited =
            work_until(expect_arrival ? 5.0 + g_sender_delay : 0.2, tail_arrived, &tail);
        const int arrived = tail_arrived(&tail);
        MPI_Status status;
        MPI_Wait(&request, &status);
        errs += MT_VERIFY("received", buffer, bytes, 100 + (unsigned)rank - 1);
        errs += MT_EQ(status.MPI_SOURCE, rank - 1);
        if (expect_arrival) {
            errs += MT_CHECK(arrived, "data not there after %.3f s of work before MPI_Wait", waited);
            if (arrived) printf("rank %d: data there after %.1f ms of work\n", rank, 1e3 * waited);
        } else {
            errs += MT_CHECK(!had_to_wait || !arrived,
                             "data arrived during the work, without progression");
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(buffer);
    return stats_finish(errs, had_to_wait, check_receiver_counters);
}
