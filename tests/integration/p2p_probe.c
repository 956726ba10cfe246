/*
 * MPI_Probe / MPI_Iprobe and MPI_Get_count. The common idiom is "probe, ask
 * the status how big the message is, allocate exactly that, receive": it
 * only works if the probe's status is complete (source, tag, count) for
 * eager and rendezvous messages alike, and if probing does not consume the
 * message. MPI_Iprobe must say "nothing" when nothing has been sent.
 * MPI_Get_count returns MPI_UNDEFINED when the data is not a whole number of
 * the datatype asked for (MPI 3.1, section 3.2.5 and example 4.12).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kPerRank = 6 };
static int g_rank, g_size;

static int msg_bytes(int src, int i) {
    static const int sizes[] = {0, 3, 16384, 16385, 32768, 32769, 300000, 1 << 20};
    return sizes[(src + i) % 6];
}
static unsigned msg_seed(int src, int i) {
    return (unsigned)(src * 1013 + i * 7 + 5);
}

/* Every rank sends kPerRank messages (tags 0..kPerRank-1) to `root`, which
 * discovers them with a wildcard probe, allocates what MPI_Get_count says
 * and receives exactly that. */
static int probe_then_receive(int root, int use_iprobe) {
    int errs = 0;
    MPI_Request req[kPerRank];
    unsigned char* sbuf[kPerRank];
    for (int i = 0; i < kPerRank; ++i) {
        sbuf[i] = mtest_malloc((size_t)msg_bytes(g_rank, i));
        mtest_fill(sbuf[i], (size_t)msg_bytes(g_rank, i), msg_seed(g_rank, i));
        MPI_Isend(sbuf[i], msg_bytes(g_rank, i), MPI_BYTE, root, i, MPI_COMM_WORLD, &req[i]);
    }
    if (g_rank == root) {
        int* next = calloc((size_t)g_size, sizeof(int));
        for (int k = 0; k < g_size * kPerRank; ++k) {
            MPI_Status status;
            int count = -1, flag = 0;
            if (use_iprobe)
                while (!flag)
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &status);
            else
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
            const int src = status.MPI_SOURCE, tag = status.MPI_TAG;
            if (src < 0 || src >= g_size || tag != next[src])
                MT_FATAL("probe returned source %d tag %d; expected the next tag of that source",
                         src, tag);
            MPI_Get_count(&status, MPI_BYTE, &count);
            errs += MT_EQ(count, msg_bytes(src, tag));
            if (count < 0) MT_FATAL("MPI_Get_count gave %d", count);

            /* Probing again must find the same message: probes do not consume. */
            MPI_Status again;
            MPI_Probe(src, tag, MPI_COMM_WORLD, &again);
            int count2 = -1;
            MPI_Get_count(&again, MPI_BYTE, &count2);
            errs += MT_EQ(count2, count);

            unsigned char* rbuf = mtest_malloc((size_t)count);
            MPI_Recv(rbuf, count, MPI_BYTE, src, tag, MPI_COMM_WORLD, &status);
            errs += MT_EQ(status.MPI_SOURCE, src);
            errs += MT_EQ(status.MPI_TAG, tag);
            char what[64];
            snprintf(what, sizeof what, "probed message %d from %d", tag, src);
            errs += MT_VERIFY(what, rbuf, (size_t)count, msg_seed(src, tag));
            free(rbuf);
            ++next[src];
        }
        free(next);
    }
    MPI_Waitall(kPerRank, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < kPerRank; ++i) free(sbuf[i]);
    return errs;
}

/* MPI_Iprobe finds nothing before the message is sent, then finds it. The
 * left neighbour sends only after our "probed" token. */
static int iprobe_nothing_then_something(void) {
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    enum { kTag = 50, kToken = 51 };
    int errs = 0, flag = 1, value = g_rank, got = -1;
    MPI_Status status;
    MPI_Request req;
    MPI_Iprobe(left, kTag, MPI_COMM_WORLD, &flag, &status);
    errs += MT_CHECK(!flag, "MPI_Iprobe found a message that was not sent yet");
    /* (Not MPI_ANY_TAG: the right neighbour's token may already be here.) */
    MPI_Iprobe(MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &flag, &status);
    errs += MT_CHECK(!flag,
                     "MPI_Iprobe(MPI_ANY_SOURCE) found a message from %d that was not "
                     "sent yet",
                     status.MPI_SOURCE);
    MPI_Sendrecv(NULL, 0, MPI_INT, left, kToken, NULL, 0, MPI_INT, right, kToken, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Isend(&value, 1, MPI_INT, right, kTag, MPI_COMM_WORLD, &req);
    for (flag = 0; !flag;) MPI_Iprobe(left, kTag, MPI_COMM_WORLD, &flag, &status);
    errs += MT_EQ(status.MPI_SOURCE, left);
    errs += MT_EQ(status.MPI_TAG, kTag);
    MPI_Recv(&got, 1, MPI_INT, left, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    errs += MT_EQ(got, left);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return errs;
}

/* MPI_Get_count with a datatype the data is not a whole number of. */
static int get_count_undefined(void) {
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    int errs = 0, count;
    int out[6] = {1, 2, 3, 4, 5, 6}, in[6];
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Request req;
    MPI_Status status;

    /* 5 ints into room for 3 pairs: a valid receive of 2.5 pairs. */
    MPI_Isend(out, 5, MPI_INT, right, 60, MPI_COMM_WORLD, &req);
    MPI_Probe(left, 60, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, MPI_INT, &count);
    errs += MT_EQ(count, 5);
    MPI_Get_count(&status, pair, &count);
    errs += MT_CHECK(count == MPI_UNDEFINED,
                     "probe: MPI_Get_count(5 ints, pair) = %d, "
                     "expected MPI_UNDEFINED",
                     count);
    MPI_Recv(in, 3, pair, left, 60, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, pair, &count);
    errs += MT_CHECK(count == MPI_UNDEFINED,
                     "recv: MPI_Get_count(5 ints, pair) = %d, "
                     "expected MPI_UNDEFINED",
                     count);
    MPI_Get_count(&status, MPI_INT, &count);
    errs += MT_EQ(count, 5);
    for (int i = 0; i < 5; ++i) errs += MT_EQ(in[i], i + 1);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* 6 ints are exactly 3 pairs; 0 ints are 0 pairs. */
    MPI_Sendrecv(out, 6, MPI_INT, right, 61, in, 3, pair, left, 61, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, pair, &count);
    errs += MT_EQ(count, 3);
    MPI_Sendrecv(out, 0, MPI_INT, right, 62, in, 3, pair, left, 62, MPI_COMM_WORLD, &status);
    MPI_Get_count(&status, pair, &count);
    errs += MT_EQ(count, 0);
    MPI_Type_free(&pair);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);

    errs += iprobe_nothing_then_something();
    /* Nobody may send the next phase's messages while a rank is still
     * checking that it has nothing pending. */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int root = 0; root < g_size; ++root) errs += probe_then_receive(root, root % 2);
    MPI_Barrier(MPI_COMM_WORLD); /* same for the last root's wildcard probes */
    errs += get_count_undefined();
    return mtest_finish(errs);
}
