/*
 * Erroneous RMA calls with MPI_ERRORS_RETURN on the window (MPI 3.1,
 * sections 8.3 and 11.8): each must return a code of the class the standard
 * names for it, MPI_Error_string must describe it, and the window must stay
 * usable: after every group of errors a fence epoch, and at the end a lock
 * and a post/start epoch, move data correctly.
 *   MPI_ERR_RMA_SYNC   Put / Get / Accumulate outside any epoch (before the
 *                      first synchronization, after a MPI_MODE_NOSUCCEED fence,
 *                      after an unlock); unlock, unlock_all or flush without a
 *                      lock; complete without start; wait without post; a
 *                      second lock_all.
 *   MPI_ERR_RMA_RANGE  a target range beyond the target's window.
 *   MPI_ERR_LOCKTYPE   an invalid lock type (MPI_ERR_ARG accepted too).
 *   MPI_ERR_RANK       a target rank outside the group (MPI_PROC_NULL is a
 *                      valid target: it succeeds and moves nothing).
 *   MPI_ERR_WIN        calls on MPI_WIN_NULL.
 * And no error at all for operations that move nothing, whatever their types.
 *
 * Out-of-range accesses: the standard lets an implementation leave an
 * error undetected (2.8), and MPICH 4.0.2 does not check the target range:
 * it returns MPI_SUCCESS and performs the access. Under MPICH the test
 * therefore accepts MPI_SUCCESS there, and each window sits at the start of
 * a larger buffer so that the stray bytes land in memory the test owns;
 * under our runtime (SI_MPI) the error is required and the padding must
 * stay untouched.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kWindowBytes = 64, kBufferBytes = 4096, kPadByte = 0x5C };

static int g_rank, g_size, g_right, g_left;
static int g_round = 0;

/* rc must be of class `expected`, or of class `alternative` when that is not
 * MPI_SUCCESS; MPI_SUCCESS itself is accepted only if `alternative` is. */
static int expect(int line, const char* what, int rc, int expected, int alternative) {
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &got);
    if (got == alternative) return mtest_check_class_at(__FILE__, line, what, rc, alternative);
    return mtest_check_class_at(__FILE__, line, what, rc, expected);
}
#define EXPECT(call, expected) expect(__LINE__, #call, (call), (expected), (expected))
#define EXPECT_EITHER(call, expected, alternative) \
    expect(__LINE__, #call, (call), (expected), (alternative))

/* A fence epoch in which each rank puts a fresh value into word 0 of its
 * right neighbour: the window still works. */
static int exchange(MPI_Win win, const int* mem) {
    int errs = 0;
    ++g_round;
    const int value = 1000 * g_round + g_rank;
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, g_right, 0, 1, MPI_INT, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), MPI_SUCCESS);
    errs += MT_CHECK(mem[0] == 1000 * g_round + g_left, "round %d: word 0 is %d, expected %d",
                     g_round, mem[0], 1000 * g_round + g_left);
    return errs;
}

static int outside_epochs(MPI_Win win, const int* mem) {
    int errs = 0, value = g_rank, got = -1;
    /* No synchronization yet since MPI_Win_create. */
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, g_right, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Get(&got, 1, MPI_INT, g_right, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Accumulate(&value, 1, MPI_INT, g_right, 1, 1, MPI_INT, MPI_SUM, win),
                   MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, g_rank, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    errs += exchange(win, mem); /* ends with a MPI_MODE_NOSUCCEED fence */
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, g_right, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, g_right, 0, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_unlock(g_right, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Get(&got, 1, MPI_INT, g_right, 1, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    errs += exchange(win, mem);
    return errs;
}

static int out_of_range(MPI_Win win, const int* mem, const unsigned char* buffer) {
    int errs = 0, value = -1;
#ifdef SI_MPI
    const int undetected = MPI_ERR_RMA_RANGE;
#else
    const int undetected = MPI_SUCCESS; /* MPICH 4.0.2: see the header comment */
#endif
    const MPI_Aint words = kWindowBytes / sizeof(int);
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), MPI_SUCCESS);
    /* Just past the end, far past it, and straddling it. */
    errs += EXPECT_EITHER(MPI_Put(&value, 1, MPI_INT, g_right, words, 1, MPI_INT, win),
                          MPI_ERR_RMA_RANGE, undetected);
    errs += EXPECT_EITHER(MPI_Put(&value, 1, MPI_INT, g_right, 500, 1, MPI_INT, win),
                          MPI_ERR_RMA_RANGE, undetected);
    int pair[2] = {-1, -1};
    errs += EXPECT_EITHER(MPI_Put(pair, 2, MPI_INT, g_right, words - 1, 2, MPI_INT, win),
                          MPI_ERR_RMA_RANGE, undetected);
    errs += EXPECT_EITHER(MPI_Get(pair, 2, MPI_INT, g_right, words - 1, 2, MPI_INT, win),
                          MPI_ERR_RMA_RANGE, undetected);
    errs += EXPECT_EITHER(
        MPI_Accumulate(&value, 1, MPI_INT, g_rank, words + 3, 1, MPI_INT, MPI_SUM, win),
        MPI_ERR_RMA_RANGE, undetected);
    /* A negative displacement is an invalid argument to begin with. */
    errs += EXPECT_EITHER(MPI_Put(&value, 1, MPI_INT, g_right, -2, 1, MPI_INT, win), MPI_ERR_DISP,
                          MPI_ERR_RMA_RANGE);
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), MPI_SUCCESS);
#ifdef SI_MPI
    errs += MT_VERIFY_VALUE("padding after the window", buffer + kWindowBytes,
                            kBufferBytes - kWindowBytes, kPadByte);
#else
    (void)buffer;
#endif
    errs += exchange(win, mem);
    return errs;
}

static int wrong_passive(MPI_Win win, const int* mem) {
    int errs = 0;
    errs += EXPECT(MPI_Win_unlock(g_right, win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Win_flush(g_right, win), MPI_ERR_RMA_SYNC);
    /* A lock_all inside a lock_all fails; the first one stays. */
    errs += EXPECT(MPI_Win_lock_all(0, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Win_unlock_all(win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    const int rc = MPI_Win_lock(12345, g_right, 0, win);
    errs += expect(__LINE__, "MPI_Win_lock(12345, ...)", rc, MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    if (rc == MPI_SUCCESS) MPI_Win_unlock(g_right, win); /* reported already */
    errs += exchange(win, mem);
    return errs;
}

static int wrong_active(MPI_Win win, const int* mem) {
    int errs = 0;
    errs += EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    errs += EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    errs += exchange(win, mem);
    return errs;
}

static int bad_ranks(MPI_Win win, int* mem) {
    int errs = 0, value = 7;
    mem[2] = -1; /* before the fence: nobody accesses word 2 */
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, g_size, 2, 1, MPI_INT, win), MPI_ERR_RANK);
    /* -7: negative, and none of the special ranks in either mpi.h. */
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, -7, 2, 1, MPI_INT, win), MPI_ERR_RANK);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, MPI_ANY_SOURCE, 2, 1, MPI_INT, win), MPI_ERR_RANK);
    errs += EXPECT(MPI_Get(&value, 1, MPI_INT, g_size + 5, 2, 1, MPI_INT, win), MPI_ERR_RANK);
    errs += EXPECT(MPI_Accumulate(&value, 1, MPI_INT, g_size, 2, 1, MPI_INT, MPI_SUM, win),
                   MPI_ERR_RANK);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, MPI_PROC_NULL, 2, 1, MPI_INT, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), MPI_SUCCESS);
    errs += MT_CHECK(mem[2] == -1, "word 2 is %d after puts that should have gone nowhere", mem[2]);
    errs += EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, g_size, 0, win), MPI_ERR_RANK);
    errs += exchange(win, mem);
    return errs;
}

/* Operations that move nothing (zero counts, or items of a zero-size type)
 * are no errors whatever their types, as in MPICH (its rma/badrma), and leave
 * the target as it was. */
static int empty_operations(MPI_Win win, int* mem) {
    int errs = 0, value = 7;
    MPI_Datatype none;
    MPI_Type_contiguous(0, MPI_INT, &none);
    MPI_Type_commit(&none);
    mem[2] = -2;
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Accumulate(&value, 0, MPI_INT, g_right, 2, 0, MPI_DOUBLE, MPI_SUM, win),
                   MPI_SUCCESS);
    errs += EXPECT(MPI_Accumulate(NULL, 2, none, g_right, 2, 1, none, MPI_PROD, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Get_accumulate(NULL, 1, none, NULL, 2, none, g_right, 2, 0, MPI_DOUBLE,
                                      MPI_SUM, win),
                   MPI_SUCCESS);
    errs += EXPECT(MPI_Put(NULL, 0, MPI_INT, g_right, 2, 1, none, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Get(NULL, 3, none, g_right, 2, 0, MPI_DOUBLE, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), MPI_SUCCESS);
    errs += MT_CHECK(mem[2] == -2, "word 2 is %d after operations that moved nothing", mem[2]);
    MPI_Type_free(&none);
    errs += exchange(win, mem);
    return errs;
}

/* Errors with no valid window are raised on MPI_COMM_WORLD in MPI 3.1 (and
 * on MPI_COMM_SELF in MPI 4.0); main sets MPI_ERRORS_RETURN on both. */
static int null_window(void) {
    int errs = 0, value = 0;
    MPI_Win win = MPI_WIN_NULL;
    MPI_Group group = MPI_GROUP_NULL;
    errs += EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), MPI_ERR_WIN);
    errs += EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    errs += EXPECT(MPI_Win_get_group(MPI_WIN_NULL, &group), MPI_ERR_WIN);
    errs += EXPECT(MPI_Win_free(&win), MPI_ERR_WIN);
    return errs;
}

/* After all the errors: a lock epoch and a post/start epoch work too. */
static int still_works(MPI_Win win, int* mem) {
    int errs = 0, got = -1;
    const int value = 424242 + g_rank;
    errs += EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, g_right, 0, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Put(&value, 1, MPI_INT, g_right, 3, 1, MPI_INT, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_flush(g_right, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Get(&got, 1, MPI_INT, g_right, 3, 1, MPI_INT, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_unlock(g_right, win), MPI_SUCCESS);
    errs += MT_CHECK(got == value, "read back %d under a lock, expected %d", got, value);

    MPI_Group world, left, right;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &g_left, &left);
    MPI_Group_incl(world, 1, &g_right, &right);
    MPI_Barrier(MPI_COMM_WORLD); /* the lock epochs above are over everywhere */
    errs += EXPECT(MPI_Win_post(left, 0, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_start(right, 0, win), MPI_SUCCESS);
    const int pscw_value = 777 + g_rank;
    errs += EXPECT(MPI_Put(&pscw_value, 1, MPI_INT, g_right, 4, 1, MPI_INT, win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_complete(win), MPI_SUCCESS);
    errs += EXPECT(MPI_Win_wait(win), MPI_SUCCESS);
    errs +=
        MT_CHECK(mem[4] == 777 + g_left, "post/start put: %d, expected %d", mem[4], 777 + g_left);
    MPI_Group_free(&world);
    MPI_Group_free(&left);
    MPI_Group_free(&right);

    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    MPI_Win_get_errhandler(win, &handler);
    errs += MT_CHECK(handler == MPI_ERRORS_RETURN, "the window lost MPI_ERRORS_RETURN");
    return errs;
}

int main(int argc, char** argv) {
    mtest_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    g_right = (g_rank + 1) % g_size;
    g_left = (g_rank + g_size - 1) % g_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* The window is the first kWindowBytes of the buffer (see the header). */
    unsigned char* buffer = mtest_malloc(kBufferBytes);
    memset(buffer, kPadByte, kBufferBytes);
    memset(buffer, 0, kWindowBytes);
    int* mem = (int*)buffer;
    MPI_Win win;
    MPI_Win_create(buffer, kWindowBytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    int errs = outside_epochs(win, mem);
    errs += out_of_range(win, mem, buffer);
    errs += wrong_passive(win, mem);
    errs += wrong_active(win, mem);
    errs += bad_ranks(win, mem);
    errs += empty_operations(win, mem);
    errs += null_window();
    errs += still_works(win, mem);

    MPI_Win_free(&win);
    errs += MT_CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
    free(buffer);
    return mtest_finish(errs);
}
