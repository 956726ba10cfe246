/*
 * The rest of point-to-point: ready mode (MPI_Rsend / MPI_Irsend, with the
 * receive posted before the send starts, as the mode requires),
 * MPI_Sendrecv_replace around a ring (eager and rendezvous sizes, the
 * received message replacing the sent one in place), MPI_Request_get_status
 * (which looks without freeing), MPI_Testsome, and the completion calls on
 * arrays holding MPI_REQUEST_NULL and inactive persistent requests.
 */
#include <stdlib.h>

#include "mtest.h"

enum { kLarge = 1 << 20 };

static int g_rank, g_size;

static int ready_mode(int bytes) {
    int errs = 0;
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    unsigned char* out = mtest_malloc((size_t)bytes);
    /* One buffer per receive: a posted receive's buffer is not ours to read. */
    unsigned char* in = mtest_malloc((size_t)bytes);
    unsigned char* in2 = mtest_malloc((size_t)bytes);
    mtest_fill(out, (size_t)bytes, (unsigned)(bytes + g_rank));
    MPI_Request receives[2], send;
    MPI_Irecv(in, bytes, MPI_BYTE, left, 1, MPI_COMM_WORLD, &receives[0]);
    MPI_Irecv(in2, bytes, MPI_BYTE, left, 2, MPI_COMM_WORLD, &receives[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(out, bytes, MPI_BYTE, right, 1, MPI_COMM_WORLD);
    MPI_Wait(&receives[0], MPI_STATUS_IGNORE);
    errs += MT_VERIFY("MPI_Rsend", in, (size_t)bytes, (unsigned)(bytes + left));
    MPI_Irsend(out, bytes, MPI_BYTE, right, 2, MPI_COMM_WORLD, &send);
    MPI_Wait(&receives[1], MPI_STATUS_IGNORE);
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    errs += MT_VERIFY("MPI_Irsend", in2, (size_t)bytes, (unsigned)(bytes + left));
    free(out);
    free(in);
    free(in2);
    return errs;
}

static int sendrecv_replace(int bytes) {
    int errs = 0, count = -1;
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    unsigned char* buffer = mtest_malloc((size_t)bytes);
    mtest_fill(buffer, (size_t)bytes, (unsigned)(bytes * 3 + g_rank));
    MPI_Status status;
    MPI_Sendrecv_replace(buffer, bytes, MPI_BYTE, right, 4, left, 4, MPI_COMM_WORLD, &status);
    errs += MT_VERIFY("MPI_Sendrecv_replace", buffer, (size_t)bytes,
                      (unsigned)(bytes * 3 + left));
    errs += MT_EQ(status.MPI_SOURCE, left);
    MPI_Get_count(&status, MPI_BYTE, &count);
    errs += MT_EQ(count, bytes);
    free(buffer);
    return errs;
}

static int get_status_and_testsome(void) {
    int errs = 0, flag = 0, value = -1, outcount = -1, indices[3];
    MPI_Status status, statuses[3];
    MPI_Request requests[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Irecv(&value, 1, MPI_INT, 0, 6, MPI_COMM_SELF, &requests[1]);
    MPI_Request_get_status(requests[1], &flag, &status);
    errs += MT_EQ(flag, 0);
    MPI_Testsome(3, requests, &outcount, indices, statuses);
    errs += MT_EQ(outcount, 0);
    MPI_Send(&g_rank, 1, MPI_INT, 0, 6, MPI_COMM_SELF);
    while (!flag) MPI_Request_get_status(requests[1], &flag, &status);
    errs += MT_EQ(status.MPI_TAG, 6);
    errs += MT_CHECK(requests[1] != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
    MPI_Testsome(3, requests, &outcount, indices, statuses);
    errs += MT_EQ(outcount, 1);
    errs += MT_EQ(indices[0], 1);
    errs += MT_EQ(statuses[0].MPI_TAG, 6);
    errs += MT_EQ(value, g_rank);
    errs += MT_EQ(requests[1], MPI_REQUEST_NULL);
    /* Only null requests: MPI_UNDEFINED, and an empty status from get_status. */
    MPI_Testsome(3, requests, &outcount, indices, statuses);
    errs += MT_EQ(outcount, MPI_UNDEFINED);
    MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &status);
    errs += MT_EQ(flag, 1);
    errs += MT_EQ(status.MPI_SOURCE, MPI_ANY_SOURCE);
    return errs;
}

/* Inactive persistent requests count as null in every completion call. */
static int inactive_persistent(void) {
    int errs = 0, index = 0, outcount = 0, flag = 0, indices[2], value = 0;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Recv_init(&value, 1, MPI_INT, 0, 8, MPI_COMM_SELF, &requests[0]);
    MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
    errs += MT_EQ(index, MPI_UNDEFINED);
    MPI_Testany(2, requests, &index, &flag, MPI_STATUS_IGNORE);
    errs += MT_EQ(flag, 1);
    errs += MT_EQ(index, MPI_UNDEFINED);
    MPI_Waitsome(2, requests, &outcount, indices, MPI_STATUSES_IGNORE);
    errs += MT_EQ(outcount, MPI_UNDEFINED);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    errs += MT_CHECK(requests[0] != MPI_REQUEST_NULL, "MPI_Waitall freed a persistent request");
    /* Started, it completes through MPI_Waitany and stays allocated. */
    MPI_Start(&requests[0]);
    MPI_Send(&g_rank, 1, MPI_INT, 0, 8, MPI_COMM_SELF);
    MPI_Waitany(2, requests, &index, MPI_STATUS_IGNORE);
    errs += MT_EQ(index, 0);
    errs += MT_EQ(value, g_rank);
    errs += MT_CHECK(requests[0] != MPI_REQUEST_NULL, "MPI_Waitany freed a persistent request");
    MPI_Request_free(&requests[0]);
    return errs;
}

static int status_cancelled(void) {
    int errs = 0, flag = -1;
    MPI_Status status;
    MPI_Status_set_cancelled(&status, 1);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_EQ(flag, 1);
    MPI_Status_set_cancelled(&status, 0);
    MPI_Test_cancelled(&status, &flag);
    errs += MT_EQ(flag, 0);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = 0;
    static const int kSizes[] = {0, 8, 16385, kLarge};
    for (size_t i = 0; i < sizeof kSizes / sizeof kSizes[0]; ++i) {
        errs += ready_mode(kSizes[i]);
        errs += sendrecv_replace(kSizes[i]);
    }
    errs += get_status_and_testsome();
    errs += inactive_persistent();
    errs += status_cancelled();
    return mtest_finish(errs);
}
