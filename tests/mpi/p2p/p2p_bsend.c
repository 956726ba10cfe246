/*
 * Buffered sends (MPI 3.1, sections 3.4 and 3.6). With a buffer attached,
 * MPI_Bsend and MPI_Ibsend complete at once, whether or not the receive is
 * posted: rank 0 sends several messages (eager and rendezvous sizes) to
 * rank 1, which receives them only afterwards, in order. The attached buffer
 * needs the messages plus MPI_BSEND_OVERHEAD each; a send that does not fit
 * fails with MPI_ERR_BUFFER. MPI_Buffer_detach waits until the buffer's
 * messages have left and returns its address and size; a second attach
 * while one is attached is an error.
 */
#include <stdlib.h>

#include "mtest.h"

static const int kSizes[] = {0, 8, 16384, 16385, 32768, 32769, 300000};
enum { kMessages = sizeof kSizes / sizeof kSizes[0] };

static int g_rank, g_size;

static int buffer_bytes(void) {
    int total = 0;
    for (int i = 0; i < kMessages; ++i) total += kSizes[i] + MPI_BSEND_OVERHEAD;
    return total;
}

static int send_before_receive(void) {
    if (g_size < 2 || g_rank > 1) return 0;
    int errs = 0;
    unsigned char* data = mtest_malloc(300000);
    if (g_rank == 0) {
        const int size = buffer_bytes();
        void* buffer = mtest_malloc((size_t)size);
        MPI_Buffer_attach(buffer, size);
        for (int i = 0; i < kMessages; ++i) {
            mtest_fill(data, (size_t)kSizes[i], (unsigned)i);
            if (i % 2 == 0) {
                MPI_Bsend(data, kSizes[i], MPI_BYTE, 1, i, MPI_COMM_WORLD);
            } else {
                MPI_Request request;
                int flag = 0;
                MPI_Ibsend(data, kSizes[i], MPI_BYTE, 1, i, MPI_COMM_WORLD, &request);
                MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
                errs += MT_CHECK(flag, "MPI_Ibsend of %d bytes not complete at once", kSizes[i]);
                if (!flag) MPI_Wait(&request, MPI_STATUS_IGNORE);
            }
        }
        /* The receiver has not started: every message is in the buffer. */
        MPI_Send(NULL, 0, MPI_BYTE, 1, 100, MPI_COMM_WORLD);
        void* detached = NULL;
        int detached_size = 0;
        MPI_Buffer_detach(&detached, &detached_size);
        errs += MT_CHECK(detached == buffer, "MPI_Buffer_detach returned another address");
        errs += MT_EQ(detached_size, size);
        free(buffer);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < kMessages; ++i) {
            MPI_Status status;
            int count = -1;
            MPI_Recv(data, 300000, MPI_BYTE, 0, i, MPI_COMM_WORLD, &status);
            MPI_Get_count(&status, MPI_BYTE, &count);
            errs += MT_EQ(count, kSizes[i]);
            errs += MT_VERIFY("received", data, (size_t)kSizes[i], (unsigned)i);
        }
    }
    free(data);
    return errs;
}

static int errors(void) {
    int errs = 0, size = 100 + 2 * MPI_BSEND_OVERHEAD;
    char* buffer = mtest_malloc((size_t)size);
    /* A message as large as the buffer never fits beside its overhead
     * (MPI_BSEND_OVERHEAD may exceed the library's own: the standard ABI's is 512). */
    char* data = calloc((size_t)size, 1);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Buffer_attach(buffer, size);
    errs += MT_CLASS(MPI_Buffer_attach(buffer, size), MPI_ERR_BUFFER);
    /* `size` bytes do not fit; 100 do, and are received. */
    errs += MT_CLASS(MPI_Bsend(data, size, MPI_BYTE, 0, 1, MPI_COMM_SELF), MPI_ERR_BUFFER);
    errs += MT_CLASS(MPI_Bsend(data, 100, MPI_BYTE, 0, 1, MPI_COMM_SELF), MPI_SUCCESS);
    MPI_Recv(data, size, MPI_BYTE, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    void* detached;
    MPI_Buffer_detach(&detached, &size);
    free(buffer);
    free(data);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    int errs = send_before_receive();
    errs += errors();
    return mtest_finish(errs);
}
