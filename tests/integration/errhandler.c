/*
 * Error handlers (MPI 3.1, section 8.3): MPI_COMM_WORLD starts with
 * MPI_ERRORS_ARE_FATAL; MPI_Comm_set/get_errhandler; new communicators
 * inherit the handler of the one they come from; a user handler made with
 * MPI_Comm_create_errhandler is called with the communicator and the error
 * code, once per error, and the call then returns that code; freeing the
 * handler object leaves it attached where it is in use. Also MPI_Error_class
 * and MPI_Error_string on every error class.
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int g_calls = 0;
static MPI_Comm g_last_comm = MPI_COMM_NULL;
static int g_last_code = MPI_SUCCESS;

static void count_errors(MPI_Comm* comm, int* code, ...) {
    ++g_calls;
    g_last_comm = *comm;
    g_last_code = *code;
}

/* Sends to an invalid rank on comm and checks what the handler saw. */
static int raise_on(MPI_Comm comm, const char* what, int expected_calls) {
    int errs = 0, size, buf = 0, cls = -1;
    MPI_Comm_size(comm, &size);
    int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, comm);
    errs += MT_CHECK(g_calls == expected_calls, "%s: user handler called %d times, expected %d",
                     what, g_calls, expected_calls);
    errs += MT_CHECK(g_last_comm == comm, "%s: handler got a different communicator", what);
    MPI_Error_class(g_last_code, &cls);
    errs += MT_CHECK(cls == MPI_ERR_RANK, "%s: handler got class %s", what, mtest_class_name(cls));
    errs += mtest_check_class_at(__FILE__, __LINE__, what, rc, MPI_ERR_RANK);
    return errs;
}

static int handlers(void) {
    int errs = 0;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    errs += MT_CHECK(eh == MPI_ERRORS_ARE_FATAL,
                     "MPI_COMM_WORLD does not start with "
                     "MPI_ERRORS_ARE_FATAL");

    /* MPI_ERRORS_RETURN is inherited by dups and splits, not given to the parent. */
    MPI_Comm a, b, c;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_Comm_dup(a, &b);
    MPI_Comm_split(b, 0, 0, &c);
    MPI_Comm_get_errhandler(a, &eh);
    errs += MT_CHECK(eh == MPI_ERRORS_RETURN, "set/get of MPI_ERRORS_RETURN");
    MPI_Comm_get_errhandler(b, &eh);
    errs += MT_CHECK(eh == MPI_ERRORS_RETURN, "a dup did not inherit MPI_ERRORS_RETURN");
    MPI_Comm_get_errhandler(c, &eh);
    errs += MT_CHECK(eh == MPI_ERRORS_RETURN, "a split did not inherit MPI_ERRORS_RETURN");
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    errs += MT_CHECK(eh == MPI_ERRORS_ARE_FATAL, "setting a dup's handler changed the parent's");
    int size, buf = 0;
    MPI_Comm_size(c, &size);
    errs += MT_CLASS(MPI_Send(&buf, 1, MPI_INT, size, 0, c), MPI_ERR_RANK);

    /* A user handler. */
    MPI_Errhandler mine;
    MPI_Comm_create_errhandler(count_errors, &mine);
    MPI_Comm_set_errhandler(a, mine);
    MPI_Comm_get_errhandler(a, &eh);
    errs += MT_CHECK(eh == mine, "MPI_Comm_get_errhandler does not return the user handler");
    errs += raise_on(a, "user handler", 1);
    errs += raise_on(a, "user handler again", 2);

    /* Freed while attached: stays in force, and is inherited by a new dup. */
    MPI_Errhandler_free(&mine);
    errs += MT_CHECK(mine == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");
    errs += raise_on(a, "user handler after MPI_Errhandler_free", 3);
    MPI_Comm d;
    MPI_Comm_dup(a, &d);
    errs += raise_on(d, "user handler inherited by a dup", 4);
    /* b still has MPI_ERRORS_RETURN: its errors do not reach the user handler. */
    errs += MT_CLASS(MPI_Send(&buf, 1, MPI_INT, -9, 0, b), MPI_ERR_RANK);
    errs += MT_EQ(g_calls, 4);

#ifdef SI_MPI
    /* An error found when completing a request is raised on the request's
     * communicator (MPICH 4.0.2 raises it on MPI_COMM_WORLD instead). */
    int rank, big[4] = {1, 2, 3, 4}, small[1];
    MPI_Comm_rank(d, &rank);
    MPI_Request req[2];
    MPI_Irecv(small, 1, MPI_INT, rank, 5, d, &req[0]);
    MPI_Isend(big, 4, MPI_INT, rank, 5, d, &req[1]);
    int rc = MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    errs += mtest_check_class_at(__FILE__, __LINE__, "MPI_Wait (truncated)", rc, MPI_ERR_TRUNCATE);
    errs += MT_CHECK(g_calls == 5 && g_last_comm == d,
                     "MPI_Wait's error did not go to the request's communicator's handler");
#endif

    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
    MPI_Comm_free(&d);
    return errs;
}

/* Every error class is a valid error code of its own class, with a text. */
static int classes_and_strings(void) {
    static const int classes[] = {
        MPI_SUCCESS,    MPI_ERR_BUFFER,    MPI_ERR_COUNT,   MPI_ERR_TYPE,     MPI_ERR_TAG,
        MPI_ERR_COMM,   MPI_ERR_RANK,      MPI_ERR_REQUEST, MPI_ERR_ROOT,     MPI_ERR_GROUP,
        MPI_ERR_OP,     MPI_ERR_ARG,       MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER,
        MPI_ERR_INTERN, MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_NO_MEM};
    int errs = 0;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
        int cls = -1, length = -1;
        char text[MPI_MAX_ERROR_STRING];
        MPI_Error_class(classes[i], &cls);
        errs += MT_CHECK(cls == classes[i], "MPI_Error_class(%s) is %d",
                         mtest_class_name(classes[i]), cls);
        MPI_Error_string(classes[i], text, &length);
        errs += MT_CHECK(
            length > 0 && length < MPI_MAX_ERROR_STRING && strlen(text) == (size_t)length,
            "MPI_Error_string(%s): \"%s\", length %d", mtest_class_name(classes[i]), text, length);
    }
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    int errs = 0;
    errs += handlers();
    errs += classes_and_strings();
    return mtest_finish(errs);
}
