/*
 * Requests of sends that complete at once: an eager MPI_Isend usually has
 * left by the time it returns (this runtime then hands out a handle to one
 * shared, complete request). Every completion call must treat such handles
 * as the standard says for any complete send: MPI_Wait, MPI_Test and the
 * array forms complete them and set them to MPI_REQUEST_NULL, in any mix with
 * pending receives and rendezvous sends; MPI_Request_get_status leaves them
 * active; their statuses are not cancelled; MPI_Request_free forgets them; a persistent send
 * started again and again stays usable. The data of every message must arrive, in order.
 *
 * Ranks pair up (0 <-> 1, 2 <-> 3, ...); an odd last rank sends to itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kWindow = 16, kSmall = 8, kLarge = 64 * 1024, kRounds = 20 };

static int g_rank, g_size, g_peer;

static int check_null(const MPI_Request* requests, int n, const char* what) {
    int errs = 0;
    for (int i = 0; i < n; ++i)
        errs += MT_CHECK(requests[i] == MPI_REQUEST_NULL, "%s: request %d is not MPI_REQUEST_NULL",
                         what, i);
    return errs;
}

/* A window of small sends, each completed by a different call; the peer
 * receives them in order and checks every value. */
static int window_of_calls(int round) {
    int errs = 0;
    int out[kWindow], in[kWindow];
    MPI_Request send[kWindow], recv[kWindow];
    for (int i = 0; i < kWindow; ++i) {
        out[i] = g_rank * 100000 + round * 100 + i;
        in[i] = -1;
        MPI_Irecv(&in[i], 1, MPI_INT, g_peer, 7, MPI_COMM_WORLD, &recv[i]);
    }
    for (int i = 0; i < kWindow; ++i)
        MPI_Isend(&out[i], 1, MPI_INT, g_peer, 7, MPI_COMM_WORLD, &send[i]);

    MPI_Status status;
    int flag = 0, index = -1, count = 0, indices[kWindow];
    MPI_Wait(&send[0], &status);
    do MPI_Test(&send[1], &flag, &status);
    while (!flag);
    do MPI_Request_get_status(send[2], &flag, &status);
    while (!flag);
    errs += MT_CHECK(send[2] != MPI_REQUEST_NULL,
                     "MPI_Request_get_status: the request must stay active");
    MPI_Wait(&send[2], MPI_STATUS_IGNORE);
    MPI_Wait(&send[3], &status);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_CHECK(!flag, "the status of a send that completed says it was cancelled");
    MPI_Request_free(&send[4]);
    MPI_Waitany(2, &send[5], &index, MPI_STATUS_IGNORE);
    MPI_Waitany(2, &send[5], &index, MPI_STATUS_IGNORE);
    do MPI_Testany(2, &send[7], &index, &flag, MPI_STATUS_IGNORE);
    while (send[7] != MPI_REQUEST_NULL || send[8] != MPI_REQUEST_NULL);
    while (count != MPI_UNDEFINED) MPI_Waitsome(3, &send[9], &count, indices, MPI_STATUSES_IGNORE);
    count = 0;
    while (count != MPI_UNDEFINED) MPI_Testsome(2, &send[12], &count, indices, MPI_STATUSES_IGNORE);
    /* The rest together with every receive, in one array. */
    MPI_Request rest[2 + kWindow];
    rest[0] = send[14];
    rest[1] = send[15];
    memcpy(&rest[2], recv, sizeof recv);
    do MPI_Testall(2 + kWindow, rest, &flag, MPI_STATUSES_IGNORE);
    while (!flag);
    send[4] = MPI_REQUEST_NULL; /* freed above */
    send[14] = rest[0];
    send[15] = rest[1];
    errs += check_null(send, kWindow, "sends");
    errs += check_null(&rest[2], kWindow, "receives");
    for (int i = 0; i < kWindow; ++i)
        errs += MT_CHECK(in[i] == g_peer * 100000 + round * 100 + i,
                         "round %d message %d: got %d, expected %d", round, i, in[i],
                         g_peer * 100000 + round * 100 + i);
    return errs;
}

/* Small and rendezvous sends in one MPI_Waitall with their receives: the
 * statuses of the receives say who sent how much. */
static int mixed_waitall(int round, unsigned char* big_out, unsigned char* big_in) {
    int errs = 0;
    int small_out = round, small_in = -1;
    MPI_Request r[4];
    MPI_Status st[4];
    mtest_fill(big_out, kLarge, (unsigned)(g_rank * 7 + round));
    MPI_Irecv(&small_in, 1, MPI_INT, g_peer, 8, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(big_in, kLarge, MPI_BYTE, g_peer, 9, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(&small_out, 1, MPI_INT, g_peer, 8, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(big_out, kLarge, MPI_BYTE, g_peer, 9, MPI_COMM_WORLD, &r[3]);
    errs += MT_CHECK(MPI_Waitall(4, r, st) == MPI_SUCCESS, "MPI_Waitall failed");
    int count = -1;
    MPI_Get_count(&st[1], MPI_BYTE, &count);
    errs += MT_CHECK(st[0].MPI_SOURCE == g_peer && st[0].MPI_TAG == 8 && small_in == round,
                     "small receive: source %d tag %d value %d", st[0].MPI_SOURCE, st[0].MPI_TAG,
                     small_in);
    errs += MT_CHECK(st[1].MPI_SOURCE == g_peer && st[1].MPI_TAG == 9 && count == kLarge,
                     "large receive: source %d tag %d count %d", st[1].MPI_SOURCE, st[1].MPI_TAG,
                     count);
    errs += MT_VERIFY("large receive", big_in, kLarge, (unsigned)(g_peer * 7 + round));
    errs += check_null(r, 4, "mixed Waitall");
    return errs;
}

/* A persistent send and receive, started and completed many times. */
static int persistent(void) {
    int errs = 0;
    int out = 0, in = -1;
    MPI_Request send, recv;
    MPI_Send_init(&out, 1, MPI_INT, g_peer, 10, MPI_COMM_WORLD, &send);
    MPI_Recv_init(&in, 1, MPI_INT, g_peer, 10, MPI_COMM_WORLD, &recv);
    for (int i = 0; i < kRounds; ++i) {
        out = g_rank * 1000 + i;
        MPI_Start(&recv);
        MPI_Start(&send);
        MPI_Wait(&send, MPI_STATUS_IGNORE);
        errs += MT_CHECK(send != MPI_REQUEST_NULL, "a persistent send became MPI_REQUEST_NULL");
        MPI_Wait(&recv, MPI_STATUS_IGNORE);
        errs += MT_CHECK(in == g_peer * 1000 + i, "persistent round %d: got %d", i, in);
    }
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_peer = g_rank ^ 1;
    if (g_peer >= g_size) g_peer = g_rank;
    unsigned char* big_out = malloc(kLarge);
    unsigned char* big_in = malloc(kLarge);
    int errs = 0;
    for (int round = 0; round < kRounds; ++round) {
        errs += window_of_calls(round);
        errs += mixed_waitall(round, big_out, big_in);
    }
    errs += persistent();
    free(big_out);
    free(big_in);
    return mtest_finish(errs);
}
