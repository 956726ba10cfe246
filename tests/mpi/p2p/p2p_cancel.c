/*
 * MPI_Cancel (MPI 3.1, section 3.8.4). A receive nothing has matched is
 * cancelled: it completes, MPI_Test_cancelled says so, and a message sent
 * afterwards goes to the next matching receive instead. A receive already
 * complete cannot be: it keeps its data. A send may or may not be
 * cancelled (the standard lets the library decide); either way the outcome
 * must be consistent: the receiver gets the message exactly when the sender
 * was told it was not cancelled. Persistent receives can be cancelled and
 * started again.
 */
#include <stdlib.h>

#include "mtest.h"

/* kNeverSent: no rank sends with it on MPI_COMM_WORLD, so that a wildcard
 * receive cannot match rank 0's sends of cancel_send() before it is cancelled. */
enum { kTag = 3, kVerdict = 4, kNeverSent = 5, kLarge = 1 << 20 };

static int g_rank, g_size;

static int cancel_unmatched_receive(void) {
    int errs = 0, value = -1, flag = 0;
    MPI_Request request;
    MPI_Status status;
    MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, kNeverSent, MPI_COMM_WORLD, &request);
    MPI_Cancel(&request);
    MPI_Wait(&request, &status);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_CHECK(flag, "an unmatched receive was not cancelled");
    errs += MT_EQ(request, MPI_REQUEST_NULL);
    /* The message sent now is not lost to the cancelled receive. */
    const int mine = 100 + g_rank;
    MPI_Request send;
    MPI_Isend(&mine, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, &send);
    MPI_Recv(&value, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, &status);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    errs += MT_EQ(value, mine);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_CHECK(!flag, "a received message reports itself cancelled");
    return errs;
}

static int cancel_matched_receive(int bytes) {
    int errs = 0, flag = 1;
    unsigned char* buffer = mtest_malloc((size_t)bytes);
    MPI_Request request;
    MPI_Status status;
    MPI_Irecv(buffer, bytes, MPI_BYTE, 0, kTag, MPI_COMM_SELF, &request);
    unsigned char* out = mtest_malloc((size_t)bytes);
    mtest_fill(out, (size_t)bytes, (unsigned)bytes);
    MPI_Request send;
    MPI_Isend(out, bytes, MPI_BYTE, 0, kTag, MPI_COMM_SELF, &send);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    /* Complete, so certainly matched: cancelling it changes nothing. */
    int complete = 0;
    while (!complete) MPI_Request_get_status(request, &complete, MPI_STATUS_IGNORE);
    MPI_Cancel(&request);
    MPI_Wait(&request, &status);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_CHECK(!flag, "a matched receive of %d bytes was cancelled", bytes);
    errs += MT_VERIFY("received", buffer, (size_t)bytes, (unsigned)bytes);
    free(buffer);
    free(out);
    return errs;
}

/* Rank 0 sends to rank 1, which is not receiving yet, and cancels at once;
 * MPI_Wait must then return without rank 1 receiving (MPI 3.1, 3.8.4), and
 * rank 0 tells rank 1 whether the cancel worked. */
static int cancel_send(int bytes) {
    if (g_size < 2 || g_rank > 1) return 0;
    int errs = 0, cancelled = 0;
    unsigned char* buffer = mtest_malloc((size_t)bytes);
    if (g_rank == 0) {
        mtest_fill(buffer, (size_t)bytes, 77u);
        MPI_Request request;
        MPI_Status status;
        MPI_Isend(buffer, bytes, MPI_BYTE, 1, kTag, MPI_COMM_WORLD, &request);
        MPI_Cancel(&request);
        MPI_Wait(&request, &status);
        MPI_Test_cancelled(&status, &cancelled);
#ifdef SI_MPI
        /* This runtime takes back an RTS its receiver has not matched. */
        if (bytes == kLarge) errs += MT_CHECK(cancelled, "an unmatched rendezvous send stayed");
#endif
        MPI_Send(&cancelled, 1, MPI_INT, 1, kVerdict, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&cancelled, 1, MPI_INT, 0, kVerdict, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!cancelled) {
            MPI_Recv(buffer, bytes, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errs += MT_VERIFY("received", buffer, (size_t)bytes, 77u);
        } else {
            /* The verdict came after the message would have: it is gone. */
            int there = 1;
            MPI_Iprobe(0, kTag, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
            errs += MT_CHECK(!there, "a cancelled send of %d bytes arrived", bytes);
        }
    }
    free(buffer);
    return errs;
}

static int cancel_persistent(void) {
    int errs = 0, value = -1, flag = 0;
    MPI_Request request;
    MPI_Status status;
    MPI_Recv_init(&value, 1, MPI_INT, 0, kTag, MPI_COMM_SELF, &request);
    MPI_Start(&request);
    MPI_Cancel(&request);
    MPI_Wait(&request, &status);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_CHECK(flag, "a started persistent receive was not cancelled");
    MPI_Start(&request);
    MPI_Send(&g_rank, 1, MPI_INT, 0, kTag, MPI_COMM_SELF);
    MPI_Wait(&request, &status);
    errs += MT_EQ(value, g_rank);
    MPI_Request_free(&request);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = cancel_unmatched_receive();
    errs += cancel_matched_receive(8);
    errs += cancel_matched_receive(kLarge);
    errs += cancel_send(8);
#ifdef SI_MPI
    /* Debian's MPICH 4.0.2 (ch4:ucx) does not return from this MPI_Wait
     * until the receiver receives: it cannot take back a rendezvous send. */
    errs += cancel_send(kLarge);
#endif
    errs += cancel_persistent();
    return mtest_finish(errs);
}
