/*
 * Truncation: a message longer than the receive buffer is an error of class
 * MPI_ERR_TRUNCATE (MPI 3.1, section 3.2.4), reported by whichever call
 * completes the receive: MPI_Recv, MPI_Wait, MPI_Test, or MPI_Waitall, which
 * returns MPI_ERR_IN_STATUS and puts each request's own code in its status's
 * MPI_ERROR. With MPI_ERRORS_RETURN the program goes on, so a runtime must
 * also leave things usable afterwards: nothing written past the buffer, the
 * sender's request completed (a truncated rendezvous must still release the
 * sender), and later messages unaffected.
 *
 * Sizes cover an eager message, ones just over the default eager limits (16
 * KiB over verbs, 32 KiB on shared memory) into a buffer just under them, and
 * rendezvous messages; each case runs with the
 * receive posted first and with the message arriving first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kGuard = 256, kFill = 0xC3 };

static const struct {
    int sent, room;
} kCases[] = {{100, 64},       {16384, 100},     {16385, 16384},
               {32769, 32768},  {100000, 50000},  {1 << 20, (1 << 20) - 1}};

typedef enum { RECV, WAIT, TEST, WAITALL } Completion;
static const char* kCompletionNames[] = {"MPI_Recv", "MPI_Wait", "MPI_Test", "MPI_Waitall"};

static int g_rank, g_size;
static MPI_Comm g_comm; /* a dup of MPI_COMM_WORLD with MPI_ERRORS_RETURN */

/* The sender's side must not notice the receiver's error. Whether a send
 * completes with MPI_SUCCESS here is this runtime's contract; the standard
 * only defines the receiver's error. */
static int check_send_rc(const char* what, int rc) {
#ifdef SI_MPI
    return MT_CHECK(rc == MPI_SUCCESS, "%s: the sender's completion returned %d", what, rc);
#else
    (void)what;
    (void)rc;
    return 0;
#endif
}

static int run_case(int c, Completion how, int recv_first) {
    const int sent = kCases[c].sent, room = kCases[c].room;
    const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
    char what[128];
    snprintf(what, sizeof what, "%s, %d bytes into %d, %s first", kCompletionNames[how], sent, room,
             recv_first ? "receive" : "message");
    int errs = 0, rc, flag;
    unsigned char* sbuf = mtest_malloc((size_t)sent);
    unsigned char* rbuf = mtest_malloc((size_t)room + kGuard);
    unsigned char small_out[8], small_in[8];
    MPI_Request sreq[2], rreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status status[2];
    mtest_fill(sbuf, (size_t)sent, (unsigned)(c * 100 + g_rank));
    mtest_fill(small_out, sizeof small_out, 9);
    memset(rbuf, kFill, (size_t)room + kGuard);

    /* A correct message (tag 1) goes first in the Waitall case, so that one
     * status has MPI_SUCCESS and the other the truncation. */
    if (recv_first && how != RECV) {
        if (how == WAITALL)
            MPI_Irecv(small_in, sizeof small_in, MPI_BYTE, left, 1, g_comm, &rreq[0]);
        MPI_Irecv(rbuf, room, MPI_BYTE, left, 2, g_comm, &rreq[1]);
    }
    MPI_Barrier(g_comm);
    if (how == WAITALL)
        MPI_Isend(small_out, sizeof small_out, MPI_BYTE, right, 1, g_comm, &sreq[0]);
    MPI_Isend(sbuf, sent, MPI_BYTE, right, 2, g_comm, &sreq[1]);
    MPI_Barrier(g_comm);
    if (!recv_first && how != RECV) {
        if (how == WAITALL)
            MPI_Irecv(small_in, sizeof small_in, MPI_BYTE, left, 1, g_comm, &rreq[0]);
        MPI_Irecv(rbuf, room, MPI_BYTE, left, 2, g_comm, &rreq[1]);
    }

    switch (how) {
        case RECV:
            rc = MPI_Recv(rbuf, room, MPI_BYTE, left, 2, g_comm, &status[1]);
            errs += mtest_check_class_at(__FILE__, __LINE__, what, rc, MPI_ERR_TRUNCATE);
            break;
        case WAIT:
            rc = MPI_Wait(&rreq[1], &status[1]);
            errs += mtest_check_class_at(__FILE__, __LINE__, what, rc, MPI_ERR_TRUNCATE);
            break;
        case TEST:
            for (flag = 0, rc = MPI_SUCCESS; !flag && rc == MPI_SUCCESS;)
                rc = MPI_Test(&rreq[1], &flag, &status[1]);
            errs += mtest_check_class_at(__FILE__, __LINE__, what, rc, MPI_ERR_TRUNCATE);
            break;
        case WAITALL:
            status[0].MPI_ERROR = status[1].MPI_ERROR = -12345;
            rc = MPI_Waitall(2, rreq, status);
            errs += mtest_check_class_at(__FILE__, __LINE__, what, rc, MPI_ERR_IN_STATUS);
            errs += mtest_check_class_at(__FILE__, __LINE__, "status[0].MPI_ERROR (no error)",
                                         status[0].MPI_ERROR, MPI_SUCCESS);
            errs += mtest_check_class_at(__FILE__, __LINE__, "status[1].MPI_ERROR (truncated)",
                                         status[1].MPI_ERROR, MPI_ERR_TRUNCATE);
            errs += MT_VERIFY(what, small_in, sizeof small_in, 9);
            break;
    }
    errs += MT_CHECK(rreq[0] == MPI_REQUEST_NULL && rreq[1] == MPI_REQUEST_NULL,
                     "%s: receive request not freed after the error", what);
    /* Never a byte past the buffer. */
    errs += MT_VERIFY_VALUE(what, rbuf + room, kGuard, kFill);

    if (how == WAITALL) errs += check_send_rc(what, MPI_Wait(&sreq[0], MPI_STATUS_IGNORE));
    errs += check_send_rc(what, MPI_Wait(&sreq[1], MPI_STATUS_IGNORE));

    /* The pair still works: the same size again, now with enough room. */
    unsigned char* again = mtest_malloc((size_t)sent);
    rc = MPI_Sendrecv(sbuf, sent, MPI_BYTE, right, 3, again, sent, MPI_BYTE, left, 3, g_comm,
                      &status[0]);
    errs += mtest_check_class_at(__FILE__, __LINE__, "MPI_Sendrecv after the truncation", rc,
                                 MPI_SUCCESS);
    errs +=
        MT_VERIFY("message after the truncation", again, (size_t)sent, (unsigned)(c * 100 + left));
    free(again);
    free(sbuf);
    free(rbuf);
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    MPI_Comm_dup(MPI_COMM_WORLD, &g_comm);
    MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_RETURN);
    /* Also on MPI_COMM_WORLD: MPICH 4.0.2 raises an error found by MPI_Wait on
     * a posted receive's request there rather than on the request's
     * communicator. Which handler runs is checked in errhandler.c. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    const int ncases = (int)(sizeof kCases / sizeof kCases[0]);
    for (int c = 0; c < ncases; ++c)
        for (Completion how = RECV; how <= WAITALL; ++how)
            for (int recv_first = 0; recv_first <= (how == RECV ? 0 : 1); ++recv_first)
                errs += run_case(c, how, recv_first);

    MPI_Comm_free(&g_comm);
    return mtest_finish(errs);
}
