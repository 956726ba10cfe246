/*
 * Persistent requests (MPI 3.1, section 3.9). Each rank sets up, once, a
 * receive from its left neighbour and a send to its right one, in every send
 * mode, and starts them round after round: eager and rendezvous sizes, with
 * MPI_Start and MPI_Startall, completed by each completion call in turn. A
 * completed persistent request stays allocated and inactive: completion
 * calls treat it like MPI_REQUEST_NULL (an empty status) until the next
 * start. Ready mode starts its sends once every receive is posted. Also: MPI_Request_free of an inactive request, starting an active
 * one (an error), and a synchronous persistent send, which cannot complete
 * before its receive starts; and a derived type freed right after
 * MPI_Send_init / MPI_Recv_init, which the requests must keep using.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kRounds = 12, kLarge = 1 << 20 };

static int g_rank, g_size;

/* Completes requests[0..1] with the completion call of this round. */
static void complete_both(int round, MPI_Request* requests) {
    int flag = 0, index, count, indices[2];
    MPI_Status statuses[2];
    switch (round % 5) {
        case 0: MPI_Waitall(2, requests, statuses); break;
        case 1:
            MPI_Wait(&requests[0], &statuses[0]);
            MPI_Wait(&requests[1], &statuses[1]);
            break;
        case 2:
            for (int done = 0; done < 2; ++done) MPI_Waitany(2, requests, &index, &statuses[0]);
            break;
        case 3:
            for (int done = 0; done < 2; done += count)
                MPI_Waitsome(2, requests, &count, indices, statuses);
            break;
        default:
            while (!flag) MPI_Testall(2, requests, &flag, statuses);
            break;
    }
}

static int send_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                     MPI_Request* r) {
    return MPI_Send_init(b, n, t, d, tag, c, r);
}
static int ssend_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                      MPI_Request* r) {
    return MPI_Ssend_init(b, n, t, d, tag, c, r);
}
static int rsend_init(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                      MPI_Request* r) {
    return MPI_Rsend_init(b, n, t, d, tag, c, r);
}

static int ring_rounds(int (*init)(const void*, int, MPI_Datatype, int, int, MPI_Comm,
                                   MPI_Request*),
                       const char* mode, int bytes) {
    int errs = 0;
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    unsigned char* out = mtest_malloc((size_t)bytes + 1);
    unsigned char* in = mtest_malloc((size_t)bytes + 1);
    MPI_Request requests[2];
    MPI_Recv_init(in, bytes, MPI_BYTE, left, 5, MPI_COMM_WORLD, &requests[0]);
    init(out, bytes, MPI_BYTE, right, 5, MPI_COMM_WORLD, &requests[1]);
    for (int round = 0; round < kRounds; ++round) {
        mtest_fill(out, (size_t)bytes, (unsigned)(round * 131 + g_rank));
        memset(in, 0, (size_t)bytes);
        if (init == rsend_init) {
            /* Ready mode: every receive is posted before any send starts. */
            MPI_Start(&requests[0]);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Start(&requests[1]);
        } else if (round % 2 == 0) {
            MPI_Startall(2, requests);
        } else {
            MPI_Start(&requests[0]);
            MPI_Start(&requests[1]);
        }
        complete_both(round, requests);
        errs += MT_CHECK(requests[0] != MPI_REQUEST_NULL && requests[1] != MPI_REQUEST_NULL,
                         "%s: a completion call freed a persistent request", mode);
        errs += MT_VERIFY(mode, in, (size_t)bytes, (unsigned)(round * 131 + left));
        /* Inactive now: waiting returns at once with an empty status. */
        MPI_Status status;
        MPI_Wait(&requests[0], &status);
        int count = -1;
        MPI_Get_count(&status, MPI_BYTE, &count);
        errs += MT_EQ(count, 0);
        errs += MT_EQ(status.MPI_SOURCE, MPI_ANY_SOURCE);
        errs += MT_EQ(status.MPI_TAG, MPI_ANY_TAG);
    }
    MPI_Request_free(&requests[0]);
    MPI_Request_free(&requests[1]);
    errs += MT_EQ(requests[0], MPI_REQUEST_NULL);
    errs += MT_EQ(requests[1], MPI_REQUEST_NULL);
    free(out);
    free(in);
    return errs;
}

/* A rank may run rounds ahead of its right neighbour: room for every round. */
static int buffered_rounds(int bytes) {
    int size = kRounds * (bytes + MPI_BSEND_OVERHEAD);
    void* buffer = mtest_malloc((size_t)size);
    MPI_Buffer_attach(buffer, size);
    const int errs = ring_rounds(MPI_Bsend_init, "MPI_Bsend_init", bytes);
    void* detached;
    MPI_Buffer_detach(&detached, &size);
    free(buffer);
    return errs;
}

/* The receive starts only after the sender has watched its synchronous
 * persistent send stay incomplete. */
static int synchronous_waits(void) {
    if (g_size < 2 || g_rank > 1) return 0;
    int errs = 0, value = 7, flag = 0;
    MPI_Request request;
    if (g_rank == 0) {
        MPI_Ssend_init(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &request);
        MPI_Start(&request);
        for (int i = 0; i < 20 && !flag; ++i) {
            MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
            if (!flag) mtest_sleep_ms(1);
        }
        errs += MT_CHECK(!flag, "a synchronous persistent send completed before its receive");
        MPI_Send(NULL, 0, MPI_INT, 1, 10, MPI_COMM_WORLD);
        if (!flag) MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Request_free(&request);
    } else {
        MPI_Recv(NULL, 0, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errs += MT_EQ(value, 7);
    }
    return errs;
}

static int misuse(void) {
    int errs = 0, value = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request request;
    /* Starting an active request is an error; the request stays usable. */
    MPI_Recv_init(&value, 1, MPI_INT, MPI_ANY_SOURCE, 11, MPI_COMM_WORLD, &request);
    MPI_Start(&request);
    errs += MT_CLASS(MPI_Start(&request), MPI_ERR_REQUEST);
    MPI_Send(&g_rank, 1, MPI_INT, g_rank, 11, MPI_COMM_WORLD);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    errs += MT_EQ(value, g_rank);
    MPI_Request_free(&request);
    errs += MT_CLASS(MPI_Send_init(&value, 1, MPI_INT, g_size, 0, MPI_COMM_WORLD, &request),
                     MPI_ERR_RANK);
    errs += MT_CLASS(MPI_Recv_init(&value, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, &request),
                     MPI_ERR_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

// The program may free a request's derived type at once (MPI-3.1 section
// 4.1.9: ongoing communication is not affected).
static int freed_type_rounds(void) {
    int errs = 0;
    MPI_Datatype strided;
    MPI_Type_vector(4, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    int out[8] = {0, 1, 2, 3, 4, 5, 6, 7}, in[8];
    MPI_Request requests[2];
    MPI_Recv_init(in, 1, strided, (g_rank + g_size - 1) % g_size, 3, MPI_COMM_WORLD, &requests[0]);
    MPI_Send_init(out, 1, strided, (g_rank + 1) % g_size, 3, MPI_COMM_WORLD, &requests[1]);
    MPI_Type_free(&strided);
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 8; ++i) in[i] = -1;
        MPI_Startall(2, requests);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        errs += MT_CHECK(in[0] == 0 && in[2] == 2 && in[6] == 6 && in[1] == -1,
                         "freed type, round %d: %d %d %d %d", round, in[0], in[1], in[2], in[6]);
    }
    MPI_Request_free(&requests[0]);
    MPI_Request_free(&requests[1]);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = 0;
    static const int kSizes[] = {0, 8, 16384, 16385, 32768, 32769, kLarge};
    for (size_t i = 0; i < sizeof kSizes / sizeof kSizes[0]; ++i) {
        errs += ring_rounds(send_init, "MPI_Send_init", kSizes[i]);
        errs += ring_rounds(ssend_init, "MPI_Ssend_init", kSizes[i]);
        errs += buffered_rounds(kSizes[i]);
    }
    errs += ring_rounds(rsend_init, "MPI_Rsend_init", 8);
    errs += ring_rounds(rsend_init, "MPI_Rsend_init", kLarge);
    errs += synchronous_waits();
    errs += misuse();
    errs += freed_type_rounds();
    return mtest_finish(errs);
}
