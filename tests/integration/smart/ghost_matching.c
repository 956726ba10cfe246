/*
 * SI_PROGRESS=ghost, the case seed 003's matching strategies exist for:
 * several receivers share one ghost and get messages on the same
 * communicator with the same tag. Every rank sends to every other rank,
 * small (data in the post cell) and large (data in the sender's memory),
 * some receives posted before the messages come and some after; each must
 * get the message from its own source, in order, never one meant for a
 * neighbour of the same ghost. A round of MPI_ANY_SOURCE receives must
 * report each message's true source, and messages with the largest tag
 * must match (the tag strategy shifts tags, which must not overflow).
 *
 * MPI_TAG_UB follows SI_GHOST_MATCHING: 2^28 - 1 with receiver and dup;
 * with tag, shifted right by the bits the busiest ghost's receivers need,
 * and then a larger send tag and an MPI_ANY_TAG receive fail with
 * MPI_ERR_TAG. The ghosts' counters must show the messages matched there.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../mtest.h"
#include "stats.h"

enum { kSmall = 64, kLarge = 64 << 10, kTag = 5, kMaxTag = (1 << 28) - 1 };

static const char* matching(void) {
    const char* value = getenv("SI_GHOST_MATCHING");
    return value != NULL ? value : "receiver";
}

/* The MPI_TAG_UB this job should report. */
static int expected_tag_ub(int size) {
    if (strcmp(matching(), "tag") != 0) return kMaxTag;
    const char* text = getenv("SI_GHOSTS");
    const int domain = ghost_domain_size(size);
    int ghosts = text != NULL ? atoi(text) : 1;
    if (ghosts > domain) ghosts = domain;
    const int most_served = (domain + ghosts - 1) / ghosts;
    int bits = 0;
    while ((1 << bits) < most_served) ++bits;
    return kMaxTag >> bits;
}

/* A message's stamp: who sent it to whom, and which of the round it is. */
static void stamp(unsigned char* buffer, size_t bytes, int from, int to, int index) {
    mtest_fill(buffer, bytes, (unsigned)(1000 * from + 10 * to + index));
}

static int check_stamp(const unsigned char* buffer, size_t bytes, int from, int to, int index) {
    return MT_VERIFY("message", buffer, bytes, (unsigned)(1000 * from + 10 * to + index));
}

/* Every rank sends `count` messages of `bytes` to every other, tag `tag`,
 * and receives them with source-specific receives; with `pre_posted` the
 * receives are posted before a barrier the sends wait for. */
static int exchange(int rank, int size, size_t bytes, int count, int tag, int pre_posted) {
    const int peers = size - 1;
    const int total = peers * count;
    unsigned char* in = mtest_malloc(bytes * (size_t)total);
    unsigned char* out = mtest_malloc(bytes * (size_t)total);
    MPI_Request* requests = mtest_malloc(sizeof(MPI_Request) * 2 * (size_t)total);
    int n = 0;
    memset(in, 0, bytes * (size_t)total);
    const int receives_first = pre_posted;
    for (int phase = 0; phase < 2; ++phase) {
        if (phase == 0 && !receives_first) MPI_Barrier(MPI_COMM_WORLD);
        const int posting_receives = (phase == 0) == receives_first;
        for (int k = 0; k < total; ++k) {
            const int peer = (rank + 1 + k / count) % size;
            const int index = k % count;
            unsigned char* slot = (posting_receives ? in : out) + bytes * (size_t)k;
            if (posting_receives) {
                MPI_Irecv(slot, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &requests[n++]);
            } else {
                stamp(slot, bytes, rank, peer, index);
                MPI_Isend(slot, (int)bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &requests[n++]);
            }
        }
        if (phase == 0 && receives_first) MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
    int errs = 0;
    for (int k = 0; k < total; ++k) {
        const int peer = (rank + 1 + k / count) % size;
        errs += check_stamp(in + bytes * (size_t)k, bytes, peer, rank, k % count);
    }
    free(requests);
    free(out);
    free(in);
    return errs;
}

/* Every rank sends one message to every other; the receiver takes them with
 * MPI_ANY_SOURCE and checks the status against the stamp. */
static int wildcard_round(int rank, int size, size_t bytes) {
    unsigned char* out = mtest_malloc(bytes * (size_t)size);
    unsigned char* in = mtest_malloc(bytes);
    MPI_Request* sends = mtest_malloc(sizeof(MPI_Request) * (size_t)size);
    int n = 0, errs = 0;
    for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        stamp(out + bytes * (size_t)peer, bytes, rank, peer, 7);
        MPI_Isend(out + bytes * (size_t)peer, (int)bytes, MPI_BYTE, peer, kTag, MPI_COMM_WORLD,
                  &sends[n++]);
    }
    for (int k = 0; k < size - 1; ++k) {
        MPI_Status status;
        memset(in, 0, bytes);
        MPI_Recv(in, (int)bytes, MPI_BYTE, MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &status);
        errs += MT_CHECK(
            status.MPI_SOURCE >= 0 && status.MPI_SOURCE < size && status.MPI_SOURCE != rank,
            "MPI_ANY_SOURCE receive reports source %d", status.MPI_SOURCE);
        errs += MT_EQ(status.MPI_TAG, kTag);
        if (status.MPI_SOURCE >= 0 && status.MPI_SOURCE < size)
            errs += check_stamp(in, bytes, status.MPI_SOURCE, rank, 7);
    }
    MPI_Waitall(n, sends, MPI_STATUSES_IGNORE);
    free(sends);
    free(in);
    free(out);
    return errs;
}

/* With the tag strategy, what the narrower tag space refuses. */
static int tag_limits(int rank, int size, int tag_ub) {
    int errs = 0;
    if (strcmp(matching(), "tag") != 0 || size < 2) return 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char byte = 0;
    MPI_Request request;
    errs += MT_CLASS(
        MPI_Isend(&byte, 1, MPI_BYTE, (rank + 1) % size, tag_ub + 1, MPI_COMM_WORLD, &request),
        MPI_ERR_TAG);
    errs += MT_CLASS(
        MPI_Irecv(&byte, 1, MPI_BYTE, (rank + 1) % size, MPI_ANY_TAG, MPI_COMM_WORLD, &request),
        MPI_ERR_TAG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

static int check_ghosts(int nranks, const int* notes) {
    (void)notes;
    /* exchange: 2 sizes x 2 orders x 3 messages, one wildcard round, one at
     * the largest tag, each to every other rank. */
    const long long messages = (long long)nranks * (nranks - 1) * (2 * 2 * 3 + 2);
    const long long matched = stats_sum_all(nranks, "ghost", "_matches");
    return MT_CHECK(matched == messages, "ghosts matched %lld messages, expected %lld", matched,
                    messages);
}

int main(int argc, char** argv) {
    stats_enable();
    mtest_init(&argc, &argv);
    int rank = 0, size = 0, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int* tag_ub = NULL;
    int found = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &found);
    errs += MT_CHECK(found && tag_ub != NULL, "MPI_TAG_UB not found");
    if (found && tag_ub != NULL) {
        errs += MT_EQ(*tag_ub, expected_tag_ub(size));
        errs += tag_limits(rank, size, *tag_ub);
    }
    for (int pre_posted = 0; pre_posted < 2; ++pre_posted) {
        errs += exchange(rank, size, kSmall, 3, kTag, pre_posted);
        errs += exchange(rank, size, kLarge, 3, kTag, pre_posted);
    }
    errs += wildcard_round(rank, size, kLarge);
    if (found && tag_ub != NULL) errs += exchange(rank, size, kSmall, 1, *tag_ub, 1);
    return stats_finish(errs, 0, check_ghosts);
}
